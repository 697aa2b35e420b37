/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pages_it.c: a program written from the specification pages alone —
 * Solaris kstat2_create_histogram(9F) and illumos kstat(3KSTAT) — run
 * against a live statsd. Each check quotes the sentence it holds statsd
 * to; test_pages.py runs the modes and checks the other readers (statsctl,
 * the JSON scrape, Read and Snapshot).
 *
 *   pages_it MODE SOCKET
 *
 *   provide   create and install the page's four example histograms and a
 *             read-only NAMED kstat with a long string, add nothing
 *   hist      read the histograms through the libkstat consumer API
 *   strings   read the string through the libkstat consumer API
 *   types     read <unix, 0, kstat_types>
 *
 * Output: "FAIL: ..." lines, then "N passed, N failed"; exit status 1 on
 * any failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/client.h>
#include <statsd/kstat.h>

static int npassed, nfailed;
static stats_client_t *cli;

static void
check(int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		npassed++;
		return;
	}
	nfailed++;
	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* The four examples of kstat2_create_histogram(9F), as printed there (the
 * page's KSTAT_NVMT_* names are spelt KSTAT2_NVMT_* in the real header). */
static const struct example {
	const char		*pseg[4];
	kstat2_nv_hist_type_t	 type;
	kstat2_nv_metatype_t	 content;
	uint64_t		 scale;
	kstat2_nv_metaflag_t	 md_flags;
	uint64_t		 range_min, range_max, stepping;
	int			 instance;	/* from the path */
	unsigned		 nbuckets;	/* what the page says */
	const char		*says;
} examples[] = {
	{ { "misc", "my_drv", "1", "data_in" }, KSTAT2_NVHIST_LINEAR,
	    KSTAT2_NVMT_BYTES, 1, KSTAT2_NVMF_NONE, 0, 1024, 128, 1, 10,
	    "a kstat containing at most 10 buckets, in 128-byte increments" },
	{ { "misc", "my_drv", "data_in", "2" }, KSTAT2_NVHIST_LOG2,
	    KSTAT2_NVMT_BYTES, 1, KSTAT2_NVMF_NONE, 0, 0, 0, 2, 65,
	    "a kstat containing exactly 65 buckets" },
	{ { "misc", "my_drv", "data_in", "3" }, KSTAT2_NVHIST_LOG10,
	    KSTAT2_NVMT_T_REL, 1000000, KSTAT2_NVMF_FRACT, 0, 0, 0, 3, 21,
	    "a kstat containing exactly 21 buckets" },
	/* The page's table ends at 23 twice; its ranges give 17 buckets
	 * (docs/formats.md records the choice). */
	{ { "misc", "my_drv", "data_in", "4" }, KSTAT2_NVHIST_LOG10_LIN,
	    KSTAT2_NVMT_CNT, 1, KSTAT2_NVMF_NONE, 2, 4, 5, 4, 17,
	    "5 linear steps between each log10 level, < 100 to > 100000" },
};

#define NEXAMPLES	(sizeof(examples) / sizeof(examples[0]))

/* The examples' content types, as the protocol and kstat(1M) name them. */
static const char *const content_names[NEXAMPLES] = {
	"BYTES", "BYTES", "T_REL", "CNT",
};

/* 50 bytes: longer than KSTAT_DATA_CHAR's 16. */
static const char long_string[] =
    "a string that a device publishes, fifty bytes long";

/* What the provider made: it stays in statsd after the program ends, for
 * the consumer modes to read (and reachable here until then). */
static kstat2_t *hists[NEXAMPLES];
static kstat_t *named_ksp;

static void
mode_provide(void)
{
	kstat_named_t *kn;
	kstat_t *ksp;
	size_t i;

	for (i = 0; i < NEXAMPLES; i++) {
		const struct example *e = &examples[i];
		const char *pseg[4] = { e->pseg[0], e->pseg[1], e->pseg[2],
		    e->pseg[3] };
		kstat2_t *ksp2;

		ksp2 = hists[i] = kstat2_create_histogram(pseg, 4, ALL_ZONES,
		    e->type, e->content, e->scale, e->md_flags, NULL, 0,
		    e->range_min, e->range_max, e->stepping, 0,
		    "data read by my_drv", KSTAT2_MF_NONE);
		check(ksp2 != NULL, "example %zu: kstat2_create_histogram: %s",
		    i + 1, strerror(errno));
		if (ksp2 != NULL)
			kstat2_install(ksp2);
	}

	/*
	 * kstat(3KSTAT): "KSTAT_DATA_STRING is a data type that allows
	 * arbitrary-length strings to be associated with a named kstat." The
	 * kstat is not KSTAT_FLAG_WRITABLE: consumers may not write it, its
	 * provider still publishes the string.
	 */
	ksp = named_ksp = kstat_create("pages", 0, "strings", "misc",
	    KSTAT_TYPE_NAMED, 3, 0);
	check(ksp != NULL, "kstat_create NAMED: %s", strerror(errno));
	if (ksp == NULL)
		return;
	kn = KSTAT_NAMED_PTR(ksp);
	kstat_named_init(&kn[0], "model", KSTAT_DATA_STRING);
	kstat_named_setstr(&kn[0], long_string);
	kstat_named_init(&kn[1], "state", KSTAT_DATA_STRING);
	kstat_named_init(&kn[2], "count", KSTAT_DATA_UINT64);
	kstat_install(ksp);
	check(!(ksp->ks_flags & KSTAT_FLAG_INVALID), "kstat_install: %s",
	    stats_client_strerror(cli));
	/* A string published after install, just the same. */
	check(kstat_named_set_string(ksp, &kn[1], "running") == 0,
	    "kstat_named_set_string on a read-only kstat: %s",
	    stats_client_strerror(cli));
	check(stats_client_flush(cli, 10000) == 0, "flush");
}

static kstat_named_t *
named(kstat_t *ksp, const char *name)
{
	kstat_named_t *kn = kstat_data_lookup(ksp, name);

	check(kn != NULL, "%s:%d:%s: kstat_data_lookup(\"%s\"): %s",
	    ksp->ks_module, ksp->ks_instance, ksp->ks_name, name,
	    strerror(errno));
	return kn;
}

static void
mode_hist(kstat_ctl_t *kc)
{
	kstat_named_t *kn;
	kstat_t *ksp;
	size_t i;

	/*
	 * kstat2_create_histogram(9F): "The names of the fields defined in
	 * the histogram kstat's data are: buckets, type, range_min,
	 * range_max, stepping ... A user-space application can access the
	 * fields by name." Nothing has been added: every bucket is there, at
	 * zero.
	 */
	for (i = 0; i < NEXAMPLES; i++) {
		const struct example *e = &examples[i];
		const uint64_t *b;
		uint32_t k, n;

		ksp = kstat_lookup(kc, "my_drv", e->instance, "data_in");
		check(ksp != NULL, "example %zu: kstat_lookup", i + 1);
		if (ksp == NULL)
			continue;
		check(kstat_read(kc, ksp, NULL) != -1, "example %zu: "
		    "kstat_read: %s", i + 1, strerror(errno));
		kn = named(ksp, "buckets");
		if (kn != NULL) {
			check(kn->data_type == KSTAT_DATA_UINT64_ARRAY,
			    "example %zu: buckets is an array (type %u)",
			    i + 1, kn->data_type);
			b = KSTAT_NAMED_ARR_PTR(kn);
			n = KSTAT_NAMED_ARR_LEN(kn);
			check(n == e->nbuckets, "example %zu: %s: %u buckets",
			    i + 1, e->says, n);
			for (k = 0; k < n && b != NULL; k++)
				if (b[k] != 0)
					break;
			check(b != NULL && k == n, "example %zu: every "
			    "bucket at zero before anything is added", i + 1);
		}
		if ((kn = named(ksp, "type")) != NULL)
			check(kn->value.ui32 == (uint32_t)e->type,
			    "example %zu: type %u", i + 1, kn->value.ui32);
		if ((kn = named(ksp, "range_min")) != NULL)
			check(kn->value.ui64 == e->range_min,
			    "example %zu: range_min %" PRIu64, i + 1,
			    kn->value.ui64);
		if ((kn = named(ksp, "range_max")) != NULL)
			check(kn->value.ui64 == e->range_max,
			    "example %zu: range_max %" PRIu64, i + 1,
			    kn->value.ui64);
		if ((kn = named(ksp, "stepping")) != NULL)
			check(kn->value.ui64 == e->stepping,
			    "example %zu: stepping %" PRIu64, i + 1,
			    kn->value.ui64);
		/*
		 * kstat2_create_histogram(9F): content_type is "the type of
		 * the values being added to the histogram", scale the
		 * "scaling factor to be applied to the histogram bucket
		 * contents": what the creator gave, a consumer reads.
		 */
		if ((kn = named(ksp, "content")) != NULL)
			check(kn->data_type == KSTAT_DATA_CHAR &&
			    strncmp(kn->value.c, content_names[i],
			    sizeof(kn->value.c)) == 0,
			    "example %zu: content %s", i + 1,
			    content_names[i]);
		if ((kn = named(ksp, "scale")) != NULL)
			check(kn->value.ui64 == e->scale,
			    "example %zu: scale %" PRIu64, i + 1,
			    kn->value.ui64);
	}

}

static void
mode_strings(kstat_ctl_t *kc)
{
	kstat_named_t *kn;
	kstat_t *ksp;

	/*
	 * kstat(3KSTAT): "KSTAT_NAMED_STR_BUFLEN returns the number of bytes
	 * required to store the string pointed to by KSTAT_NAMED_STR_PTR;
	 * that is, strlen(KSTAT_NAMED_STR_PTR() + 1)."
	 */
	ksp = kstat_lookup(kc, "pages", 0, "strings");
	check(ksp != NULL, "kstat_lookup pages:0:strings");
	if (ksp != NULL && kstat_read(kc, ksp, NULL) != -1 &&
	    (kn = named(ksp, "model")) != NULL) {
		const char *s = KSTAT_NAMED_STR_PTR(kn);

		check(kn->data_type == KSTAT_DATA_STRING, "model is a STRING");
		check(s != NULL && strcmp(s, long_string) == 0,
		    "the string published before install reads back: '%s'",
		    s != NULL ? s : "(null)");
		check(KSTAT_NAMED_STR_BUFLEN(kn) == sizeof(long_string),
		    "BUFLEN %u is strlen + 1 = %zu", KSTAT_NAMED_STR_BUFLEN(kn),
		    sizeof(long_string));
		check(!(ksp->ks_flags & KSTAT_FLAG_WRITABLE),
		    "the kstat is not WRITABLE");
		check(ksp->ks_flags & KSTAT_FLAG_LONGSTRINGS,
		    "KSTAT_FLAG_LONGSTRINGS: it has a STRING value");
		kn = named(ksp, "state");
		check(kn != NULL && KSTAT_NAMED_STR_PTR(kn) != NULL &&
		    strcmp(KSTAT_NAMED_STR_PTR(kn), "running") == 0 &&
		    KSTAT_NAMED_STR_BUFLEN(kn) == sizeof("running"),
		    "the string published after install reads back");
		/* Consumers may not write it: it is not WRITABLE. */
		check(kstat_write(kc, ksp, NULL) == -1 && errno == EACCES,
		    "kstat_write on a read-only kstat: EACCES (%s)",
		    strerror(errno));
	}
}

static void
mode_types(kstat_ctl_t *kc)
{
	static const struct {
		const char	*name;
		uint64_t	 value;
	} types[] = {
		{ "raw", KSTAT_TYPE_RAW },
		{ "name=value", KSTAT_TYPE_NAMED },
		{ "interrupt", KSTAT_TYPE_INTR },
		{ "i/o", KSTAT_TYPE_IO },
		{ "event_timer", KSTAT_TYPE_TIMER },
	};
	kstat_named_t *kn;
	kstat_t *ksp;
	size_t i;

	/*
	 * kstat(3KSTAT): "To get a list of all kstat types currently
	 * supported in the system, tools can read out the standard system
	 * kstat kstat_types (full name spec is <unix, 0, kstat_types>). This
	 * is a KSTAT_TYPE_NAMED kstat in which the name field describes the
	 * type of kstat, and the value field is the kstat type number (for
	 * example, KSTAT_TYPE_IO is type 3)."
	 */
	ksp = kstat_lookup(kc, "unix", 0, "kstat_types");
	check(ksp != NULL, "kstat_lookup(kc, \"unix\", 0, \"kstat_types\")");
	if (ksp == NULL)
		return;
	check(ksp->ks_type == KSTAT_TYPE_NAMED, "kstat_types is NAMED (%u)",
	    ksp->ks_type);
	check(!(ksp->ks_flags & KSTAT_FLAG_WRITABLE), "kstat_types is "
	    "read-only");
	check(kstat_read(kc, ksp, NULL) != -1, "kstat_read: %s",
	    strerror(errno));
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		kn = named(ksp, types[i].name);
		if (kn == NULL)
			continue;
		check(kn->data_type == KSTAT_DATA_ULONG, "%s is a ULONG",
		    types[i].name);
		check(kn->value.ul == types[i].value, "%s = %lu, not %" PRIu64,
		    types[i].name, kn->value.ul, types[i].value);
	}
	kn = named(ksp, "i/o");
	check(kn != NULL && kn->value.ul == 3, "KSTAT_TYPE_IO is type 3");
	/* A consumer may not write it. */
	check(kstat_write(kc, ksp, NULL) == -1 && errno == EACCES,
	    "kstat_write on kstat_types: EACCES (%s)", strerror(errno));
}

int
main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: pages_it provide|hist|strings|types "
		    "SOCKET\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	cli = stats_client_open(argv[2], 0);
	check(cli != NULL, "stats_client_open %s: %s", argv[2],
	    strerror(errno));
	if (cli != NULL && strcmp(argv[1], "provide") == 0) {
		mode_provide();
	} else if (cli != NULL) {
		kstat_ctl_t *kc = kstat_open();

		check(kc != NULL, "kstat_open: %s", strerror(errno));
		if (kc != NULL && strcmp(argv[1], "hist") == 0)
			mode_hist(kc);
		else if (kc != NULL && strcmp(argv[1], "strings") == 0)
			mode_strings(kc);
		else if (kc != NULL && strcmp(argv[1], "types") == 0)
			mode_types(kc);
		else if (kc != NULL)
			check(0, "no mode %s", argv[1]);
		if (kc != NULL)
			kstat_close(kc);
	}
	if (cli != NULL)
		stats_client_close(cli);
	printf("%d passed, %d failed\n", npassed, nfailed);
	return nfailed > 0;
}
