// SPDX-License-Identifier: MIT
/*
 * t2t-monwriter: a monitor segment without a gateway.  It makes the
 * segment a gateway would (the same counter names as the gateway's report,
 * the same stages) and writes plausible values into it through the writer
 * API: GBM prices with a bid and an ask, a moving-average strategy whose
 * orders mostly fill, positions, cash and PnL that add up, stage latencies
 * with a tail, now and then a gap or a refusal.  Paced (--rate) or flat
 * out (--rate 0), so the views and their tests run anywhere.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gateway/counters.h"
#include "monitor/writer.h"
#include "util/clock.h"
#include "util/opt.h"

/*
 * The gateway's counters, from its one table (gateway/counters.h, a header
 * of names only: nothing of the gateway is linked), in its order: the rows
 * of the groups an AF_XDP gateway shows whatever its configuration (no
 * books, paper, order session or own TCP).  A group is named by one of its
 * rows, so that no name is copied here.
 */
static const enum gw_counter_id groups[] = {
	CNT_FEED_PACKETS, CNT_GAPS_OPENED, CNT_ORD_SENT, CNT_RISK_KILLED, CNT_XDP_STEER_SEEN,
};

static struct mon_counter_def defs[CNT_NR];
static enum gw_counter_id rows[CNT_NR];	/* defs[i] is the table's row rows[i] */
static unsigned int ndefs;

static void pick_rows(void)
{
	for (int id = 0; id < CNT_NR; id++) {
		bool want = false;

		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
			want |= !strcmp(gw_counters[id].group, gw_counters[groups[g]].group);
		if (want && gw_counter_mon_def(&gw_counters[id], &defs[ndefs]))
			rows[ndefs++] = (enum gw_counter_id)id;
	}
}

struct cfg {
	const char *name;
	const char *symbols;
	uint32_t rate;		/* ticks per second, 0 flat out */
	double duration;	/* seconds, 0 until a signal */
	uint64_t seed;
	bool quiet;
};

static const struct opt opts[] = {
	OPT("name", 'n', OPT_STR, OFF(struct cfg, name), "NAME",
	    "segment /dev/shm/t2t-NAME", .max = MON_NAME_MAX - 1),
	OPT("symbols", 's', OPT_STR, OFF(struct cfg, symbols), "A,B,...",
	    "instruments (1 to 16, 1 to 8 characters each)"),
	OPT("rate", 'r', OPT_U32, OFF(struct cfg, rate), "N",
	    "ticks per second; 0 = flat out (every value republished each tick)",
	    .max = 100000000),
	OPT("duration", 'd', OPT_DOUBLE, OFF(struct cfg, duration), "S",
	    "stop after S seconds (0: at SIGINT/SIGTERM)", .max = 1e7),
	OPT("seed", 0, OPT_U64, OFF(struct cfg, seed), "N", "random seed"),
	OPT("quiet", 'q', OPT_FLAG, OFF(struct cfg, quiet), NULL, "no line at the end"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-monwriter",
	.usage = "[options]",
	.about = "Writes a t2t monitor segment with plausible, moving values (no gateway\n"
		 "needed): counters named as the gateway's, positions, PnL, bid/ask,\n"
		 "prints, orders and fills, per-stage latencies.",
	.opts = opts,
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t rng;

static uint64_t next_u64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]. */
static double unit(void)
{
	return ((double)(next_u64() >> 11) + 1.0) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2.0 * log(unit())) * cos(2.0 * M_PI * unit());
}

/* A latency around @median ns with a log-normal spread and a rare stall. */
static uint64_t lat(double median, double sigma)
{
	double v = median * exp(sigma * gauss());

	if (unit() < 0.002)
		v *= 50 + 200 * unit();
	return (uint64_t)v + 1;
}

struct inst {
	struct mon_sym m;
	double mid, fast, slow;	/* dollars */
};

#define UNIT_SHARES 100

/* One trade of inst k toward its target: the order, and what became of it. */
static void trade(struct mon_writer *w, unsigned int k, struct inst *in, uint64_t *c,
		  uint32_t *order_no, uint64_t now)
{
	int64_t want = in->m.target - in->m.position;
	char side = want > 0 ? 'B' : 'S';
	uint32_t shares = (uint32_t)(want > 0 ? want : -want);
	uint32_t px = side == 'B' ? in->m.ask : in->m.bid;
	uint32_t limit = side == 'B' ? px + px / 1000 : px - px / 1000;
	struct order_times t;
	double u = unit();
	uint8_t outcome;

	if (unit() < 0.003) {		/* a limit refused it: no order leaves */
		c[next_u64() % 2 ? CNT_RISK_RATE : CNT_RISK_COLLAR]++;
		c[CNT_ORD_UNTRADED]++;
		c[CNT_ORD_UNTRADED_RISK]++;
		return;
	}
	(*order_no)++;
	in->m.orders++;
	c[CNT_ORD_SENT]++;
	c[CNT_XDP_KICKS]++;
	mon_record_event(w, MON_EV_ORDER, k, side, shares, limit, *order_no, now);

	t.t_hook = now - 20000;
	t.t_send = t.t_hook - lat(4900, 0.4);
	t.t_seen = t.t_hook + lat(1300, 0.6);
	t.t_decided = t.t_seen + lat(700, 0.5);
	t.t_queued = t.t_decided + lat(70, 0.3);
	t.t_sent = t.t_queued + lat(12000, 0.35);
	t.t_ack = t.t_queued + lat(4000, 0.3);

	c[CNT_ORD_REPLIES] += 2;
	if (u < 0.01) {
		outcome = ORDER_REJECTED;
		in->m.rejects++;
		c[CNT_ORD_REJECTED]++;
		mon_record_event(w, MON_EV_REJECT, k, side, shares, limit, *order_no, now);
	} else if (u < 0.10) {
		outcome = ORDER_CANCELED;
		in->m.cancels++;
		c[CNT_ORD_ACCEPTED]++;
		c[CNT_ORD_CANCELED]++;
		mon_record_event(w, MON_EV_CANCEL, k, side, shares, limit, *order_no, now);
	} else {
		int64_t s = side == 'B' ? shares : -(int64_t)shares;

		outcome = ORDER_FILLED;
		in->m.position += s;
		in->m.cash -= s * (int64_t)px;
		in->m.fills++;
		c[CNT_ORD_ACCEPTED]++;
		c[CNT_ORD_FILLED]++;
		c[CNT_ORD_EXECUTIONS]++;
		mon_record_event(w, MON_EV_FILL, k, side, shares, px, *order_no, now);
	}
	mon_record_order(w, &t, outcome, 0);
}

/* A print of inst k: the book moves, the strategy follows, maybe a trade. */
static void tick(struct mon_writer *w, unsigned int k, struct inst *in, uint64_t *c,
		 uint32_t *order_no, uint64_t now)
{
	uint32_t mid, half;
	int pos;

	in->mid *= exp(0.0004 * gauss());
	mid = (uint32_t)(in->mid * 100 + 0.5) * 100;	/* cents, as Price(4) */
	half = (uint32_t)(1 + next_u64() % 2) * 100;
	in->m.bid = mid - half;
	in->m.ask = mid + half;
	in->m.last_price = next_u64() % 2 ? in->m.bid : in->m.ask;
	in->m.last_size = (uint32_t)(1 + next_u64() % 5) * 100;
	in->m.ticks++;
	in->fast += (in->mid - in->fast) / 16;
	in->slow += (in->mid - in->slow) / 120;
	pos = in->m.ticks < 120 ? 0 : in->fast > in->slow ? 1 : -1;
	in->m.strat_pos = pos;
	in->m.target = (int64_t)pos * UNIT_SHARES;
	if (in->m.target != in->m.position)
		trade(w, k, in, c, order_no, now);
	in->m.pnl = in->m.cash + in->m.position * (int64_t)in->m.last_price;
	mon_publish_symbol(w, k, &in->m, now);
}

/* What the feed and the path did around these ticks. */
static void feed(uint64_t *c, uint64_t ticks, uint64_t now)
{
	uint64_t pkts = (ticks + 2) / 3;

	c[CNT_FEED_PACKETS] += pkts;
	c[CNT_FEED_MESSAGES] += ticks + ticks / 4;
	c[CNT_FEED_TICKS] += ticks;
	c[CNT_FEED_TICKS_OURS] += ticks;
	c[CNT_FEED_NEXT_SEQ] += ticks + ticks / 4;
	c[CNT_XDP_STEER_SEEN] += pkts;
	c[CNT_XDP_STEER_STEERED] += pkts;
	if (unit() < 0.0005 * (double)ticks) {	/* a hole, recovered */
		uint64_t took = 50000 + next_u64() % 400000;

		c[CNT_GAPS_OPENED]++;
		c[CNT_GAPS_FILLED]++;
		c[CNT_GAPS_REQUESTS] += 1 + next_u64() % 3;
		c[CNT_GAPS_HELD] += 1 + next_u64() % 20;
		c[CNT_GAPS_RETRANS_PKTS] += 1 + next_u64() % 3;
		c[CNT_GAPS_RECOVERY_NS_TOTAL] += took;
		if (took > c[CNT_GAPS_RECOVERY_NS_MAX])
			c[CNT_GAPS_RECOVERY_NS_MAX] = took;
		c[CNT_FEED_HEARTBEATS]++;
	}
	if (unit() < 0.0002 * (double)ticks) {
		c[CNT_FEED_MALFORMED]++;
		c[CNT_FEED_BAD_LENGTH]++;
		c[CNT_XDP_STEER_PASSED]++;
		c[CNT_XDP_STEER_SEEN]++;
	}
	(void)now;
}

static int split_symbols(char *list, const char **sym)
{
	int n = 0;

	for (char *save, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == MON_MAX_SYMBOLS)
			return -1;
		sym[n++] = t;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const double start_px[] = { 190.0, 420.0, 880.0, 150.0, 60.0, 35.0, 240.0, 12.0 };
	struct cfg cfg = { .name = "monwriter", .symbols = "AAPL,MSFT,NVDA", .rate = 2000,
			   .seed = 42 };
	static struct inst in[MON_MAX_SYMBOLS];
	static uint64_t c[CNT_NR], v[CNT_NR];	/* by the table's row; as written */
	const char *sym[MON_MAX_SYMBOLS];
	struct sigaction sa = { .sa_handler = on_signal };
	struct mon_writer w;
	struct mon_cfg mc;
	uint64_t t0, next, next_tick_s, n = 0;
	uint32_t order_no = 0;
	char list[256], err[256];
	int ret, nsym;

	ret = opt_parse(&prog, &cfg, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	snprintf(list, sizeof(list), "%s", cfg.symbols);
	nsym = split_symbols(list, sym);
	if (nsym <= 0)
		return opt_error(&prog, "--symbols: 1 to %d names", MON_MAX_SYMBOLS);
	rng = cfg.seed;
	pick_rows();
	mc = (struct mon_cfg){ .name = cfg.name, .writer = "t2t-monwriter", .counters = defs,
			       .n_counters = ndefs, .symbols = sym,
			       .n_symbols = (unsigned int)nsym };
	ret = mon_create(&w, &mc, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "t2t-monwriter: %s\n", err);
		return 1;
	}
	for (int k = 0; k < nsym; k++)
		in[k].mid = in[k].fast = in[k].slow = start_px[k % 8] * (1 + 0.1 * (k / 8));
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	t0 = next = mono_ns();
	next_tick_s = t0 + NS_PER_SEC;
	while (!stop) {
		uint64_t now = mono_ns();
		unsigned int k = (unsigned int)(next_u64() % (uint64_t)nsym);

		if (cfg.rate) {
			struct timespec ts;

			if (now < next) {
				ts.tv_sec = (time_t)(next / NS_PER_SEC);
				ts.tv_nsec = (long)(next % NS_PER_SEC);
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
				now = mono_ns();
			}
			next += NS_PER_SEC / cfg.rate;
			if (now > next + NS_PER_SEC)	/* far behind (stopped): no burst */
				next = now;
		}
		tick(&w, k, &in[k], c, &order_no, now);
		feed(c, 1, now);
		c[CNT_ORD_OPEN] = 0;
		for (unsigned int i = 0; i < ndefs; i++)
			v[i] = c[rows[i]];
		mon_publish_counters(&w, v, ndefs, now);
		n++;
		if (now >= next_tick_s) {
			mon_tick(&w, now);
			next_tick_s += NS_PER_SEC;
			if (next_tick_s < now)
				next_tick_s = now + NS_PER_SEC;
			if (cfg.duration > 0 && (double)(now - t0) / 1e9 >= cfg.duration)
				break;
		}
	}
	if (!cfg.quiet)
		fprintf(stderr, "t2t-monwriter: %s: %llu ticks in %.1f s, %u orders\n", w.path,
			(unsigned long long)n, (double)(mono_ns() - t0) / 1e9, order_no);
	mon_destroy(&w);
	return 0;
}
