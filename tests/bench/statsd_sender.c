/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statsd_sender.c: the load of the statsd front-door benchmark: THREADS
 * threads each send UDP datagrams of LINES counter lines ("bench.c:1|c"),
 * one sendto(2) per datagram (an unbatched client, as statsd clients in
 * every language are), flat out for MS milliseconds, to HOST:PORT. Every
 * line adds 1 to one counter, so a daemon's count of it is the number of
 * lines it received. Prints one line:
 *
 *   sent LINES_SENT datagrams DATAGRAMS ns_per_line NS errors ERRORS
 *
 * where ns_per_line is the threads' time spent sending, per line sent.
 *
 * usage: statsd_sender HOST PORT THREADS LINES MS
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LINE	"bench.c:1|c\n"

struct sender {
	pthread_t		 th;
	struct sockaddr_in	 to;
	const char		*buf;
	size_t			 len;
	uint64_t		 deadline_ns;
	uint64_t		 datagrams;
	uint64_t		 errors;
	uint64_t		 busy_ns;
};

static atomic_int go;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *
sender_main(void *arg)
{
	struct sender *s = arg;
	uint64_t t0, t;
	unsigned i;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&s->to,
	    sizeof(s->to)) < 0) {
		perror("statsd_sender: socket");
		exit(1);
	}
	while (!atomic_load(&go))
		;
	t0 = now_ns();
	for (;;) {
		/* The clock is read once per 64 datagrams. */
		for (i = 0; i < 64; i++) {
			if (send(fd, s->buf, s->len, 0) < 0)
				s->errors++;	/* ECONNREFUSED, ENOBUFS */
			else
				s->datagrams++;
		}
		t = now_ns();
		if (t >= s->deadline_ns)
			break;
	}
	s->busy_ns = t - t0;
	close(fd);
	return NULL;
}

int
main(int argc, char **argv)
{
	struct sender *s;
	uint64_t sent = 0, dg = 0, busy = 0, errs = 0, deadline;
	unsigned threads, lines, ms, i;
	char *buf;
	size_t ll = strlen(LINE);

	if (argc != 6) {
		fprintf(stderr, "usage: statsd_sender HOST PORT THREADS LINES "
		    "MS\n");
		return 2;
	}
	threads = (unsigned)atoi(argv[3]);
	lines = (unsigned)atoi(argv[4]);
	ms = (unsigned)atoi(argv[5]);
	if (threads < 1 || threads > 256 || lines < 1 || lines > 1000 ||
	    ms < 1) {
		fprintf(stderr, "statsd_sender: bad THREADS, LINES or MS\n");
		return 2;
	}
	buf = malloc(ll * lines);
	s = calloc(threads, sizeof(*s));
	if (buf == NULL || s == NULL)
		return 1;
	for (i = 0; i < lines; i++)
		memcpy(buf + i * ll, LINE, ll);
	deadline = now_ns() + (uint64_t)ms * 1000000u;
	for (i = 0; i < threads; i++) {
		s[i].to.sin_family = AF_INET;
		s[i].to.sin_port = htons((uint16_t)atoi(argv[2]));
		if (inet_pton(AF_INET, argv[1], &s[i].to.sin_addr) != 1) {
			fprintf(stderr, "statsd_sender: bad HOST\n");
			return 2;
		}
		s[i].buf = buf;
		/* the last line's '\n' is not sent */
		s[i].len = ll * lines - 1;
		s[i].deadline_ns = deadline;
		if (pthread_create(&s[i].th, NULL, sender_main, &s[i]) != 0)
			return 1;
	}
	atomic_store(&go, 1);
	for (i = 0; i < threads; i++) {
		pthread_join(s[i].th, NULL);
		dg += s[i].datagrams;
		busy += s[i].busy_ns;
		errs += s[i].errors;
	}
	sent = dg * lines;
	printf("sent %llu datagrams %llu ns_per_line %.1f errors %llu\n",
	    (unsigned long long)sent, (unsigned long long)dg,
	    sent > 0 ? (double)busy / (double)sent : 0.0,
	    (unsigned long long)errs);
	free(buf);
	free(s);
	return 0;
}
