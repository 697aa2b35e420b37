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
 * LINES "mix" sends instead one line a datagram over 1,000 names of the
 * types an application's DogStatsD client sends most, each name keeping
 * its type: of every 20 names, 8 counters (every fourth at a sample rate
 * of 0.5), 6 gauges, 3 timers, 2 histograms and a set. A daemon's count
 * of lines received is then its own (statsd's statsd_applied, Etsy
 * statsd's metrics_received).
 *
 * STATSD_SENDER_RATE, when set, paces each thread to that many datagrams
 * a second (checked every 64 datagrams, sleeping until due) instead of
 * flat out: at one rate, two daemons' CPU a line compares as it cannot
 * flat out, where a daemon that keeps up with a faster sender reads
 * bigger batches and spends less a line.
 *
 * usage: statsd_sender HOST PORT THREADS LINES|mix MS
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
#define MIX_NAMES	1000
#define MIX_LEN		40	/* a mix line's room */

struct sender {
	pthread_t		 th;
	struct sockaddr_in	 to;
	const char		*buf;
	size_t			 len;
	const char		*mix;		/* MIX_NAMES lines, or NULL */
	unsigned		 mix_at;
	uint64_t		 deadline_ns;
	uint64_t		 rate;		/* datagrams a second; 0: flat
						 * out */
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
			if (s->mix != NULL) {
				s->buf = s->mix + (size_t)s->mix_at * MIX_LEN;
				s->len = strlen(s->buf);
				s->mix_at = (s->mix_at + 1) % MIX_NAMES;
			}
			if (send(fd, s->buf, s->len, 0) < 0)
				s->errors++;	/* ECONNREFUSED, ENOBUFS */
			else
				s->datagrams++;
		}
		t = now_ns();
		if (t >= s->deadline_ns)
			break;
		if (s->rate > 0) {
			uint64_t due = t0 + s->datagrams * 1000000000u /
			    s->rate;
			struct timespec ts = {
				.tv_sec = (time_t)(due / 1000000000u),
				.tv_nsec = (long)(due % 1000000000u),
			};

			if (due > t)
				clock_nanosleep(CLOCK_MONOTONIC,
				    TIMER_ABSTIME, &ts, NULL);
		}
	}
	s->busy_ns = t - t0;
	close(fd);
	return NULL;
}

/* The mix's line for name k (statsd_sender.c's comment above). */
static void
mix_line(char *out, unsigned k)
{
	unsigned t = k % 20;

	if (t < 8)
		snprintf(out, MIX_LEN, "mix.%u:1|c%s", k, t % 4 == 0 ?
		    "|@0.5" : "");
	else if (t < 14)
		snprintf(out, MIX_LEN, "mix.%u:%u|g", k, k % 97);
	else if (t < 17)
		snprintf(out, MIX_LEN, "mix.%u:%u|ms", k, 1 + k % 250);
	else if (t < 19)
		snprintf(out, MIX_LEN, "mix.%u:%u|h", k, k % 1000);
	else
		snprintf(out, MIX_LEN, "mix.%u:u%u|s", k, k % 50);
}

int
main(int argc, char **argv)
{
	const char *rate = getenv("STATSD_SENDER_RATE");
	struct sender *s;
	uint64_t sent = 0, dg = 0, busy = 0, errs = 0, deadline;
	unsigned threads, lines, ms, i;
	char *buf, *mix = NULL;
	size_t ll = strlen(LINE);

	if (argc != 6) {
		fprintf(stderr, "usage: statsd_sender HOST PORT THREADS "
		    "LINES|mix MS\n");
		return 2;
	}
	threads = (unsigned)atoi(argv[3]);
	if (strcmp(argv[4], "mix") == 0) {
		mix = malloc((size_t)MIX_NAMES * MIX_LEN);
		if (mix == NULL)
			return 1;
		for (i = 0; i < MIX_NAMES; i++)
			mix_line(mix + (size_t)i * MIX_LEN, i);
		lines = 1;
	} else
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
		s[i].rate = rate != NULL ? strtoull(rate, NULL, 10) : 0;
		s[i].mix = mix;
		s[i].mix_at = i * (MIX_NAMES / threads);
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
	free(mix);
	free(s);
	return 0;
}
