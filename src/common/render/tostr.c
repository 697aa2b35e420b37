/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tostr.c: stats_blob_tostr() and stats_voistatdata_tostr(): a blob as
 * FreeBSD's freeform text or JSON, with or without its layout (OBJDUMP) and
 * names (META).
 *
 * The line shapes are FreeBSD's (subr_stats.c) with three choices
 * of ours: freeform shows "errs=N" only when a statistic has failed
 * updates, which keeps the stats(3) page's OBJDUMP example exact; freeform
 * with META names the template on its first line, as JSON does; and the
 * JSON is always well formed (FreeBSD's can leave a trailing comma after a
 * vacant slot).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>

#include "blob.h"
#include "kind.h"
#include "tostr.h"
#include "tpl.h"

struct tostr_ctx {
	struct sbuf			*buf;
	bool				 meta;
	const struct statsblob_tpl	*tpl;	/* META from the registry */
	const char			*tplname;	/* or from the caller */
	const char *const		*names;
	uint16_t			 nnames;
	bool				 dump;
	const struct voi		*cur;	/* VOI whose object is open */
	unsigned			 nvois;	/* VOIs written so far */
	unsigned			 nstats;/* stats written in cur */
};

static const char *
tostr_voi_name(const struct tostr_ctx *tc, const struct voi *v)
{
	const struct statsblobv1 *tsb;

	if (tc->tpl == NULL) {
		if (!tc->meta || v->id < 0 || v->id >= tc->nnames)
			return NULL;
		return tc->names[v->id];
	}
	tsb = (const struct statsblobv1 *)tc->tpl->sb;
	if (v->id < 0 || v->id >= blob_nvois(tsb))
		return NULL;
	return tc->tpl->mb->voi_meta[v->id].name;
}

static int
tostr_render_data(struct tostr_ctx *tc, struct statsblobv1 *sb,
    const struct voi *v, const struct voistat *vs, enum sb_str_fmt fmt)
{
	return kind_render(tc->buf, blob_vsd(sb, vs), v->dtype, vs->dtype,
	    vs->dsz, fmt, tc->dump) == EINVAL ? EINVAL : 0;
}

static int
tostr_freeform_cb(struct statsblobv1 *sb, struct voi *v, struct voistat *vs,
    uint32_t flags, void *ctx)
{
	struct tostr_ctx *tc = ctx;
	struct sbuf *buf = tc->buf;
	const char *name;

	if (v != tc->cur) {
		tc->cur = v;
		sbuf_printf(buf, "\n\tvois[%td]: id=%hd", v - sb->vois, v->id);
		if (v->id < 0)
			return 0;
		name = tostr_voi_name(tc, v);
		sbuf_printf(buf, ", name=\"%s\"", name != NULL ? name : "");
		if (tc->dump)
			sbuf_printf(buf, ", flags=0x%04hx, dtype=%s, "
			    "voistatmaxid=%hhd, stats_off=%hu", v->flags,
			    dtype_info[v->dtype].name, v->voistatmaxid,
			    v->stats_off);
	}
	(void)flags;
	if (vs == NULL || (!tc->dump && vs->stype <= 0))
		return 0;
	sbuf_printf(buf, "\n\t\tvois[%hd]stat[%td]: stype=", v->id,
	    vs - blob_voistat(sb, v, 0));
	if (vs->stype < 0) {
		sbuf_printf(buf, "%hhd", vs->stype);
		return 0;
	}
	sbuf_cat(buf, stype_ops[vs->stype].name);
	if (vs->errs != 0)
		sbuf_printf(buf, ", errs=%hhu", vs->errs);
	if (tc->dump)
		sbuf_printf(buf, ", flags=0x%04x, dtype=%s, dsz=%hu, "
		    "data_off=%hu", vs->flags, dtype_info[vs->dtype].name,
		    vs->dsz, vs->data_off);
	sbuf_cat(buf, "\n\t\t\tvoistatdata: ");
	return tostr_render_data(tc, sb, v, vs, SB_STRFMT_FREEFORM);
}

/* Close the open VOI object, if any: its "stats" map and itself. */
static void
tostr_json_close_voi(struct tostr_ctx *tc)
{
	if (tc->cur != NULL && tc->cur->id >= 0)
		sbuf_cat(tc->buf, "}}");
	tc->cur = NULL;
}

static int
tostr_json_cb(struct statsblobv1 *sb, struct voi *v, struct voistat *vs,
    uint32_t flags, void *ctx)
{
	struct tostr_ctx *tc = ctx;
	struct sbuf *buf = tc->buf;
	const char *name;

	(void)flags;
	if (v != tc->cur) {
		tostr_json_close_voi(tc);
		tc->cur = v;
		tc->nstats = 0;
		if (tc->nvois++ > 0)
			sbuf_putc(buf, ',');
		name = tostr_voi_name(tc, v);
		if (tc->dump) {
			sbuf_printf(buf, "\"[%td]\":{\"id\":%hd", v - sb->vois,
			    v->id);
			if (v->id < 0) {
				sbuf_putc(buf, '}');
				return 0;
			}
			if (name != NULL)
				sbuf_printf(buf, ",\"name\":\"%s\"", name);
			else
				sbuf_cat(buf, ",\"name\":null");
			sbuf_printf(buf, ",\"flags\":%hu,\"dtype\":\"%s\","
			    "\"voistatmaxid\":%hhd,\"stats_off\":%hu,"
			    "\"stats\":{", v->flags,
			    dtype_info[v->dtype].name, v->voistatmaxid,
			    v->stats_off);
		} else if (name != NULL && name[0] != '\0') {
			/* Unnamed VOIs keep "[id]": "" keys would collide. */
			sbuf_printf(buf, "\"%s\":{\"stats\":{", name);
		} else {
			sbuf_printf(buf, "\"[%hd]\":{\"stats\":{", v->id);
		}
	}
	if (vs == NULL || (!tc->dump && vs->stype <= 0))
		return 0;
	if (tc->nstats++ > 0)
		sbuf_putc(buf, ',');
	if (tc->dump) {
		sbuf_printf(buf, "\"[%td]\":", vs - blob_voistat(sb, v, 0));
		if (vs->stype < 0) {
			sbuf_cat(buf, "{\"stype\":-1}");
			return 0;
		}
		sbuf_printf(buf, "{\"stype\":\"%s\",\"errs\":%hhu,"
		    "\"flags\":%hhu,\"dtype\":\"%s\",\"data_off\":%hu,"
		    "\"voistatdata\":{", stype_ops[vs->stype].name, vs->errs,
		    vs->flags, dtype_info[vs->dtype].name, vs->data_off);
	} else {
		if (tc->meta)
			sbuf_printf(buf, "\"%s\":", stype_ops[vs->stype].name);
		else
			sbuf_printf(buf, "\"[%hhd]\":", vs->stype);
		if (!voistat_valid(vs)) {
			sbuf_cat(buf, "null");
			return 0;
		}
		sbuf_printf(buf, "{\"errs\":%hhu,", vs->errs);
	}
	if (dtype_info[vs->dtype].family == DF_SCALAR)
		sbuf_cat(buf, "\"val\":");
	if (tostr_render_data(tc, sb, v, vs, SB_STRFMT_JSON) != 0)
		return EINVAL;
	sbuf_cat(buf, tc->dump ? "}}" : "}");
	return 0;
}

/* The blob, as the caller's context says (its META names found). */
static int
tostr_blob(struct statsblobv1 *b, struct tostr_ctx *tc, enum sb_str_fmt fmt)
{
	struct sbuf *buf = tc->buf;
	int rv;

	if (fmt == SB_STRFMT_JSON) {
		sbuf_putc(buf, '{');
		if (tc->dump)
			sbuf_printf(buf, "\"abi\":%hhu,\"endian\":%hhu,"
			    "\"maxsz\":%hu,\"cursz\":%hu,\"created\":%jd,"
			    "\"lastrst\":%jd,\"flags\":%hu,\"stats_off\":%hu,"
			    "\"statsdata_off\":%hu,", b->abi, b->endian,
			    b->maxsz, b->cursz, (intmax_t)b->created,
			    (intmax_t)b->lastrst, b->flags, b->stats_off,
			    b->statsdata_off);
		if (tc->tplname != NULL)
			sbuf_printf(buf, "\"tplname\":\"%s\"", tc->tplname);
		else
			sbuf_cat(buf, "\"tplname\":null");
		sbuf_printf(buf, ",\"tplhash\":%" PRIu32 ",\"vois\":{",
		    b->tplhash);
		rv = blob_iter(b, tc->dump, tostr_json_cb, tc);
		tostr_json_close_voi(tc);
		sbuf_cat(buf, "}}");
	} else {
		sbuf_printf(buf, "struct statsblobv1@%p", (void *)b);
		if (tc->dump)
			sbuf_printf(buf, ", abi=%hhu, endian=%hhu, maxsz=%hu, "
			    "cursz=%hu, created=%jd, lastrst=%jd, "
			    "flags=0x%04hx, stats_off=%hu, statsdata_off=%hu",
			    b->abi, b->endian, b->maxsz, b->cursz,
			    (intmax_t)b->created, (intmax_t)b->lastrst,
			    b->flags, b->stats_off, b->statsdata_off);
		sbuf_printf(buf, ", tplhash=%" PRIu32, b->tplhash);
		if (tc->tplname != NULL)
			sbuf_printf(buf, ", tplname=\"%s\"", tc->tplname);
		rv = blob_iter(b, tc->dump, tostr_freeform_cb, tc);
	}
	return rv;
}

static bool
tostr_args_ok(const struct statsblob *sb, const struct sbuf *buf,
    enum sb_str_fmt fmt, uint32_t flags)
{
	return sb != NULL && buf != NULL && sb->abi == STATS_ABI_V1 &&
	    (int)fmt >= 0 && fmt < SB_STRFMT_NUM_FMTS &&
	    (flags & ~(SB_TOSTR_OBJDUMP | SB_TOSTR_META)) == 0;
}

int
stats_blob_tostr(struct statsblob *sb, struct sbuf *buf, enum sb_str_fmt fmt,
    uint32_t flags)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	struct tostr_ctx tc = { 0 };
	int i, rv;

	if (!tostr_args_ok(sb, buf, fmt, flags))
		return EINVAL;
	tc.buf = buf;
	tc.dump = (flags & SB_TOSTR_OBJDUMP) != 0;
	/* Hold the registry so META names cannot move while we print. */
	tpl_rlock();
	if (flags & SB_TOSTR_META) {
		for (i = tpl_count_locked() - 1; i >= 0; i--) {
			const struct statsblob_tpl *t = tpl_get_locked(i);

			if (t != NULL && t->mb->tplhash == b->tplhash) {
				tc.tpl = t;
				break;
			}
		}
		if (tc.tpl == NULL) {
			tpl_runlock();
			return EINVAL;
		}
		tc.meta = true;
		tc.tplname = tc.tpl->mb->tplname;
	}
	rv = tostr_blob(b, &tc, fmt);
	tpl_runlock();
	if (rv != 0)
		return rv;
	return sbuf_error(buf);
}

int
blob_tostr_named(struct statsblob *sb, struct sbuf *buf, enum sb_str_fmt fmt,
    uint32_t flags, const char *tplname, const char *const *names,
    uint16_t nnames)
{
	struct tostr_ctx tc = { 0 };
	int rv;

	if (!tostr_args_ok(sb, buf, fmt, flags & ~SB_TOSTR_META) ||
	    tplname == NULL)
		return EINVAL;
	tc.buf = buf;
	tc.dump = (flags & SB_TOSTR_OBJDUMP) != 0;
	tc.meta = true;
	tc.tplname = tplname;
	tc.names = names;
	tc.nnames = nnames;
	rv = tostr_blob((struct statsblobv1 *)sb, &tc, fmt);
	if (rv != 0)
		return rv;
	return sbuf_error(buf);
}

int
stats_voistatdata_tostr(const struct voistatdata *vsd, enum vsd_dtype dtype,
    enum sb_str_fmt fmt, struct sbuf *buf, int objdump)
{
	int error;

	if (vsd == NULL || buf == NULL)
		return EINVAL;
	error = kind_render(buf, vsd, 0, dtype, 0, fmt, objdump != 0);
	return error != 0 ? error : sbuf_error(buf);
}
