/* SPDX-License-Identifier: MIT */
/*
 * The monitor segment: what the gateway shows of itself while it runs, in
 * one shared-memory file, /dev/shm/t2t-<name>.  This header IS the format
 * (monitor/README.md describes it field by field); any change to a struct
 * below changes MON_VERSION, and a reader refuses a version it does not know.
 *
 * One segment has one writing process.  Every block below the header has
 * its own sequence counter (seqlock.h): the writer makes it odd, stores the
 * values, makes it even; a reader copies the block and keeps the copy only
 * if the counter was even and unchanged around it.  The writer never waits
 * for a reader; readers map the file read-only.
 *
 * All integers are native endian (the writer and the readers share a
 * host).  Prices are ITCH Price(4) (1/10000 dollar); times are
 * CLOCK_MONOTONIC nanoseconds of the host (util/clock.h), the header's
 * start times convert them to wall-clock time.
 */
#ifndef MONITOR_LAYOUT_H
#define MONITOR_LAYOUT_H

#include <stdint.h>

#include "latency/hdr.h"
#include "latency/order_rec.h"

#define MON_MAGIC		"T2TMON\r\n"	/* 8 bytes, no NUL */
#define MON_VERSION		2
#define MON_DIR			"/dev/shm"
#define MON_PREFIX		"t2t-"		/* the file is MON_DIR/MON_PREFIX<name> */
#define MON_NAME_MAX		48		/* name: 1..47 of [A-Za-z0-9_.-] */

#define MON_MAX_COUNTERS	384
#define MON_COUNTER_NAME	48		/* "group.name", NUL terminated */
#define MON_MAX_SYMBOLS		16
#define MON_SYMBOL_LEN		12		/* 1..8 characters, NUL terminated */
#define MON_STAGES		STAGE_NR	/* latency/order_rec.h, in its order */
#define MON_STAGE_NAME		24
#define MON_WIN_SLOTS		16		/* once-a-second snapshots kept */
#define MON_EVENTS		1024		/* order events kept (power of two) */

#define MON_ALIGN		__attribute__((aligned(64)))

/* What a counter is, for the exporters (Prometheus TYPE, units). */
enum mon_kind {
	MON_COUNTER = 0,	/* only grows while the writer lives */
	MON_GAUGE = 1,		/* goes up and down */
	MON_FLAG = 2,		/* 0 or 1 */
};

enum mon_unit {
	MON_UNIT_NONE = 0,
	MON_UNIT_NS = 1,	/* nanoseconds (exported in seconds) */
};

/* Header flags. */
#define MON_F_CLOSED	1u	/* the writer ended cleanly (mon_destroy()) */

/*
 * Offset 0.  Written once before the file is renamed into place, except
 * flags and heartbeat_ns, which the writer updates (plain 32/64-bit
 * stores, read with single loads).
 */
struct mon_header {
	char magic[8];		/* MON_MAGIC */
	uint32_t version;	/* MON_VERSION */
	uint32_t header_size;	/* sizeof(struct mon_header) */
	uint64_t size;		/* sizeof(struct mon_segment): the file's size */
	int32_t pid;		/* the writer */
	uint32_t flags;		/* MON_F_* */
	uint64_t start_real_ns;	/* CLOCK_REALTIME when the segment was made */
	uint64_t start_mono_ns;	/* CLOCK_MONOTONIC at the same moment */
	uint64_t heartbeat_ns;	/* CLOCK_MONOTONIC of the writer's last mon_tick() */
	char name[MON_NAME_MAX];	/* the segment's name (file: t2t-<name>) */
	char writer[32];	/* the writing program, "t2t-gateway" */
	/* geometry: how many of each array below are in use */
	uint32_t n_counters;
	uint32_t n_symbols;
	uint32_t n_stages;
	uint32_t win_slots;
	uint32_t n_events;
	/* the bucket layout of every histogram (latency/hdr.h) */
	uint32_t hdr_sub_bits;
	uint32_t hdr_max_msb;
	uint32_t hdr_buckets;
	uint32_t pad0;
	/* where each block starts, from the segment's start */
	uint64_t off_counter_names;
	uint64_t off_counters;
	uint64_t off_symbols;
	uint64_t off_stages;
	uint64_t off_window;
	uint64_t off_events;
	char symbols[MON_MAX_SYMBOLS][MON_SYMBOL_LEN];
	char stages[MON_STAGES][MON_STAGE_NAME];	/* latency/order_rec.h names */
} MON_ALIGN;

/* Names of the counters: written once at creation, never changed. */
struct mon_counter_name {
	char name[MON_COUNTER_NAME];	/* "feed.ticks" */
	uint8_t kind;			/* enum mon_kind */
	uint8_t unit;			/* enum mon_unit */
	uint8_t pad[6];
};

/* Block: every counter's value, index = the name's index. */
struct mon_counters {
	uint32_t seq;
	uint32_t pad;
	uint64_t t_ns;			/* when the values were published */
	uint64_t v[MON_MAX_COUNTERS];
} MON_ALIGN;

/* Block: one instrument, as the writer last published it. */
struct mon_symbol {
	uint32_t seq;
	int32_t strat_pos;		/* the strategy's position: -1, 0, +1 */
	uint64_t t_ns;			/* when published */
	int64_t position;		/* shares the exchange confirmed */
	int64_t cash;			/* Price(4) x shares */
	int64_t pnl;			/* cash + position x last, Price(4) */
	int64_t target;			/* shares the strategy wants */
	uint32_t bid, ask;		/* best bid and ask, Price(4); 0 unknown */
	uint32_t last_price;		/* last print, Price(4); 0 none yet */
	uint32_t last_size;		/* its shares */
	uint64_t ticks, orders, fills, cancels, rejects;
} MON_ALIGN;

/* Block: one stage's latency since the writer started (ns). */
struct mon_stage {
	uint32_t seq;
	uint32_t pad;
	struct hdr_hist h;
} MON_ALIGN;

/*
 * Block: a copy of every stage's since-start histogram taken at t_ns.  The
 * window over the last W seconds is the live histogram minus the newest
 * copy at least W seconds old (counts are cumulative, so bucket by bucket
 * subtraction is exact).
 */
struct mon_win_slot {
	uint32_t seq;
	uint32_t pad;
	uint64_t t_ns;			/* when copied; 0: never */
	struct hdr_hist h[MON_STAGES];
} MON_ALIGN;

struct mon_window {
	uint64_t ticks;			/* copies made; the next goes in slot ticks % MON_WIN_SLOTS */
	struct mon_win_slot slot[MON_WIN_SLOTS];
} MON_ALIGN;

enum mon_event_kind {
	MON_EV_ORDER = 1,	/* an order left: its limit price and shares */
	MON_EV_FILL = 2,	/* the exchange executed: fill price and shares */
	MON_EV_CANCEL = 3,	/* canceled (IOC not filled) */
	MON_EV_REJECT = 4,
	MON_EV_NR,
};

struct mon_event {
	uint64_t t_ns;
	uint32_t order_no;
	uint32_t price;		/* Price(4) */
	uint32_t shares;
	uint8_t kind;		/* enum mon_event_kind */
	uint8_t sym;		/* index into the header's symbols */
	char side;		/* 'B' or 'S' */
	uint8_t pad[9];
};

/*
 * Block: the last MON_EVENTS order events, a ring.  head counts the events
 * ever written; event n is in ev[n % MON_EVENTS] and is published by head
 * becoming n + 1 (no sequence counter: a reader keeps the events its
 * re-read of head proves were not overwritten during its copy).
 */
struct mon_events {
	uint64_t head;
	uint64_t pad[7];
	struct mon_event ev[MON_EVENTS];
} MON_ALIGN;

struct mon_segment {
	struct mon_header hdr;
	struct mon_counter_name counter_names[MON_MAX_COUNTERS];
	struct mon_counters counters;
	struct mon_symbol sym[MON_MAX_SYMBOLS];
	struct mon_stage stage[MON_STAGES];
	struct mon_window window;
	struct mon_events events;
} MON_ALIGN;

_Static_assert(sizeof(struct mon_event) == 32, "event layout");
_Static_assert((MON_EVENTS & (MON_EVENTS - 1)) == 0, "MON_EVENTS: a power of two");

#endif /* MONITOR_LAYOUT_H */
