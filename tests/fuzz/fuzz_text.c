/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_text.c: libFuzzer target for the engine's ways in that take text or
 * foreign bytes: Linux definition lines, template spec strings, sample-rate
 * lists, scalar values, and blobs copied from elsewhere. The first input
 * byte picks the parser; the rest is its input. Whatever the input, nothing
 * may crash, leak or read out of bounds, and a blob that validates must
 * render.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <statsd/stats.h>

#include "defn.h"
#include "layout.h"
#include "numeric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int tpl_id = -1;
static struct statsblob *iface;		/* a Linux interface, 2 statistics */
static const char *const names[] = { "latency", "sizes" };

static void
setup(void)
{
	struct voistatspec vss[] = {
		STATS_VSS_SUM(), STATS_VSS_MAX(),
		STATS_VSS_CRHIST64_LIN(0, 100, 10, VSD_HIST_UBOUND_INF),
	};
	struct statsblob *a = NULL, *b = NULL;
	int id;

	id = stats_tpl_alloc("FUZZ", 0);
	if (id >= 0 && stats_tpl_add_voistats((uint32_t)id, 0, "v",
	    VSD_DTYPE_INT_U64, NVSS(vss), vss, 0) == 0)
		tpl_id = id;
	struct statsblob *empty = layout_empty();

	if (empty != NULL && defn_stat_create(empty, 0, "us", 1, &a) == 0 &&
	    defn_stat_create(a, 1, "bytes", 1, &b) == 0)
		iface = b;
	else
		free(b);
	free(a);
	free(empty);
	if (iface == NULL)
		abort();	/* the target would test nothing */
}

static void
fuzz_defn(const char *text)
{
	struct statsblob *out = NULL;
	struct input_error err;
	struct sbuf *sb;
	bool relaid;

	if (iface == NULL)
		return;
	if (defn_apply(iface, names, 2, text, 42, &out, &relaid, &err) != 0)
		return;
	/* What was accepted renders, and re-applies to the same result. */
	sb = sbuf_new_auto();
	if (sb != NULL && defn_format(sb, out, names, 2) == 0 &&
	    sbuf_finish(sb) == 0) {
		struct statsblob *again = NULL;

		if (defn_apply(out, names, 2, sbuf_data(sb), 43, &again, NULL,
		    &err) == 0)
			free(again);
	}
	sbuf_delete(sb);
	free(out);
}

static void
fuzz_blob(const uint8_t *data, size_t size)
{
	struct statsblob *sb;
	struct sbuf *buf;
	double q;

	if (size < sizeof(struct statsblob) || size > 65535)
		return;
	sb = malloc(size);
	if (sb == NULL)
		return;
	memcpy(sb, data, size);
	if (stats_blob_validate(sb, size) == 0) {
		buf = sbuf_new_auto();
		if (buf != NULL) {
			stats_blob_tostr(sb, buf, SB_STRFMT_JSON,
			    SB_TOSTR_OBJDUMP);
			stats_blob_tostr(sb, buf, SB_STRFMT_FREEFORM, 0);
		}
		sbuf_delete(buf);
		stats_voistat_fetch_quantile(sb, 0, VS_STYPE_HIST, 0.5, &q);
		stats_voistat_fetch_quantile(sb, 0, VS_STYPE_TDGST, 0.9, &q);
		stats_blob_reset(sb);
	}
	free(sb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats_tpl_sample_rate *rates = NULL;
	struct voistatdata_numeric n;
	char name[TPL_MAX_NAME_LEN + 1];
	uint32_t hash;
	size_t errpos;
	int nrates;
	char *text;

	if (tpl_id < 0 && iface == NULL)
		setup();
	if (size < 1)
		return 0;
	if (data[0] % 5 == 4) {
		fuzz_blob(data + 1, size - 1);
		return 0;
	}
	text = malloc(size);
	if (text == NULL)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 5) {
	case 0:
		fuzz_defn(text);
		break;
	case 1:
		stats_tpl_spec_parse(text, name, sizeof(name), &hash);
		stats_tpl_fetch_byspec(text);
		break;
	case 2:
		if (stats_tpl_sample_rates_parse(text, &rates, &nrates,
		    &errpos) == 0)
			free(rates);
		break;
	default:
		numeric_parse(text, (enum vsd_dtype)(1 + size % 10), &n);
		break;
	}
	free(text);
	return 0;
}
