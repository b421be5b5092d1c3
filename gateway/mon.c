// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gateway/mon.h"
#include "latency/capture.h"
#include "util/clock.h"

/* Whole-word loads of what the hot loop writes (x86: plain loads). */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

static void counter_defs(struct gw_mon *m, const struct counters *t)
{
	m->n_defs = 0;
	/* Text (why the session went stale) is the summary's: no row here. */
	for (unsigned int i = 0; i < t->n && m->n_defs < MON_MAX_COUNTERS; i++)
		if (gw_counter_mon_def(&gw_counters[t->c[i].id], &m->defs[m->n_defs]))
			m->n_defs++;
	/* Orders that left the log before the monitor took them. */
	if (m->n_defs < MON_MAX_COUNTERS)
		m->defs[m->n_defs++] = (struct mon_counter_def){ "monitor", "orders_skipped",
								 MON_COUNTER, MON_UNIT_NONE };
}

int gw_mon_open(struct gw_mon *m, const char *name, const struct gw_report *rep,
		char *err, size_t errlen)
{
	static char syms[GW_MAX_INST][9];
	const char *sym[GW_MAX_INST];
	const struct gw_engine *e = rep->e;
	struct counters t;
	struct mon_cfg cfg;
	int ret;

	memset(m, 0, sizeof(*m));
	m->rep = rep;
	if (e->n_inst > MON_MAX_SYMBOLS) {
		snprintf(err, errlen, "the monitor shows at most %d instruments, not %u "
			 "(--monitor off)", MON_MAX_SYMBOLS, e->n_inst);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < e->n_inst; i++) {
		int n = 8;

		while (n > 0 && e->inst[i].symbol[n - 1] == ' ')
			n--;
		memcpy(syms[i], e->inst[i].symbol, (size_t)n);
		syms[i][n] = '\0';
		sym[i] = syms[i];
	}
	report_collect(&t, rep);
	counter_defs(m, &t);
	cfg = (struct mon_cfg){ .name = name, .writer = "t2t-gateway", .counters = m->defs,
				.n_counters = m->n_defs, .symbols = sym,
				.n_symbols = e->n_inst };
	ret = mon_create(&m->w, &cfg, err, errlen);
	if (ret)
		return ret;
	m->order_cursor = LOAD(e->ord.next);
	return 0;
}

void gw_mon_close(struct gw_mon *m)
{
	mon_destroy(&m->w);
}

void gw_mon_symbols(struct gw_mon *m, const struct gw_engine *e, uint64_t now)
{
	for (unsigned int i = 0; i < e->n_inst; i++) {
		const struct gw_inst *in = &e->inst[i];
		struct mon_sym s = {
			.position = in->pos_shares,
			.cash = in->cash,
			.pnl = inst_pnl(in),
			.target = inst_target(in),
			.strat_pos = in->strat.sar.pos,
			.last_price = in->last_price,
			.last_size = in->last_shares,
			.ticks = in->ticks,
			.orders = in->orders,
			.fills = in->fills,
			.cancels = in->cancels,
			.rejects = in->rejects,
		};

		if (e->book && in->locate > 0) {
			const struct book_level *b = book_best(e->book, (uint16_t)in->locate,
							       BOOK_BID);
			const struct book_level *a = book_best(e->book, (uint16_t)in->locate,
							       BOOK_ASK);

			s.bid = b ? b->price : 0;
			s.ask = a ? a->price : 0;
		}
		mon_publish_symbol(&m->w, i, &s, now);
	}
}

/*
 * Done with, for the monitor: a final reply came, or it timed out and even a
 * late reply would have come by now (a late Executed still books a fill).
 */
static bool finished(uint8_t state, uint64_t age, uint64_t timeout)
{
	if (state == ORDER_SENT || state == ORDER_ACCEPTED)
		return false;
	return state != ORDER_TIMED_OUT || age >= timeout + GW_MON_ORDER_WAIT_NS;
}

/* One finished order: its stages and its events. */
static void take_order(struct gw_mon *m, const struct gw_order *o)
{
	struct capture_rec c;
	int64_t v[STAGE_NR];
	unsigned int mask;
	uint64_t t = o->t.t_sent;
	uint32_t filled = o->filled;

	report_order_rec(m->rep, o, &c, NULL);
	mask = order_stages(&c.t, c.outcome, c.flags, v, NULL);
	for (unsigned int s = 0; s < STAGE_NR; s++)
		if (mask & (1u << s))
			mon_record_stage(&m->w, s, v[s]);
	if (c.outcome == ORDER_SEND_FAILED)
		return;
	mon_record_event(&m->w, MON_EV_ORDER, o->inst, o->side, o->shares, o->price,
			 o->order_no, t);
	if (filled)
		mon_record_event(&m->w, MON_EV_FILL, o->inst, o->side, filled,
				 o->fill_price, o->order_no, t);
	if (c.outcome == ORDER_REJECTED)
		mon_record_event(&m->w, MON_EV_REJECT, o->inst, o->side, o->shares,
				 o->price, o->order_no, t);
	else if (filled < o->shares && c.outcome == ORDER_CANCELED)
		mon_record_event(&m->w, MON_EV_CANCEL, o->inst, o->side,
				 o->shares - filled, o->price, o->order_no, t);
}

/*
 * The orders the hot loop has finished with, oldest first; stops at the
 * first still waiting for its replies (every order ends final: a reply, or
 * the order timeout).  @all: at exit, every order as it stands.
 */
static void take_orders(struct gw_mon *m, uint64_t now, bool all)
{
	const struct orders *ord = &m->rep->e->ord;
	uint32_t next = LOAD(ord->next), cap = ord->mask + 1;

	if (next - m->order_cursor > cap) {
		m->orders_skipped += next - cap - m->order_cursor;
		m->order_cursor = next - cap;
	}
	for (; m->order_cursor != next; m->order_cursor++) {
		const struct gw_order *o = &ord->log[m->order_cursor & ord->mask];
		uint8_t state = LOAD(o->state);
		uint64_t t_sent = LOAD(o->t.t_sent);

		if (!all && state != ORDER_SEND_FAILED &&
		    (!t_sent || !finished(state, now - t_sent, ord->cfg.timeout_ns)))
			break;
		take_order(m, o);
	}
}

void gw_mon_poll(struct gw_mon *m, uint64_t now, bool all)
{
	struct counters t;
	unsigned int k = 0;

	report_collect(&t, m->rep);
	take_orders(m, now, all);
	for (unsigned int i = 0; i < t.n && k + 1 < m->n_defs; i++)
		if (t.c[i].kind != V_STR)
			m->vals[k++] = t.c[i].v;
	m->vals[k++] = m->orders_skipped;
	mon_publish_counters(&m->w, m->vals, k, now);
	if (now >= m->next_tick_ns) {
		m->next_tick_ns = now + NS_PER_SEC;
		mon_tick(&m->w, now);
	}
}
