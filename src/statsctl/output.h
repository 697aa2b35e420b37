/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * output.h: statsctl's one output vtable (as bgpctl's struct output).
 * Verbs fetch and compute; an output only prints what it is handed, in
 * one of three forms: text for people (output_text.c), JSON
 * (output_json.c) and tab-separated lines for scripts (output_parse.c).
 * show and scrape are not here: their forms are kstat(1M)'s, rendered by
 * the daemon.
 */
#ifndef STATSCTL_OUTPUT_H
#define STATSCTL_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "defn.h"
#include "render_linux.h"

/* One bucket of a distribution: [lb, ub) (DV: lb == ub; DR: [lb, ub]).
 * label is what the text form prints in the value column. */
struct dist_row {
	char	label[96];
	double	lb;
	double	ub;
	double	count;
};

/* One quantile of a t-digest. */
struct dist_quantile {
	char	label[16];	/* "p50", "p99.9" */
	double	q;		/* 0.5, 0.999 */
	double	value;
};

/* A distribution of one statistic of a VOI: a histogram (HIST, K2HIST,
 * or a Linux array) or a t-digest (digest set). */
struct dist {
	char			 key[160];	/* module:instance:name:voi */
	char			 kind[16];	/* HIST, K2HIST, array, TDGST */
	bool			 digest;
	struct dist_row		*rows;
	size_t			 nrows;
	double			 oob;		/* HIST: values outside */
	double			 count;		/* TDGST: samples */
	double			 min;
	double			 max;
	struct dist_quantile	 quant[8];
	size_t			 nquant;
};

/* One statistic of a watch report. */
struct watch_row {
	char	 key[160];	/* module:instance:name:statistic */
	double	 value;		/* now */
	double	 rate;		/* counters: per second over the interval */
	bool	 counter;	/* rate is meaningful */
};

/* One watch report. */
struct watch_frame {
	double			 wall;		/* seconds since the epoch */
	uint64_t		 interval_ms;
	unsigned		 seq;		/* 1, 2, ... */
	bool			 tty;		/* redraw a table */
	const struct watch_row	*rows;
	size_t			 nrows;
};

struct output {
	const char	*name;
	/* info: Hello's and Info's parameters; with_config adds Info's
	 * config. */
	void	(*info)(const json_t *hello, const json_t *info,
		    bool with_config);
	/* templates: TemplateList's parameters; long_form lists VOIs. */
	void	(*templates)(const json_t *reply, bool long_form);
	/* sample-rates: a SampleRatesGet/Set reply. */
	void	(*rates)(const json_t *reply);
	/* definition: one kstat's Linux definition lines, as the
	 * definition file's text and as data. */
	void	(*definition)(const char *text, const struct defn_view *v,
		    size_t n);
	/* data: one kstat's Linux data lines, as the data file's text and
	 * as data. */
	void	(*data)(const char *text, const struct linux_line *lines,
		    size_t n);
	/* hist: the distributions of one kstat. */
	void	(*dists)(const struct dist *d, size_t n);
	/* snapshot: Snapshot's parameters (raw already dropped or kept). */
	void	(*snapshot)(const json_t *reply);
	/* watch: one report. */
	void	(*watch)(const struct watch_frame *f);
};

extern const struct output output_text, output_json, output_parseable;

/* The Linux data and definition files' text, as it is: what the text and
 * parseable outputs print of them (fmt.c). */
void out_data_text(const char *text, const struct linux_line *lines,
    size_t n);
void out_definition_text(const char *text, const struct defn_view *v,
    size_t n);

/* Shared by the outputs: a number as statsctl prints values: integers
 * without decimals, others with up to six significant decimals. */
void fmt_number(char *buf, size_t len, double v);

/* Reading a reply (fmt.c): a member of o, or dflt when it is absent or of
 * another type. */
const char *js_str(const json_t *o, const char *key, const char *dflt);
long long js_int(const json_t *o, const char *key, long long dflt);
double js_num(const json_t *o, const char *key, double dflt);

/*
 * js_u64: an unsigned number of a reply, v: a JSON integer, or above
 * INT64_MAX the string of its digits (docs/protocol.md, Numbers).
 * Returns: 0; -EPROTO for anything else (absent, negative, not digits,
 * past UINT64_MAX).
 */
int js_u64(const json_t *v, uint64_t *ret);

#endif /* STATSCTL_OUTPUT_H */
