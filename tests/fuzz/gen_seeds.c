/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gen_seeds.c: writes the seed corpus under tests/fuzz/corpus/: small but
 * valid store segment images made by the real writer, ring scripts that
 * push valid records, wrap, and break the producer index, and spill
 * buffers filled by the real spill producer. Run by hand after a layout
 * change: gen_seeds <corpus dir>.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "ring.h"
#include "spill.h"
#include "spill_tpl.h"
#include "store.h"

static void
put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void
segment_seed(const char *dir, const char *name, int nk, int text)
{
	struct store_params p = { .kind = STORE_SEG_PUBLIC, .table_slots = 8,
	    .arena_size = 4096, .log_slots = 16 };
	struct kstat_hdr d = { .module = "app", .name = "lat",
	    .class_ = "misc", .type = 7, .crtime = 1 };
	struct store_slot x = { 0 };
	struct store_segment *s;
	uint8_t *img;
	void *blob;
	off_t len;
	int i, fd;

	if (store_segment_new(&p, &s) < 0)
		exit(1);
	for (i = 0; i < nk; i++) {
		d.instance = i;
		snprintf(d.path, sizeof(d.path), "%s",
		    text && i % 2 ? "io/disk/sda" : "");
		snprintf(d.desc, sizeof(d.desc), "%s",
		    text && i % 2 ? "queue latency" : "");
		if (store_kstat_add(s, &d, &x, (uint32_t)(24 + 40 * i), NULL) < 0)
			exit(1);
		store_kstat_write_begin(s, (uint32_t)i, &blob);
		memset(blob, 0x11 * (i + 1), 24);
		store_kstat_write_end(s, (uint32_t)i, 2);
	}
	if (nk > 2)
		store_kstat_remove(s, 1);
	fd = store_segment_fd(s);
	len = lseek(fd, 0, SEEK_END);
	img = malloc((size_t)len);
	if (img == NULL || pread(fd, img, (size_t)len, 0) != len)
		exit(1);
	put(dir, name, img, (size_t)len);
	free(img);
	store_segment_free(s);
}

/* Ring scripts use fuzz_ring.c's opcodes: 0 head, 1 record, 2 drain,
 * 3 header byte, 4 pop, 5 sleep/bookkeeping. */
static size_t
rec_step(uint8_t *b, uint8_t idx, uint8_t op, int64_t x, int64_t y)
{
	struct ring_rec r = { .handle = idx, .op = op, .x = x, .y = y, .time = 0 };

	b[0] = 1;
	b[1] = idx;
	memcpy(b + 2, &r, sizeof(r));
	return 2 + sizeof(r);
}

static size_t
head_step(uint8_t *b, uint64_t head)
{
	b[0] = 0;
	memcpy(b + 1, &head, sizeof(head));
	return 1 + sizeof(head);
}

static void
ring_seeds(const char *dir)
{
	uint8_t b[4096];
	size_t n = 0;
	uint8_t i;

	for (i = 0; i < 6; i++)
		n += rec_step(b + n, i, (uint8_t)(STATS_OP_ABS + i), i, i == 2 ? 5 : 0);
	n += head_step(b + n, 6);
	b[n++] = 2;
	b[n++] = 0;
	put(dir, "valid", b, n);

	n = 0;	/* wrap: 16 records twice */
	for (i = 0; i < 16; i++)
		n += rec_step(b + n, i, STATS_OP_XY, i, 1);
	n += head_step(b + n, 16);
	b[n++] = 2;
	b[n++] = 7;
	b[n++] = 4;
	b[n++] = 2;
	b[n++] = 0;
	n += head_step(b + n, 32);
	b[n++] = 2;
	b[n++] = 0;
	b[n++] = 5;
	put(dir, "wrap", b, n);

	n = 0;	/* out of range, then backwards */
	n += head_step(b + n, 17);
	b[n++] = 2;
	b[n++] = 0;
	put(dir, "too-far", b, n);
	n = 0;
	n += head_step(b + n, 8);
	b[n++] = 2;
	b[n++] = 4;
	n += head_step(b + n, 6);
	b[n++] = 2;
	b[n++] = 0;
	put(dir, "backwards", b, n);
}

static struct statsblob *spill_img;

static const struct statsblob *
spill_tpl_of(void *arg, uint32_t handle, uint32_t *ret_size)
{
	(void)arg;
	if (handle < 1 || handle > 2)
		return NULL;
	*ret_size = spill_img->cursz;
	return spill_img;
}

/* A buffer's entries, as statsd copies them out, after n updates of every
 * kind through a full 4-record ring. */
static void
spill_seed(const char *dir, const char *name, unsigned n, uint64_t seed)
{
	struct ring_consumer *c;
	struct ring_producer *p;
	struct spill_producer *sp;
	struct ring_ovf_hdr h;
	struct ring_rec rec, recs[8];
	uint8_t *copy = malloc(RING_OVF_MIN * 8);
	unsigned i;
	int k, got;

	if (copy == NULL || ring_create_ovf(2, RING_OVF_MIN * 8, &c) < 0 ||
	    ring_map(ring_consumer_fd(c), -1, &p) < 0 ||
	    spill_producer_new(p, spill_tpl_of, NULL, &sp) < 0)
		exit(1);
	for (i = 0; i < n; i++) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		memset(&rec, 0, sizeof(rec));
		rec.handle = 1 + (uint32_t)(seed >> 63);
		rec.voi = (uint16_t)((seed >> 40) % FUZZ_SPILL_NVOIS);
		rec.x = (int64_t)((seed >> 20) % 900);
		rec.time = 1000 + i * 997u;
		rec.op = (uint8_t[]){ STATS_OP_ABS, STATS_OP_XY, STATS_OP_ABS,
		    STATS_OP_SET, STATS_OP_XY, STATS_OP_ABS, STATS_OP_XY,
		    STATS_OP_QENTER, STATS_OP_TSTART, STATS_OP_REL }[rec.voi];
		if (rec.voi == 0 || rec.voi == 2)
			rec.flags = STATS_OPF_UNSIGNED;
		if (rec.op == STATS_OP_XY)
			rec.y = 2;
		if (rec.op == STATS_OP_QENTER || rec.op == STATS_OP_TSTART)
			rec.x = 0;
		(void)spill_push(sp, &rec);
	}
	for (i = 0; i < 100; i++) {
		(void)spill_handover(sp, true);
		got = ring_pop(c, recs, 8, 1);
		for (k = 0; k < got; k++)
			if (recs[k].op == RING_OP_SPILL &&
			    ring_consumer_ovf_copy(c, &recs[k], copy,
			    RING_OVF_MIN * 4, &h) == 0) {
				put(dir, name, copy, h.used);
				goto out;
			}
	}
	exit(1);
out:
	spill_producer_free(sp);
	ring_producer_free(p);
	ring_consumer_free(c);
	free(copy);
}

int
main(int argc, char **argv)
{
	char d[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds <corpus dir>\n");
		return 2;
	}
	snprintf(d, sizeof(d), "%s/store", argv[1]);
	segment_seed(d, "empty", 0, 0);
	segment_seed(d, "three", 3, 0);
	segment_seed(d, "text", 5, 1);
	snprintf(d, sizeof(d), "%s/ring", argv[1]);
	ring_seeds(d);
	spill_img = stats_blob_alloc((uint32_t)fuzz_spill_tpl(), 0);
	if (spill_img == NULL)
		return 1;
	snprintf(d, sizeof(d), "%s/spill", argv[1]);
	spill_seed(d, "few", 40, 1);
	spill_seed(d, "many", 800, 2);
	spill_seed(d, "logs", 300, 3);
	return 0;
}
