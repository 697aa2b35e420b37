/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * config.h: statsd.conf — every key the daemon reads, as one table
 * (config.c) that drives parsing, --check-config, the printed
 * configuration and the key list of statsd.conf(5).
 *
 * The file is lines of `key = value`; '#' starts a comment; blank lines are
 * ignored. Every key has a default, so an empty or absent file is valid. An
 * unknown key, a repeated key or a bad value is an error naming the file,
 * the line and the key.
 */
#ifndef STATSD_DAEMON_CONFIG_H
#define STATSD_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "input_error.h"

struct config {
	char		*socket;		/* "" = <runtime>/statsd.sock */
	unsigned	 socket_mode;
	char		*admin_group;		/* "" = none */
	unsigned	 log_level;		/* enum log_level */
	unsigned	 max_connections;
	unsigned	 max_connections_per_uid;
	unsigned	 max_message_size;
	unsigned	 max_output;
	unsigned	 reply_page_size;
	unsigned	 reader_threads;
	uint64_t	 max_buffered;
	uint64_t	 max_buffered_per_uid;
	unsigned	 idle_timeout_ms;
	unsigned	 max_templates;
	unsigned	 max_templates_per_uid;
	uint64_t	 max_template_bytes;
	uint64_t	 max_template_bytes_per_uid;
	unsigned	 max_kstats;
	unsigned	 max_kstats_per_uid;
	uint64_t	 arena_size;
	uint64_t	 arena_bytes_per_uid;
	uint64_t	 private_arena_size;
	unsigned	 max_rings;
	unsigned	 max_rings_per_uid;
	unsigned	 ring_capacity_log2;
	unsigned	 ring_max_capacity_log2;
	uint64_t	 ring_overflow_size;
	uint64_t	 ring_max_overflow_size;
	uint64_t	 max_ring_bytes;
	uint64_t	 max_ring_bytes_per_uid;
	unsigned	 max_zone_segments;
	unsigned	 max_zone_segments_per_uid;
	unsigned	 drain_interval_ms;
	unsigned	 drain_poll_us;
	int		 nice;
	unsigned	 drain_slice_us;
	unsigned	 drain_batch;
	unsigned	 checkpoint_interval_ms;
	uint64_t	 max_persistent_bytes;
	uint64_t	 max_persistent_bytes_per_uid;
	unsigned	 quota_reserve_percent;
	unsigned	 watch_min_interval_ms;
	unsigned	 zones;			/* enum zone_kind */
	char		*zone_cgroups;		/* patterns, blank-separated */
	char		*http_listen;		/* "" = no HTTP exposition */
	char		*http_quantiles;	/* of summaries: "0.5,0.9" */
	unsigned	 http_timeout_ms;
	unsigned	 http_max_connections;
	unsigned	 http_max_connections_per_peer;
	unsigned	 http_gzip_level;	/* 0: never */
	/* the statsd/DogStatsD front door (front.h, series.h) */
	char		*statsd_udp;		/* "" = off */
	char		*statsd_unix;		/* "" = <runtime>/statsd.dgram */
	unsigned	 statsd_unix_mode;
	unsigned	 statsd_rcvbuf;
	unsigned	 statsd_batch;
	unsigned	 statsd_threads;
	unsigned	 statsd_max_datagram;
	unsigned	 statsd_name_max;
	unsigned	 statsd_tag_max;
	unsigned	 statsd_tags_max;
	unsigned	 statsd_values_max;
	unsigned	 statsd_max_series;
	unsigned	 statsd_max_series_per_uid;
	unsigned	 statsd_udp_max_series;
	unsigned	 statsd_ttl_s;
	char		*statsd_persistent_prefixes;
	unsigned	 statsd_set_exact_max;
	char		*statsd_buckets_timer;	/* seconds: "0.005,0.01" */
	char		*statsd_buckets_histogram; /* whole units */
	int		 statsd_native_schema;	/* native histograms' */
	/* The [mapping] section: the exposition's rules for statsd series
	 * (render_prom.h), shared by reference; reloadable. */
	struct prom_rules *mapping;
	char		*statsd_template[6];	/* by enum sl_type; "" = statsd's */
};

/* The default of http_listen: loopback, a port outside Prometheus'
 * exporter range (9100-9999, all allocated), next to the statsd line
 * protocol's 8125. */
#define HTTP_LISTEN_DEFAULT	"127.0.0.1:18125"

/* The longest address of an ADDR:PORT setting, its NUL included. */
#define CONFIG_ADDR_MAX		256

/*
 * config_addr_port: an ADDR:PORT setting (http_listen, statsd_udp; an IPv6
 * address in brackets, [ADDR]:PORT) split: its address without brackets
 * into addr (len bytes), its port into *ret_port.
 * Returns: 0; -EINVAL (no address, no colon, an address of len bytes or
 * more); -ERANGE (the port is not a number from 0 to 65535).
 */
int config_addr_port(const char *v, char *addr, size_t len,
    unsigned short *ret_port);

/* Set key to value as a file line would, for a command-line option.
 * Returns: 0; -EINVAL with why (len bytes) filled. */
int config_set(struct config *c, const char *key, const char *value,
    char *why, size_t len);

/* Fill c with every key's default. Returns: 0; -ENOMEM. */
int config_defaults(struct config *c);

/*
 * config_load: the defaults, then the file's settings. path NULL loads the
 * defaults only; a missing file is an error when required, else the
 * defaults.
 * Returns: 0 and a filled *c (config_done() it); -EINVAL with *err filled
 * (c untouched); -ENOENT for a missing required file; -errno.
 */
int config_load(const char *path, bool required, struct config *c,
    struct input_error *err);

/* Free the strings of c. NULL-safe. */
void config_done(struct config *c);

/* Format err (its where is the key) as "FILE:LINE: key: message". */
void config_error_format(const struct input_error *err, char *buf,
    size_t len);

/*
 * config_reload_apply: copy the reloadable keys of n into c, and name
 * (in buf) the non-reloadable keys whose values differ, which keep their
 * current values. Returns: the number of such keys.
 */
int config_reload_apply(struct config *c, const struct config *n, char *buf,
    size_t len);

/* Print every key as `key = value`, each after its description as a
 * comment, so that the output is itself a valid statsd.conf. */
void config_print(FILE *f, const struct config *c);

/* The key list of statsd.conf(5), as mdoc, from the table. */
void config_print_mdoc(FILE *f);

/* Append the effective config as a JSON object (a json_t *) to *ret. */
struct json_t;
struct json_t *config_to_json(const struct config *c);

#endif
