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
extern const struct verb verb_show, verb_watch, verb_hist, verb_data,
    verb_definition, verb_define, verb_on, verb_off, verb_reset,
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
 * sc_check_selector, sc_check_class: check a kstat(1M) selector or a
 * class pattern here, so that a bad one is a usage error (exit 2) that
 * names the field, before anything is sent.
 * Returns: 0; SC_EXIT_USAGE (reported).
 */
int sc_check_selector(const struct sc *sc, const char *text);
int sc_check_class(const struct sc *sc, const char *text);

#endif /* STATSCTL_H */
