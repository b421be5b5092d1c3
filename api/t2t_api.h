/* SPDX-License-Identifier: MIT */
/*
 * libt2t: the gateway's strategy kernel, books and engine behind a small,
 * stable C API, for research from another language (python/t2t) or
 * another program.  One kernel serves research and live trading: every
 * call runs the code t2t-backtest and t2t-gateway run (docs/architecture.md,
 * section 1), and the equivalence tests (tests/python) prove the results
 * equal the command line's.
 *
 * Rules of the boundary:
 *  - A handle (t2t_open()) holds all the memory its calls use, allocated
 *    when it opens: the sweep's lanes and threads, the books, the lanes of
 *    a research pass and its print buffers.  Calls allocate nothing, with
 *    three exceptions named where they apply: reading a file (its read
 *    buffer and zlib's state, freed before the call returns), the batch
 *    kernel's scratch, and the gateway's engine of t2t_paper_day().
 *  - Every function returns T2T_OK (0) or a negative enum t2t_status;
 *    t2t_error() then says what was wrong, in a sentence.  Nothing in the
 *    library aborts, exits or prints: bad input is an error code.
 *  - Results go to arrays the caller owns.  An array too short for them is
 *    T2T_ESPACE with the count needed in the *_n argument: call again.
 *  - A handle is used by one thread at a time; open one per thread.  A
 *    sweep runs on the handle's own threads.
 *  - Structs here only grow at their end, and T2T_API_VERSION changes when
 *    they do.
 *
 * Prices are ITCH Price(4) integers (1 unit = 0.0001), in (0, 2^32).
 * Money (cash, pnl) is Price(4) units times shares: divide by 10,000 for
 * dollars.
 */
#ifndef T2T_API_H
#define T2T_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define T2T_API_VERSION	1
#define T2T_EXPORT	__attribute__((visibility("default")))

#define T2T_LEN_MIN	6
#define T2T_LEN_MAX	256
#define T2T_FEE_PCT	0.09	/* the spec's round-trip fee, percentage points */
#define T2T_SYMBOL_MAX	8

enum t2t_status {
	T2T_OK = 0,
	T2T_EINVAL = -1,	/* a bad argument (NULL, a count of 0, a bad symbol) */
	T2T_ERANGE = -2,	/* a length or a price out of range */
	T2T_ENOMEM = -3,	/* out of memory (at open) */
	T2T_EIO = -4,		/* a file that cannot be opened or read */
	T2T_EFORMAT = -5,	/* a day file or capture log that is not well formed */
	T2T_ENOSYM = -6,	/* a symbol not in the day's stock directory */
	T2T_ESPACE = -7,	/* more results than the caller's array holds */
	T2T_ELIMIT = -8,	/* more than the handle was opened for */
	T2T_ENOTSUP = -9,	/* an instruction set this CPU lacks */
};

/* What a handle is opened for; zero fields take their defaults. */
struct t2t_options {
	uint32_t threads;	/* sweep threads; 0: the CPUs this process may run on */
	uint32_t max_lengths;	/* lengths per sweep; 0: 256 */
	uint32_t max_combos;	/* (symbol, length) per research pass; 0: 1024 */
	uint32_t max_symbols;	/* symbols per research pass; 0: 64 */
	uint32_t book_orders;	/* live orders the books hold; 0: the book's default */
	uint32_t isa;		/* the lanes' instructions: 0 best, 1 generic, 2 avx2, 3 avx512 */
	uint32_t days;		/* 1: also the books and the research pass's lanes, for
				 * t2t_research_day() and t2t_replay_day() */
};

typedef struct t2t t2t;

T2T_EXPORT int t2t_api_version(void);
/* Open a handle.  On failure *h is NULL and @err (may be NULL) says why. */
T2T_EXPORT int t2t_open(t2t **h, const struct t2t_options *opt, char *err, size_t errlen);
T2T_EXPORT void t2t_close(t2t *h);
/* The last failure's message ("" after a success); valid until the next call. */
T2T_EXPORT const char *t2t_error(const t2t *h);
/* The name of a status ("T2T_ERANGE"). */
T2T_EXPORT const char *t2t_status_name(int status);
/* The lanes' instruction set in use: "avx512", "avx2" or "generic". */
T2T_EXPORT const char *t2t_isa(const t2t *h);
T2T_EXPORT uint32_t t2t_threads(const t2t *h);

/* ---- The sweep: one series, many lengths ---- */

enum t2t_kernel {
	T2T_KERNEL_INCREMENTAL = 0,	/* the incremental kernel in lanes, on the handle's threads */
	T2T_KERNEL_BATCH = 1,		/* the batch reference (allocates its scratch) */
	T2T_KERNEL_SCALAR = 2,		/* the gateway's hma_update(), one length at a time */
};

/*
 * The strategy over @close[0..n) for each of @lengths[0..nlen) (each in
 * [6, 256], repeats allowed), a closed trade costing @fee percentage
 * points: trades[k] and pnl_pct[k] for lengths[k], the open position
 * closed at the last price (docs/strategy.md).  The closes are read where
 * they are.  T2T_ERANGE names the first bad price or length.
 */
T2T_EXPORT int t2t_sweep_u32(t2t *h, const uint32_t *close, size_t n,
			     const uint32_t *lengths, size_t nlen, double fee, int kernel,
			     uint64_t *trades, double *pnl_pct);
/*
 * The same with closes in dollars as float64, each converted exactly to
 * Price(4) (round(close x 10^4)) or refused: a NaN, a close <= 0 or >=
 * 2^32 / 10^4, or one that is not the double nearest a price of four
 * decimals is T2T_ERANGE naming it.  Converted piece by piece as the
 * lanes read them (the batch kernel converts the whole series first).
 */
T2T_EXPORT int t2t_sweep_f64(t2t *h, const double *close, size_t n,
			     const uint32_t *lengths, size_t nlen, double fee, int kernel,
			     uint64_t *trades, double *pnl_pct);

/* ---- A day: research pass, plain replay, the engine ---- */

/* One strategy: a symbol (1-8 printable characters), an HMA length, shares per unit. */
struct t2t_combo {
	char symbol[T2T_SYMBOL_MAX + 1];	/* NUL terminated */
	uint8_t pad[3];
	uint32_t length;
	uint32_t unit;				/* 0: 100 */
};

/* What one combination did over the day. */
struct t2t_result {
	uint64_t ticks;		/* prints it ran on */
	uint64_t refused;	/* prints at price 0: not ticks */
	uint64_t orders;
	uint64_t fills;		/* executions (research: one per order) */
	uint64_t trades;	/* the rule's completed trades, the open one closed at the last print */
	int64_t position;	/* shares at the end */
	int64_t max_position;	/* the largest |position| over the day, shares */
	int64_t cash;		/* Price(4) x shares: sells minus buys */
	int64_t pnl;		/* cash + position x the last print */
	double pnl_pct;		/* the rule's sum of trade returns (percentage points) */
	uint32_t last_price;	/* the last print */
	uint32_t pad;
};

/* One order. */
struct t2t_order {
	uint64_t md_seq;	/* the print that made it: the message's number in the day */
	uint64_t cash;		/* sum of shares x price of its fills, Price(4) x shares */
	uint32_t combo;		/* index into the combinations given */
	uint32_t shares;
	uint32_t filled;
	uint32_t price;		/* research: the print's price; paper: the limit */
	char side;		/* 'B' or 'S' */
	uint8_t pad[7];
};

struct t2t_day {
	uint64_t messages;	/* in the file */
	uint64_t prints;	/* on the tape */
	double seconds;		/* the replay's own time */
};

/*
 * One reading of the day file @path (plain or gzip) through the books of
 * every locate and the tape; every combination runs on its symbol's prints
 * at once, in lanes, with t2t-backtest --itch's order model: one order of
 * |change| x unit shares per change of position, filled at the print.
 * results[k] for combos[k].  With @orders, every order in it (grouped by
 * symbol, in tape order within a combination), their count in *orders_n;
 * T2T_ESPACE when more than @orders_cap (the count needed in *orders_n).
 * @day (may be NULL): the replay's counts.  A symbol missing from the
 * day's directory is T2T_ENOSYM.
 */
T2T_EXPORT int t2t_research_day(t2t *h, const char *path, const struct t2t_combo *combos,
				size_t ncombos, struct t2t_result *results,
				struct t2t_order *orders, size_t orders_cap, size_t *orders_n,
				struct t2t_day *day);

/* The same reading with no strategy: books and tape only (the research pass's baseline). */
T2T_EXPORT int t2t_replay_day(t2t *h, const char *path, struct t2t_day *day);

#define T2T_LIMIT_GATEWAY	UINT32_MAX	/* the gateway's --limit-bp */

/*
 * The day through the gateway's own engine in paper mode, as
 * t2t-backtest --itch DAY --symbol ... --paper @latency_ns trades it: one
 * combination per symbol (at most 64), orders sized as the gateway sizes
 * them, each filled against the book after every message stamped up to its
 * print's time + @latency_ns; @limit_bp the orders' limit in basis points
 * (T2T_LIMIT_GATEWAY: the gateway's).  Orders in the order they were made;
 * results[k] per symbol.  Opens the engine for the call (its books and
 * order log) and frees it before returning.
 */
T2T_EXPORT int t2t_paper_day(t2t *h, const char *path, const struct t2t_combo *combos,
			     size_t ncombos, uint64_t latency_ns, uint32_t limit_bp,
			     struct t2t_result *results, struct t2t_order *orders,
			     size_t orders_cap, size_t *orders_n);

/* ---- A capture log (t2t-gateway --capture) ---- */

#define T2T_STAGES	9

/* One order of a capture log, with its stages (latency/order_rec.h). */
struct t2t_capture_rec {
	uint64_t order_no, md_seq;
	char symbol[T2T_SYMBOL_MAX + 1];
	char side;
	uint8_t outcome;	/* enum order_outcome */
	uint8_t flags;		/* ORDER_F_* */
	uint32_t shares, price;
	uint64_t t_send, t_hook, t_seen, t_decided, t_queued, t_sent, t_ack;
	uint64_t exch_ts;
	int64_t stage_ns[T2T_STAGES];	/* -1 where the order has no such stage */
};

/* The names of the stages, outcomes and flag bits, for column names. */
T2T_EXPORT const char *t2t_stage_name(unsigned int stage);
T2T_EXPORT const char *t2t_outcome_name(unsigned int outcome);

/*
 * Every order of the capture log @path into recs[0..cap), their count in
 * *n; T2T_ESPACE when more than @cap (the count in *n).
 */
T2T_EXPORT int t2t_read_capture(t2t *h, const char *path, struct t2t_capture_rec *recs,
				size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* T2T_API_H */
