/* SPDX-License-Identifier: MIT */
/*
 * The gateway's pipeline, shared by the AF_XDP path and the kernel-UDP
 * fallback: decode a feed datagram into the SoA tick ring, run the
 * incremental strategy of every configured instrument on its ticks, turn
 * the distance between each instrument's target and its exposure into an
 * OUCH Enter Order, and account the exchange's replies.  The paths differ
 * only in how bytes arrive and leave.
 *
 * The engine composes parts that each own their configuration and state:
 * the decoder (book/feed_decoder.h: session and sequence), the
 * instruments (inst.h), pre-trade risk (risk.h), the orders and replies
 * (orders.h), gap recovery (gap.h) and, with no order port, the paper
 * orders (paper.h).
 *
 * Live runs with a sink (engine_set_sink()) decide at each print, inside
 * the packet's walk, and hand the order to the path at once.
 *
 * Paper runs (docs/paper.md) trade message by message: the decoder calls
 * the engine after each print and before each message that makes a paper
 * order due (feed_decoder.h's steps), so that fills and strategy changes
 * fall between the messages of a packet exactly as in the backtester, which
 * runs this engine on one message per packet; every rule with a clock
 * reads the feed's (its ITCH timestamps) instead of the host's.
 *
 * Books unsafe.  With no re-request server, a hole in the sequence (given
 * up after line_wait for the other line) may have touched any book: from
 * its first missing number on, no instrument trades (the strategy still
 * follows the prints; each change is listed untraded, reason "book") and
 * the run goes on for the counters.
 *
 * Everything here is allocated and prefaulted by engine_init().  The
 * per-packet work, from a datagram to its orders, is in engine_hot.h: static
 * inline functions that allocate nothing, take no locks and make no
 * syscalls.
 */
#ifndef GATEWAY_ENGINE_H
#define GATEWAY_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "book/book.h"
#include "gateway/gap.h"
#include "gateway/inst.h"
#include "gateway/orders.h"
#include "gateway/paper.h"
#include "gateway/risk.h"
#include "book/feed_decoder.h"
#include "strategy/inst_spec.h"
#include "util/compiler.h"


#define GW_MAX_DECISIONS 64	/* orders one feed packet can trigger */

/* locate_inst[] values besides an instrument's index + 1. */
#define GW_LOCATE_UNKNOWN 0	/* no stock directory entry */
#define GW_LOCATE_OTHER	0xFF	/* a listed symbol we do not trade */

/* Whose books the gateway keeps. */
enum gw_books { GW_BOOKS_OURS, GW_BOOKS_ALL, GW_BOOKS_OFF };

struct gw_cfg {
	struct inst_spec inst[GW_MAX_INST];
	unsigned int n_inst;
	uint32_t tick_ring;	/* tick ring capacity (power of two) */
	const char *session;	/* pinned feed session id, or NULL */
	int books;		/* enum gw_books */
	struct book_config book;
	struct risk_cfg risk;
	struct orders_cfg orders;
	struct gap_cfg gap;
	struct paper_cfg paper;
};

/*
 * Why a strategy change did not become an order at its tick.  Whatever the
 * reason, the instrument's next tick trades toward the target again.
 */
enum gw_untraded_why {
	UNTRADED_LATE,		/* the tick came too late (gap.h) */
	UNTRADED_COVERED,	/* position and orders in flight already make the target */
	UNTRADED_RISK,		/* refused by a limit (counted in risk.refused) */
	UNTRADED_OVERFLOW,	/* more than GW_MAX_DECISIONS in one packet */
	UNTRADED_SESSION,	/* the order session was not logged in */
	UNTRADED_BOOK,		/* the books are unsafe: a hole was given up */
	UNTRADED_NR,
};

/*
 * Their names, beside the enum so that the counter table
 * (gateway/counters.h) can name "untraded_late" and the others from them
 * at compile time; untraded_names[] is made from the same list.
 */
#define UNTRADED_NAMES(X) \
	X(UNTRADED_LATE, "late") \
	X(UNTRADED_COVERED, "covered") \
	X(UNTRADED_RISK, "risk") \
	X(UNTRADED_OVERFLOW, "overflow") \
	X(UNTRADED_SESSION, "session") \
	X(UNTRADED_BOOK, "book")

extern const char *const untraded_names[UNTRADED_NR];

struct gw_untraded {
	uint64_t md_seq;
	int64_t shares;		/* the strategy's change, > 0 buy */
	uint8_t inst;
	uint8_t why;		/* enum gw_untraded_why */
};

struct gw_stats {
	uint64_t feed_packets;		/* decoded (not dropped, not held) */
	uint64_t ticks;			/* trade prints decoded */
	uint64_t ticks_ours;		/* ... of a configured instrument, valid price */
	uint64_t unknown_locate;	/* prints for a locate the directory never named */
	uint64_t bad_price;		/* prints of ours with price 0: not ticks */
	uint64_t other_packets;		/* steered but neither feed nor reply */
	uint64_t bad_frames;		/* unparseable frames (AF_XDP path) */
	uint64_t bad_checksum;		/* IPv4 or UDP checksum wrong (AF_XDP path) */
	uint64_t spoofed;		/* feed packets from another source: dropped */
	uint64_t ticks_stale;		/* ticks of a stale session: not traded */
	uint64_t catchup_orders;	/* orders from ticks decoded late */
	uint64_t untraded;		/* strategy changes not traded at their tick */
	uint64_t untraded_by[UNTRADED_NR];
	uint64_t restores;		/* orders with no strategy change at their tick */
	uint64_t on_reply;		/* ... of them, made up when a reply ended one */
};

/*
 * Where a live run's orders go at their print (engine_set_sink()): the
 * path's sender, with the loop's clock @t_seen.
 */
typedef void (*gw_sink_fn)(void *ctx, const struct gw_decision *d, unsigned int n,
			   uint64_t t_seen);

struct gw_engine {
	struct feed_decoder dec;
	struct book *book;		/* NULL: no books kept (P prints only) */
	struct gw_stats st;
	uint8_t locate_inst[65536];	/* index + 1, or GW_LOCATE_* */
	struct gw_inst inst[GW_MAX_INST];
	unsigned int n_inst;
	struct risk risk;
	struct orders ord;
	struct gw_gap gap;
	volatile int ended;		/* end of session decoded */
	struct gw_untraded *untraded;	/* as many as the order log keeps */
	struct gw_paper paper;
	gw_sink_fn sink;		/* NULL: orders returned after the packet */
	void *sink_ctx;
	/* the packet a stepped run is walking through (engine_decode()) */
	struct {
		uint64_t t_hook, now;
		unsigned int flags;
		bool late;
	} step;
	uint64_t unsafe_from;		/* books unsafe from this number; 0: safe */
	struct book book_mem;
};

/* The gateway's defaults: make demo's book (AAPL:20 MSFT:32 NVDA:48), limits. */
void gw_cfg_defaults(struct gw_cfg *c);
int engine_init(struct gw_engine *e, const struct gw_cfg *cfg,
		char *err, size_t errlen);
void engine_destroy(struct gw_engine *e);

/*
 * Live runs: decide at each print and hand its orders to @sink at once,
 * inside the packet's walk, instead of returning them after the packet:
 * a print's order does not wait for the messages behind it, and it is
 * decided on the books as they stand at the print, as the backtester
 * (one message per packet) decides it.  engine_on_feed() and
 * engine_feed_held() then return no decisions.  Not for paper runs,
 * which step through the packet already (-EINVAL).
 */
int engine_set_sink(struct gw_engine *e, gw_sink_fn sink, void *ctx);

/*
 * A paper run's orders still waiting: decided now, against the books as
 * they stand (the end of the session, or of the run).
 */
void engine_paper_flush(struct gw_engine *e);

/*
 * Held packets decoded per call of a path's drain: a long catch-up must not
 * starve the receive side (its overflow would open new holes); the loop
 * comes back for the rest.
 */
#define GW_DRAIN_BUDGET 32

/*
 * One reply of the order session (an OUCH message).  When it ends an order
 * of an instrument whose strategy change was left covered by it and the
 * exposure no longer makes the target, the make-up order is decided now,
 * at that change's print: a reversal signaled while the previous order was
 * in flight trades within one round trip.  Returns the decisions in
 * out[] (0 or 1), their t_hook @t_hook (the reply's arrival).
 */
unsigned int engine_on_reply(struct gw_engine *e, const uint8_t *msg, size_t len,
			     uint64_t t_hook, uint64_t now, struct gw_decision *out);

/* Marked-to-market PnL of all instruments, in Price(4) units. */
int64_t engine_pnl(const struct gw_engine *e);

#endif /* GATEWAY_ENGINE_H */
