/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * statsctl.h: what statsctl's verbs share — the verb table's entry, the
 * run-time context (socket, output format, connection), exit statuses, the
 * usage-error helper and the KSTAT argument (module:instance:name[:stat]).
 */
#ifndef STATSCTL_H
#define STATSCTL_H

#include <stdbool.h>
#include <stdint.h>

#include <statsd/kstat.h>

/* Exit statuses, as kstat(1M) has them. */
#define SC_EXIT_OK	0	/* done (show: something matched) */
#define SC_EXIT_FAIL	1	/* an error, named on stderr */
#define SC_EXIT_USAGE	2	/* a usage error: the verb's usage on stderr */

struct option;
struct output;
struct sc;

/* One verb: its name, handler, usage line, one-line summary, and what
 * --help prints: the operands and options (two-space indent, text from
 * column 20), then notes. run gets argv[0] == name. */
struct verb {
	const char	*name;
	int		(*run)(struct sc *sc, int argc, char **argv);
	const char	*usage;
	const char	*summary;
	const char	*help;
	const char	*notes;
};

/* The output a verb chose: text (the default), JSON or parseable. */
enum sc_format {
	SC_FMT_TEXT = 0,
	SC_FMT_JSON,
	SC_FMT_PARSEABLE,
};

struct sc {
	const char		*socket;	/* --socket, or the default */
	enum sc_format		 format;	/* --json gives SC_FMT_JSON */
	const struct verb	*verb;		/* the verb running */
	struct vlc		*vlc;		/* NULL until sc_conn() */
	const char		*subject;	/* names what a daemon error
						 * is about, or NULL */
};

/* Every verb, in the order `statsctl --help` lists them. */
extern const struct verb verb_show, verb_watch, verb_iostat, verb_hist,
    verb_data, verb_definition, verb_define, verb_on, verb_off, verb_reset,
    verb_snapshot, verb_templates, verb_sample_rates, verb_scrape,
    verb_info;

/*
 * sc_usage: report a usage error of the running verb: "statsctl: VERB:
 * <message>" and the verb's usage line, on stderr.
 * Returns: SC_EXIT_USAGE.
 */
int sc_usage(const struct sc *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * sc_optbad: the usage error for what getopt_long (with a leading ':' in
 * its option string) returned: an unknown option or a missing argument.
 * Returns: SC_EXIT_USAGE.
 */
int sc_optbad(const struct sc *sc, int c, char **argv);

/* sc_error: "statsctl: <message>" on stderr. Returns: SC_EXIT_FAIL. */
int sc_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The output for a format: a verb's -j or -p, else the global one. */
const struct output *sc_output(const struct sc *sc, enum sc_format f);

/* A kstat named on the command line: module:instance:name, and with
 * allow_stat a fourth field (a statistic or VOI; "" when absent). */
struct kref {
	char		module[KSTAT_STRLEN];
	int32_t		instance;
	char		name[KSTAT_STRLEN];
	char		stat[128];
};

/*
 * kref_parse: parse text as module:instance:name[:stat]. Every field of
 * the name is required and literal (no patterns); the instance is a
 * decimal number ≥ 0.
 * Returns: 0; -EINVAL (the caller reports a usage error).
 */
int kref_parse(const char *text, bool allow_stat, struct kref *ret);

/*
 * sc_kstat_arg: arg as a KSTAT (kref_parse), or the usage error "'ARG' is
 * not module:instance:name" ("...name[:voi]" with allow_stat).
 * Returns: 0 and *k; SC_EXIT_USAGE (reported).
 */
int sc_kstat_arg(const struct sc *sc, const char *arg, bool allow_stat,
    struct kref *k);

/*
 * sc_one_kstat: the operands after the options (argv[optind...]) are
 * exactly one KSTAT ("one KSTAT, please" or, with allow_stat, "one
 * KSTAT[:VOI], please" otherwise), parsed as sc_kstat_arg does.
 * Returns: 0 and *k; SC_EXIT_USAGE (reported).
 */
int sc_one_kstat(const struct sc *sc, int argc, char **argv,
    bool allow_stat, struct kref *k);

/*
 * sc_lead_kstat: for a verb with no options ("+:"), whose operands are a
 * KSTAT then more: at least min operands (else the usage error missing),
 * the first parsed as sc_kstat_arg does.
 * Returns: 0 and *k (the KSTAT is argv[optind]); an exit status (reported).
 */
int sc_lead_kstat(struct sc *sc, int argc, char **argv, int min,
    const char *missing, struct kref *k);

/*
 * sc_stat_names: the operands after the KSTAT (argv[optind + 1...]) are
 * statistics' names (no blank, '=' or empty one: a usage error); adds
 * each one's length plus per to *len.
 * Returns: 0; SC_EXIT_USAGE (reported).
 */
int sc_stat_names(const struct sc *sc, int argc, char **argv, size_t per,
    size_t *len);

/* The long options -j and -p, for a verb's option table. */
#define SC_OPTS_OUTPUT \
	{ "json", no_argument, NULL, 'j' }, \
	{ "parseable", no_argument, NULL, 'p' }

/* A verb's own option c (optarg is arg): 0, or an exit status. */
typedef int (*sc_opt_fn)(struct sc *sc, int c, const char *arg, void *ctx);

/* sc_opt_flag: an sc_opt_fn for a verb's one flag: *(bool *)ctx = true. */
int sc_opt_flag(struct sc *sc, int c, const char *arg, void *ctx);

/*
 * sc_getopt: run getopt_long over a verb's arguments with shortopts
 * (which starts with ':' or "+:") and opts. -j and -p set *fmt (JSON,
 * parseable); any other option goes to fn (with ctx); an unknown option
 * or a missing argument is sc_optbad's usage error. fmt and fn may be
 * NULL when the verb has no such options.
 * Returns: 0 (the operands start at optind); an exit status (reported).
 */
int sc_getopt(struct sc *sc, int argc, char **argv, const char *shortopts,
    const struct option *opts, enum sc_format *fmt, sc_opt_fn fn,
    void *ctx);

/* "module:instance:name" into buf. Returns: buf. */
char *kref_format(const struct kref *k, char *buf, size_t len);

/*
 * kref_selector: a kstat(1M) selector that matches k (and k->stat, if
 * set) literally: shell-glob characters are escaped. Returns: buf.
 */
char *kref_selector(const struct kref *k, char *buf, size_t len);

/*
 * sc_parse_uint: a decimal number in [min, max] with nothing after it.
 * Returns: 0 and *ret; -EINVAL.
 */
int sc_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/*
 * sc_parse_seconds: a positive number of seconds, decimals allowed
 * ("0.5"), as milliseconds in [min_ms, max_ms].
 * Returns: 0 and *ret_ms; -EINVAL.
 */
int sc_parse_seconds(const char *s, uint64_t min_ms, uint64_t max_ms,
    uint64_t *ret_ms);

/*
 * sc_parse_interval: a report interval (iostat, watch), 0.001 to 3600
 * seconds, as milliseconds.
 * Returns: 0 and *ret_ms; sc_usage()'s SC_EXIT_USAGE for another.
 */
int sc_parse_interval(const struct sc *sc, const char *s, uint64_t *ret_ms);

/*
 * sc_check_selector, sc_check_class: check a kstat(1M) selector or a
 * class pattern here, so that a bad one is a usage error (exit 2) that
 * names the field, before anything is sent.
 * Returns: 0; SC_EXIT_USAGE (reported).
 */
int sc_check_selector(const struct sc *sc, const char *text);
int sc_check_class(const struct sc *sc, const char *text);

#endif /* STATSCTL_H */
