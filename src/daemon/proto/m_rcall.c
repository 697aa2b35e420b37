/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * m_rcall.c: calls whose page the reader thread renders (rthread.h): the
 * handler parses and checks the call in the loop, then hands its page
 * over; the call waits, parked, and is answered in its caller's next turn
 * once the page is back. A caller that leaves meanwhile leaves the page
 * to be freed when it comes back.
 */
#include <stdlib.h>

#include "daemon.h"
#include "methods.h"
#include "registry.h"
#include "rthread.h"

/* Back in the loop: the call answers in its next step. */
static void
m_rcall_done(struct rjob *j)
{
	struct m_rcall *rc = (struct m_rcall *)(void *)j;

	rc->finished = true;
	if (rc->conn != NULL)
		varlink_wake(rc->conn);
	else
		rc->free(rc);
}

static bool
m_rcall_step(struct vl_call *call, json_t *params, void *state,
    uint64_t budget)
{
	struct m_rcall *rc = state;

	(void)params;
	(void)budget;
	if (!rc->finished) {
		varlink_park(call);
		return false;
	}
	rc->answer(call, rc);
	return true;
}

/* Answered, or the caller gone: a page the thread still holds is freed
 * when it comes back. */
static void
m_rcall_state_free(void *state)
{
	struct m_rcall *rc = state;

	if (rc->submitted && !rc->finished) {
		rc->conn = NULL;
		return;
	}
	rc->free(rc);
}

void
m_rcall_submit(struct vl_call *call, json_t *params, struct m_rcall *rc)
{
	/* A PERSISTENT kstat's latest values are in the store the reader
	 * reads, as they would be in the registry's copy: a read sees
	 * what every write answered before it left. */
	registry_sync(call->d->reg);
	rc->job.done = m_rcall_done;
	rc->job.privileged = rc->peer.privileged;
	rc->conn = call->conn;
	/* Deferred first: if that fails (answered, rc freed), the page is
	 * not asked for at all. */
	(void)varlink_defer(call, params, m_rcall_step, rc,
	    m_rcall_state_free);
	if (!call->deferred)
		return;
	rc->submitted = true;
	rthread_submit(call->d->rthread, &rc->job);
}
