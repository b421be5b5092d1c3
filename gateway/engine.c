// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "gateway/engine.h"
#include "proto/proto_err.h"

/* The stock directory names a locate: bind it if it is one of ours. */
static void on_symbol(void *ctx, uint16_t locate, const char symbol[8])
{
	struct gw_engine *e = ctx;

	for (unsigned int i = 0; i < e->n_inst; i++) {
		if (memcmp(e->inst[i].symbol, symbol, 8))
			continue;
		if (e->inst[i].locate >= 0 && e->inst[i].locate != locate)
			e->locate_inst[e->inst[i].locate] = 0;
		e->inst[i].locate = locate;
		e->locate_inst[locate] = (uint8_t)(i + 1);
		return;
	}
}

static void build_template(struct gw_inst *in, const char *firm)
{
	struct ouch_enter_order o;

	memset(&o, 0, sizeof(o));
	memcpy(o.stock, in->symbol, 8);
	o.tif = OUCH_TIF_IOC;
	memset(o.firm, ' ', sizeof(o.firm));
	memcpy(o.firm, firm, strnlen(firm, sizeof(o.firm)));
	o.display = 'Y';
	o.capacity = 'P';	/* principal */
	o.iso = 'N';
	o.min_qty = 0;
	o.cross_type = 'N';
	o.customer_type = 'R';
	ouch_order_tmpl_init(&in->tmpl, &o);
}

int engine_init(struct gw_engine *e, const struct gw_cfg *cfg,
		char *err, size_t errlen)
{
	struct feed_decoder_config dcfg = {
		.ring_capacity = cfg->tick_ring,
		.on_symbol = on_symbol,
		.cb_ctx = e,
	};
	size_t olen;
	int ret;

	memset(e, 0, sizeof(*e));
	if (!cfg->n_inst || cfg->n_inst > GW_MAX_INST) {
		snprintf(err, errlen, "between 1 and %d instruments, not %u",
			 GW_MAX_INST, cfg->n_inst);
		return -EINVAL;
	}
	if (!cfg->order_log || (cfg->order_log & (cfg->order_log - 1))) {
		snprintf(err, errlen, "order log size must be a power of two");
		return -EINVAL;
	}
	e->n_inst = cfg->n_inst;
	e->limit_bp = cfg->limit_bp;
	for (unsigned int i = 0; i < cfg->n_inst; i++) {
		const struct inst_spec *ic = &cfg->inst[i];
		struct gw_inst *in = &e->inst[i];

		memset(in->symbol, ' ', sizeof(in->symbol));
		memcpy(in->symbol, ic->symbol, strnlen(ic->symbol, 8));
		in->locate = -1;
		in->unit = ic->unit;
		ret = strat_init(&in->strat, ic->length);
		if (ret) {
			snprintf(err, errlen, "%s: HMA length %u out of range [%d, %d]",
				 ic->symbol, ic->length, HMA_LEN_MIN, HMA_LEN_MAX);
			return ret;
		}
		build_template(in, cfg->firm);
	}

	ret = feed_decoder_init(&e->dec, &dcfg);
	if (ret) {
		snprintf(err, errlen, "feed decoder: %s", strerror(-ret));
		return ret;
	}
	/* The order log is written on the hot path: populate it now. */
	olen = (size_t)cfg->order_log * sizeof(*e->orders);
	e->orders = mmap(NULL, olen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (e->orders == MAP_FAILED) {
		e->orders = NULL;
		feed_decoder_destroy(&e->dec);
		snprintf(err, errlen, "order log: %s", strerror(errno));
		return -ENOMEM;
	}
	memset(e->orders, 0, olen);
	e->order_mask = cfg->order_log - 1;
	return 0;
}

void engine_destroy(struct gw_engine *e)
{
	if (e->orders)
		munmap(e->orders, (size_t)(e->order_mask + 1) * sizeof(*e->orders));
	e->orders = NULL;
	feed_decoder_destroy(&e->dec);
}

/* The order a reply's token names, if it is still in the log. */
static struct gw_order *find_order(struct gw_engine *e, const char *token)
{
	struct gw_order *o;
	uint64_t md_seq;
	uint32_t no;

	if (order_token_decode(token, &md_seq, &no))
		return NULL;
	o = &e->orders[no & e->order_mask];
	if (no >= e->next_order || o->order_no != no ||
	    (o->md_seq & ORDER_TOKEN_SEQ_MASK) != md_seq)
		return NULL;
	return o;
}

void engine_on_reply(struct gw_engine *e, const uint8_t *pkt, size_t len)
{
	struct ouch_reply r;
	struct gw_order *o;
	struct gw_inst *in;
	int64_t signed_shares;

	e->st.replies++;
	if (ouch_decode_reply(pkt, len, &r) < 0) {
		e->st.bad_replies++;
		return;
	}
	o = find_order(e, r.token);
	if (!o) {
		e->st.unknown_token++;
		return;
	}
	in = &e->inst[o->inst];
	/*
	 * On the rig the exchange puts its CLOCK_MONOTONIC arrival time of the
	 * order in the Timestamp of its first reply (Accepted or Rejected), the
	 * way ITCH timestamps carry the send time: the order's t_ack.
	 */
	if (!o->t_ack && (r.type == 'A' || r.type == 'J'))
		o->t_ack = r.timestamp;
	switch (r.type) {
	case 'A':
		e->st.accepted++;
		if (o->state == GW_ORDER_SENT)
			o->state = GW_ORDER_ACCEPTED;
		break;
	case 'E':
		e->st.fills++;
		in->fills++;
		o->state = GW_ORDER_FILLED;
		o->fill_price = r.executed.price;
		signed_shares = o->side == 'B' ? (int64_t)r.executed.shares :
						 -(int64_t)r.executed.shares;
		in->pos_shares += signed_shares;
		in->cash -= signed_shares * (int64_t)r.executed.price;
		break;
	case 'C':
		e->st.cancels++;
		in->cancels++;
		if (o->state != GW_ORDER_FILLED)
			o->state = GW_ORDER_CANCELED;
		break;
	case 'J':
		e->st.rejects++;
		in->rejects++;
		o->state = GW_ORDER_REJECTED;
		break;
	}
}
