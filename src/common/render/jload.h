/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * jload.h: JSON text to a jansson value, as json_loadb() with
 * JSON_REJECT_DUPLICATES reads it, several times faster for the messages
 * of the control socket, on both of its ends.
 */
#ifndef STATSD_JLOAD_H
#define STATSD_JLOAD_H

#include <stddef.h>

#include <jansson.h>

/* Deeper than this, the text is left to jansson (which allows 2048). */
#define JLOAD_DEPTH_MAX	64

/*
 * jload: buf[0, len) as json_loadb(buf, len, JSON_REJECT_DUPLICATES,
 * err) reads it: the same value, or NULL with jansson's own error in
 * *err (err may be NULL).
 *
 * A fast reader takes what a message holds (objects, arrays, strings
 * with any escape but \u0000 and surrogate pairs, integers, true, false,
 * null) and gives up on anything else: a real, an escape it does not
 * take, too deep a nesting, anything jansson would refuse. What it gives
 * up on is read again by json_loadb(), so its answer and its error are
 * always jansson's.
 */
json_t *jload(const char *buf, size_t len, json_error_t *err);

/* The fast reader alone: NULL where it gives up (for the tests). */
json_t *jload_fast(const char *buf, size_t len);

#endif
