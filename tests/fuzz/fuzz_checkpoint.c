/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_checkpoint.c: libFuzzer target for what statsd reads from its state
 * directory at start: the input is the checkpoint (a log of framed
 * records, or a version 1 object), loaded by ck_load.c into a registry
 * with runtime files and quotas, as statsd does after a reboot; then every
 * restored kstat is rendered as a reader would see it (kstat(1M) times
 * and flat values, stats(3) JSON), a checkpoint pass writes the log back,
 * and everything is freed. A corrupted checkpoint must be set aside or
 * cut, never crash, overflow or leak (the sanitizers watch).
 *
 * The first lines of the input go through the framing unchanged, so
 * that records with a good length and CRC-32 (and a damaged JSON inside)
 * are reached as well: an input that starts with '!' has each of its
 * lines framed by the target before it is written.
 */
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include <statsd/sbuf.h>

#include "checkpoint.h"
#include "config.h"
#include "daemon.h"
#include "log.h"
#include "mirror.h"
#include "quota.h"
#include "registry.h"
#include "render_kstat.h"
#include "zones.h"

static char top[64], rt[64], st[64], ckpt[128];

static void clear_dir(const char *dir);

/* Leave nothing in /dev/shm. */
static void
cleanup(void)
{
	char persist[96];

	snprintf(persist, sizeof(persist), "%s/persist", rt);
	clear_dir(persist);
	(void)rmdir(persist);
	clear_dir(rt);
	(void)rmdir(rt);
	clear_dir(st);
	(void)rmdir(st);
	(void)rmdir(top);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char base[] = "/dev/shm/fuzz_checkpoint.XXXXXX";

	(void)argc;
	(void)argv;
	/* tmpfs where there is one: the checkpoint syncs what it writes,
	 * which costs nothing there. */
	if (mkdtemp(base) == NULL) {
		/* Shorter than base: copying sizeof(base) read past it. */
		static const char tmp[] = "/tmp/fuzz_checkpoint.XXXXXX";

		memcpy(base, tmp, sizeof(tmp));
		if (mkdtemp(base) == NULL)
			abort();
	}
	snprintf(top, sizeof(top), "%s", base);
	atexit(cleanup);
	snprintf(rt, sizeof(rt), "%s/run", base);
	snprintf(st, sizeof(st), "%s/state", base);
	snprintf(ckpt, sizeof(ckpt), "%s/statsd.checkpoint", st);
	if (mkdir(rt, 0700) < 0 || mkdir(st, 0700) < 0)
		abort();
	/* Only errors: a damaged checkpoint logs at every run. */
	log_set_level(LOG_LVL_ERROR);
	return 0;
}

/* One record framed as ck_frame.c frames it. */
static uint32_t
crc32(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < len; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffffu;
}

static void
write_input(const uint8_t *data, size_t size)
{
	FILE *f = fopen(ckpt, "we");
	size_t i, start;

	if (f == NULL)
		abort();
	if (size > 0 && data[0] == '!') {
		/* Frame each line. */
		for (start = i = 1; i <= size; i++) {
			if (i < size && data[i] != '\n')
				continue;
			fprintf(f, "%zu %08x ", i - start,
			    crc32(data + start, i - start));
			fwrite(data + start, 1, i - start, f);
			fputc('\n', f);
			start = i + 1;
		}
	} else {
		fwrite(data, 1, size, f);
	}
	fclose(f);
}

/* Empty a directory (of files). */
static void
clear_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);
	int n;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		n = snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (n < 0 || (size_t)n >= sizeof(path))
			continue;
		(void)unlink(path);
	}
	closedir(d);
}

static void
render_all(struct statsd *d)
{
	struct reg_kstat **ks;
	size_t n, i, ns;

	n = registry_kstats(d->reg, &ks);
	for (i = 0; i < n; i++) {
		const struct reg_kstat *k = ks[i];
		struct ks_view v = {
			.hdr = &k->hdr, .sb = registry_blob_peek(k),
		};
		struct ksfmt_stat *fl;
		struct sbuf *sb = sbuf_new_auto();
		char t[48];

		v.names = registry_kstat_names(k, &v.nnames);
		v.k2 = k->tpl->k2;
		ksfmt_time(t, sizeof(t), k->hdr.crtime);
		ksfmt_time(t, sizeof(t), k->hdr.snaptime);
		if (ksfmt_stats(&v, &fl, &ns) == 0)
			ksfmt_stats_free(fl, ns);
		if (sb != NULL) {
			(void)stats_blob_tostr((struct statsblob *)v.sb, sb,
			    SB_STRFMT_JSON, SB_TOSTR_META);
			sbuf_delete(sb);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct statsd d;

	memset(&d, 0, sizeof(d));
	if (config_defaults(&d.cfg) < 0)
		return 0;
	/* A small store: each input makes one. */
	d.cfg.max_kstats = 64;
	d.cfg.arena_size = 1 << 20;
	d.cfg.private_arena_size = 1 << 20;
	d.cfg.zones = ZONE_KIND_NONE;
	d.runtime_dir = strdup(rt);
	d.state_dir = strdup(st);
	d.sample_rates = strdup("");
	d.base = event_base_new();
	if (d.runtime_dir == NULL || d.state_dir == NULL ||
	    d.sample_rates == NULL || d.base == NULL)
		abort();
	write_input(data, size);
	if (zones_new(ZONE_KIND_NONE, NULL, &d.zones) < 0 ||
	    quota_new(&d, &d.quota) < 0 || registry_new(&d, &d.reg) < 0 ||
	    mirror_dir_make(d.runtime_dir, &d.persist_dir) < 0)
		abort();
	/* Each input starts after a "reboot": its blobs come from the
	 * checkpoint, and there is no ring journal to consult. */
	clear_dir(d.persist_dir);
	d.journal = NULL;
	if (checkpoint_new(&d, &d.checkpoint) < 0)
		abort();
	(void)checkpoint_load(d.checkpoint);
	render_all(&d);
	(void)checkpoint_write(d.checkpoint);
	d.checkpoint = checkpoint_free(d.checkpoint);
	d.reg = registry_free(d.reg);
	d.quota = quota_free(d.quota);
	d.zones = zones_free(d.zones);
	event_base_free(d.base);
	config_done(&d.cfg);
	free(d.runtime_dir);
	free(d.state_dir);
	free(d.persist_dir);
	free(d.sample_rates);
	/* What the pass wrote, and a set-aside copy, go. */
	(void)unlink(ckpt);
	{
		char bad[160];

		snprintf(bad, sizeof(bad), "%s.bad", ckpt);
		(void)unlink(bad);
	}
	return 0;
}
