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

#include "monitor/writer.h"
#include "util/clock.h"
#include "util/opt.h"

/* The gateway's counters (gateway/report.c, AF_XDP path), in its order. */
#define C_(id, g, n, k, u) id,
#define COUNTERS(X) \
	X(FEED_PACKETS, "feed", "packets", MON_COUNTER, 0) \
	X(FEED_MESSAGES, "feed", "messages", MON_COUNTER, 0) \
	X(FEED_TICKS, "feed", "ticks", MON_COUNTER, 0) \
	X(FEED_TICKS_OURS, "feed", "ticks_ours", MON_COUNTER, 0) \
	X(FEED_UNKNOWN_LOCATE, "feed", "unknown_locate", MON_COUNTER, 0) \
	X(FEED_BAD_PRICE, "feed", "bad_price", MON_COUNTER, 0) \
	X(FEED_STOCK_DIRECTORY, "feed", "stock_directory", MON_COUNTER, 0) \
	X(FEED_SYSTEM_EVENTS, "feed", "system_events", MON_COUNTER, 0) \
	X(FEED_HEARTBEATS, "feed", "heartbeats", MON_COUNTER, 0) \
	X(FEED_STALE_HEARTBEATS, "feed", "stale_heartbeats", MON_COUNTER, 0) \
	X(FEED_END_OF_SESSION, "feed", "end_of_session", MON_FLAG, 0) \
	X(FEED_END_REPEATS, "feed", "end_repeats", MON_COUNTER, 0) \
	X(FEED_STALE_END, "feed", "stale_end", MON_COUNTER, 0) \
	X(FEED_AFTER_END, "feed", "after_end", MON_COUNTER, 0) \
	X(FEED_DUPLICATES, "feed", "duplicates", MON_COUNTER, 0) \
	X(FEED_DUP_MSGS, "feed", "dup_msgs", MON_COUNTER, 0) \
	X(FEED_OVERLAPS, "feed", "overlaps", MON_COUNTER, 0) \
	X(FEED_OTHER_SESSION, "feed", "other_session", MON_COUNTER, 0) \
	X(FEED_SESSION_CHANGES, "feed", "session_changes", MON_COUNTER, 0) \
	X(FEED_SPOOFED, "feed", "spoofed", MON_COUNTER, 0) \
	X(FEED_NEXT_SEQ, "feed", "next_seq", MON_GAUGE, 0) \
	X(FEED_MALFORMED, "feed", "malformed", MON_COUNTER, 0) \
	X(FEED_SHORT_PACKET, "feed", "short_packet", MON_COUNTER, 0) \
	X(FEED_BLOCK_OVERRUN, "feed", "block_overrun", MON_COUNTER, 0) \
	X(FEED_COUNT_TOO_HIGH, "feed", "count_too_high", MON_COUNTER, 0) \
	X(FEED_COUNT_TOO_LOW, "feed", "count_too_low", MON_COUNTER, 0) \
	X(FEED_ZERO_LENGTH_BLOCK, "feed", "zero_length_block", MON_COUNTER, 0) \
	X(FEED_BAD_LENGTH, "feed", "bad_length", MON_COUNTER, 0) \
	X(FEED_UNKNOWN_TYPE, "feed", "unknown_type", MON_COUNTER, 0) \
	X(FEED_LOST_MSGS, "feed", "lost_msgs", MON_COUNTER, 0) \
	X(GAPS_OPENED, "gaps", "opened", MON_COUNTER, 0) \
	X(GAPS_FILLED, "gaps", "filled", MON_COUNTER, 0) \
	X(GAPS_HELD, "gaps", "held", MON_COUNTER, 0) \
	X(GAPS_HOLD_DROPPED, "gaps", "hold_dropped", MON_COUNTER, 0) \
	X(GAPS_REQUESTS, "gaps", "requests", MON_COUNTER, 0) \
	X(GAPS_RETRIES, "gaps", "retries", MON_COUNTER, 0) \
	X(GAPS_RETRANS_PKTS, "gaps", "retrans_pkts", MON_COUNTER, 0) \
	X(GAPS_RECOVERY_NS_MAX, "gaps", "recovery_ns_max", MON_GAUGE, MON_UNIT_NS) \
	X(GAPS_RECOVERY_NS_TOTAL, "gaps", "recovery_ns_total", MON_COUNTER, MON_UNIT_NS) \
	X(GAPS_TIMEOUTS, "gaps", "timeouts", MON_COUNTER, 0) \
	X(GAPS_TOO_FAR, "gaps", "too_far", MON_COUNTER, 0) \
	X(GAPS_TICKS_STALE, "gaps", "ticks_stale", MON_COUNTER, 0) \
	X(GAPS_RECOVERING, "gaps", "recovering", MON_FLAG, 0) \
	X(GAPS_STALE, "gaps", "stale", MON_FLAG, 0) \
	X(ORD_SENT, "orders", "sent", MON_COUNTER, 0) \
	X(ORD_FAILED, "orders", "failed", MON_COUNTER, 0) \
	X(ORD_ACCEPTED, "orders", "accepted", MON_COUNTER, 0) \
	X(ORD_FILLED, "orders", "filled", MON_COUNTER, 0) \
	X(ORD_CANCELED, "orders", "canceled", MON_COUNTER, 0) \
	X(ORD_REJECTED, "orders", "rejected", MON_COUNTER, 0) \
	X(ORD_OPEN, "orders", "open", MON_GAUGE, 0) \
	X(ORD_RESTORES, "orders", "restores", MON_COUNTER, 0) \
	X(ORD_CATCHUP, "orders", "catchup", MON_COUNTER, 0) \
	X(ORD_UNTRADED, "orders", "untraded", MON_COUNTER, 0) \
	X(ORD_LOG_OVERWRITTEN, "orders", "log_overwritten", MON_COUNTER, 0) \
	X(ORD_UNTRADED_OVERWRITTEN, "orders", "untraded_overwritten", MON_COUNTER, 0) \
	X(ORD_UNTRADED_LATE, "orders", "untraded_late", MON_COUNTER, 0) \
	X(ORD_UNTRADED_COVERED, "orders", "untraded_covered", MON_COUNTER, 0) \
	X(ORD_UNTRADED_RISK, "orders", "untraded_risk", MON_COUNTER, 0) \
	X(ORD_UNTRADED_OVERFLOW, "orders", "untraded_overflow", MON_COUNTER, 0) \
	X(ORD_TIMED_OUT, "orders", "timed_out", MON_COUNTER, 0) \
	X(ORD_REPLIES, "orders", "replies", MON_COUNTER, 0) \
	X(ORD_BAD_REPLIES, "orders", "bad_replies", MON_COUNTER, 0) \
	X(ORD_UNKNOWN_TOKEN, "orders", "unknown_token", MON_COUNTER, 0) \
	X(ORD_LATE_REPLIES, "orders", "late_replies", MON_COUNTER, 0) \
	X(ORD_DUP_REPLIES, "orders", "dup_replies", MON_COUNTER, 0) \
	X(ORD_UNNUMBERED_REPLIES, "orders", "unnumbered_replies", MON_COUNTER, 0) \
	X(ORD_REPLY_HOLES, "orders", "reply_holes", MON_COUNTER, 0) \
	X(ORD_REPLY_RECOVERED, "orders", "reply_recovered", MON_COUNTER, 0) \
	X(ORD_REPLY_LOST, "orders", "reply_lost", MON_COUNTER, 0) \
	X(ORD_RESEND_REQUESTS, "orders", "resend_requests", MON_COUNTER, 0) \
	X(ORD_KILL_SWITCH, "orders", "kill_switch", MON_FLAG, 0) \
	X(RISK_KILL_SWITCH, "risk", "kill_switch", MON_COUNTER, 0) \
	X(RISK_MAX_POSITION, "risk", "max_position", MON_COUNTER, 0) \
	X(RISK_MAX_ORDER_SIZE, "risk", "max_order_size", MON_COUNTER, 0) \
	X(RISK_MAX_RATE, "risk", "max_rate", MON_COUNTER, 0) \
	X(RISK_PRICE_COLLAR, "risk", "price_collar", MON_COUNTER, 0) \
	X(RISK_PRICE_RANGE, "risk", "price_range", MON_COUNTER, 0) \
	X(RISK_MAX_OPEN_ORDERS, "risk", "max_open_orders", MON_COUNTER, 0) \
	X(XDP_SEEN, "xdp", "seen", MON_COUNTER, 0) \
	X(XDP_STEERED, "xdp", "steered", MON_COUNTER, 0) \
	X(XDP_PASSED, "xdp", "passed", MON_COUNTER, 0) \
	X(XDP_SHORT, "xdp", "short", MON_COUNTER, 0) \
	X(XDP_SPOOFED, "xdp", "spoofed", MON_COUNTER, 0) \
	X(XDP_NO_META, "xdp", "no_meta", MON_COUNTER, 0) \
	X(XDP_BAD_FRAMES, "xdp", "bad_frames", MON_COUNTER, 0) \
	X(XDP_BAD_CHECKSUM, "xdp", "bad_checksum", MON_COUNTER, 0) \
	X(XDP_OTHER_PACKETS, "xdp", "other_packets", MON_COUNTER, 0) \
	X(XDP_RX_DROPPED, "xdp", "rx_dropped", MON_COUNTER, 0) \
	X(XDP_RX_INVALID, "xdp", "rx_invalid", MON_COUNTER, 0) \
	X(XDP_RX_RING_FULL, "xdp", "rx_ring_full", MON_COUNTER, 0) \
	X(XDP_RX_FILL_RING_EMPTY, "xdp", "rx_fill_ring_empty", MON_COUNTER, 0) \
	X(XDP_TX_INVALID, "xdp", "tx_invalid", MON_COUNTER, 0) \
	X(XDP_TX_RING_EMPTY, "xdp", "tx_ring_empty", MON_COUNTER, 0) \
	X(XDP_TX_POOL_EMPTY, "xdp", "tx_pool_empty", MON_COUNTER, 0) \
	X(XDP_TX_RING_FULL, "xdp", "tx_ring_full", MON_COUNTER, 0) \
	X(XDP_KICKS, "xdp", "kicks", MON_COUNTER, 0) \
	X(XDP_KICK_ERRORS, "xdp", "kick_errors", MON_COUNTER, 0)

enum { COUNTERS(C_) NCOUNTERS };

#define DEF_(id, g, n, k, u) [id] = { g, n, k, u },
static const struct mon_counter_def defs[NCOUNTERS] = { COUNTERS(DEF_) };

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
		c[RISK_MAX_RATE + (next_u64() % 2 ? 0 : 1)]++;
		c[ORD_UNTRADED]++;
		c[ORD_UNTRADED_RISK]++;
		return;
	}
	(*order_no)++;
	in->m.orders++;
	c[ORD_SENT]++;
	c[XDP_KICKS]++;
	mon_record_event(w, MON_EV_ORDER, k, side, shares, limit, *order_no, now);

	t.t_hook = now - 20000;
	t.t_send = t.t_hook - lat(4900, 0.4);
	t.t_seen = t.t_hook + lat(1300, 0.6);
	t.t_decided = t.t_seen + lat(700, 0.5);
	t.t_queued = t.t_decided + lat(70, 0.3);
	t.t_sent = t.t_queued + lat(12000, 0.35);
	t.t_ack = t.t_queued + lat(4000, 0.3);

	c[ORD_REPLIES] += 2;
	if (u < 0.01) {
		outcome = ORDER_REJECTED;
		in->m.rejects++;
		c[ORD_REJECTED]++;
		mon_record_event(w, MON_EV_REJECT, k, side, shares, limit, *order_no, now);
	} else if (u < 0.10) {
		outcome = ORDER_CANCELED;
		in->m.cancels++;
		c[ORD_ACCEPTED]++;
		c[ORD_CANCELED]++;
		mon_record_event(w, MON_EV_CANCEL, k, side, shares, limit, *order_no, now);
	} else {
		int64_t s = side == 'B' ? shares : -(int64_t)shares;

		outcome = ORDER_FILLED;
		in->m.position += s;
		in->m.cash -= s * (int64_t)px;
		in->m.fills++;
		c[ORD_ACCEPTED]++;
		c[ORD_FILLED]++;
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

	c[FEED_PACKETS] += pkts;
	c[FEED_MESSAGES] += ticks + ticks / 4;
	c[FEED_TICKS] += ticks;
	c[FEED_TICKS_OURS] += ticks;
	c[FEED_NEXT_SEQ] += ticks + ticks / 4;
	c[XDP_SEEN] += pkts;
	c[XDP_STEERED] += pkts;
	if (unit() < 0.0005 * (double)ticks) {	/* a hole, recovered */
		uint64_t took = 50000 + next_u64() % 400000;

		c[GAPS_OPENED]++;
		c[GAPS_FILLED]++;
		c[GAPS_REQUESTS] += 1 + next_u64() % 3;
		c[GAPS_HELD] += 1 + next_u64() % 20;
		c[GAPS_RETRANS_PKTS] += 1 + next_u64() % 3;
		c[GAPS_RECOVERY_NS_TOTAL] += took;
		if (took > c[GAPS_RECOVERY_NS_MAX])
			c[GAPS_RECOVERY_NS_MAX] = took;
		c[FEED_HEARTBEATS]++;
	}
	if (unit() < 0.0002 * (double)ticks) {
		c[FEED_MALFORMED]++;
		c[FEED_BAD_LENGTH]++;
		c[XDP_PASSED]++;
		c[XDP_SEEN]++;
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
	static uint64_t c[NCOUNTERS];
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
	mc = (struct mon_cfg){ .name = cfg.name, .writer = "t2t-monwriter", .counters = defs,
			       .n_counters = NCOUNTERS, .symbols = sym,
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
		c[ORD_OPEN] = 0;
		mon_publish_counters(&w, c, NCOUNTERS, now);
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
