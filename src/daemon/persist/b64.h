/*
 * b64.h: base64 (RFC 4648, with padding) for blobs carried in JSON — the
 * checkpoint and Snapshot's raw bytes.
 */
#ifndef STATSD_DAEMON_B64_H
#define STATSD_DAEMON_B64_H

#include <stddef.h>

/* Encode len bytes. Returns: a NUL-terminated string (free() it); NULL. */
char *b64_encode(const void *data, size_t len);

/* Decode text into buf (cap bytes). Returns: the byte count; -EINVAL for
 * bad text; -ENOBUFS if cap is too small. */
long b64_decode(const char *text, void *buf, size_t cap);

#endif
