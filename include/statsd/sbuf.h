/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sbuf.h: a small growable string buffer with the sbuf(9) calling
 * conventions that stats(3) renders into.
 *
 * Linux has no sbuf(9). This is the subset stats(3) callers need. A buffer
 * made with SBUF_AUTOEXTEND (or sbuf_new_auto) grows on the heap; a fixed
 * buffer stops accepting text once full and latches ENOMEM, exactly as the
 * FreeBSD kernel sbuf latches its error, so a renderer can write blindly and
 * check sbuf_error() (or sbuf_finish()) once at the end.
 */
#ifndef STATSD_SBUF_H
#define STATSD_SBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

#ifndef STATS_API
#define STATS_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define SBUF_FIXEDLEN	0x00000000	/* fixed length buffer (default) */
#define SBUF_AUTOEXTEND	0x00000001	/* automatically extend buffer */

struct sbuf {
	char	*s_buf;		/* storage, always NUL terminated */
	ssize_t	 s_size;	/* size of storage */
	ssize_t	 s_len;		/* bytes of text held (excludes the NUL) */
	int	 s_error;	/* first error seen, latched */
	int	 s_flags;	/* SBUF_* plus private state */
};

/*
 * sbuf_new: set up a buffer. With s == NULL the struct is allocated and
 * sbuf_delete frees it. With buf == NULL the storage is allocated (length
 * bytes, or a default when length is 0 and SBUF_AUTOEXTEND is given).
 * Returns: the buffer, or NULL on allocation failure or bad arguments.
 */
STATS_API struct sbuf *sbuf_new(struct sbuf *s, char *buf, int length, int flags);

/* sbuf_new_auto: sbuf_new(NULL, NULL, 0, SBUF_AUTOEXTEND). */
STATS_API struct sbuf *sbuf_new_auto(void);

/*
 * sbuf_printf, sbuf_vprintf, sbuf_cat, sbuf_bcat, sbuf_putc: append text.
 * Returns: 0, or -1 once the buffer has an error (sbuf_error says which).
 */
STATS_API int sbuf_printf(struct sbuf *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
STATS_API int sbuf_vprintf(struct sbuf *s, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
STATS_API int sbuf_cat(struct sbuf *s, const char *str);
STATS_API int sbuf_bcat(struct sbuf *s, const void *data, size_t len);
STATS_API int sbuf_putc(struct sbuf *s, int c);

/* sbuf_clear: empty the buffer and forget any error. */
STATS_API void sbuf_clear(struct sbuf *s);

/*
 * sbuf_finish: mark the text complete.
 * Returns: 0, or -1 with errno set to the buffer's error.
 */
STATS_API int sbuf_finish(struct sbuf *s);

/* sbuf_data: the NUL-terminated text (valid until the next append). */
STATS_API char *sbuf_data(struct sbuf *s);

/* sbuf_len: the length of the text, or -1 if the buffer has an error. */
STATS_API ssize_t sbuf_len(struct sbuf *s);

/* sbuf_error: 0, or the errno latched by the first failed append. */
STATS_API int sbuf_error(const struct sbuf *s);

/* sbuf_delete: free storage this buffer allocated, and the struct itself if
 * sbuf_new allocated it. NULL is accepted. */
STATS_API void sbuf_delete(struct sbuf *s);

#ifdef __cplusplus
}
#endif

#endif /* STATSD_SBUF_H */
