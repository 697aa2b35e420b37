/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ck_frame.c: a checkpoint record as a line of the log and the writes of
 * the state directory's files: the frame ("<length> <crc32> <json>\n")
 * and its CRC-32, the log's head, the check of a line read back, and the
 * writes and syncs, counted for Info.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <zlib.h>

#include "checkpoint_priv.h"
#include "crashpoint.h"
#include "jdump.h"

/* A longer line is damage, not a record. */
#define CKPT_MAX_LINE		(8u << 20)

/* The standard CRC-32 (ISO-HDLC, as gzip and PNG use it). */
uint32_t
ck_crc32(const void *buf, size_t len)
{
	return (uint32_t)crc32(0L, (const Bytef *)buf, (uInt)len);
}

/* One record as its line: "<length> <crc32> <json>\n". */
char *
ck_line(json_t *rec, size_t *ret_len)
{
	char *json = jdump(rec, 0, NULL), *line;
	size_t n;
	int h;

	if (json == NULL)
		return NULL;
	n = strlen(json);
	line = malloc(n + 32);
	if (line == NULL) {
		free(json);
		return NULL;
	}
	h = snprintf(line, 32, "%zu %08" PRIx32 " ", n, ck_crc32(json, n));
	memcpy(line + h, json, n);
	line[h + n] = '\n';
	*ret_len = (size_t)h + n + 1;
	free(json);
	return line;
}

/* Bytes written to checkpoint files since start (Info). */
static uint64_t ck_written;

int
ck_write_all(int fd, const char *p, size_t len)
{
	ck_written += len;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Syncs of the state directory's files since start (Info): what a
 * batch of changes costs the disk. */
static uint64_t ck_syncs;

int
ck_sync(int fd)
{
	ck_syncs++;
	return fdatasync(fd);
}

/* One record's line to the log. With a crash point armed, in two
 * writes, so that a test can stop statsd between them as a crash in the
 * middle of a write would: a torn last record. */
int
ck_write_rec(int fd, const char *line, size_t len)
{
	int r;

	if (crashpoint_armed == NULL || len < 2)
		return ck_write_all(fd, line, len);
	r = ck_write_all(fd, line, len / 2);
	crashpoint("log.torn");
	return r < 0 ? r : ck_write_all(fd, line + len / 2, len - len / 2);
}

uint64_t
ck_written_bytes(void)
{
	return ck_written;
}

uint64_t
ck_sync_count(void)
{
	return ck_syncs;
}

/* The log's first line. Returns: it (malloc'd), or NULL. */
char *
ck_head(size_t *ret_len)
{
	json_t *head = json_pack("{s:s, s:i}", "format", "statsd-checkpoint",
	    "version", CKPT_VERSION);
	char *line = head != NULL ? ck_line(head, ret_len) : NULL;

	json_decref(head);
	return line;
}

/* A record's line, checked: its frame (length, CRC-32) and its JSON.
 * Returns: the record; NULL for damage. */
json_t *
ck_parse_line(const char *line, size_t n)
{
	unsigned long long len;
	unsigned crc;
	int skip = 0;
	json_t *rec;

	if (n > CKPT_MAX_LINE || line[n - 1] != '\n' ||
	    sscanf(line, "%llu %8x %n", &len, &crc, &skip) != 2 ||
	    skip == 0 || (size_t)skip + len + 1 != n ||
	    ck_crc32(line + skip, (size_t)len) != crc)
		return NULL;
	rec = json_loadb(line + skip, (size_t)len, JSON_REJECT_DUPLICATES,
	    NULL);
	if (!json_is_object(rec)) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}
