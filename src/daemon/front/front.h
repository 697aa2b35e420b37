/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * front.h: statsd's statsd/DogStatsD front door — the UDP socket
 * (anonymous) and the Unix datagram socket (SO_PASSCRED: each datagram
 * carries its sender's uid), made by statsd or passed by systemd, read in
 * batches with recvmmsg(2) from the event loop; each line is parsed in
 * place (statsd_line.h) and applied to its series (series.h). Kernel drops
 * (SO_RXQ_OVFL), refused lines per reason and the rest are counted, and
 * shown in statsd's own kstat.
 */
#ifndef STATSD_DAEMON_FRONT_H
#define STATSD_DAEMON_FRONT_H

#include <stddef.h>
#include <stdint.h>

struct statsd;
struct front;

/* The counters statsd:0:daemon shows, by these names, in this order. */
extern const char *const front_stat_names[];
extern const unsigned front_nstats;

/*
 * front_new: open the listeners statsd_udp and statsd_unix name (unless
 * one of the passed datagram sockets fds[0..nfds) is of that family: a
 * socket from systemd takes its place), and start reading them. fds are
 * taken over.
 * Returns: 0 and *ret; -errno (logged, naming the address).
 */
int front_new(struct statsd *d, const int *fds, size_t nfds,
    struct front **ret);

/* Close the sockets (and remove the Unix socket statsd bound). NULL-safe.
 * Returns: NULL. */
struct front *front_free(struct front *f);

/* Datagrams received since the start (f NULL: 0). */
uint64_t front_datagrams(const struct front *f);

/* The counters, front_nstats of them, into v (f NULL: zeros). */
void front_stat_values(const struct front *f, uint64_t *v);

#endif
