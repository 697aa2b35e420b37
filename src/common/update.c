/*
 * update.c: the engine's one update path. Every front end (stats(3) abs
 * and rel updates, kstat named values and counters, Linux statistic_add,
 * ring records drained by the daemon) ends here with an (X, Y) pair.
 */
#include <errno.h>

#include "blob.h"
#include "kind.h"
#include "numeric.h"

int
stats_voi_update_xy(struct statsblob *sb, int32_t voi_id,
    enum vsd_dtype voi_dtype, struct voistatdata_numeric *voival, uint64_t y,
    uint32_t flags)
{
	struct statsblobv1 *b = (struct statsblobv1 *)sb;
	struct voistat *vs;
	struct voi *v;
	int s, error = 0, e;

	if (b == NULL || b->abi != STATS_ABI_V1 || voival == NULL || y == 0 ||
	    voi_id < 0 || voi_id >= blob_nvois(b) ||
	    (flags & ~SB_VOI_RELUPDATE) != 0)
		return EINVAL;
	v = &b->vois[voi_id];
	if (v->id < 0 || v->dtype != voi_dtype)
		return EINVAL;
	if (flags & SB_VOI_RELUPDATE) {
		struct voistatdata_numeric abs;

		if (!(v->flags & VOI_REQSTATE))
			return EINVAL;
		vs = blob_voistat(b, v, VS_STYPE_VOISTATE);
		abs = blob_vsd(b, vs)->voistate.prev;
		/* Fixed point refuses to overflow before any statistic moves. */
		e = numeric_add(voi_dtype, &abs, voival, 1);
		if (e != 0)
			return e;
		*voival = abs;
	}
	/* Highest statistic type first, as FreeBSD does. */
	for (s = v->voistatmaxid; s > VS_STYPE_VOISTATE; s--) {
		bool changed = false;

		vs = blob_voistat(b, v, s);
		if (vs->stype < 0)
			continue;
		e = stype_ops[s].update(blob_vsd(b, vs), vs->dsz, vs->dtype,
		    voi_dtype, voival, y, &changed);
		if (e != 0) {
			if (vs->errs < VS_ERRS_MAX)
				vs->errs++;
			error = e;
		} else if (changed) {
			vs->flags |= VS_VSDVALID;
		}
	}
	if (v->flags & VOI_REQSTATE) {
		vs = blob_voistat(b, v, VS_STYPE_VOISTATE);
		blob_vsd(b, vs)->voistate.prev = *voival;
	}
	return error;
}
