/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * v_show.c: `statsctl show` — kstat(1M) over statsd: selectors as
 * operands or -m/-i/-n/-s/-c patterns, the default, -p, -C, -l, -j and -q
 * forms, -T timestamps and interval [count] repetition. statsd sends each
 * selected kstat's flat statistics as data (Scrape's flat format), and
 * every form is rendered here by render_kstat.c, the renderer statsd's
 * own scrapes use.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <statsd/sbuf.h>

#include "conn.h"
#include "flatreply.h"
#include "kstat_hdr.h"
#include "render_kstat.h"
#include "statsctl.h"

/* As many tags as a statsd series can carry. */
#define SHOW_TAGS_MAX	13

struct show {
	enum ksfmt_mode	 mode;
	bool		 quiet;		/* -q */
	char		 stamp;		/* -T: 0, 'u' or 'd' */
	const char	*cls;		/* -c */
	const char	*tags[SHOW_TAGS_MAX];	/* -t: statsd series' tags */
	size_t		 ntags;
	char		*fields[KS_NFIELDS];	/* -m -i -n -s */
	char		*joined;	/* those as one selector */
	char		**sels;		/* selectors; NULL entry: all */
	size_t		 nsel;
	uint64_t	 interval;	/* s; 0: once */
	uint64_t	 count;		/* 0: forever */
};

static void
show_stamp(char how)
{
	time_t t = time(NULL);
	struct tm tm;
	char buf[64];

	if (how == 'u') {
		printf("%lld\n", (long long)t);
	} else if (how == 'd') {
		localtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Z %Y", &tm);
		printf("%s\n", buf);
	}
}

/* One round of show, as the kstats come. */
struct show_round {
	const struct show	*s;
	struct ksfmt_out	 o;
	struct ks_selector	 sel;
	bool			 has_sel;
	bool			*matched;
};

/* Write out what the renderer has made so far. */
static int
show_flush(struct show_round *sr)
{
	if (sbuf_finish(sr->o.buf) != 0)
		return sc_error("out of memory");
	fwrite(sbuf_data(sr->o.buf), 1, (size_t)sbuf_len(sr->o.buf), stdout);
	sbuf_clear(sr->o.buf);
	return 0;
}

static int
show_kstat(const struct sc_flat *f, void *arg)
{
	struct show_round *sr = arg;
	const struct ks_selector *sel = sr->has_sel ? &sr->sel : NULL;
	int n;

	/* kstat(1M)'s exit status: is anything selected (class counts,
	 * but in -j, which does not show it)? */
	n = ksfmt_selected(sr->s->mode == KSFMT_JSON ? KSFMT_JSON :
	    KSFMT_PARSEABLE, &f->hdr, f->st, f->n, sel);
	if (n < 0)
		return sc_error("out of memory");
	if (n > 0)
		*sr->matched = true;
	if (sr->s->quiet)
		return 0;
	if (ksfmt_kstat(&sr->o, &f->hdr, f->st, f->n, sel) < 0)
		return sc_error("out of memory");
	return show_flush(sr);
}

/*
 * -p: statsd renders kstat(1M)'s parseable lines itself (Scrape's kstat
 * format, from the same renderer), and each page's text goes to stdout as
 * it comes. Decoding every statistic as a flat JSON object, to render the
 * same lines here, cost statsctl 18 s of CPU for 100,000 kstats of 30
 * statistics.
 */
static int
show_text_page(const json_t *page, void *arg)
{
	const json_t *t = json_object_get(page, "text");
	bool *matched = arg;

	if (!json_is_string(t))
		return sc_error("statsd sent a Scrape reply without its text");
	if (json_string_length(t) > 0) {
		*matched = true;
		fwrite(json_string_value(t), 1, json_string_length(t), stdout);
	}
	return 0;
}

/* One round: every selector, in order (a kstat two select shows
 * twice, as in kstat). */
static int
show_once(struct sc *sc, const struct show *s, bool *matched)
{
	struct show_round sr = { .s = s, .matched = matched };
	struct sbuf *buf = sbuf_new_auto();
	struct input_error kerr;
	json_t *p;
	size_t i;
	int r = 0;

	if (buf == NULL)
		return sc_error("out of memory");
	if (!s->quiet)
		show_stamp(s->stamp);
	ksfmt_begin(&sr.o, buf, s->mode);
	for (i = 0; i < s->nsel && r == 0; i++) {
		p = json_object();
		if (s->sels[i] != NULL) {
			json_object_set_new(p, "selector",
			    json_string(s->sels[i]));
			memset(&kerr, 0, sizeof(kerr));
			if (ks_selector_parse(&sr.sel, s->sels[i], &kerr) < 0) {
				json_decref(p);
				r = sc_error("show: %s", kerr.msg);
				break;
			}
			sr.has_sel = true;
		}
		if (s->cls != NULL)
			json_object_set_new(p, "class", json_string(s->cls));
		if (s->ntags > 0) {
			json_t *t = json_array();
			size_t j;

			for (j = 0; j < s->ntags; j++)
				json_array_append_new(t,
				    json_string(s->tags[j]));
			json_object_set_new(p, "tags", t);
		}
		if (s->mode == KSFMT_PARSEABLE && !s->quiet) {
			json_object_set_new(p, "format", json_string("kstat"));
			r = sc_call_each(sc, VL_M_SCRAPE, p, show_text_page,
			    matched);
		} else {
			r = sc_flat_scrape(sc, p, show_kstat, &sr);
		}
		if (sr.has_sel)
			ks_selector_done(&sr.sel);
		sr.has_sel = false;
	}
	if (r == 0 && !s->quiet) {
		if (ksfmt_end(&sr.o) < 0)
			r = sc_error("out of memory");
		else
			r = show_flush(&sr);
	}
	sbuf_delete(buf);
	return r;
}

static void
show_sleep_until(const struct timespec *start, uint64_t k, uint64_t ival)
{
	struct timespec t = *start;

	t.tv_sec += (time_t)(k * ival);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) ==
	    EINTR)
		;
}

static bool
show_is_number(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* -m/-i/-n/-s joined as module:instance:name:statistic. */
static char *
show_join(char *const f[KS_NFIELDS])
{
	size_t len = 4, i;
	char *s;

	for (i = 0; i < KS_NFIELDS; i++)
		len += f[i] != NULL ? strlen(f[i]) : 0;
	s = malloc(len);
	if (s == NULL)
		return NULL;
	snprintf(s, len, "%s:%s:%s:%s", f[0] ? f[0] : "", f[1] ? f[1] : "",
	    f[2] ? f[2] : "", f[3] ? f[3] : "");
	return s;
}

static int
show_args(struct sc *sc, int argc, char **argv, struct show *s)
{
	static const struct option opts[] = {
		{ "parseable", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	bool any_field = false, any_mode = false;
	uint64_t nums[2];
	int c, nnum = 0, i, r;

	while ((c = getopt_long(argc, argv, ":pjClqT:c:t:m:i:n:s:", opts,
	    NULL)) != -1) {
		switch (c) {
		case 'p':
			s->mode = KSFMT_PARSEABLE;
			any_mode = true;
			break;
		case 'j':
			s->mode = KSFMT_JSON;
			any_mode = true;
			break;
		case 'C':
			s->mode = KSFMT_COLON;
			any_mode = true;
			break;
		case 'l':
			s->mode = KSFMT_NAMES;
			any_mode = true;
			break;
		case 'q':
			s->quiet = true;
			break;
		case 'T':
			if (strcmp(optarg, "u") != 0 && strcmp(optarg, "d") != 0)
				return sc_usage(sc, "-T takes u or d, not '%s'",
				    optarg);
			s->stamp = optarg[0];
			break;
		case 'c':
			s->cls = optarg;
			break;
		case 't':
			if (s->ntags == SHOW_TAGS_MAX)
				return sc_usage(sc, "at most %d -t tags",
				    SHOW_TAGS_MAX);
			if (optarg[0] == '\0' || strlen(optarg) > 255)
				return sc_usage(sc, "-t takes a tag of 1 to "
				    "255 bytes");
			s->tags[s->ntags++] = optarg;
			break;
		case 'm':
		case 'i':
		case 'n':
		case 's':
			s->fields[c == 'm' ? 0 : c == 'i' ? 1 : c == 'n' ? 2 :
			    3] = optarg;
			any_field = true;
			break;
		default:
			return sc_optbad(sc, c, argv);
		}
	}
	if (s->quiet && any_mode)
		return sc_usage(sc, "-q prints nothing: it does not go with "
		    "-p, -j, -C or -l");
	if (sc->format == SC_FMT_JSON && !any_mode)
		s->mode = KSFMT_JSON;
	s->sels = calloc((size_t)argc + 1, sizeof(*s->sels));
	if (s->sels == NULL)
		return sc_error("out of memory");
	for (i = optind; i < argc; i++) {
		if (show_is_number(argv[i])) {
			if (nnum == 2)
				return sc_usage(sc, "a third number '%s': only "
				    "interval and count", argv[i]);
			if (sc_parse_uint(argv[i], 1, 86400 * 365,
			    &nums[nnum]) < 0)
				return sc_usage(sc, "%s '%s' must be at least "
				    "1", nnum == 0 ? "interval" : "count",
				    argv[i]);
			nnum++;
			continue;
		}
		if (nnum > 0)
			return sc_usage(sc, "selector '%s' after the interval",
			    argv[i]);
		if (any_field)
			return sc_usage(sc, "selectors and -m, -i, -n, -s "
			    "exclude each other");
		if ((r = sc_check_selector(sc, argv[i])) != 0)
			return r;
		s->sels[s->nsel++] = argv[i];
	}
	if (any_field) {
		s->joined = show_join(s->fields);
		if (s->joined == NULL)
			return sc_error("out of memory");
		if ((r = sc_check_selector(sc, s->joined)) != 0)
			return r;
		s->sels[s->nsel++] = s->joined;
	}
	if (s->nsel == 0)
		s->sels[s->nsel++] = NULL;
	if (s->cls != NULL && (r = sc_check_class(sc, s->cls)) != 0)
		return r;
	s->interval = nnum > 0 ? nums[0] : 0;
	s->count = nnum > 1 ? nums[1] : nnum > 0 ? 0 : 1;
	return 0;
}

static int
show_run(struct sc *sc, int argc, char **argv)
{
	struct show s;
	struct timespec start;
	bool matched = false;
	uint64_t k;
	size_t i;
	int r;

	memset(&s, 0, sizeof(s));
	r = show_args(sc, argc, argv, &s);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (k = 0; r == 0; k++) {
		if (k > 0) {
			show_sleep_until(&start, k, s.interval);
			if (!s.quiet)
				putchar('\n');
		}
		r = show_once(sc, &s, &matched);
		fflush(stdout);
		if (s.count != 0 && k + 1 >= s.count)
			break;
	}
	if (r == 0 && !matched) {
		r = SC_EXIT_FAIL;
		if (!s.quiet) {
			fflush(stdout);
			fputs("statsctl: show: no kstat matches", stderr);
			for (i = 0; i < s.nsel; i++)
				fprintf(stderr, " '%s'", s.sels[i] != NULL ?
				    s.sels[i] : "*");
			if (s.cls != NULL)
				fprintf(stderr, " in class '%s'", s.cls);
			for (i = 0; i < s.ntags; i++)
				fprintf(stderr, " tagged '%s'", s.tags[i]);
			fputc('\n', stderr);
		}
	}
	free(s.joined);
	free(s.sels);
	return r;
}

const struct verb verb_show = {
	.name = "show",
	.run = show_run,
	.usage = "show [-p|-j|-C|-l|-q] [-T u|d] [-c CLASS] [-t TAG]... "
	    "[-m MODULE] "
	    "[-i INST] [-n NAME] [-s STAT] [PATTERN...] [INTERVAL [COUNT]]",
	.summary = "show kstats as kstat(1M) does",
	.help =
	    "  PATTERN          module:instance:name:statistic; each field a\n"
	    "                   shell glob or /regex/, empty or missing means\n"
	    "                   all; several patterns add up (not with -m...)\n"
	    "  -m, -i, -n, -s   patterns for module, instance, name, statistic\n"
	    "  -c CLASS         only kstats whose class matches (a pattern)\n"
	    "  -p, --parseable  module:instance:name:statistic<TAB>value\n"
	    "  -C               the same with ':' for the TAB\n"
	    "  -l               the names only\n"
	    "  -j, --json       kstat -j's JSON\n"
	    "  -q               print nothing: the exit status says whether\n"
	    "                   anything matched (0) or not (1)\n"
	    "  -T u|d           a timestamp before each round: seconds, or\n"
	    "                   date(1)'s form\n"
	    "  INTERVAL [COUNT] repeat every INTERVAL seconds, COUNT times\n"
	    "                   (forever without COUNT)\n",
};
