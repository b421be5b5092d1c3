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

void gw_cfg_defaults(struct gw_cfg *c)
{
	static const struct inst_spec book[] = {
		{ "AAPL", 20, 100 }, { "MSFT", 32, 100 }, { "NVDA", 48, 100 },
	};

	memset(c, 0, sizeof(*c));
	memcpy(c->inst, book, sizeof(book));
	c->n_inst = sizeof(book) / sizeof(book[0]);
	c->limit_bp = 10;
	c->order_log = 1u << 18;
	c->tick_ring = 1u << 16;
	strcpy(c->firm, "T2TG");
	c->risk.max_order = 100000;
	c->risk.collar_bp = 500;
	c->hold_slots = 4096;
	c->gap_retry_ns = 50 * 1000000ull;
	c->gap_timeout_ns = 2000 * 1000000ull;
	c->order_timeout_ns = 1000 * 1000000ull;
	c->max_catchup_ns = 50 * 1000000ull;
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
	e->risk = cfg->risk;
	if (e->risk.max_rate) {
		e->order_cost_ns = 1000000000ull / e->risk.max_rate;
		if (!e->risk.burst)
			e->risk.burst = 1;
		e->credit_ns = e->order_cost_ns * e->risk.burst;	/* start full */
	}
	e->order_timeout_ns = cfg->order_timeout_ns;
	e->max_catchup_ns = cfg->max_catchup_ns;
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
	ret = gap_init(&e->gap, cfg->hold_slots ? cfg->hold_slots : 1,
		       cfg->gap_retry_ns, cfg->gap_timeout_ns);
	if (ret) {
		feed_decoder_destroy(&e->dec);
		snprintf(err, errlen, "gap hold area: %s", strerror(-ret));
		return ret;
	}
	/* The order log is written on the hot path: populate it now. */
	olen = (size_t)cfg->order_log * sizeof(*e->orders);
	e->orders = mmap(NULL, olen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (e->orders == MAP_FAILED) {
		e->orders = NULL;
		gap_destroy(&e->gap);
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
	gap_destroy(&e->gap);
	feed_decoder_destroy(&e->dec);
}

/* The order no longer awaits anything: release what it held. */
static void close_order(struct gw_engine *e, struct gw_order *o)
{
	struct gw_inst *in = &e->inst[o->inst];

	if (o->side == 'B')
		in->open_buy -= o->shares;
	else
		in->open_sell -= o->shares;
	e->open_orders--;
}

static bool is_open(const struct gw_order *o)
{
	return o->state == GW_ORDER_SENT || o->state == GW_ORDER_ACCEPTED;
}

void engine_order_failed(struct gw_engine *e, struct gw_order *o)
{
	if (is_open(o))
		close_order(e, o);
	o->state = GW_ORDER_SEND_FAILED;
	e->st.orders_failed++;
}

void engine_expire_orders(struct gw_engine *e, uint64_t now)
{
	while (e->oldest_open != e->next_order) {
		struct gw_order *o = &e->orders[e->oldest_open & e->order_mask];

		if (o->order_no == e->oldest_open && is_open(o)) {
			/* now may be the batch's t_seen, older than t_sent */
			if (!e->order_timeout_ns || !o->t_sent || now < o->t_sent ||
			    now - o->t_sent < e->order_timeout_ns)
				return;
			close_order(e, o);
			o->state = GW_ORDER_TIMED_OUT;
			e->st.timeouts++;
		}
		e->oldest_open++;
	}
}

bool engine_gap_poll(struct gw_engine *e, uint64_t now, uint64_t *seq,
		     uint16_t *count)
{
	struct gw_gap *g = &e->gap;
	uint64_t next = e->dec.next_seq, last;

	if (!gap_open(g) || g->stale)
		return false;
	if (next != g->progress_seq) {
		g->progress_seq = next;
		g->progress_ns = now;
	} else if (g->timeout_ns && now - g->progress_ns > g->timeout_ns) {
		/* Reported, and no more trading on this session: see gap.h. */
		g->timeouts++;
		g->stale = true;
		return false;
	}
	/*
	 * One request in flight: ask again once its whole answer arrived, or
	 * after the retry time (an answer or the request was lost).
	 */
	if (g->last_req_ns && next < g->last_req_end &&
	    now - g->last_req_ns < g->retry_ns)
		return false;
	if (gap_first_held(g) <= next)
		return false;	/* decodable already: the loop drains it */
	/*
	 * Everything up to the last held packet: holes between held packets
	 * are asked for too, and what is held already comes back as harmless
	 * duplicates.
	 */
	last = gap_last_held(g);
	*seq = next;
	*count = (uint16_t)(last - next > GAP_REQ_MAX ? GAP_REQ_MAX : last - next);
	g->last_req_ns = now;
	g->last_req_end = next + *count;
	g->requests++;
	return true;
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
	 * An order is filled or canceled once (IOC, full fills): a second
	 * final reply is a duplicate datagram, not a second fill.
	 */
	if ((o->state == GW_ORDER_FILLED || o->state == GW_ORDER_CANCELED ||
	     o->state == GW_ORDER_REJECTED) && r.type != 'A') {
		e->st.dup_replies++;
		return;
	}
	if (o->state == GW_ORDER_TIMED_OUT)
		e->st.late_replies++;
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
		if (is_open(o))
			close_order(e, o);
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
		if (is_open(o))
			close_order(e, o);
		if (o->state != GW_ORDER_FILLED)
			o->state = GW_ORDER_CANCELED;
		break;
	case 'J':
		e->st.rejects++;
		in->rejects++;
		if (is_open(o))
			close_order(e, o);
		o->state = GW_ORDER_REJECTED;
		break;
	}
}
