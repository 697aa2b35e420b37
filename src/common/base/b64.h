/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * b64.h: base64 (RFC 4648 §4, the standard alphabet, with padding), the
 * one codec of the tree: blobs carried in JSON (the checkpoint, Snapshot's
 * raw bytes, and libstatsclient reading them back) and the digits the
 * statsd front door keeps HyperLogLog registers in.
 */
#ifndef STATSD_B64_H
#define STATSD_B64_H

#include <stddef.h>

/* Encode len bytes. Returns: a NUL-terminated string (free() it); NULL. */
char *b64_encode(const void *data, size_t len);

/*
 * b64_decode: decode text into buf (cap bytes), strictly: padding to a
 * multiple of four, nothing but the alphabet and the final '='s, no
 * whitespace.
 * Returns: the byte count; -EINVAL for bad text; -ENOBUFS if cap is too
 * small.
 */
long b64_decode(const char *text, void *buf, size_t cap);

/* The digit of a value 0..63, and the value of a digit (-1: none). */
char b64_digit(unsigned v);
int b64_value(char c);

#endif /* STATSD_B64_H */
