/*
 * demo_producer.c: a small application feeding statsd, for tools/run.sh.
 * It defines a template and a kstat (demo:0:web) over the control socket,
 * attaches an update ring, and pushes a simulated web server's requests,
 * latencies and queue length through it, forever. If statsd restarts, it
 * reconnects and hands its ring back, so nothing it pushed meanwhile is
 * lost. It uses the ring directly (src/common/shm/ring.h), with the few
 * varlink calls it needs written out by hand.
 *
 * usage: demo_producer SOCKET [--exit-with-parent]
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "op.h"
#include "ring.h"
#include "varlink_names.h"

/* The template: VOI 0 requests, 1 latency in µs, 2 queue length, 3 time
 * spent queued as a Linux statistic (off until `statsctl define` and
 * `statsctl on` turn it into something; see statsctl(8) EXAMPLES). */
static const char demo_template[] =
    "{\"name\":\"demo\",\"vois\":["
    "{\"id\":0,\"name\":\"requests\",\"dtype\":\"INT_U64\","
    "\"stats\":[{\"kind\":\"SUM\"},{\"kind\":\"COUNT\"}]},"
    "{\"id\":1,\"name\":\"latency_us\",\"dtype\":\"INT_U64\","
    "\"stats\":[{\"kind\":\"SUM\"},{\"kind\":\"MIN\"},{\"kind\":\"MAX\"},"
    "{\"kind\":\"HIST\",\"scheme\":\"LIN\",\"lb\":0,\"ub\":10000,"
    "\"step\":1000},{\"kind\":\"TDGST\",\"nctds\":64}]},"
    "{\"id\":2,\"name\":\"queue\",\"dtype\":\"INT_S64\","
    "\"stats\":[{\"kind\":\"LAST\"}]},"
    "{\"id\":3,\"name\":\"queue_wait\",\"dtype\":\"INT_S64\","
    "\"stats\":[{\"kind\":\"DEFN\",\"units\":\"ms/requests\"}]}]}";

static int conn = -1;
static int ring_fd = -1, ring_efd = -1;
static struct ring_producer *prod;
static uint32_t handle;

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int
demo_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	for (;;) {
		conn = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (conn < 0)
			return -errno;
		if (connect(conn, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return 0;
		close(conn);
		conn = -1;
		sleep_ms(200);
	}
}

/* One call; the reply (and up to two descriptors) back. */
static json_t *
demo_call(const char *method, json_t *params, const int *sfds, int nsfds,
    int *rfds, int *nrfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} cm;
	json_t *msg = json_pack("{s:s, s:O}", "method", method, "parameters",
	    params);
	char *text = json_dumps(msg, JSON_COMPACT), in[65536];
	struct iovec iov = { text, strlen(text) + 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t len = 0;

	json_decref(msg);
	if (nrfds != NULL)
		*nrfds = 0;
	if (nsfds > 0) {
		struct cmsghdr *ch;

		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nsfds);
		ch = CMSG_FIRSTHDR(&mh);
		ch->cmsg_level = SOL_SOCKET;
		ch->cmsg_type = SCM_RIGHTS;
		ch->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nsfds);
		memcpy(CMSG_DATA(ch), sfds, sizeof(int) * (size_t)nsfds);
	}
	if (sendmsg(conn, &mh, MSG_NOSIGNAL) < 0) {
		free(text);
		return NULL;
	}
	free(text);
	while (memchr(in, '\0', len) == NULL) {
		struct iovec riov = { in + len, sizeof(in) - len };
		struct msghdr rh = { .msg_iov = &riov, .msg_iovlen = 1,
		    .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf) };
		struct cmsghdr *ch;
		ssize_t n;

		if (len == sizeof(in))
			return NULL;
		n = recvmsg(conn, &rh, MSG_CMSG_CLOEXEC);
		if (n <= 0)
			return NULL;
		for (ch = CMSG_FIRSTHDR(&rh); ch != NULL;
		    ch = CMSG_NXTHDR(&rh, ch)) {
			int k = (int)((ch->cmsg_len - CMSG_LEN(0)) /
			    sizeof(int)), j;

			for (j = 0; j < k; j++) {
				int fd = ((int *)(void *)CMSG_DATA(ch))[j];

				if (rfds != NULL && *nrfds < 2)
					rfds[(*nrfds)++] = fd;
				else
					close(fd);
			}
		}
		len += (size_t)n;
	}
	return json_loads(in, JSON_DISABLE_EOF_CHECK, NULL);
}

static const char *
demo_error(json_t *reply)
{
	return reply == NULL ? "no reply" :
	    json_string_value(json_object_get(reply, "error"));
}

/* Template, kstat and a ring (or the old ring, handed back). */
static int
demo_setup(void)
{
	json_t *tpl, *r, *k;
	const char *spec;
	int fds[2], n;

	tpl = json_loads(demo_template, 0, NULL);
	r = demo_call(VL_M_TEMPLATE_ADD, tpl, NULL, 0, NULL, NULL);
	json_decref(tpl);
	spec = json_string_value(json_object_get(json_object_get(
	    json_object_get(r, "parameters"), "template"), "spec"));
	if (spec == NULL) {
		fprintf(stderr, "demo: TemplateAdd: %s\n", demo_error(r));
		json_decref(r);
		return -1;
	}
	k = demo_call(VL_M_KSTAT_CREATE, json_pack("{s:s, s:i, s:s, "
	    "s:s, s:s, s:s}", "module", "demo", "instance", 0, "name", "web",
	    "class", "demo", "template", spec, "description",
	    "a simulated web server (examples/demo_producer.c)"), NULL, 0,
	    NULL, NULL);
	json_decref(r);
	/* KstatExists after a restart of ours: look the handle up. */
	json_decref(k);
	k = demo_call(VL_M_READ, json_pack("{s:s, s:i, s:s}", "module",
	    "demo", "instance", 0, "name", "web"), NULL, 0, NULL, NULL);
	r = json_object_get(json_object_get(json_object_get(k, "parameters"),
	    "kstat"), "handle");
	if (!json_is_integer(r)) {
		fprintf(stderr, "demo: Read: %s\n", demo_error(k));
		json_decref(k);
		return -1;
	}
	handle = (uint32_t)json_integer_value(r);
	json_decref(k);
	if (prod != NULL) {
		/* statsd restarted: give it the ring back. */
		int give[2] = { ring_fd, ring_efd };

		r = demo_call(VL_M_RING_ATTACH, json_pack("{s:b}",
		    "adopt", 1), give, 2, NULL, NULL);
		if (demo_error(r) != NULL)
			fprintf(stderr, "demo: adopt: %s\n", demo_error(r));
		json_decref(r);
		return 0;
	}
	r = demo_call(VL_M_RING_ATTACH, json_pack("{s:i}",
	    "capacity_log2", 14), NULL, 0, fds, &n);
	if (n != 2 || ring_map(fds[0], fds[1], &prod) < 0) {
		fprintf(stderr, "demo: RingAttach: %s\n", demo_error(r));
		json_decref(r);
		return -1;
	}
	ring_fd = fds[0];
	ring_efd = fds[1];
	json_decref(r);
	return 0;
}

/* Has statsd closed our connection? */
static int
demo_hung_up(void)
{
	struct pollfd p = { conn, POLLIN, 0 };
	char c;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	return recv(conn, &c, 1, MSG_DONTWAIT | MSG_PEEK) <= 0;
}

int
main(int argc, char **argv)
{
	unsigned seed = (unsigned)time(NULL);
	long queue = 0;
	uint64_t sent = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: demo_producer SOCKET "
		    "[--exit-with-parent]\n");
		return 2;
	}
	if (argc > 2 && strcmp(argv[2], "--exit-with-parent") == 0)
		prctl(PR_SET_PDEATHSIG, SIGTERM);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		demo_connect(argv[1]);
		if (demo_setup() < 0) {
			close(conn);
			sleep_ms(1000);
			continue;
		}
		printf("demo: feeding demo:0:web (handle %u)\n", handle);
		while (!demo_hung_up()) {
			int i, burst = 1 + rand_r(&seed) % 20;

			for (i = 0; i < burst; i++) {
				/* A latency of 200..2200 µs, now and then a
				 * slow one. */
				uint64_t lat = 200 + (uint64_t)(rand_r(&seed) %
				    2000) + (rand_r(&seed) % 50 == 0 ? 7000 : 0);

				(void)ring_push(prod, handle, 0, STATS_OP_ABS,
				    0, 1, 0, 0);
				(void)ring_push(prod, handle, 1, STATS_OP_ABS,
				    STATS_OPF_UNSIGNED, (int64_t)lat, 0, 0);
				sent++;
			}
			queue += rand_r(&seed) % 5 - 2;
			if (queue < 0)
				queue = 0;
			(void)ring_push(prod, handle, 2, STATS_OP_SET, 0, queue,
			    0, 0);
			/* Each request of the burst waited about as many ms
			 * as the queue is long. */
			(void)ring_push(prod, handle, 3, STATS_OP_XY, 0, queue,
			    burst, 0);
			if (sent % 1000 < (uint64_t)burst)
				printf("demo: %llu requests, %llu dropped\n",
				    (unsigned long long)sent,
				    (unsigned long long)ring_producer_dropped(
				    prod));
			sleep_ms(10);
		}
		printf("demo: statsd went away; reconnecting\n");
		close(conn);
		conn = -1;
	}
}
