/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ring_client.c: a real producer process for the integration tests. It
 * speaks varlink to statsd, receives a ring's descriptors with SCM_RIGHTS,
 * maps the ring and pushes updates, and can hand the ring back to a
 * restarted statsd. The test drives it line by line on stdin:
 *
 *   connect                  connect to the socket (waits up to 10 s)
 *   disconnect               close the connection
 *   handle MODULE INST NAME  look a kstat's handle up (Read)
 *   attach [LOG2 [OVF]]      RingAttach (OVF: overflow_size); map the ring
 *   spill                    from now on, a full ring spills (spill.h):
 *                            the layouts of the kstats named by handle
 *                            are read from the store segments
 *   handover                 hand over what the spill buffers hold, if the
 *                            ring has room ("ok left=1" if not all)
 *   pushfile PATH            push the 32-byte records of PATH as they are
 *   poke OFFSET VALUE        write u64 VALUE into the ring at OFFSET, as a
 *                            hostile producer would
 *   adopt                    RingAttach with adopt, passing the ring back
 *   push N VOI [X]           N abs updates of X (default 1)
 *   pushxy N VOI X Y         N (X, Y) updates
 *   pushbad N                N records with an unknown handle
 *   close                    close the ring (ring_producer_free)
 *   call JSON                send one call, print the reply
 *   quit
 *
 * Each command prints one line: "ok ..." or "error ...". Counters are
 * totals since start: pushed counts attempts, dropped those the full ring
 * refused.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "blob.h"
#include "op.h"
#include "ring.h"
#include "spill.h"
#include "store.h"
#include "varlink_names.h"

static const char *sock_path;
static int conn = -1;
static struct ring_producer *prod;
static int ring_fd = -1, ring_efd = -1;
static uint32_t handle;
static uint64_t pushed, dropped_seen;

/* Spilling: the segments, the layouts of the kstats named by handle. */
#define RC_MAXSEGS	8
#define RC_MAXIMGS	16
static struct {
	char			 name[48];
	struct store_reader	*r;
} segs[RC_MAXSEGS];
static int nsegs;
static struct {
	uint32_t		 handle;
	struct statsblob	*img;
} imgs[RC_MAXIMGS];
static int nimgs;
static struct spill_producer *sp;
static char cur_seg[48];
/* Rings attached before the current one: kept (statsd holds them for the
 * connection), freed at the end. */
static struct ring_producer *older[256];
static int nolder;
static struct store_ref cur_ref;

static int
do_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	for (i = 0; i < 500; i++) {
		conn = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (conn < 0)
			return -errno;
		if (connect(conn, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return 0;
		close(conn);
		conn = -1;
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

/* Send one call (with fds), read one reply (keeping up to 2 fds). */
static json_t *
rpc(const char *text, const int *sfds, int nsfds, int *rfds, int *nrfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} cm;
	struct iovec iov = { (void *)text, strlen(text) + 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	static char in[1 << 20];
	size_t len = 0;
	json_t *reply;

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
	if (sendmsg(conn, &mh, MSG_NOSIGNAL) < 0)
		return NULL;
	for (;;) {
		struct iovec riov = { in + len, sizeof(in) - len - 1 };
		struct msghdr rh = { .msg_iov = &riov, .msg_iovlen = 1,
		    .msg_control = cm.buf, .msg_controllen = sizeof(cm.buf) };
		struct cmsghdr *ch;
		ssize_t n = recvmsg(conn, &rh, MSG_CMSG_CLOEXEC);

		if (n <= 0)
			return NULL;
		for (ch = CMSG_FIRSTHDR(&rh); ch != NULL;
		    ch = CMSG_NXTHDR(&rh, ch)) {
			int k = (int)((ch->cmsg_len - CMSG_LEN(0)) /
			    sizeof(int)), j;

			for (j = 0; j < k; j++) {
				int fd = ((int *)(void *)CMSG_DATA(ch))[j];

				if (rfds != NULL && *nrfds < 4)
					rfds[(*nrfds)++] = fd;
				else
					close(fd);
			}
		}
		len += (size_t)n;
		if (memchr(in, '\0', len) != NULL)
			break;
		if (len >= sizeof(in) - 1)
			return NULL;
	}
	reply = json_loads(in, JSON_DISABLE_EOF_CHECK, NULL);
	return reply;
}

static void
print_reply(json_t *r)
{
	char *s = r != NULL ? json_dumps(r, JSON_COMPACT) : NULL;

	printf("%s %s\n", r != NULL && json_object_get(r, "error") == NULL ?
	    "ok" : "error", s != NULL ? s : "no reply");
	free(s);
}

static void
counters(void)
{
	if (prod != NULL)
		dropped_seen = ring_producer_dropped(prod);
	printf("ok pushed=%llu dropped=%llu\n", (unsigned long long)pushed,
	    (unsigned long long)dropped_seen);
}

static void
cmd_attach(const char *arg)
{
	char call[160];
	int fds[4], n = 0, r, log2 = 0;
	long long ovf = -1;
	json_t *reply;

	if (arg != NULL && sscanf(arg, "%d %lld", &log2, &ovf) == 2)
		snprintf(call, sizeof(call), "{\"method\":\"" VL_M_RING_ATTACH
		    "\",\"parameters\":{\"capacity_log2\":%d,"
		    "\"overflow_size\":%lld}}", log2, ovf);
	else if (arg != NULL && *arg != '\0')
		snprintf(call, sizeof(call), "{\"method\":\"" VL_M_RING_ATTACH
		    "\",\"parameters\":{\"capacity_log2\":%d}}",
		    atoi(arg));
	else
		snprintf(call, sizeof(call), "{\"method\":\"" VL_M_RING_ATTACH
		    "\",\"parameters\":{}}");
	reply = rpc(call, NULL, 0, fds, &n);
	if (reply == NULL || json_object_get(reply, "error") != NULL ||
	    n != 2) {
		print_reply(reply);
		json_decref(reply);
		return;
	}
	if (prod != NULL && nolder < 256)
		older[nolder++] = prod;
	prod = NULL;
	r = ring_map(fds[0], fds[1], &prod);
	if (r < 0) {
		printf("error ring_map: %s\n", strerror(-r));
		json_decref(reply);
		return;
	}
	/* Keep both descriptors: a restarted statsd gets them back. */
	ring_fd = fds[0];
	ring_efd = fds[1];
	print_reply(reply);
	json_decref(reply);
}

static void
cmd_adopt(void)
{
	int fds[2] = { ring_fd, ring_efd };
	json_t *reply;

	if (ring_fd < 0) {
		printf("error no ring\n");
		return;
	}
	reply = rpc("{\"method\":\"" VL_M_RING_ATTACH "\",\"parameters\":"
	    "{\"adopt\":true}}", fds, 2, NULL, NULL);
	print_reply(reply);
	json_decref(reply);
}

/* The layout of the current kstat, every statistic and VOI state reset,
 * for spilling: as libstatsclient takes it (a layout read, which a flood
 * of updates does not hold up). */
static void
take_image(void)
{
	struct statsblob *img;
	size_t size = 0;
	int i, r, tries;

	for (i = 0; i < nimgs; i++)
		if (imgs[i].handle == handle)
			return;
	for (i = 0; i < nsegs && strcmp(segs[i].name, cur_seg) != 0; i++)
		;
	if (i == nsegs || nimgs == RC_MAXIMGS)
		return;
	img = malloc(STORE_BLOB_MAX);
	if (img == NULL)
		return;
	for (tries = 0; (r = store_reader_read_layout(segs[i].r, cur_ref, NULL,
	    NULL, img, STORE_BLOB_MAX, &size)) == -EAGAIN && tries < 1000;
	    tries++)
		usleep(1000);
	if (r < 0 || blob_layout_clean((struct statsblobv1 *)img, size) !=
	    NULL) {
		free(img);
		return;
	}
	imgs[nimgs].handle = handle;
	imgs[nimgs].img = img;
	nimgs++;
}

static const struct statsblob *
image_of(void *arg, uint32_t h, uint32_t *ret_size)
{
	int i;

	(void)arg;
	for (i = 0; i < nimgs; i++)
		if (imgs[i].handle == h) {
			*ret_size = imgs[i].img->cursz;
			return imgs[i].img;
		}
	return NULL;
}

/* SegmentAttach (one reply: enough for a test) and a spill producer. */
static void
cmd_spill(void)
{
	json_t *reply, *segv, *e;
	int fds[4], n = 0, r;
	size_t i;

	if (prod == NULL) {
		printf("error no ring\n");
		return;
	}
	reply = rpc("{\"method\":\"" VL_M_SEGMENT_ATTACH "\","
	    "\"parameters\":{}}", NULL, 0, fds, &n);
	segv = json_object_get(json_object_get(reply, "parameters"),
	    "segments");
	json_array_foreach(segv, i, e) {
		json_int_t fd = json_integer_value(json_object_get(e, "fd"));

		if (fd < 0 || fd >= n || nsegs == RC_MAXSEGS ||
		    store_reader_open(fds[fd], &segs[nsegs].r) < 0)
			continue;
		snprintf(segs[nsegs].name, sizeof(segs[nsegs].name), "%s",
		    json_string_value(json_object_get(e, "name")));
		nsegs++;
	}
	json_decref(reply);
	r = spill_producer_new(prod, image_of, NULL, &sp);
	if (r < 0) {
		printf("error spill_producer_new: %s\n", strerror(-r));
		return;
	}
	take_image();
	printf("ok segments=%d images=%d\n", nsegs, nimgs);
}

/* One record: into the ring, or through the spill buffers. */
static void
push_rec(const struct ring_rec *rec)
{
	if (sp != NULL)
		(void)spill_push(sp, rec);
	else
		(void)ring_push_rec(prod, rec);
	pushed++;
}

static void
cmd_pushfile(const char *path)
{
	struct ring_rec rec;
	FILE *f;

	if (prod == NULL) {
		printf("error no ring\n");
		return;
	}
	f = fopen(path, "rb");
	if (f == NULL) {
		printf("error %s: %s\n", path, strerror(errno));
		return;
	}
	while (fread(&rec, sizeof(rec), 1, f) == 1)
		push_rec(&rec);
	fclose(f);
	counters();
}

static void
cmd_handle(char *args)
{
	char module[64], name[64], call[256];
	json_t *reply, *h;
	int inst;

	if (sscanf(args, "%63s %d %63s", module, &inst, name) != 3) {
		printf("error usage\n");
		return;
	}
	snprintf(call, sizeof(call), "{\"method\":\"" VL_M_READ "\","
	    "\"parameters\":{\"module\":\"%s\",\"instance\":%d,"
	    "\"name\":\"%s\"}}", module, inst, name);
	reply = rpc(call, NULL, 0, NULL, NULL);
	h = json_object_get(json_object_get(json_object_get(reply,
	    "parameters"), "kstat"), "handle");
	if (!json_is_integer(h)) {
		print_reply(reply);
		json_decref(reply);
		return;
	}
	handle = (uint32_t)json_integer_value(h);
	h = json_object_get(json_object_get(reply, "parameters"), "kstat");
	snprintf(cur_seg, sizeof(cur_seg), "%s", json_string_value(
	    json_object_get(h, "segment")) != NULL ? json_string_value(
	    json_object_get(h, "segment")) : "");
	cur_ref.slot = (uint32_t)json_integer_value(json_object_get(h, "slot"));
	cur_ref.gen = (uint32_t)json_integer_value(json_object_get(h, "gen"));
	if (sp != NULL)
		take_image();
	printf("ok handle=%u\n", handle);
	json_decref(reply);
}

static void
cmd_push(char *args, int xy, int bad)
{
	long long n = 0, x = 1, y = 0, i;
	int voi = 0;

	if (prod == NULL) {
		printf("error no ring\n");
		return;
	}
	if (bad)
		sscanf(args, "%lld", &n);
	else if (xy)
		sscanf(args, "%lld %d %lld %lld", &n, &voi, &x, &y);
	else
		sscanf(args, "%lld %d %lld", &n, &voi, &x);
	for (i = 0; i < n; i++) {
		struct ring_rec rec = { .handle = bad ? 0xfffffff0u : handle,
		    .voi = (uint16_t)(bad ? 0 : voi), .op = xy && !bad ?
		    STATS_OP_XY : STATS_OP_ABS, .x = bad ? 1 : x,
		    .y = xy && !bad ? y : 0 };

		push_rec(&rec);
	}
	counters();
}

int
main(int argc, char **argv)
{
	char line[1 << 16];
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: ring_client SOCKET < commands\n");
		return 2;
	}
	sock_path = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		char *arg;

		line[strcspn(line, "\n")] = '\0';
		arg = strchr(line, ' ');
		if (arg != NULL)
			*arg++ = '\0';
		if (strcmp(line, "connect") == 0) {
			int r = do_connect();

			if (r < 0)
				printf("error connect: %s\n", strerror(-r));
			else
				printf("ok\n");
		} else if (strcmp(line, "disconnect") == 0) {
			if (conn >= 0)
				close(conn);
			conn = -1;
			printf("ok\n");
		} else if (strcmp(line, "handle") == 0 && arg != NULL) {
			cmd_handle(arg);
		} else if (strcmp(line, "attach") == 0) {
			cmd_attach(arg);
		} else if (strcmp(line, "adopt") == 0) {
			cmd_adopt();
		} else if (strcmp(line, "push") == 0 && arg != NULL) {
			cmd_push(arg, 0, 0);
		} else if (strcmp(line, "pushxy") == 0 && arg != NULL) {
			cmd_push(arg, 1, 0);
		} else if (strcmp(line, "pushbad") == 0 && arg != NULL) {
			cmd_push(arg, 0, 1);
		} else if (strcmp(line, "spill") == 0) {
			cmd_spill();
		} else if (strcmp(line, "handover") == 0) {
			printf("ok left=%d\n", sp != NULL &&
			    spill_handover(sp, true) != 0);
		} else if (strcmp(line, "pushfile") == 0 && arg != NULL) {
			cmd_pushfile(arg);
		} else if (strcmp(line, "poke") == 0 && arg != NULL) {
			unsigned long long off = 0, v = 0;

			if (prod == NULL || sscanf(arg, "%llu %llu", &off,
			    &v) != 2 || off + 8 > prod->map_size) {
				printf("error poke\n");
			} else {
				memcpy((char *)prod->hdr + off, &v, 8);
				printf("ok\n");
			}
		} else if (strcmp(line, "counters") == 0) {
			counters();
		} else if (strcmp(line, "close") == 0) {
			if (prod != NULL)
				dropped_seen = ring_producer_dropped(prod);
			spill_producer_free(sp);
			sp = NULL;
			prod = ring_producer_free(prod);
			printf("ok\n");
		} else if (strcmp(line, "call") == 0 && arg != NULL) {
			json_t *r = rpc(arg, NULL, 0, NULL, NULL);

			print_reply(r);
			json_decref(r);
		} else if (strcmp(line, "quit") == 0) {
			break;
		} else {
			printf("error unknown command\n");
		}
	}
	spill_producer_free(sp);
	prod = ring_producer_free(prod);
	while (nolder > 0)
		ring_producer_free(older[--nolder]);
	for (i = 0; i < (size_t)nimgs; i++)
		free(imgs[i].img);
	for (i = 0; i < (size_t)nsegs; i++)
		store_reader_close(segs[i].r);
	if (conn >= 0)
		close(conn);
	return 0;
}
