/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sbuf.c: the sbuf(9)-style string buffer that every renderer writes into.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/sbuf.h>

#include "sbuf_claim.h"

#define SBUF_DYNSTRUCT	0x00010000	/* struct was malloc'ed here */
#define SBUF_DYNAMIC	0x00020000	/* storage was malloc'ed here */
#define SBUF_FINISHED	0x00040000
#define SBUF_MINSIZE	64

struct sbuf *
sbuf_new(struct sbuf *s, char *buf, int length, int flags)
{
	int dynstruct = 0;

	if (length < 0 || (flags & ~SBUF_AUTOEXTEND) != 0)
		return NULL;
	if (buf != NULL && length == 0)
		return NULL;
	if (s == NULL) {
		s = calloc(1, sizeof(*s));
		if (s == NULL)
			return NULL;
		dynstruct = SBUF_DYNSTRUCT;
	} else {
		memset(s, 0, sizeof(*s));
	}
	s->s_flags = flags | dynstruct;
	if (buf != NULL) {
		s->s_buf = buf;
		s->s_size = length;
	} else {
		if (length == 0)
			length = SBUF_MINSIZE;
		s->s_buf = malloc((size_t)length);
		if (s->s_buf == NULL) {
			if (dynstruct)
				free(s);
			return NULL;
		}
		s->s_size = length;
		s->s_flags |= SBUF_DYNAMIC;
	}
	s->s_buf[0] = '\0';
	return s;
}

struct sbuf *
sbuf_new_auto(void)
{
	return sbuf_new(NULL, NULL, 0, SBUF_AUTOEXTEND);
}

/* Make room for len more bytes plus the NUL; latch ENOMEM if we cannot. */
static int
sbuf_reserve(struct sbuf *s, size_t len)
{
	size_t need, nsize;
	char *nbuf;

	if (s->s_error != 0)
		return -1;
	need = (size_t)s->s_len + len + 1;
	if (need <= (size_t)s->s_size)
		return 0;
	if (!(s->s_flags & SBUF_AUTOEXTEND) || need > (size_t)SSIZE_MAX / 2) {
		s->s_error = ENOMEM;
		return -1;
	}
	nsize = (size_t)s->s_size;
	while (nsize < need)
		nsize *= 2;
	if (s->s_flags & SBUF_DYNAMIC) {
		nbuf = realloc(s->s_buf, nsize);
	} else {
		nbuf = malloc(nsize);
		if (nbuf != NULL)
			memcpy(nbuf, s->s_buf, (size_t)s->s_len + 1);
	}
	if (nbuf == NULL) {
		s->s_error = ENOMEM;
		return -1;
	}
	s->s_buf = nbuf;
	s->s_size = (ssize_t)nsize;
	s->s_flags |= SBUF_DYNAMIC;
	return 0;
}

int
sbuf_bcat(struct sbuf *s, const void *data, size_t len)
{
	size_t room;

	if (s->s_error != 0)
		return -1;
	if (sbuf_reserve(s, len) != 0) {
		/* A fixed buffer keeps as much text as fits, like sbuf(9). */
		room = (size_t)(s->s_size - s->s_len - 1);
		if (room > len)
			room = len;
		memcpy(s->s_buf + s->s_len, data, room);
		s->s_len += (ssize_t)room;
		s->s_buf[s->s_len] = '\0';
		return -1;
	}
	memcpy(s->s_buf + s->s_len, data, len);
	s->s_len += (ssize_t)len;
	s->s_buf[s->s_len] = '\0';
	return 0;
}

char *
sbuf_claim(struct sbuf *s, size_t want, size_t *room)
{
	if (s->s_error != 0)
		return NULL;
	if ((size_t)(s->s_size - s->s_len - 1) < want &&
	    (!(s->s_flags & SBUF_AUTOEXTEND) || sbuf_reserve(s, want) != 0))
		return NULL;
	*room = (size_t)(s->s_size - s->s_len - 1);
	return s->s_buf + s->s_len;
}

void
sbuf_commit(struct sbuf *s, size_t len)
{
	s->s_len += (ssize_t)len;
	s->s_buf[s->s_len] = '\0';
}

int
sbuf_cat(struct sbuf *s, const char *str)
{
	return sbuf_bcat(s, str, strlen(str));
}

int
sbuf_putc(struct sbuf *s, int c)
{
	char ch = (char)c;

	return sbuf_bcat(s, &ch, 1);
}

int
sbuf_vprintf(struct sbuf *s, const char *fmt, va_list ap)
{
	char small[256];
	va_list aq;
	int n;

	if (s->s_error != 0)
		return -1;
	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, aq);
	va_end(aq);
	if (n < 0) {
		s->s_error = EINVAL;
		return -1;
	}
	if ((size_t)n < sizeof(small))
		return sbuf_bcat(s, small, (size_t)n);
	if (sbuf_reserve(s, (size_t)n) != 0) {
		char *tmp = malloc((size_t)n + 1);

		/* Keep the prefix that fits, then report the latched error. */
		if (tmp != NULL) {
			int err = s->s_error;

			s->s_error = 0;
			vsnprintf(tmp, (size_t)n + 1, fmt, ap);
			sbuf_bcat(s, tmp, (size_t)n);
			free(tmp);
			s->s_error = err;
		}
		return -1;
	}
	vsnprintf(s->s_buf + s->s_len, (size_t)n + 1, fmt, ap);
	s->s_len += n;
	return 0;
}

int
sbuf_printf(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int rv;

	va_start(ap, fmt);
	rv = sbuf_vprintf(s, fmt, ap);
	va_end(ap);
	return rv;
}

void
sbuf_clear(struct sbuf *s)
{
	s->s_len = 0;
	s->s_error = 0;
	s->s_flags &= ~SBUF_FINISHED;
	s->s_buf[0] = '\0';
}

int
sbuf_finish(struct sbuf *s)
{
	s->s_flags |= SBUF_FINISHED;
	if (s->s_error != 0) {
		errno = s->s_error;
		return -1;
	}
	return 0;
}

char *
sbuf_data(struct sbuf *s)
{
	return s->s_buf;
}

ssize_t
sbuf_len(struct sbuf *s)
{
	if (s->s_error != 0)
		return -1;
	return s->s_len;
}

int
sbuf_error(const struct sbuf *s)
{
	return s->s_error;
}

void
sbuf_delete(struct sbuf *s)
{
	int dynstruct;

	if (s == NULL)
		return;
	if (s->s_flags & SBUF_DYNAMIC)
		free(s->s_buf);
	dynstruct = s->s_flags & SBUF_DYNSTRUCT;
	memset(s, 0, sizeof(*s));
	if (dynstruct)
		free(s);
}
