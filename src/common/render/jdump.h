/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jdump.h: a jansson value as compact JSON text, the bytes
 * json_dumps(v, JSON_COMPACT) writes, several times faster: for the
 * messages of the control socket, on both of its ends.
 */
#ifndef STATSD_JDUMP_H
#define STATSD_JDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* Values nested deeper than this are refused (jansson has no bound; a
 * message of statsd's nests a few levels). */
#define JDUMP_DEPTH_MAX	256

/*
 * jdump: v (an object or an array; with any set, any value) as compact
 * JSON text, NUL-terminated, in memory of the caller's to free();
 * *len, if not NULL, its length without the NUL. Like json_dumps(), NULL
 * for a string or key that is not UTF-8, and without memory; also past
 * JDUMP_DEPTH_MAX levels.
 */
#define JDUMP_ANY	0x1	/* any value, as JSON_ENCODE_ANY */
char *jdump(const json_t *v, unsigned flags, size_t *len);

/*
 * jdump_framed: head, then v as jdump() writes it, then tail (either may
 * be NULL), then a NUL, in one piece of memory: a message's frame
 * written round its parameters without building a second object.
 * *len (not NULL) is the text's length, the NUL included.
 */
char *jdump_framed(const char *head, const json_t *v, const char *tail,
    size_t *len);

/*
 * jtext: JSON text written piece by piece, for a message whose values
 * the writer holds: no jansson object built, encoded and freed for it (a
 * KstatCreate's parameters cost the client three times their encoding
 * that way). Zeroed to start. jtext_open() begins an object or array
 * ('{', '['), jtext_close() ends it ('}', ']'); jtext_key() writes a
 * member's key; the others write a value. Each writes the comma first
 * where one is due (after a value, not after '{', '[' or a key): the
 * writer says what, the commas follow. Strings are escaped as
 * jdump() escapes them; one that is not UTF-8 (or NULL), or no memory,
 * spoils the text. jtext_end(): the text, NUL-terminated, the caller's
 * to free(), *len (if not NULL) without the NUL; NULL if spoiled. The
 * buffer is empty again after it.
 */
struct jtext {
	char	*s;
	size_t	 len, cap;
	bool	 bad;		/* out of memory, or a value refused */
};

void jtext_open(struct jtext *t, char c);
void jtext_close(struct jtext *t, char c);
void jtext_key(struct jtext *t, const char *key);
void jtext_str(struct jtext *t, const char *s);
void jtext_int(struct jtext *t, int64_t v);
void jtext_bool(struct jtext *t, bool v);
char *jtext_end(struct jtext *t, size_t *len);

#endif
