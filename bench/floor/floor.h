/* SPDX-License-Identifier: MIT */
/*
 * The floor: the fastest answer this rig can give to a tick, measured the
 * way the gateway is measured.  A bare responder receives each feed packet,
 * turns its first trade print into an OUCH Enter Order (token = the print's
 * sequence number, the print's stock and price, 100 shares, sides
 * alternating so the position stays flat) and sends it: no book, no
 * strategy, no risk, no gap handling.  The exchange simulator answers it as
 * it answers the gateway, and measures wire to wire from the token.
 *
 * Two flavours, as the gateway has: AF_XDP through the gateway's own
 * socket code, XDP program and TCP (net/xsk_port.h, bpf/steer.bpf.c,
 * net/xsk_session.h), so the same stamps exist (XDP hook, seen, queued,
 * sent), and kernel UDP with a non-blocking busy spin (the kernel's receive
 * stamp as the hook) and the orders on kernel TCP.  Either way the orders
 * go in the same SoupBinTCP session as the gateway's (net/order_conn.h).
 *
 * What is here is shared by both: the options, the order log the hot loop
 * fills (preallocated; reported after the run as a capture log), building
 * the answer, and reading the exchange's replies.
 */
#ifndef BENCH_FLOOR_FLOOR_H
#define BENCH_FLOOR_FLOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/busy_poll.h"
#include "net/order_conn.h"
#include "latency/order_rec.h"
#include "proto/be.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/ouch.h"

#define FLOOR_CAPTURE_NOTES 16

enum floor_mode { FLOOR_XDP, FLOOR_UDP };

struct floor_opts {
	int mode;			/* enum floor_mode */
	const char *ifname;
	uint32_t queue;
	uint32_t ring_size;		/* AF_XDP fill/RX/TX/completion rings */
	uint32_t batch;			/* RX descriptors taken per peek */
	bool xdp_generic;
	bool xdp_mode_given;		/* --xdp-mode on the command line */
	bool spin_frame;		/* AF_XDP: watch the next frame, not only the ring */
	struct busy_poll_cfg busy_poll;
	uint32_t feed_group;		/* host order */
	uint16_t feed_port;
	uint32_t feed_source;		/* 0 = any */
	uint32_t exch_ip;
	uint16_t exch_port;
	struct order_conn_cfg session;	/* the order session; endpoints by the mode */
	uint32_t shares;
	uint32_t answer_every;		/* answer one tick in N (1: every tick) */
	const char *answer_seqs;	/* answer only these prints (a backtest's orders) */
	int cpu;			/* -1: do not pin */
	double duration;		/* seconds; 0: until a signal or the end */
	bool exit_on_end;
	double grace;			/* seconds of replies after the end of session */
	uint32_t max_orders;		/* order log capacity (power of two) */
	const char *capture;
	const char *capture_note[FLOOR_CAPTURE_NOTES];
	unsigned int n_capture_notes;
	const char *json;
	bool quiet;
};

/* 0 to run, 1 after --help, 2 on a bad command line (message printed). */
int floor_opts_parse(struct floor_opts *o, int argc, char **argv);
const char *floor_path_name(const struct floor_opts *o);

/* One answered tick. */
struct floor_rec {
	uint64_t md_seq;
	uint64_t ts48;			/* the print's ITCH timestamp (48 bits) */
	struct order_times t;		/* t_send is recovered from ts48 at the end */
	uint32_t price;
	char stock[8];
	uint32_t shares;
	char side;
	uint8_t outcome;		/* enum order_outcome */
};

/* --answer-seqs: one print to answer, with the order a strategy sent on it. */
struct floor_want {
	uint64_t seq;
	uint32_t shares;
	char stock[8];
	char side;
};

struct floor_stats {
	uint64_t packets;		/* every datagram the loop saw */
	uint64_t feed_packets;
	uint64_t ticks;			/* ticks answered */
	uint64_t skipped;		/* ticks left unanswered (--answer-every) */
	uint64_t no_tick;		/* feed packets without one (heartbeats, events) */
	uint64_t not_up;		/* ticks while the session was not logged in */
	uint64_t replies;
	uint64_t reply_bad;		/* unreadable, or for no order of ours */
	uint64_t other;			/* neither feed nor reply, or not IPv4/UDP */
	uint64_t send_failed;		/* no TX frame / ring full / send() failed */
	uint64_t log_full;		/* answered but not logged */
	uint64_t kicks;
	uint64_t want_missed;		/* wanted prints in no packet the floor saw */
	uint64_t want_bad;		/* wanted sequence numbers that are no print */
};

struct floor_log {
	struct floor_rec *rec;
	uint32_t cap;
	uint32_t n;
};

struct floor {
	const struct floor_opts *o;
	struct ouch_order_tmpl ouch;
	struct floor_log log;
	struct floor_stats st;
	volatile int stop;
	bool ended;			/* the feed's end of session was seen */
	uint32_t since_answer;		/* ticks since the last one answered */
	const struct floor_want *want;	/* --answer-seqs, ascending; NULL: first prints */
	uint32_t n_want, next_want;
	uint64_t end_ns;		/* stop after this (end of session + grace) */
	uint64_t deadline_ns;		/* --duration; 0: none */
};

/* Order template and log; 0 or -errno with err set. */
int floor_init(struct floor *f, const struct floor_opts *o, char *err, size_t errlen);
void floor_destroy(struct floor *f);

/* A trade print found in a feed packet. */
struct floor_tick {
	uint64_t seq;
	const uint8_t *msg;		/* the P message (--answer-seqs: P, E, C or Q) */
	const struct floor_want *want;	/* --answer-seqs: the order to send */
};

enum { FLOOR_NONE = 0, FLOOR_TICK = 1, FLOOR_END = 2 };

/*
 * The block at *off of a packet of @len bytes: its message (length *blen),
 * *off moved past it; NULL when the block runs past the end.
 */
static inline const uint8_t *floor_next_block(const uint8_t *p, size_t len, size_t *off,
					      uint16_t *blen)
{
	const uint8_t *m;

	if (*off + MOLD_BLOCK_HDR_LEN > len)
		return NULL;
	*blen = be16_load(p + *off);
	*off += MOLD_BLOCK_HDR_LEN;
	if (*blen > len - *off)
		return NULL;
	m = p + *off;
	*off += *blen;
	return m;
}

/*
 * The first trade print (P) of a MoldUDP64 packet: FLOOR_TICK with *t, or
 * FLOOR_NONE (a heartbeat, system events, a short or malformed packet), or
 * FLOOR_END (end of session).  Only block lengths and one type byte are
 * read: this is no decoder.
 */
static inline int floor_first_print(const uint8_t *p, size_t len, struct floor_tick *t)
{
	uint16_t count;
	size_t off = MOLD_HDR_LEN;

	if (len < MOLD_HDR_LEN)
		return FLOOR_NONE;
	count = be16_load(p + MOLD_OFF_COUNT);
	if (count == MOLD_COUNT_END)
		return FLOOR_END;
	for (uint16_t i = 0; i < count; i++) {
		uint16_t blen;
		const uint8_t *m = floor_next_block(p, len, &off, &blen);

		if (!m)
			return FLOOR_NONE;
		if (blen == ITCH_LEN_P && m[0] == 'P') {
			t->seq = be64_load(p + MOLD_OFF_SEQ) + i;
			t->msg = m;
			t->want = NULL;
			return FLOOR_TICK;
		}
	}
	return FLOOR_NONE;
}

static inline bool floor_is_print(const uint8_t *m, uint16_t len)
{
	return (m[0] == 'P' && len == ITCH_LEN_P) || (m[0] == 'E' && len == ITCH_LEN_E) ||
	       (m[0] == 'C' && len == ITCH_LEN_C) || (m[0] == 'Q' && len == ITCH_LEN_Q);
}

/*
 * --answer-seqs: the next wanted print in this packet, FLOOR_TICK with *t
 * (called again for the one after it), or FLOOR_NONE, or FLOOR_END.  A
 * wanted number below the packet's first was in a packet the floor never
 * saw (want_missed); one that is no print, the list is not this feed's
 * (want_bad).  Still only block lengths and type bytes are read.
 */
static inline int floor_next_wanted(struct floor *f, const uint8_t *p, size_t len,
				    struct floor_tick *t)
{
	uint64_t first;
	uint16_t count;

	if (len < MOLD_HDR_LEN)
		return FLOOR_NONE;
	count = be16_load(p + MOLD_OFF_COUNT);
	if (count == MOLD_COUNT_END)
		return FLOOR_END;
	first = be64_load(p + MOLD_OFF_SEQ);
	while (f->next_want < f->n_want && f->want[f->next_want].seq < first) {
		f->next_want++;
		f->st.want_missed++;
	}
	while (f->next_want < f->n_want && f->want[f->next_want].seq < first + count) {
		const struct floor_want *w = &f->want[f->next_want++];
		size_t off = MOLD_HDR_LEN;
		const uint8_t *m = NULL;
		uint16_t blen = 0;

		for (uint64_t i = 0; i <= w->seq - first; i++)
			if (!(m = floor_next_block(p, len, &off, &blen)))
				return FLOOR_NONE;
		if (!blen || !floor_is_print(m, blen)) {
			f->st.want_bad++;
			continue;
		}
		t->seq = w->seq;
		t->msg = m;
		t->want = w;
		return FLOOR_TICK;
	}
	return FLOOR_NONE;
}

/* The packet's first tick to answer: its first print, or the first wanted one. */
static inline int floor_find_tick(struct floor *f, const uint8_t *p, size_t len,
				  struct floor_tick *t)
{
	return f->want ? floor_next_wanted(f, p, len, t) : floor_first_print(p, len, t);
}

/* After answering @t: the packet's next tick (only --answer-seqs has more). */
static inline int floor_more_ticks(struct floor *f, const uint8_t *p, size_t len,
				   struct floor_tick *t)
{
	return f->want ? floor_next_wanted(f, p, len, t) : FLOOR_NONE;
}

/*
 * The answer to @t: the Enter Order packet (OUCH_ENTER_PKT_LEN bytes) at
 * @dst, its one's complement sum returned for the segment's checksum.  The
 * record, when there is room, is *rec (times still to be stamped).
 */
static inline uint64_t floor_answer(struct floor *f, const struct floor_tick *t,
				    uint8_t *dst, struct floor_rec **rec)
{
	const uint8_t *m = t->msg;
	uint32_t no = (uint32_t)f->st.ticks++;
	uint32_t price, shares = f->o->shares;
	const char *stock = (const char *)m + ITCH_P_OFF_STOCK;
	/* At the print's own price: a buy or a sell there always fills. */
	char side = no & 1 ? 'S' : 'B';
	struct floor_rec *r = NULL;
	uint64_t sum;

	if (t->want) {
		/*
		 * The strategy's order on this print.  An E carries no price and
		 * the floor has no book: it bids the least tick (never fills) or
		 * offers at it (takes the bid); only the timing is measured.
		 */
		side = t->want->side;
		shares = t->want->shares;
		stock = t->want->stock;
		price = m[0] == 'P' ? be32_load(m + ITCH_P_OFF_PRICE) :
			m[0] == 'C' ? be32_load(m + ITCH_C_OFF_PRICE) :
			m[0] == 'Q' ? be32_load(m + ITCH_Q_OFF_PRICE) : 1;
	} else {
		price = be32_load(m + ITCH_P_OFF_PRICE);
	}
	sum = ouch_order_tmpl_write(&f->ouch, dst, t->seq, no, side, shares, stock, price);
	if (no < f->log.cap) {
		r = &f->log.rec[no];
		r->md_seq = t->seq;
		r->ts48 = be48_load(m + ITCH_OFF_TIMESTAMP);
		r->price = price;
		r->shares = shares;
		__builtin_memcpy(r->stock, stock, 8);
		r->side = side;
		r->outcome = ORDER_SENT;
		f->log.n = no + 1;
	} else {
		f->st.log_full++;
	}
	*rec = r;
	return sum;
}

/*
 * --answer-every N: answer this tick?  The first tick is always answered,
 * then one in N, so the kernel's send path runs as often as the gateway's
 * orders make it run (N = 13 is the default strategy's 7.6 %).
 */
static inline bool floor_take(struct floor *f)
{
	if (++f->since_answer >= f->o->answer_every) {
		f->since_answer = 0;
		return true;
	}
	f->st.skipped++;
	return false;
}

/* A reply from the exchange (an OUCH message): the order's t_ack and outcome. */
void floor_on_reply(struct floor *f, const uint8_t *msg, size_t len);

/* The session's callbacks (ctx: the struct floor). */
extern const struct order_conn_ops floor_session_ops;

/* After the loop: log out and close, serving the session with @idle until done. */
#define FLOOR_CLOSE_NS	(500 * 1000000ull)

/* Called from the loop's idle turns: stop at the deadline or after the end. */
static inline bool floor_done(const struct floor *f, uint64_t now)
{
	return f->stop || (f->end_ns && now >= f->end_ns) ||
	       (f->deadline_ns && now >= f->deadline_ns);
}

/* The feed ended: with --exit-on-end, stop after the grace time. */
void floor_on_end(struct floor *f, uint64_t now);

/* The session's members for the JSON summary ("session": {...}). */
int floor_session_json(const struct order_conn *oc, char *buf, size_t len);

/* The capture log and the JSON summary, after the loop stopped. */
int floor_report(struct floor *f, const char *extra_json, double elapsed_s);

/* The two paths: open, run until floor_done(), close. */
struct floor_xsk;
struct floor_udp;
int floor_xsk_open(struct floor_xsk **x, const struct floor_opts *o, struct floor *f,
		   char *err, size_t errlen);
void floor_xsk_run(struct floor_xsk *x, struct floor *f);
/* Its counters as JSON members ("xdp": {...}), for the summary. */
void floor_xsk_json(struct floor_xsk *x, char *buf, size_t len);
void floor_xsk_close(struct floor_xsk *x);

int floor_udp_open(struct floor_udp **u, const struct floor_opts *o, struct floor *f,
		   char *err, size_t errlen);
void floor_udp_run(struct floor_udp *u, struct floor *f);
void floor_udp_json(struct floor_udp *u, char *buf, size_t len);
void floor_udp_close(struct floor_udp *u);

#endif /* BENCH_FLOOR_FLOOR_H */
