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

const char *const order_flag_names[ORDER_F_NR] = { "retrans", "catchup", "restore", "resized" };

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

unsigned int order_stages(const struct order_times *t, uint8_t outcome,
			  uint8_t flags, int64_t v[STAGE_NR])
{
	unsigned int mask;

	if ((flags & ORDER_F_CATCHUP) || outcome == ORDER_SEND_FAILED || !t->t_hook ||
	    !t->t_sent)
		return 0;
	v[STAGE_HOOK_SEEN] = (int64_t)(t->t_seen - t->t_hook);
	v[STAGE_SEEN_DECIDED] = (int64_t)(t->t_decided - t->t_seen);
	v[STAGE_DECIDED_QUEUED] = (int64_t)(t->t_queued - t->t_decided);
	v[STAGE_QUEUED_SENT] = (int64_t)(t->t_sent - t->t_queued);
	v[STAGE_SEEN_QUEUED] = (int64_t)(t->t_queued - t->t_seen);
	v[STAGE_HOOK_QUEUED] = (int64_t)(t->t_queued - t->t_hook);
	v[STAGE_HOOK_SENT] = (int64_t)(t->t_sent - t->t_hook);
	mask = 1u << STAGE_HOOK_SEEN | 1u << STAGE_SEEN_DECIDED |
	       1u << STAGE_DECIDED_QUEUED | 1u << STAGE_QUEUED_SENT |
	       1u << STAGE_SEEN_QUEUED | 1u << STAGE_HOOK_QUEUED | 1u << STAGE_HOOK_SENT;
	if (t->t_send) {
		v[STAGE_SEND_HOOK] = (int64_t)(t->t_hook - t->t_send);
		mask |= 1u << STAGE_SEND_HOOK;
		if (t->t_ack) {
			v[STAGE_SEND_ACK] = (int64_t)(t->t_ack - t->t_send);
			mask |= 1u << STAGE_SEND_ACK;
		}
	}
	return mask;
}
