/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rx_floor.c: what the kernel alone costs to hand datagrams to a
 * receiver, the floor under any statsd daemon's CPU a line: one thread
 * reads a UDP socket with recvmmsg(2), BATCH datagrams of buffers as
 * large as statsd's (65,535 bytes), and does nothing with them but read
 * their first byte. rx_floor.py runs it beside statsd, fed by
 * statsd_sender.c.
 *
 * With PAUSE_US 0 it reads as a naive loop does (MSG_WAITFORONE: it
 * returns what is there, sleeping when there is nothing). With PAUSE_US
 * > 0 it sleeps that long after a read that did not fill the batch, so
 * datagrams gather and most reads take a full batch: the least the
 * kernel's work per datagram can be.
 *
 * It stops once nothing came for a second, and prints one line:
 *
 *   ROW datagrams=N per_read=X user_us=U sys_us=S
 *
 * N datagrams read, X a recvmmsg on average, and its CPU from the first
 * datagram to the last read (getrusage), in microseconds.
 *
 * usage: rx_floor PORT PAUSE_US
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define BATCH	64
#define BUFSZ	65535

static double
tv_us(const struct timeval *a, const struct timeval *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 +
	    (double)(b->tv_usec - a->tv_usec);
}

int
main(int argc, char **argv)
{
	static struct mmsghdr m[BATCH];
	static struct iovec iov[BATCH];
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval idle = { 1, 0 };
	struct rusage r0, r1;
	long pause_us, n = 0, reads = 0;
	unsigned long seen = 0;
	int fd, k, i, rcvbuf = 8 << 20;
	char *buf;

	if (argc != 3) {
		fprintf(stderr, "usage: rx_floor PORT PAUSE_US\n");
		return 2;
	}
	a.sin_port = htons((uint16_t)atoi(argv[1]));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	pause_us = atol(argv[2]);
	buf = malloc((size_t)BATCH * BUFSZ);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (buf == NULL || fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
	    sizeof(rcvbuf)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, sizeof(idle)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("rx_floor");
		return 1;
	}
	printf("READY\n");
	fflush(stdout);
	for (;;) {
		for (i = 0; i < BATCH; i++) {
			iov[i].iov_base = buf + (size_t)i * BUFSZ;
			iov[i].iov_len = BUFSZ;
			m[i].msg_hdr.msg_iov = &iov[i];
			m[i].msg_hdr.msg_iovlen = 1;
		}
		k = recvmmsg(fd, m, BATCH, MSG_WAITFORONE, NULL);
		if (k <= 0) {
			if (n > 0)
				break;		/* a second without any */
			continue;
		}
		if (n == 0)
			getrusage(RUSAGE_SELF, &r0);
		n += k;
		reads++;
		for (i = 0; i < k; i++)
			seen += *(unsigned char *)iov[i].iov_base;
		if (pause_us > 0 && k < BATCH) {
			struct timespec ts = { pause_us / 1000000,
			    (pause_us % 1000000) * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	getrusage(RUSAGE_SELF, &r1);
	printf("ROW datagrams=%ld per_read=%.1f user_us=%.0f sys_us=%.0f "
	    "seen=%lu\n", n, (double)n / (double)reads,
	    tv_us(&r0.ru_utime, &r1.ru_utime),
	    tv_us(&r0.ru_stime, &r1.ru_stime), seen);
	return 0;
}
