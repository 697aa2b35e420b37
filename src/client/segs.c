/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * segs.c: the set of store segments a connection maps, following statsd's
 * SegmentAttach replies, and reads from them that wait out a writer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blob.h"
#include "segs.h"

static void
cl_seg_close(struct cl_seg *g)
{
	g->r = store_reader_close(g->r);
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

/* Map the segments of one SegmentAttach reply into nv[*got...]. */
static int
cl_segs_page(struct cl_segs *s, struct vlc_reply *rep, struct cl_segs *nv,
    int *ret_err)
{
	const json_t *list = json_object_get(rep->params, "segments");
	struct cl_seg *g, *old;
	size_t n = json_array_size(list), i;
	int fd, r;

	if (!json_is_array(list))
		return -EPROTO;
	g = realloc(nv->v, (nv->n + n + 1) * sizeof(*nv->v));
	if (g == NULL)
		return -ENOMEM;
	nv->v = g;
	for (i = 0; i < n; i++) {
		const json_t *e = json_array_get(list, i);
		const char *name = json_string_value(json_object_get(e,
		    "name"));
		const char *kind = json_string_value(json_object_get(e,
		    "kind"));
		json_t *fdv = json_object_get(e, "fd");

		if (name == NULL || strlen(name) >= CL_SEG_NAME_MAX ||
		    !json_is_integer(fdv) || json_integer_value(fdv) < 0)
			continue;
		fd = vlc_reply_take_fd(rep, (size_t)json_integer_value(fdv));
		if (fd < 0) {
			if (ret_err != NULL)
				*ret_err = fd;
			continue;
		}
		/* Twice (the set changed between pages): the first stays. */
		if (cl_segs_find(nv, name) != NULL) {
			close(fd);
			continue;
		}
		g = &nv->v[nv->n];
		memset(g, 0, sizeof(*g));
		snprintf(g->name, sizeof(g->name), "%s", name);
		g->priv = kind != NULL && strcmp(kind, "private") == 0;
		g->fd = fd;
		r = store_reader_open(fd, &g->r);
		if (r < 0) {
			close(fd);
			if (ret_err != NULL)
				*ret_err = r;
			continue;
		}
		g->birth = store_reader_birth(g->r);
		/* One mapped already: keep that mapping (its address is in
		 * use), drop the new one. */
		old = cl_segs_find(s, g->name);
		if (old != NULL && old->birth == g->birth) {
			cl_seg_close(g);
			*g = *old;
			old->r = NULL;
			old->fd = -1;
		}
		g->kcid = store_reader_kcid(g->r);
		nv->n++;
	}
	return 0;
}

int
cl_segs_attach(struct cl_segs *s, cl_segs_call_fn *call, void *ctx,
    int *ret_err)
{
	struct cl_segs nv = { NULL, 0 };
	struct vlc_reply rep;
	json_int_t from = 0;
	json_t *next;
	int r, pages;

	/* Pages: a few descriptors each. Bounded, as statsd's segments are. */
	for (pages = 0; pages < 65536; pages++) {
		r = call(ctx, from > 0 ? json_pack("{s:I}", "from", from) :
		    NULL, &rep);
		if (r == 0)
			r = cl_segs_page(s, &rep, &nv, ret_err);
		next = json_object_get(rep.params, "next");
		from = json_is_integer(next) ? json_integer_value(next) : 0;
		vlc_reply_done(&rep);
		if (r < 0) {
			cl_segs_free(&nv);
			return r;
		}
		if (from <= 0)
			break;
	}
	cl_segs_free(s);
	*s = nv;
	return 0;
}

struct cl_seg *
cl_segs_find(struct cl_segs *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].r != NULL && strcmp(s->v[i].name, name) == 0)
			return &s->v[i];
	return NULL;
}

struct cl_seg *
cl_segs_by_birth(struct cl_segs *s, uint64_t birth)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].r != NULL && s->v[i].birth == birth)
			return &s->v[i];
	return NULL;
}

uint64_t
cl_segs_kcid(const struct cl_segs *s)
{
	uint64_t k = 0;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].r != NULL)
			k += store_reader_kcid(s->v[i].r);
	return k;
}

bool
cl_segs_stale(const struct cl_segs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].r != NULL && strcmp(s->v[i].name, "all") == 0)
			return store_reader_kcid(s->v[i].r) != s->v[i].kcid;
	return false;
}

void
cl_segs_free(struct cl_segs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		cl_seg_close(&s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* ------------------------------------------------------- store reads */

#define CL_STORE_TRIES	1000	/* of a millisecond each, at most */

/* After a read that answered e: wait a millisecond and say "again" while
 * the writer kept it busy (-EAGAIN), CL_STORE_TRIES times at most. */
static bool
cl_store_again(int e, int *tries)
{
	struct timespec ts = { 0, 1000000 };

	if (e != -EAGAIN || ++*tries >= CL_STORE_TRIES)
		return false;
	nanosleep(&ts, NULL);
	return true;
}

int
cl_store_read(struct store_reader *r, struct store_ref ref,
    struct kstat_hdr *ret_h, void *buf, size_t bufsize, size_t *ret_size)
{
	int e, tries = 0;

	do
		e = store_reader_read(r, ref, NULL, ret_h, buf, bufsize,
		    ret_size);
	while (cl_store_again(e, &tries));
	return e;
}

int
cl_store_layout_raw(struct store_reader *r, struct store_ref ref, void *buf,
    size_t bufsize, size_t *ret_size)
{
	int e, tries = 0;

	do
		e = store_reader_read_layout(r, ref, NULL, NULL, buf, bufsize,
		    ret_size);
	while (cl_store_again(e, &tries));
	return e;
}

int
cl_store_layout(struct store_reader *r, struct store_ref ref, void *buf,
    size_t bufsize, size_t *ret_size)
{
	int e = cl_store_layout_raw(r, ref, buf, bufsize, ret_size);

	if (e == 0 && blob_layout_clean(buf, *ret_size) != NULL)
		e = -EBADMSG;
	return e;
}

int
cl_store_span(struct store_reader *r, struct store_ref ref,
    uint64_t *ret_off, uint32_t *ret_size, uint32_t *ret_chunk)
{
	int e, tries = 0;

	do
		e = store_reader_blob_span(r, ref, ret_off, ret_size,
		    ret_chunk);
	while (cl_store_again(e, &tries));
	return e;
}
