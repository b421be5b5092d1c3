// SPDX-License-Identifier: MIT
#include "latency/order_rec.h"

const char *const order_outcome_names[ORDER_OUTCOME_NR] = {
	[ORDER_SENT] = "sent",
	[ORDER_ACCEPTED] = "accepted",
	[ORDER_FILLED] = "filled",
	[ORDER_CANCELED] = "canceled",
	[ORDER_REJECTED] = "rejected",
	[ORDER_SEND_FAILED] = "send_failed",
	[ORDER_TIMED_OUT] = "timed_out",
};

const char *const order_flag_names[ORDER_F_NR] = { "retrans", "catchup", "restore", "resized",
						     "on_reply", "resent" };

const char *const stage_names[STAGE_NR] = {
	[STAGE_SEND_HOOK] = "send->hook",
	[STAGE_HOOK_SEEN] = "hook->seen",
	[STAGE_SEEN_DECIDED] = "seen->decided",
	[STAGE_DECIDED_QUEUED] = "decided->queued",
	[STAGE_QUEUED_SENT] = "queued->sent",
	[STAGE_SEEN_QUEUED] = "seen->queued",
	[STAGE_HOOK_QUEUED] = "hook->queued",
	[STAGE_HOOK_SENT] = "hook->sent",
	[STAGE_SEND_ACK] = "send->ack",
};

/* One stage, b - a: kept only when the clocks agree (b >= a). */
static unsigned int stage(int64_t v[STAGE_NR], enum order_stage i, uint64_t a,
			  uint64_t b, unsigned int *clock_errors)
{
	if (b < a) {
		(*clock_errors)++;
		return 0;
	}
	v[i] = (int64_t)(b - a);
	return 1u << i;
}

unsigned int order_stages(const struct order_times *t, uint8_t outcome,
			  uint8_t flags, int64_t v[STAGE_NR], unsigned int *clock_errors)
{
	unsigned int mask = 0, errs = 0;

	if ((flags & ORDER_F_CATCHUP) || outcome == ORDER_SEND_FAILED || !t->t_hook ||
	    !t->t_sent)
		goto out;
	mask |= stage(v, STAGE_HOOK_SEEN, t->t_hook, t->t_seen, &errs);
	mask |= stage(v, STAGE_SEEN_DECIDED, t->t_seen, t->t_decided, &errs);
	mask |= stage(v, STAGE_DECIDED_QUEUED, t->t_decided, t->t_queued, &errs);
	mask |= stage(v, STAGE_QUEUED_SENT, t->t_queued, t->t_sent, &errs);
	mask |= stage(v, STAGE_SEEN_QUEUED, t->t_seen, t->t_queued, &errs);
	mask |= stage(v, STAGE_HOOK_QUEUED, t->t_hook, t->t_queued, &errs);
	mask |= stage(v, STAGE_HOOK_SENT, t->t_hook, t->t_sent, &errs);
	/* The exchange's side only where its clock is ours (t_send given). */
	if (t->t_send) {
		mask |= stage(v, STAGE_SEND_HOOK, t->t_send, t->t_hook, &errs);
		if (t->t_ack)
			mask |= stage(v, STAGE_SEND_ACK, t->t_send, t->t_ack, &errs);
	}
out:
	if (clock_errors)
		*clock_errors += errs;
	return mask;
}
