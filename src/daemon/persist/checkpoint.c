/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * checkpoint.c: the checkpoint (see checkpoint.h) as an object: made with
 * its paths, its periodic pass's timers and the hook by which the log's
 * syncs end a compaction, freed, and its state for Info. What it does is
 * in the files beside it, one job each, lowest first: a record's frame
 * (ck_frame.c), the records (ck_record.c), the log's file, its syncs and
 * the state directory's health (ck_log.c), a PERSISTENT kstat's synced
 * appends (ck_kstat.c), the periodic pass and compaction (ck_pass.c),
 * and loading at start (ck_load.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "checkpoint_priv.h"
#include "daemon.h"
#include "syncer.h"

int
checkpoint_new(struct statsd *d, struct checkpoint **ret)
{
	struct checkpoint *c;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->d = d;
	c->fd = c->cfd = -1;
	if (strlen(d->state_dir) + 32 >= sizeof(c->path)) {
		free(c);
		return -ENAMETOOLONG;
	}
	snprintf(c->path, sizeof(c->path), "%s/" CKPT_NAME, d->state_dir);
	snprintf(c->tmp, sizeof(c->tmp), "%s/" CKPT_NAME ".tmp",
	    d->state_dir);
	c->ev_tick = evtimer_new(d->base, ck_tick_cb, c);
	c->ev_step = evtimer_new(d->base, ck_step_cb, c);
	if (c->ev_tick == NULL || c->ev_step == NULL) {
		if (c->ev_tick != NULL)
			event_free(c->ev_tick);
		free(c);
		return -ENOMEM;
	}
	event_priority_set(c->ev_tick, PRIO_CONTROL);
	event_priority_set(c->ev_step, PRIO_CONTROL);
	c->swapped = ck_swapped;
	ck_arm(c);
	*ret = c;
	return 0;
}

struct checkpoint *
checkpoint_free(struct checkpoint *c)
{
	if (c == NULL)
		return NULL;
	event_free(c->ev_tick);
	event_free(c->ev_step);
	/* A compaction being put in place finishes (its job owns memory). */
	if (c->syncer != NULL)
		syncer_drain(c->syncer);
	if (c->cfd >= 0) {
		close(c->cfd);
		(void)unlink(c->tmp);
	}
	c->syncer = syncer_free(c->syncer);
	/* Changes still waiting: statsd is going; whether their records
	 * are durable is for the next start to find out. */
	ck_settle(c, UINT64_MAX, -ECANCELED);
	if (c->fd >= 0)
		close(c->fd);
	free(c->meta_rates);
	free(c);
	return NULL;
}

bool
checkpoint_status(const struct checkpoint *c, const char **ret_why)
{
	bool usable = c->fd >= 0 && c->why[0] == '\0';

	if (ret_why != NULL)
		*ret_why = c->why;
	return usable;
}

json_t *
checkpoint_to_json(struct checkpoint *c)
{
	return json_pack("{s:s, s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
	    "state_dir", c->d->state_dir, "usable", checkpoint_status(c, NULL),
	    "error", c->why, "log_bytes", (json_int_t)c->size, "live_bytes",
	    (json_int_t)c->live, "compactions", (json_int_t)c->compactions,
	    "written_bytes", (json_int_t)ck_written_bytes(), "syncs",
	    (json_int_t)(ck_sync_count() + (c->syncer != NULL ?
	    syncer_count(c->syncer) : 0)), "damaged_records",
	    (json_int_t)c->damaged_records, "damaged_bytes",
	    (json_int_t)c->damaged_bytes);
}
