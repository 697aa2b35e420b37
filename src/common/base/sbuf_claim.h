/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sbuf_claim.h: writing straight into the end of an sbuf, for a writer
 * whose output would otherwise be copied in from a buffer of its own
 * (a JSON escape of a scrape's page). Not part of sbuf(9), nor of
 * libstatsclient's API.
 */
#ifndef STATSD_SBUF_CLAIM_H
#define STATSD_SBUF_CLAIM_H

#include <stddef.h>

#include <statsd/sbuf.h>

/*
 * sbuf_claim: room for at least want bytes after the text, growing an
 * SBUF_AUTOEXTEND buffer for it; *room is all the room there is (the NUL
 * aside). Write into it, then sbuf_commit() what was written.
 * Returns: where to write; NULL if the buffer has an error, could not
 * grow (ENOMEM, latched), or is a fixed one with less room than want
 * (no error: sbuf_bcat() keeps what fits).
 */
char *sbuf_claim(struct sbuf *s, size_t want, size_t *room);

/* sbuf_commit: the first len bytes of the room claimed are text now. */
void sbuf_commit(struct sbuf *s, size_t len);

#endif
