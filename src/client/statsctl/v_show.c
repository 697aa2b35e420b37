/*
 * v_show.c: `statsctl show` — kstat(1M) over statsd: selectors as
 * operands or -m/-i/-n/-s/-c patterns, the default, -p, -C, -l, -j and -q
 * forms, -T timestamps and interval [count] repetition. The daemon
 * renders -p and -j (Scrape); -C, -l and the default blocks are made here
 * from the -p lines, with each kstat's class from the chain.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conn.h"
#include "kstat_hdr.h"
#include "statsctl.h"

enum show_mode {
	SHOW_DEFAULT = 0,
	SHOW_PARSEABLE,	/* -p */
	SHOW_COLON,	/* -C */
	SHOW_NAMES,	/* -l */
	SHOW_JSON,	/* -j */
};

struct show {
	enum show_mode	 mode;
	bool		 quiet;		/* -q */
	char		 stamp;		/* -T: 0, 'u' or 'd' */
	const char	*cls;		/* -c */
	char		*fields[KS_NFIELDS];	/* -m -i -n -s */
	char		*joined;	/* those as one selector */
	char		**sels;		/* selectors; NULL entry: all */
	size_t		 nsel;
	uint64_t	 interval;	/* s; 0: once */
	uint64_t	 count;		/* 0: forever */
};

/* The class of kstat "module:instance:name" from Chain's list. */
static const char *
show_class(const json_t *kstats, const char *m, long long i, const char *n)
{
	size_t j;

	for (j = 0; j < json_array_size(kstats); j++) {
		const json_t *k = json_array_get(kstats, j);

		if (js_int(k, "instance", -1) == i &&
		    strcmp(js_str(k, "module", ""), m) == 0 &&
		    strcmp(js_str(k, "name", ""), n) == 0)
			return js_str(k, "class", "");
	}
	return "";
}

/* Split a -p line's key "m:i:n:stat" at its first three colons (module
 * and name hold none; the instance is a number). */
static bool
show_split(char *key, char **m, long long *i, char **n, char **stat)
{
	char *c1 = strchr(key, ':'), *c2, *c3, *end;

	if (c1 == NULL || (c2 = strchr(c1 + 1, ':')) == NULL ||
	    (c3 = strchr(c2 + 1, ':')) == NULL)
		return false;
	*c1 = *c2 = *c3 = '\0';
	*i = strtoll(c1 + 1, &end, 10);
	if (end != c2)
		return false;
	*m = key;
	*n = c2 + 1;
	*stat = c3 + 1;
	return true;
}

/* kstat's default blocks from -p lines: a header per kstat, a line per
 * statistic but class, a blank line after each. */
static void
show_blocks(const char *text, const json_t *kstats)
{
	char *copy = strdup(text), *line, *save = NULL, *tab;
	char cur[160] = "";
	char *m, *n, *stat;
	long long inst;

	if (copy == NULL)
		return;
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char id[160];

		tab = strchr(line, '\t');
		if (tab == NULL)
			continue;
		*tab = '\0';
		if (!show_split(line, &m, &inst, &n, &stat) ||
		    strcmp(stat, "class") == 0)
			continue;
		snprintf(id, sizeof(id), "%s:%lld:%s", m, inst, n);
		if (strcmp(id, cur) != 0) {
			if (cur[0] != '\0')
				putchar('\n');
			snprintf(cur, sizeof(cur), "%s", id);
			printf("module: %-30.30s  instance: %-6lld\n", m, inst);
			printf("name:   %-30.30s  class:    %-.30s\n", n,
			    show_class(kstats, m, inst, n));
		}
		printf("\t%-30s  %s\n", stat, tab + 1);
	}
	if (cur[0] != '\0')
		putchar('\n');
	free(copy);
}

/* -C and -l from -p lines. */
static void
show_lines(const char *text, enum show_mode mode)
{
	const char *p = text, *eol, *tab;

	for (; *p != '\0'; p = *eol != '\0' ? eol + 1 : eol) {
		eol = strchr(p, '\n');
		if (eol == NULL)
			eol = p + strlen(p);
		tab = memchr(p, '\t', (size_t)(eol - p));
		if (tab == NULL)
			tab = eol;
		fwrite(p, 1, (size_t)(tab - p), stdout);
		if (mode == SHOW_COLON && tab < eol) {
			putchar(':');
			fwrite(tab + 1, 1, (size_t)(eol - tab - 1), stdout);
		}
		putchar('\n');
	}
}

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

/* One round: every selector, in order (a kstat two select shows
 * twice, as in kstat). */
static int
show_once(struct sc *sc, const struct show *s, bool *matched)
{
	json_t *chain = NULL, *reply, *p;
	bool json = s->mode == SHOW_JSON, first = true;
	size_t i;
	int r = 0;

	if (s->mode == SHOW_DEFAULT && !s->quiet &&
	    sc_call(sc, VL_M_CHAIN, NULL, &chain) != 0)
		return SC_EXIT_FAIL;
	if (!s->quiet)
		show_stamp(s->stamp);
	for (i = 0; i < s->nsel && r == 0; i++) {
		const char *text;
		size_t len;

		p = json_pack("{s:s}", "format", json ? "json" : "kstat");
		if (s->sels[i] != NULL)
			json_object_set_new(p, "selector",
			    json_string(s->sels[i]));
		if (s->cls != NULL)
			json_object_set_new(p, "class", json_string(s->cls));
		r = sc_call(sc, VL_M_SCRAPE, p, &reply);
		if (r != 0)
			break;
		text = js_str(reply, "text", "");
		len = strlen(text);
		if (json ? len > 3 : len > 0)
			*matched = true;
		if (s->quiet) {
			/* -q: the exit status only. */
		} else if (json) {
			/* Join the arrays: "[{...}, {...}]\n" each. */
			if (len > 3 && text[0] == '[') {
				fputs(first ? "[" : ", ", stdout);
				fwrite(text + 1, 1, len - 3, stdout);
				first = false;
			}
		} else if (s->mode == SHOW_PARSEABLE) {
			fputs(text, stdout);
		} else if (s->mode == SHOW_DEFAULT) {
			show_blocks(text, json_object_get(chain, "kstats"));
		} else {
			show_lines(text, s->mode);
		}
		json_decref(reply);
	}
	if (r == 0 && json && !s->quiet)
		fputs(first ? "[]\n" : "]\n", stdout);
	json_decref(chain);
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

	while ((c = getopt_long(argc, argv, ":pjClqT:c:m:i:n:s:", opts,
	    NULL)) != -1) {
		switch (c) {
		case 'p':
			s->mode = SHOW_PARSEABLE;
			any_mode = true;
			break;
		case 'j':
			s->mode = SHOW_JSON;
			any_mode = true;
			break;
		case 'C':
			s->mode = SHOW_COLON;
			any_mode = true;
			break;
		case 'l':
			s->mode = SHOW_NAMES;
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
		s->mode = SHOW_JSON;
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
	.usage = "show [-p|-j|-C|-l|-q] [-T u|d] [-c CLASS] [-m MODULE] "
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
