/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * config.c: the statsd.conf key table and everything driven by it —
 * parsing, defaults, reload, the printed configuration and the man page's
 * key list. Adding a key is one line in config_keys[] and a field in
 * struct config.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config.h"
#include "render_prom.h"
#include "log.h"
#include "zones.h"

enum cfg_type {
	CFG_UINT,	/* unsigned, min..max */
	CFG_INT,	/* int, (int64_t)min..(int64_t)max */
	CFG_SIZE,	/* uint64 bytes, optional K/M/G suffix (powers of 1024) */
	CFG_MODE,	/* octal file mode */
	CFG_STRING,	/* up to max characters, printable, no blanks */
	CFG_ENUM,	/* one of names[] (stored as its index) */
	CFG_WORDS,	/* CFG_STRING with blanks: a list, checked by check() */
};

/* The longest value (a config line is at most 4096 bytes). */
#define CFG_VALUE_MAX	4096

struct cfg_key {
	const char		*key;
	enum cfg_type		 type;
	size_t			 off;
	const char		*def;		/* parsed like a file value */
	uint64_t		 min, max;
	bool			 reloadable;
	const char *const	*names;		/* CFG_ENUM */
	const char		*doc;
	/* CFG_WORDS: NULL if v is good, else why not (in buf). */
	const char		*(*check)(const char *v, char *buf, size_t len);
};

/* zone_cgroups: patterns zones.c compiles. */
static const char *
cfg_check_zone_cgroups(const char *v, char *buf, size_t len)
{
	struct zone_patterns *p;
	int r = zone_patterns_parse(v, &p, buf, len);

	zone_patterns_free(p);
	return r < 0 ? buf : NULL;
}

int
config_addr_port(const char *v, char *addr, size_t len,
    unsigned short *ret_port)
{
	const char *colon = strrchr(v, ':');
	unsigned long port;
	char *end;
	size_t n;

	if (colon == NULL)
		return -EINVAL;
	n = (size_t)(colon - v);
	if (n >= 2 && v[0] == '[' && v[n - 1] == ']') {
		v++;
		n -= 2;
	}
	if (n == 0 || n >= len)
		return -EINVAL;
	/* Digits only: strtoul() would take a sign or white space. */
	if (colon[1] < '0' || colon[1] > '9')
		return -ERANGE;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (*end != '\0' || errno != 0 || port > 65535)
		return -ERANGE;
	memcpy(addr, v, n);
	addr[n] = '\0';
	*ret_port = (unsigned short)port;
	return 0;
}

/* http_listen: empty, or ADDR:PORT ([v6]:PORT). */
static const char *
cfg_check_http_listen(const char *v, char *buf, size_t len)
{
	char addr[CONFIG_ADDR_MAX];
	unsigned short port;
	int r;

	if (*v == '\0')
		return NULL;
	r = config_addr_port(v, addr, sizeof(addr), &port);
	if (r == -EINVAL)
		snprintf(buf, len, "expected ADDR:PORT, e.g. %s",
		    HTTP_LISTEN_DEFAULT);
	else if (r < 0)
		snprintf(buf, len, "the port must be 0 (any) to 65535");
	return r < 0 ? buf : NULL;
}

/* http_quantiles: what render_prom.c takes. */
static const char *
cfg_check_quantiles(const char *v, char *buf, size_t len)
{
	double q[PROM_QUANTILES_MAX];

	if (prom_parse_quantiles(v, q) < 0) {
		snprintf(buf, len, "expected up to %d ascending numbers in "
		    "[0, 1], comma-separated", PROM_QUANTILES_MAX);
		return buf;
	}
	return NULL;
}

/* statsd_buckets_timer (seconds, to the microsecond) and
 * statsd_buckets_histogram (whole units): what render_prom.c takes. */
static const char *
cfg_check_bounds(const char *v, unsigned point, char *buf, size_t len)
{
	int64_t le[PROM_BOUNDS_MAX];

	if (prom_parse_bounds(v, point, le) < 0) {
		snprintf(buf, len, "expected up to %d ascending numbers above "
		    "0, comma-separated, each %s", PROM_BOUNDS_MAX, point > 0 ?
		    "a whole number of microseconds" : "a whole number");
		return buf;
	}
	return NULL;
}

static const char *
cfg_check_buckets_timer(const char *v, char *buf, size_t len)
{
	return cfg_check_bounds(v, PROM_TIMER_POINT, buf, len);
}

static const char *
cfg_check_buckets_histogram(const char *v, char *buf, size_t len)
{
	return cfg_check_bounds(v, 0, buf, len);
}

#define K(name, t, field, d, lo, hi, rel, doc)				\
	{ name, t, offsetof(struct config, field), d, lo, hi, rel, NULL, doc, \
	    NULL }

static const struct cfg_key config_keys[] = {
	K("socket", CFG_STRING, socket, "", 0, 107, false,
	    "Path of the control socket; empty means statsd.sock in the runtime directory. The --socket option overrides it."),
	K("socket_mode", CFG_MODE, socket_mode, "0666", 0, 0777, false,
	    "Mode of the control socket when statsd binds it itself. Rights are decided per peer (SO_PEERCRED), not by the mode."),
	K("admin_group", CFG_STRING, admin_group, "statsd-admin", 0, 31, true,
	    "Group whose members are privileged peers: they see PRIV kstats and may change, reset and delete any kstat. Empty means none; a group that does not exist is logged and ignored."),
	{ "log_level", CFG_ENUM, offsetof(struct config, log_level), "info",
	    0, 0, true, log_level_names,
	    "Least important messages logged: error, warning, notice, info or debug.",
	    NULL },
	K("max_connections", CFG_UINT, max_connections, "1024", 1, 65536, true,
	    "Most control connections open at once (see quota_reserve_percent)."),
	K("max_connections_per_uid", CFG_UINT, max_connections_per_uid, "64", 1, 65536, true,
	    "Most control connections one unprivileged user may hold."),
	K("max_message_size", CFG_SIZE, max_message_size, "1M", 4096, 16777216, true,
	    "Longest message a client may send, in bytes, its NUL included. A longer one is refused and the connection closed."),
	K("max_output", CFG_SIZE, max_output, "16M", 65536, 1073741824, true,
	    "Most reply bytes queued for one connection. A client that lets more pile up is disconnected; above a quarter of it statsd stops reading the client's calls and pauses its streams."),
	K("reply_page_size", CFG_SIZE, reply_page_size, "256K", 4096, 16777216, true,
	    "Most bytes of one reply of a read of many kstats or templates (Chain, Lookup, Scrape, TemplateList), at most an eighth of max_output; the rest follows in further replies of the stream, or, for a client that did not ask for a stream, in the pages it asks for with the cursor of the last reply."),
	K("reader_threads", CFG_UINT, reader_threads, "2", 1, 16, false,
	    "Threads that render the pages of the control socket's reads (Scrape, Chain, Lookup, TemplateList, Read, Snapshot) from the shared store while their calls wait, so the event loop never does. With 2 or more, one is kept for privileged peers: root's reads wait for no other user's pages. Each thread keeps its own index of the store, about 250 bytes a kstat."),
	K("max_buffered", CFG_SIZE, max_buffered, "256M", 1048576, 68719476736ull, true,
	    "Most bytes of unread calls and unsent replies all connections together may hold (see quota_reserve_percent)."),
	K("max_buffered_per_uid", CFG_SIZE, max_buffered_per_uid, "32M", 65536, 68719476736ull, true,
	    "Most bytes of unread calls and unsent replies the connections of one unprivileged user may hold together. Past half of it, each of those connections takes no more calls until its replies are read; a connection that would pass it is sent LimitReached and closed."),
	K("idle_timeout_ms", CFG_UINT, idle_timeout_ms, "60000", 100, 86400000, true,
	    "A connection that has sent nothing and taken no reply for this long is closed, unless it holds rings or a stream, or statsd is still answering its call."),
	K("max_templates", CFG_UINT, max_templates, "1024", 1, 65536, true,
	    "Most templates registered at once, by all users together (see quota_reserve_percent)."),
	K("max_templates_per_uid", CFG_UINT, max_templates_per_uid, "256", 1, 65536, true,
	    "Most templates one unprivileged user may have registered. At this limit, or at max_template_bytes_per_uid, statsd first frees that user's templates that no kstat uses, oldest first."),
	K("max_template_bytes", CFG_SIZE, max_template_bytes, "64M", 65536, 68719476736ull, true,
	    "Most bytes all templates together may take: each counts its definition's JSON and its blob (see quota_reserve_percent)."),
	K("max_template_bytes_per_uid", CFG_SIZE, max_template_bytes_per_uid, "8M", 65536, 68719476736ull, true,
	    "Most template bytes one unprivileged user may hold."),
	K("max_kstats", CFG_UINT, max_kstats, "262144", 16, 4194304, false,
	    "Kstat slots of each store segment (public and private): 256 bytes each, reserved but not used until a kstat takes the slot (the segments are sparse)."),
	K("max_kstats_per_uid", CFG_UINT, max_kstats_per_uid, "131072", 1, 4194304, true,
	    "Most kstats one unprivileged user may own, dormant ones included. Of max_kstats, unprivileged users together may fill the part quota_reserve_percent does not reserve."),
	K("arena_size", CFG_SIZE, arena_size, "512M", 1048576, 68719476736ull, false,
	    "Bytes for blobs in the public segment (sparse: only used pages cost memory). Unprivileged users together may fill the part quota_reserve_percent does not reserve."),
	K("arena_bytes_per_uid", CFG_SIZE, arena_bytes_per_uid, "256M", 65536, 68719476736ull, true,
	    "Most public arena bytes the kstats of one unprivileged user may take. A blob takes a chunk of the next power of two of its size (with its kstat2 path and description), at least 64 bytes."),
	K("private_arena_size", CFG_SIZE, private_arena_size, "8M", 1048576, 68719476736ull, false,
	    "Bytes for blobs in the private segment (PRIV kstats)."),
	K("max_rings", CFG_UINT, max_rings, "1024", 1, 65536, true,
	    "Most update rings attached at once (see quota_reserve_percent)."),
	K("max_rings_per_uid", CFG_UINT, max_rings_per_uid, "256", 1, 65536, true,
	    "Most update rings one unprivileged user may hold."),
	K("max_ring_bytes", CFG_SIZE, max_ring_bytes, "1G", 1048576, 1099511627776ull, true,
	    "Most bytes the memfds of all rings together may take, records and overflow areas (see quota_reserve_percent). They are sparse: a page costs memory once written or drained."),
	K("max_ring_bytes_per_uid", CFG_SIZE, max_ring_bytes_per_uid, "256M", 65536, 1099511627776ull, true,
	    "Most bytes the rings of one unprivileged user may take, records and overflow areas."),
	K("max_zone_segments", CFG_UINT, max_zone_segments, "1024", 1, 65536, true,
	    "Most store segments of zones at once (see quota_reserve_percent): each is a memfd statsd holds a descriptor of, made with the first kstat of its zone and kind (seen in the zone, in the zone and the global zone, PRIV or not) and charged to that kstat's owner until the segment's last kstat goes. statsd lowers it to what its descriptor limit (RLIMIT_NOFILE) leaves beside max_connections, http_max_connections, two descriptors a ring of max_rings and 256 of its own, so that users' zones can never take the descriptors root's connection needs."),
	K("max_zone_segments_per_uid", CFG_UINT, max_zone_segments_per_uid, "64", 1, 65536, true,
	    "Most store segments of zones the kstats of one unprivileged user may hold."),
	K("ring_capacity_log2", CFG_UINT, ring_capacity_log2, "14", 2, 24, true,
	    "Records in a new ring, as a power of two, unless the client asks for another size."),
	K("ring_max_capacity_log2", CFG_UINT, ring_max_capacity_log2, "20", 2, 24, true,
	    "Largest ring a client may ask for or hand back, as a power of two."),
	K("ring_overflow_size", CFG_SIZE, ring_overflow_size, "1M", 0, 1073741824, true,
	    "Bytes of the overflow area made with each ring, unless the client asks for another size: two spill buffers that keep the updates a full ring cannot take. A multiple of 8K; 0 for none (a full ring then drops)."),
	K("ring_max_overflow_size", CFG_SIZE, ring_max_overflow_size, "64M", 0, 1073741824, true,
	    "Largest overflow area a client may ask for or hand back."),
	K("drain_interval_ms", CFG_UINT, drain_interval_ms, "50", 1, 10000, true,
	    "Period of the drain tick, which runs while rings are attached and empties every ring even when no wakeup came; once no ring had records for a second, it ticks once a second until one has. Without rings, statsd:0:daemon is written after what changed it, at most this often; an idle statsd runs no tick."),
	K("drain_poll_us", CFG_UINT, drain_poll_us, "50", 0, 10000, true,
	    "After a drain pass that found records, rings are looked at again this often (in microseconds) until they stay empty for four looks, instead of waiting for the producer's wakeup: a burst is drained while it runs, and costs its producer no system call. 0: wait for wakeups at once."),
	K("nice", CFG_INT, nice, "-10", (uint64_t)-20, 19, false,
	    "Nice value statsd sets itself at start (setpriority(2)); its threads inherit it. A raised priority gives statsd's receiving, draining and applying a larger share of a busy machine's CPU than the threads that feed it: with 8 threads sending statsd datagrams flat out on 2 cores, statsd at nice 0 gets about a quarter of the CPU and the kernel drops most datagrams; at -10 it keeps up. Its CPU time still follows what arrives: idle, statsd takes none. Raising the priority needs root, CAP_SYS_NICE or RLIMIT_NICE; without them statsd logs it and keeps the nice it was started with. statsd.service sets the same value (Nice=)."),
	K("drain_slice_us", CFG_UINT, drain_slice_us, "100", 0, 100000, false,
	    "Time slice statsd asks of the Linux fair scheduler (sched_setattr, honoured by EEVDF kernels), in microseconds: a short slice lets statsd preempt a producer that woke it on the same CPU, so that a burst starts draining within microseconds. 0: the kernel's default."),
	K("drain_batch", CFG_UINT, drain_batch, "4096", 1, 1048576, true,
	    "Most records taken from one ring per drain pass; the rest waits for the next loop turn, so control calls keep being served."),
	K("checkpoint_interval_ms", CFG_UINT, checkpoint_interval_ms, "10000", 100, 86400000, true,
	    "Period of the checkpoint pass, which appends the PERSISTENT kstats whose data changed to the log in the state directory (and compacts it when due). It runs while clients are connected, datagrams come or kstats come and go, and once after: an idle statsd makes none. Creates and deletes are written at once, and the pass runs at exit too."),
	K("max_persistent_bytes", CFG_SIZE, max_persistent_bytes, "256M", 1048576, 68719476736ull, true,
	    "Most disk bytes all PERSISTENT kstats together may take: each counts its runtime file and its blob in the checkpoint (see quota_reserve_percent)."),
	K("max_persistent_bytes_per_uid", CFG_SIZE, max_persistent_bytes_per_uid, "16M", 65536, 68719476736ull, true,
	    "Most disk bytes the PERSISTENT kstats of one unprivileged user may take, dormant ones included."),
	K("watch_min_interval_ms", CFG_UINT, watch_min_interval_ms, "100", 1, 3600000, true,
	    "Shortest interval a streaming Read or Scrape may ask for."),
	K("quota_reserve_percent", CFG_UINT, quota_reserve_percent, "10", 0, 90, true,
	    "Part of every total (max_connections, http_max_connections, max_buffered, max_templates, max_template_bytes, max_kstats, arena_size, max_persistent_bytes, max_rings, max_ring_bytes, max_zone_segments), in percent, that only privileged peers may use, so that a crowd of users cannot lock root out. Privileged peers are held to the totals only, not to the per-user limits."),
	{ "zones", CFG_ENUM, offsetof(struct config, zones), "cgroup", 0, 0,
	    false, zone_kind_names,
	    "What makes a zone (a container). cgroup: the container cgroup of the process that connected (see zone_cgroups), read from /proc/<pid>/cgroup, which needs no privilege; these zones keep their PERSISTENT kstats across restarts. pidns, userns or cgroupns: its namespace of that kind, which statsd can read for other users' processes only as root or with CAP_SYS_PTRACE (and so with ptrace access to every process); these zones end with statsd, and their PERSISTENT kstats with it. none: every peer is in the global zone. A kstat made in a zone is seen there and in the global zone (statsd's own), never in another zone. A peer whose zone cannot be told is refused.", NULL },
	{ "zone_cgroups", CFG_WORDS, offsetof(struct config, zone_cgroups),
	    zone_cgroups_default, 0, CFG_VALUE_MAX - 1, false, NULL,
	    "The cgroups that are containers, for zones = cgroup: absolute cgroup v2 paths separated by blanks, whose components are shell globs (*, ?, [...], and \\ quoting the next character) matched one component at a time: a pattern matches cgroups of exactly its depth, and no * crosses a /. A peer's zone is the deepest ancestor of its cgroup, itself included, that a pattern matches; a peer under none, or in statsd's own container, is in the global zone. The zone is named after that cgroup's path. The default covers systemd-nspawn and machined, podman (rootful, rootless and pods), Docker (both cgroup drivers, and rootless), LXC, LXD and Incus, and Kubernetes pods; empty means no containers.",
	    cfg_check_zone_cgroups },
	{ "http_listen", CFG_STRING, offsetof(struct config, http_listen),
	    HTTP_LISTEN_DEFAULT, 0, 107, false, NULL,
	    "Address and port (ADDR:PORT, [IPv6]:PORT) of the HTTP endpoint that serves /metrics in the Prometheus text format or OpenMetrics; empty turns it off. A socket systemd passes (named http) is used instead. The default port lies outside Prometheus' exporter range (9100-9999, all allocated). The --http-listen option overrides it.",
	    cfg_check_http_listen },
	{ "http_quantiles", CFG_STRING, offsetof(struct config, http_quantiles),
	    "0.5,0.9,0.99", 0, 255, true, NULL,
	    "Quantiles of the summary a t-digest is shown as in the Prometheus and OpenMetrics formats: ascending numbers in [0, 1], comma-separated.",
	    cfg_check_quantiles },
	K("http_timeout_ms", CFG_UINT, http_timeout_ms, "10000", 100, 3600000, true,
	    "An HTTP client that sends no request, or takes none of its reply, for this long is disconnected."),
	K("http_max_connections", CFG_UINT, http_max_connections, "16", 1, 4096, true,
	    "Most HTTP connections open at once, and so most scrapes of /metrics under way. At the bound a new connection closes the oldest one no scrape is answering (one still sending its request, or idle between two); while every one is being answered statsd accepts no more (they wait in the listen queue) until one closes; a scrape past the bound after a reload lowered it is answered 503. Privileged local users (uid 0 and statsd's own, told by the kernel's socket diagnostics) may hold quota_reserve_percent more (at least one): an unprivileged connection past the bound sheds the oldest one no scrape is answering, or is closed. Scrapes are charged to no user: this bound and a page of 64 KiB each are theirs."),
	K("http_max_connections_per_peer", CFG_UINT, http_max_connections_per_peer, "4", 1, 4096, true,
	    "Most of those connections one peer may hold at once: a local user, whose connection's other end the kernel's socket diagnostics name the owner of (sock_diag(7), as ss -e shows), or a remote address. A connection past it is closed as soon as it is accepted. Privileged local users (uid 0 and statsd's own) are not held to it. So no local user can take every connection Prometheus needs, however slowly its scrapes read."),
	K("http_gzip_level", CFG_UINT, http_gzip_level, "1", 0, 9, true,
	    "zlib level of the gzip a scraper that accepts it gets (Prometheus does): 1 is the fastest and shrinks the text about tenfold, 9 the smallest; 0 never compresses."),
	K("statsd_udp", CFG_STRING, statsd_udp, "127.0.0.1:8125", 0, 255, false,
	    "Address and port of the statsd/DogStatsD UDP socket, ADDR:PORT or [IPV6ADDR]:PORT with a numeric address; empty turns it off. A UDP socket passed by systemd takes its place. The --statsd-udp option overrides it. What arrives there is anonymous: owned by statsd, held to statsd_udp_max_series."),
	K("statsd_unix", CFG_STRING, statsd_unix, "", 0, 107, false,
	    "Path of the statsd/DogStatsD Unix datagram socket; empty means statsd.dgram in the runtime directory, none turns it off. A Unix datagram socket passed by systemd takes its place. The --statsd-unix option overrides it. Each datagram carries its sender's credentials (SO_PASSCRED): what a user sends is owned by it and held to its quotas."),
	K("statsd_unix_mode", CFG_MODE, statsd_unix_mode, "0666", 0, 0777, false,
	    "Mode of the Unix datagram socket when statsd binds it itself. Rights are decided per sender by its credentials, not by the mode."),
	K("statsd_rcvbuf", CFG_SIZE, statsd_rcvbuf, "32M", 0, 1073741824, false,
	    "Receive buffer of each statsd/DogStatsD socket (SO_RCVBUF; SO_RCVBUFFORCE where statsd may pass net.core.rmem_max). Datagrams that arrive while it is full are dropped by the kernel and counted in statsd_kernel_drops. 0 keeps the kernel's default."),
	K("statsd_batch", CFG_UINT, statsd_batch, "64", 1, 1024, false,
	    "Datagrams read with one recvmmsg call."),
	K("statsd_threads", CFG_UINT, statsd_threads, "2", 0, 16, false,
	    "Receiver threads of the statsd/DogStatsD front door. 0: statsd reads its sockets in its event loop. N: each socket has a thread that only receives (recvmmsg) and hands the datagrams to the event loop, which parses and applies them (statsd stays the only writer of the store); the UDP address is bound by N sockets (SO_REUSEPORT), over which the kernel spreads senders, each sender's datagrams staying in one socket, in order. Receiving is most of a datagram's cost: threads let it run beside the loop. While datagrams stream in over UDP, a thread that emptied its socket sleeps up to a millisecond before reading again, so that one call takes what came meanwhile (pauses shorten as the receive buffer fills); an idle socket costs no timed wake-up."),
	K("statsd_max_datagram", CFG_SIZE, statsd_max_datagram, "65535", 512, 65535, false,
	    "Longest statsd/DogStatsD datagram, in bytes; a longer one is dropped whole and counted in statsd_oversize. statsd holds statsd_batch buffers of this size."),
	K("statsd_name_max", CFG_UINT, statsd_name_max, "200", 1, 244, true,
	    "Longest metric name, in bytes; a longer one refuses its line (statsd_rejected_name). A name and its tags must also fit a kstat2 path of 255 bytes."),
	K("statsd_tag_max", CFG_UINT, statsd_tag_max, "200", 1, 244, true,
	    "Longest DogStatsD tag, set member or container id, in bytes; a longer one refuses its line."),
	K("statsd_tags_max", CFG_UINT, statsd_tags_max, "13", 0, 13, true,
	    "Most tags on one line (a kstat2 path has room for 13)."),
	K("statsd_values_max", CFG_UINT, statsd_values_max, "64", 1, 4096, true,
	    "Most values on one line (DogStatsD 1.1 packing)."),
	K("statsd_max_series", CFG_UINT, statsd_max_series, "100000", 1, 4194304, true,
	    "Most statsd/DogStatsD series (a type, a name and a tag set; each a kstat) at once. Unprivileged senders (UDP's lines among them) make series up to this less quota_reserve_percent, so that a crowd of them cannot keep root from making its own. A line that would make one more is refused and counted in statsd_refused_cap."),
	K("statsd_max_series_per_uid", CFG_UINT, statsd_max_series_per_uid, "10000", 1, 4194304, true,
	    "Most series one user may make over the Unix datagram socket."),
	K("statsd_udp_max_series", CFG_UINT, statsd_udp_max_series, "10000", 1, 4194304, true,
	    "Most series the anonymous UDP socket may make."),
	K("statsd_ttl_s", CFG_UINT, statsd_ttl_s, "3600", 0, 31536000, true,
	    "Seconds after its last line that a series expires: its kstat is removed, or, if PERSISTENT, made dormant with its data, to wake with its next line. 0: never. Series are looked at once a second while datagrams come, and when none come every sixtieth of this (1 to 60 s), so a series may outlive it by that much."),
	{ "statsd_persistent_prefixes", CFG_WORDS,
	    offsetof(struct config, statsd_persistent_prefixes), "", 0,
	    CFG_VALUE_MAX - 1, false, NULL,
	    "Metric name prefixes, blank-separated, whose series are PERSISTENT kstats: they survive restarts, and go dormant instead of away when idle.",
	    NULL },
	K("statsd_set_exact_max", CFG_UINT, statsd_set_exact_max, "256", 1, 2048, false,
	    "Members a statsd set counts exactly (a LIST statistic); past them its distinct count is a HyperLogLog estimate (about 3 % standard error). A change applies to sets made after a restart; a PERSISTENT set made before keeps its LIST and its data."),
	{ "statsd_buckets_timer", CFG_STRING,
	    offsetof(struct config, statsd_buckets_timer), PROM_BUCKETS_TIMER,
	    0, 1023, false, NULL,
	    "Upper bounds (le) of the classic buckets of a statsd/DogStatsD timer's Prometheus histogram, in seconds: ascending numbers above 0, comma-separated, at most 32, each a whole number of microseconds (timers are kept in microseconds). The default is client_golang's DefBuckets. Each timer series counts its values in these buckets exactly (its VOI 1), beside the log-linear histogram and t-digest that statsctl and the quantile API read; a change applies to timer series made after a restart. A PERSISTENT series made before keeps its buckets and its data: each layout is a template of its own, statsd.timer.<digest>, which the checkpoint restores with the series, and its new values go on into its buckets.",
	    cfg_check_buckets_timer },
	{ "statsd_buckets_histogram", CFG_STRING,
	    offsetof(struct config, statsd_buckets_histogram),
	    PROM_BUCKETS_HISTOGRAM, 0, 1023, false, NULL,
	    "Upper bounds (le) of the classic buckets of a statsd/DogStatsD histogram's or distribution's Prometheus histogram, in the unit sent: ascending whole numbers above 0 (values are kept whole), comma-separated, at most 32. A change applies to series made after a restart; a PERSISTENT series made before keeps its buckets and its data.",
	    cfg_check_buckets_histogram },
	K("statsd_native_schema", CFG_INT, statsd_native_schema, "3", (uint64_t)-4, 3, false,
	    "Schema of the native histograms of statsd/DogStatsD timers, histograms and distributions (Prometheus' protobuf format): buckets grow by 2^(2^-schema), so 3 (the default) gives 8 buckets per power of two, about 9 % wide (about 4 % error); -4 to 3. Each series counts its values exactly in the schema's buckets (its VOI 2) from 1 unit (a timer's microsecond) to 8192 s (a timer: 2 h 16 min) or 10^9, about 4 KiB at schema 3, which keeps a timer series within an 8 KiB blob; a value outside, or below 0, leaves that series' native histogram out (its classic buckets still hold it). A change applies to series made after a restart; a PERSISTENT series made before keeps its schema and its data."),
	K("statsd_template_counter", CFG_STRING, statsd_template[0], "", 0, 255, true,
	    "Template of new statsd/DogStatsD counter series, as a spec (\"name\", or \"name\":hash, registered with TemplateAdd by root or statsd's own user); empty means statsd's own statsd.counter. Its VOI 0 takes the values (an integer or fixed-point VOI; X = the count scaled by 1/rate, Y = 1; statsd's own is INT_U64, which takes whole numbers and carries the fraction to the series' next value; a fixed-point VOI keeps it), SUM keeps the scaled count, COUNT the values received; a negative count is refused (statsd_refused_negative). A template that is missing, or registered by another user, refuses new series (statsd_refused_store); series already made keep theirs."),
	K("statsd_template_gauge", CFG_STRING, statsd_template[1], "", 0, 255, true,
	    "Template of new statsd/DogStatsD gauge series, as a spec (\"name\", or \"name\":hash, registered with TemplateAdd by root or statsd's own user); empty means statsd's own statsd.gauge. Its VOI 0 takes the values (an integer or fixed-point VOI; ABS for a value, REL for a +N/-N delta, which needs relupdate), LAST keeps it. A template that is missing, or registered by another user, refuses new series (statsd_refused_store); series already made keep theirs."),
	K("statsd_template_timer", CFG_STRING, statsd_template[2], "", 0, 255, true,
	    "Template of new statsd/DogStatsD timer series, as a spec (\"name\", or \"name\":hash, registered with TemplateAdd by root or statsd's own user); empty means statsd's own statsd.timer.<digest> (its layout). Its VOI 0 takes the values (an integer or fixed-point VOI; in microseconds, with Y = 1/rate), any statistics. A template that is missing, or registered by another user, refuses new series (statsd_refused_store); series already made keep theirs."),
	K("statsd_template_histogram", CFG_STRING, statsd_template[3], "", 0, 255, true,
	    "Template of new statsd/DogStatsD histogram series, as a spec (\"name\", or \"name\":hash, registered with TemplateAdd by root or statsd's own user); empty means statsd's own statsd.histogram.<digest> (its layout). Its VOI 0 takes the values (an integer or fixed-point VOI; with Y = 1/rate), any statistics. A template that is missing, or registered by another user, refuses new series (statsd_refused_store); series already made keep theirs."),
	K("statsd_template_distribution", CFG_STRING, statsd_template[4], "", 0, 255, true,
	    "Template of new statsd/DogStatsD distribution series, as a spec (\"name\", or \"name\":hash, registered with TemplateAdd by root or statsd's own user); empty means statsd's own statsd.distribution.<digest> (its layout). Its VOI 0 takes the values (an integer or fixed-point VOI; with Y = 1/rate), any statistics. A template that is missing, or registered by another user, refuses new series (statsd_refused_store); series already made keep theirs."),
	K("statsd_template_set", CFG_STRING, statsd_template[5], "", 0, 255, true,
	    "Template of new statsd/DogStatsD set series, as a spec (\"name\", or \"name\":hash, registered with TemplateAdd by root or statsd's own user); empty means statsd's own statsd.set.<digest> (its layout). Its VOI 0 takes the values (an integer or fixed-point VOI; each member's 64-bit hash, X with Y = 1), VOI 1, if there is one, the distinct count (LAST), and VOI 2, if it is a STRING of at least 1024 bytes, the HyperLogLog registers (else they are kept in memory, for the series' life in this run). A template that is missing, or registered by another user, refuses new series (statsd_refused_store); series already made keep theirs."),
};

#define NKEYS	(sizeof(config_keys) / sizeof(config_keys[0]))

static void *
cfg_field(struct config *c, const struct cfg_key *k)
{
	return (char *)c + k->off;
}

static const void *
cfg_cfield(const struct config *c, const struct cfg_key *k)
{
	return (const char *)c + k->off;
}

/* Parse one value into c. Returns: NULL, or a message (static, or in
 * buf). */
static const char *
cfg_parse_value(struct config *c, const struct cfg_key *k, const char *v,
    char *buf, size_t buflen)
{
	unsigned long long n;
	const char *msg;
	char *end;
	size_t i, len, used;

	switch (k->type) {
	case CFG_INT: {
		long long sn;

		if (!isdigit((unsigned char)v[*v == '-']))
			return "expected a number";
		errno = 0;
		sn = strtoll(v, &end, 10);
		if (errno != 0 || *end != '\0')
			return errno != 0 ? "number out of range" :
			    "trailing characters after the number";
		if (sn < (int64_t)k->min || sn > (int64_t)k->max)
			return "value outside the allowed range";
		*(int *)cfg_field(c, k) = (int)sn;
		return NULL;
	}
	case CFG_UINT:
	case CFG_SIZE:
	case CFG_MODE:
		if (*v == '\0' || !isdigit((unsigned char)*v))
			return "expected a number";
		errno = 0;
		n = strtoull(v, &end, k->type == CFG_MODE ? 8 : 10);
		if (errno != 0)
			return "number out of range";
		if (k->type != CFG_MODE && *end != '\0') {
			unsigned long long mul = 1;

			if (strcmp(end, "K") == 0 || strcmp(end, "k") == 0)
				mul = 1024;
			else if (strcmp(end, "M") == 0)
				mul = 1024 * 1024;
			else if (strcmp(end, "G") == 0)
				mul = 1024 * 1024 * 1024;
			else
				return "trailing characters after the number (suffixes: K, M, G)";
			if (n > UINT64_MAX / mul)
				return "number out of range";
			n *= mul;
		} else if (*end != '\0') {
			return "expected an octal mode";
		}
		if (n < k->min || n > k->max)
			return "value outside the allowed range";
		if (k->type == CFG_SIZE && k->max > UINT32_MAX)
			*(uint64_t *)cfg_field(c, k) = n;
		else
			*(unsigned *)cfg_field(c, k) = (unsigned)n;
		return NULL;
	case CFG_STRING:
	case CFG_WORDS:
		len = strlen(v);
		if (len > k->max)
			return "string too long";
		for (i = 0; i < len; i++)
			if (!isgraph((unsigned char)v[i]) &&
			    (k->type != CFG_WORDS || (v[i] != ' ' &&
			    v[i] != '\t')))
				return k->type == CFG_WORDS ? "control characters are not allowed" :
				    "blanks and control characters are not allowed";
		if (k->check != NULL && (msg = k->check(v, buf, buflen)) != NULL)
			return msg;
		end = strdup(v);
		if (end == NULL)
			return "out of memory";
		free(*(char **)cfg_field(c, k));
		*(char **)cfg_field(c, k) = end;
		return NULL;
	case CFG_ENUM:
		for (i = 0; k->names[i] != NULL; i++)
			if (strcmp(k->names[i], v) == 0) {
				*(unsigned *)cfg_field(c, k) = (unsigned)i;
				return NULL;
			}
		/* Name them: a word that was renamed is then found. */
		used = (size_t)snprintf(buf, buflen, "not one of");
		for (i = 0; k->names[i] != NULL && used < buflen; i++)
			used += (size_t)snprintf(buf + used, buflen - used,
			    "%s %s", i > 0 ? "," : "", k->names[i]);
		return buf;
	}
	return "unknown key type";
}

int
config_set(struct config *c, const char *key, const char *value, char *why,
    size_t len)
{
	const char *msg;
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		if (strcmp(config_keys[i].key, key) != 0)
			continue;
		msg = cfg_parse_value(c, &config_keys[i], value, why, len);
		if (msg == NULL)
			return 0;
		if (msg != why)
			snprintf(why, len, "%s", msg);
		return -EINVAL;
	}
	snprintf(why, len, "unknown key");
	return -EINVAL;
}

int
config_defaults(struct config *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	char buf[256];

	for (i = 0; i < NKEYS; i++)
		if (cfg_parse_value(c, &config_keys[i], config_keys[i].def,
		    buf, sizeof(buf)) != NULL) {
			config_done(c);
			return -ENOMEM;
		}
	if ((c->mapping = prom_rules_new()) == NULL) {
		config_done(c);
		return -ENOMEM;
	}
	return 0;
}

void
config_done(struct config *c)
{
	size_t i;

	if (c == NULL)
		return;
	prom_rules_unref(c->mapping);
	c->mapping = NULL;
	for (i = 0; i < NKEYS; i++)
		if (config_keys[i].type == CFG_STRING ||
		    config_keys[i].type == CFG_WORDS) {
			free(*(char **)cfg_field(c, &config_keys[i]));
			*(char **)cfg_field(c, &config_keys[i]) = NULL;
		}
}

static int
cfg_fail(struct input_error *err, const char *path, unsigned line,
    const char *key, const char *msg)
{
	snprintf(err->file, sizeof(err->file), "%s", path);
	err->line = line;
	return input_fail(err, EINVAL, key, "%s", msg);
}

static char *
cfg_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int
config_load(const char *path, bool required, struct config *out,
    struct input_error *err)
{
	bool seen[NKEYS] = { false }, mapping = false;
	struct config c;
	char *line = NULL, keybuf[64], why[200];
	unsigned lineno = 0;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int r;

	memset(err, 0, sizeof(*err));
	r = config_defaults(&c);
	if (r < 0)
		return r;
	if (path == NULL) {
		*out = c;
		return 0;
	}
	f = fopen(path, "re");
	if (f == NULL) {
		r = -errno;
		if (r == -ENOENT && !required) {
			*out = c;
			return 0;
		}
		snprintf(err->file, sizeof(err->file), "%s", path);
		snprintf(err->msg, sizeof(err->msg), "cannot open: %s",
		    strerror(-r));
		config_done(&c);
		return r;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		char *p, *eq, *key, *val, *hash;
		const char *msg;
		size_t i, len = (size_t)n;

		lineno++;
		if (len > 4096) {
			r = cfg_fail(err, path, lineno, "", "line too long");
			goto out;
		}
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strlen(line) != len) {
			r = cfg_fail(err, path, lineno, "", "NUL byte in line");
			goto out;
		}
		hash = strchr(line, '#');
		if (hash != NULL)
			*hash = '\0';
		p = cfg_trim(line);
		if (*p == '\0')
			continue;
		/* "[mapping]": every line after it is a rule, in order. */
		if (strcmp(p, "[mapping]") == 0 && !mapping) {
			mapping = true;
			continue;
		}
		if (mapping) {
			unsigned col = 0;

			r = prom_rules_add(c.mapping, p, why, sizeof(why), &col);
			if (r == -EINVAL) {
				char m[sizeof(err->msg)];

				snprintf(m, sizeof(m), "column %u: %s",
				    col + (unsigned)(p - line), why);
				r = cfg_fail(err, path, lineno, "mapping", m);
			}
			if (r < 0)
				goto out;
			continue;
		}
		eq = strchr(p, '=');
		if (eq == NULL) {
			snprintf(keybuf, sizeof(keybuf), "%s", p);
			r = cfg_fail(err, path, lineno, cfg_trim(keybuf),
			    "expected `key = value'");
			goto out;
		}
		*eq = '\0';
		key = cfg_trim(p);
		val = cfg_trim(eq + 1);
		len = strlen(val);
		if (len >= 2 && val[0] == '"' && val[len - 1] == '"') {
			val[len - 1] = '\0';
			val++;
		}
		for (i = 0; i < NKEYS; i++)
			if (strcmp(config_keys[i].key, key) == 0)
				break;
		if (i == NKEYS) {
			r = cfg_fail(err, path, lineno, key, "unknown key");
			goto out;
		}
		if (seen[i]) {
			r = cfg_fail(err, path, lineno, key,
			    "key given twice");
			goto out;
		}
		seen[i] = true;
		msg = cfg_parse_value(&c, &config_keys[i], val, why,
		    sizeof(why));
		if (msg != NULL) {
			char m[sizeof(err->msg)];

			/* A list's check names the item that is wrong. */
			if (config_keys[i].type == CFG_WORDS && msg == why)
				snprintf(m, sizeof(m), "%s", msg);
			else
				snprintf(m, sizeof(m), "bad value \"%.64s\": %s",
				    val, msg);
			r = cfg_fail(err, path, lineno, key, m);
			goto out;
		}
	}
	if (ferror(f)) {
		r = cfg_fail(err, path, 0, "", "read error");
		goto out;
	}
	if (c.ring_capacity_log2 > c.ring_max_capacity_log2) {
		r = cfg_fail(err, path, 0, "ring_capacity_log2",
		    "larger than ring_max_capacity_log2");
		goto out;
	}
	if (c.ring_overflow_size % 8192 != 0 ||
	    (c.ring_overflow_size > 0 && c.ring_overflow_size < 8192)) {
		r = cfg_fail(err, path, 0, "ring_overflow_size",
		    "not a multiple of 8K");
		goto out;
	}
	if (c.ring_overflow_size > c.ring_max_overflow_size) {
		r = cfg_fail(err, path, 0, "ring_overflow_size",
		    "larger than ring_max_overflow_size");
		goto out;
	}
	r = 0;
out:
	free(line);
	fclose(f);
	if (r < 0) {
		config_done(&c);
		return r;
	}
	*out = c;
	return 0;
}

void
config_error_format(const struct input_error *err, char *buf, size_t len)
{
	if (err->line > 0)
		snprintf(buf, len, "%s:%u: %s%s%s", err->file, err->line,
		    err->where, err->where[0] != '\0' ? ": " : "", err->msg);
	else
		snprintf(buf, len, "%s: %s%s%s", err->file, err->where,
		    err->where[0] != '\0' ? ": " : "", err->msg);
}

static bool
cfg_equal(const struct config *a, const struct config *b,
    const struct cfg_key *k)
{
	switch (k->type) {
	case CFG_STRING:
	case CFG_WORDS:
		return strcmp(*(char *const *)cfg_cfield(a, k),
		    *(char *const *)cfg_cfield(b, k)) == 0;
	case CFG_SIZE:
		if (k->max > UINT32_MAX)
			return *(const uint64_t *)cfg_cfield(a, k) ==
			    *(const uint64_t *)cfg_cfield(b, k);
		/* FALLTHROUGH */
	default:
		return *(const unsigned *)cfg_cfield(a, k) ==
		    *(const unsigned *)cfg_cfield(b, k);
	}
}

int
config_reload_apply(struct config *c, const struct config *n, char *buf,
    size_t len)
{
	size_t i, used = 0;
	int kept = 0;

	if (len > 0)
		buf[0] = '\0';
	for (i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &config_keys[i];

		if (cfg_equal(c, n, k))
			continue;
		if (!k->reloadable) {
			if (used < len)
				used += (size_t)snprintf(buf + used, len - used,
				    "%s%s", kept > 0 ? ", " : "", k->key);
			kept++;
			continue;
		}
		if (k->type == CFG_STRING || k->type == CFG_WORDS) {
			char *s = strdup(*(char *const *)cfg_cfield(n, k));

			if (s == NULL)
				continue;
			free(*(char **)cfg_field(c, k));
			*(char **)cfg_field(c, k) = s;
		} else if (k->type == CFG_SIZE && k->max > UINT32_MAX) {
			*(uint64_t *)cfg_field(c, k) =
			    *(const uint64_t *)cfg_cfield(n, k);
		} else {
			*(unsigned *)cfg_field(c, k) =
			    *(const unsigned *)cfg_cfield(n, k);
		}
	}
	/* The mapping rules: the new file's; a scrape under way keeps the
	 * ones it holds. */
	if (n->mapping != NULL && n->mapping != c->mapping) {
		prom_rules_unref(c->mapping);
		c->mapping = prom_rules_ref(n->mapping);
	}
	return kept;
}

static void
cfg_format(const struct config *c, const struct cfg_key *k, char *buf,
    size_t len)
{
	uint64_t v;

	switch (k->type) {
	case CFG_STRING:
	case CFG_WORDS:
		snprintf(buf, len, "%s", *(char *const *)cfg_cfield(c, k));
		return;
	case CFG_ENUM:
		snprintf(buf, len, "%s",
		    k->names[*(const unsigned *)cfg_cfield(c, k)]);
		return;
	case CFG_MODE:
		snprintf(buf, len, "%04o", *(const unsigned *)cfg_cfield(c, k));
		return;
	case CFG_SIZE:
		v = k->max > UINT32_MAX ? *(const uint64_t *)cfg_cfield(c, k) :
		    *(const unsigned *)cfg_cfield(c, k);
		if (v != 0 && v % (1024 * 1024 * 1024) == 0)
			snprintf(buf, len, "%" PRIu64 "G", v >> 30);
		else if (v != 0 && v % (1024 * 1024) == 0)
			snprintf(buf, len, "%" PRIu64 "M", v >> 20);
		else if (v != 0 && v % 1024 == 0)
			snprintf(buf, len, "%" PRIu64 "K", v >> 10);
		else
			snprintf(buf, len, "%" PRIu64, v);
		return;
	case CFG_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)cfg_cfield(c, k));
		return;
	case CFG_INT:
		snprintf(buf, len, "%d", *(const int *)cfg_cfield(c, k));
		return;
	}
}

/* Print doc wrapped at 72 columns, each line prefixed. */
static void
cfg_wrap(FILE *f, const char *prefix, const char *doc)
{
	const char *p = doc;

	while (*p != '\0') {
		size_t n = strlen(p), cut = n;

		if (n > 70) {
			cut = 70;
			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = 70;
		}
		fprintf(f, "%s%.*s\n", prefix, (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
	}
}

void
config_print(FILE *f, const struct config *c)
{
	char val[CFG_VALUE_MAX];
	size_t i;

	for (i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &config_keys[i];

		cfg_wrap(f, "# ", k->doc);
		cfg_format(c, k, val, sizeof(val));
		fprintf(f, "%s = %s\n%s", k->key, val, i + 1 < NKEYS ? "\n" : "");
	}
	if (prom_rules_count(c->mapping) > 0) {
		fprintf(f, "\n# The exposition's mapping rules, in order "
		    "(statsd.conf(5), MAPPING).\n[mapping]\n");
		for (i = 0; i < prom_rules_count(c->mapping); i++)
			fprintf(f, "%s\n", prom_rules_line(c->mapping, i));
	}
}

static void
cfg_range(const struct cfg_key *k, char *buf, size_t len)
{
	switch (k->type) {
	case CFG_UINT:
	case CFG_SIZE:
		snprintf(buf, len, "%" PRIu64 " to %" PRIu64, k->min, k->max);
		return;
	case CFG_INT:
		snprintf(buf, len, "%" PRId64 " to %" PRId64, (int64_t)k->min,
		    (int64_t)k->max);
		return;
	case CFG_MODE:
		snprintf(buf, len, "an octal mode");
		return;
	case CFG_STRING:
		snprintf(buf, len, "up to %" PRIu64 " characters", k->max);
		return;
	case CFG_ENUM:
		snprintf(buf, len, "a word");
		return;
	case CFG_WORDS:
		snprintf(buf, len, "Patterns separated by blanks");
		return;
	}
}

/* Print n bytes of w for roff: a backslash is roff's escape, \e prints
 * one. */
static void
mdoc_word(FILE *f, const char *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (w[i] == '\\')
			fputs("\\e", f);
		else
			fputc(w[i], f);
}

/*
 * Prints prose as mdoc source: each sentence starts a new line (roff
 * reads a full stop at the end of a line as a sentence end) and lines
 * wrap at 72 columns, so that mandoc -T lint has nothing to say.  A line
 * that would begin with '.' or '\'' is escaped with \& so that roff
 * does not take it for a request.
 */
static void
mdoc_text(FILE *f, const char *text)
{
	const char *p = text;
	size_t col = 0;

	while (*p != '\0') {
		const char *w;
		size_t n;

		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		for (w = p, n = 0; w[n] != '\0' && w[n] != ' '; n++)
			;
		if (col > 0 && col + 1 + n > 72) {
			fputc('\n', f);
			col = 0;
		}
		if (col > 0) {
			fputc(' ', f);
			col++;
		} else if (*w == '.' || *w == '\'') {
			fputs("\\&", f);
			col += 2;
		}
		mdoc_word(f, w, n);
		col += n;
		p = w + n;
		/* A sentence ends the line. */
		if (n > 0 && strchr(".?!", w[n - 1]) != NULL && col > 0) {
			fputc('\n', f);
			col = 0;
		}
	}
	if (col > 0)
		fputc('\n', f);
}

/* A list's default, a word a line. */
static void
mdoc_list(FILE *f, const char *val)
{
	const char *p = val;
	size_t n;

	fprintf(f, "Default:\n.Bd -literal -offset indent\n");
	while (*p != '\0') {
		while (*p == ' ' || *p == '\t')
			p++;
		for (n = 0; p[n] != '\0' && p[n] != ' ' && p[n] != '\t'; n++)
			;
		if (n > 0) {
			if (*p == '.' || *p == '\'')
				fputs("\\&", f);
			mdoc_word(f, p, n);
			fputc('\n', f);
		}
		p += n;
	}
	fprintf(f, ".Ed\n");
}

void
config_print_mdoc(FILE *f)
{
	struct config c;
	char val[CFG_VALUE_MAX], range[64];
	size_t i;

	if (config_defaults(&c) < 0)
		return;
	fprintf(f, ".Bl -tag -width Ds\n");
	for (i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &config_keys[i];

		cfg_format(&c, k, val, sizeof(val));
		cfg_range(k, range, sizeof(range));
		fprintf(f, ".It Ic %s No = Ar value\n", k->key);
		mdoc_text(f, k->doc);
		if (k->type == CFG_WORDS && val[0] != '\0') {
			mdoc_list(f, val);
			fprintf(f, "%s%s.\n", range, k->reloadable ?
			    "; takes effect on reload (SIGHUP)" :
			    "; needs a restart");
			continue;
		}
		fprintf(f, "Default:\n.Ql %s ;\n%s%s.\n", val[0] != '\0' ?
		    val : "\"\"", range, k->reloadable ?
		    "; takes effect on reload (SIGHUP)" :
		    "; needs a restart");
	}
	fprintf(f, ".El\n");
	config_done(&c);
}

json_t *
config_to_json(const struct config *c)
{
	json_t *o = json_object();
	char val[CFG_VALUE_MAX];
	size_t i;

	if (o == NULL)
		return NULL;
	for (i = 0; i < NKEYS; i++) {
		const struct cfg_key *k = &config_keys[i];

		cfg_format(c, k, val, sizeof(val));
		json_object_set_new(o, k->key, json_string(val));
	}
	return o;
}
