// SPDX-License-Identifier: MIT
#include <string.h>

#include "gateway/engine_hot.h"
#include "gateway/session.h"
#include "proto/moldudp64.h"

void gw_session_init(struct gw_session *s, struct order_conn *oc,
		     const struct gw_session_out *out)
{
	memset(s, 0, sizeof(*s));
	s->oc = oc;
	s->out = *out;
}

/*
 * A reply.  When it ends an order that left a strategy change covered, the
 * change may trade now (engine_make_up(), in engine_on_reply()).
 */
static void on_msg(void *ctx, const struct soup_msg *m, uint64_t now)
{
	struct gw_session *s = ctx;
	struct gw_decision d;

	if (engine_on_reply(s->e, m->data, m->len, s->t_hook, now, &d))
		s->out.send(s->out.send_ctx, &d, 1, now);
}

static void on_up(void *ctx, uint64_t now)
{
	struct gw_session *s = ctx;

	orders_session_up(&s->e->ord, now);
}

static void on_down(void *ctx, uint64_t now)
{
	struct gw_session *s = ctx;

	(void)now;
	orders_session_down(&s->e->ord);
}

void gw_session_conn_ops(struct gw_session *s, struct order_conn_ops *ops)
{
	*ops = (struct order_conn_ops){ .on_msg = on_msg, .on_up = on_up, .on_down = on_down,
					.ctx = s };
}

void gw_session_start(struct gw_session *s, struct gw_engine *e, uint64_t now)
{
	s->e = e;
	if (s->oc)
		order_conn_start(s->oc, now);
}

void gw_session_drain_held(struct gw_session *s, uint64_t now)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	unsigned int nd;

	for (int i = 0; i < GW_DRAIN_BUDGET && engine_feed_held(s->e, now, dec, &nd); i++)
		if (nd)
			s->out.send(s->out.send_ctx, dec, nd, now);
}

void gw_session_poll(struct gw_session *s, uint64_t now)
{
	if (!s->oc)
		return;
	s->t_hook = now;
	order_conn_poll(s->oc, now);
}

/* Orders in doubt after a new login: once more, same token (OUCH takes each once). */
static void resend_orders(struct gw_session *s, uint64_t now)
{
	uint8_t pkt[OUCH_ENTER_PKT_LEN] __attribute__((aligned(8)));
	struct gw_engine *e = s->e;
	struct gw_order *r;

	while ((r = orders_resend_next(&e->ord, now))) {
		orders_rebuild(&e->inst[r->inst], r, pkt);
		order_conn_send(s->oc, pkt, sizeof(pkt), now);
	}
}

/* Every re-request the gap wants now, through the path's sender. */
static void rerequest(struct gw_session *s, uint64_t now)
{
	uint8_t buf[MOLD_REREQ_LEN];
	struct mold_rerequest rq;

	if (!s->out.rerequest)
		return;
	memcpy(rq.session, s->e->dec.session, MOLD_SESSION_LEN);
	while (engine_gap_request(s->e, now, &rq.seq, &rq.count)) {
		mold_encode_rerequest(buf, sizeof(buf), &rq);
		s->out.rerequest(s->out.rerequest_ctx, buf, MOLD_REREQ_LEN);
	}
}

void gw_session_housekeeping(struct gw_session *s, uint64_t now)
{
	struct gw_engine *e = s->e;

	if (gap_open(&e->gap)) {
		rerequest(s, now);
		/* A timeout may have made the session stale: release what is held. */
		gw_session_drain_held(s, now);
	}
	/* A paper order waits for the feed's clock, not for a reply. */
	if (!s->oc)
		return;
	s->t_hook = now;
	order_conn_idle(s->oc, now);
	resend_orders(s, now);
	orders_expire(&e->ord, now);
}

bool gw_session_shutdown(struct gw_session *s, uint64_t now)
{
	if (!s->oc) {
		engine_paper_flush(s->e);
		return false;
	}
	order_conn_shutdown(s->oc, now);
	return true;
}
