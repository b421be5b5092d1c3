// SPDX-License-Identifier: MIT
/*
 * t2t-backtest: generate the spec's synthetic prices, and sweep the HMA/HMA3
 * stop-and-reverse strategy over a price file with the batch reference
 * kernel, the incremental kernel (the one the gateway runs), or both.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book/book.h"
#include "proto/itch_filter.h"
#include "backtest/backtest_itch.h"
#include "backtest/backtest_paper.h"
#include "strategy/gbm.h"
#include "strategy/hma.h"
#include "strategy/inst_spec.h"
#include "strategy/prices.h"
#include "strategy/strat.h"
#include "strategy/ticks.h"
#include "strategy/trader.h"
#include "strategy/sweep.h"
#include "util/opt.h"

#define EXIT_MISMATCH	1
#define EXIT_USAGE	2
#define MAX_SYMBOLS	64

struct bt_cfg {
	uint64_t gen, seed;
	const char *prices, *ticks, *output, *symbols_arg;
	int kernel;		/* kernels[] */
	int track, pages;	/* -1: not given */
	bool quiet;
	unsigned int lengths[HMA_LEN_MAX], nlen;
	struct inst_spec spec[MAX_SYMBOLS];
	unsigned int nspec;
	char chosen[ITCH_FILTER_MAX][ITCH_SYMBOL_LEN];	/* --symbols */
	struct itch_opts io;
};

static const char *const kernels[] = { "batch", "incremental", "both", NULL };
static const char *const tracks[] = { "all", "named", NULL };
/* In the order of enum table_mem_pages. */
static const char *const page_kinds[] = { "auto", "4k", "thp", NULL };

static int lengths_opt(void *cfg, const char *a, char *why, size_t n)
{
	struct bt_cfg *c = cfg;
	long bad;
	int ret = sweep_parse_lengths(a, c->lengths, HMA_LEN_MAX, &c->nlen, &bad);

	if (ret == -ERANGE)
		return snprintf(why, n, "has length %ld out of range [%d, %d]", bad, HMA_LEN_MIN,
				HMA_LEN_MAX), -1;
	if (ret)
		return snprintf(why, n, "wants a list like 6,12,20"), -1;
	return 0;
}

static int paper_opt(void *cfg, const char *a, char *why, size_t n)
{
	struct bt_cfg *c = cfg;

	if (opt_parse_u64(a, 0, 60000000000ull, &c->io.paper_ns))
		return snprintf(why, n, "wants nanoseconds, 0 to 60e9"), -1;
	c->io.paper = true;
	return 0;
}

static int symbol_opt(void *cfg, const char *a, char *why, size_t n)
{
	struct bt_cfg *c = cfg;

	if (c->nspec == MAX_SYMBOLS)
		return snprintf(why, n, "given more than %d times", MAX_SYMBOLS), -1;
	if (inst_spec_parse(a, &c->spec[c->nspec], why, n))
		return -1;
	c->nspec++;
	return 0;
}

#define C(f) OFF(struct bt_cfg, f)

static const struct opt opts[] = {
	OPT_SECTION("Prices and sweeps:"),
	OPT("gen", 0, OPT_U64, C(gen), "N", "write N synthetic GBM prices (Price(4) integers, "
	    "one per line)", .min = 1),
	OPT("seed", 0, OPT_U64, C(seed), "S", "generator seed"),
	OPT("prices", 0, OPT_STR, C(prices), "FILE",
	    "sweep the strategy over the prices in FILE ('-' = stdin); CSV "
	    "length,trades,pnl_pct, one row per length"),
	OPT("lengths", 0, OPT_CALL, 0, "LIST", "comma-separated HMA lengths in [6, 256]",
	    .call = lengths_opt, .def = "the spec's 80-length grid, 6..200"),
	OPT("kernel", 0, OPT_ENUM, C(kernel), "K", "batch, incremental or both; 'both' checks "
	    "that the two agree (trades exactly, PnL within 1e-6) and exits 1 naming the "
	    "first length that differs", .choices = kernels),
	OPT_SECTION("Recorded ticks, day files:"),
	OPT("ticks", 0, OPT_STR, C(ticks), "FILE",
	    "replay ticks recorded by the exchange simulator (t2t-exsim --record) through "
	    "the gateway's strategy code and print the orders it would send, as CSV "
	    "md_seq,symbol,side,shares (summary on standard error)"),
	OPT("symbol", 0, OPT_CALL, 0, "SYM:LEN[:UNIT]",
	    "with --ticks or --itch: trade SYM with HMA length LEN and UNIT shares per unit "
	    "of position (default 100); repeatable", .call = symbol_opt),
	OPT("itch", 0, OPT_STR, C(io.path), "FILE",
	    "replay a TotalView-ITCH 5.0 day file (Nasdaq BinaryFILE: each message after its "
	    "2-byte big-endian length; gzip or plain, told apart by the gzip magic) through "
	    "the order book of every stock locate into the execution tape (docs/book.md). "
	    "Message n is sequence number n.  With --symbol, each symbol's strategy runs on "
	    "its prints in tape order (E at the resting order's price, printable C, P, Q "
	    "with shares > 0), through the gateway's strategy code, and its orders are "
	    "printed as with --ticks: one order of |change| x UNIT shares per change of "
	    "position, at the print's seq (summary per symbol on standard error).  Symbols "
	    "are found in the day's stock directory (R)."),
	OPT("paper", 0, OPT_CALL, 0, "NS",
	    "with --itch and --symbol: the day through the gateway's own engine in paper mode "
	    "(docs/paper.md), as t2t-gateway --paper --paper-latency NS trades it: orders "
	    "sized as the gateway sizes them, each filled against the book after every "
	    "message stamped up to its print's time + NS; CSV seq,symbol,side,shares,filled,"
	    "cash per order (cash: the exact sum of shares x price), positions, cash and PnL "
	    "on standard error", .call = paper_opt),
	OPT("limit-bp", 0, OPT_U32, C(io.limit_bp), "BP", "with --paper: the orders' limit, "
	    "as the gateway's --limit-bp (default the gateway's)", .max = 10000),
	OPT("tape", 0, OPT_STR, C(io.tape), "FILE", "every print in order, CSV "
	    "seq,locate,price,shares,kind (kind E, C, P or Q; price in Price(4) units)",
	    .implied = ITCH_OUT_MAIN),
	OPT("book", 0, OPT_STR, C(io.book_symbol), "SYM", "the final book of SYM, CSV "
	    "side,price,shares,orders: bids from the highest price down, then asks from "
	    "the lowest up (side B or S)", .max = ITCH_SYMBOL_LEN),
	OPT("book-out", 0, OPT_STR, C(io.book_out), "FILE", "write --book to FILE"),
	OPT("stats", 0, OPT_STR, C(io.stats), "FILE", "JSON: messages per type, malformed "
	    "blocks, prints, the impossible-event counters (dup_ref, unknown_ref, overfill, "
	    "book_full, bad_side), live orders at the end and at the peak, the book digest, "
	    "and the whole run's messages per second and ns per message (reading and "
	    "decompressing included)", .implied = ITCH_OUT_MAIN),
	OPT("symbols", 0, OPT_STR, C(symbols_arg), "LIST",
	    "only these symbols' session (comma-separated): the system events, their "
	    "directory entries and every message of their locates, numbered 1, 2, 3 ... "
	    "without a gap, exactly as t2t-exsim --replay DAY --symbols LIST publishes it "
	    "(proto/itch_filter.h); the tape, orders and --dump carry those numbers"),
	OPT("dump", 0, OPT_STR, C(io.dump), "FILE", "every message (kept), CSV seq,hex: the "
	    "format of fault_recv --dump, to compare with what a replay sent",
	    .implied = ITCH_OUT_MAIN),
	OPT("book-orders", 0, OPT_U32, C(io.book_orders), "N", "live orders the order table "
	    "holds; adds beyond it are dropped and counted (book_full)", .min = 1,
	    .max = BOOK_MAX_ORDERS, .def = "2097152"),
	OPT("track", 0, OPT_ENUM, C(track), "all|named", "keep the book of every locate, or "
	    "only of the symbols named by --symbol and --book (the others are skipped on "
	    "their locate: no book, no print, no counter but their type's)",
	    .choices = tracks, .def = "all"),
	OPT("pages", 0, OPT_ENUM, C(pages), "auto|4k|thp", "the book's memory: auto = 2 MB "
	    "hugetlb pages when reserved, else 4 KB; thp = also ask for transparent huge "
	    "pages", .choices = page_kinds, .def = "auto"),
	OPT_SECTION("Output:"),
	OPT("output", 'o', OPT_STR, C(output), "FILE", "write to FILE instead of standard "
	    "output"),
	OPT("quiet", 'q', OPT_FLAG, C(quiet), NULL, "no progress on standard error"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-backtest",
	.usage =
"--gen N [--seed S] [-o FILE]\n"
"       t2t-backtest --prices FILE [--lengths L1,L2,...] [--kernel K] [-o FILE]\n"
"       t2t-backtest --ticks FILE --symbol SYM:LEN[:UNIT] [--symbol ...] [-o FILE]\n"
"       t2t-backtest --itch DAY[.gz] [--tape[=FILE]] [--book SYM [--book-out FILE]]\n"
"                    [--stats[=FILE]] [--dump[=FILE]] [--symbols SYM,SYM,...]\n"
"                    [--symbol SYM:LEN[:UNIT] ...] [-o FILE]\n"
"       t2t-backtest --itch DAY[.gz] --symbol SYM:LEN[:UNIT] ... --paper NS\n"
"                    [--limit-bp BP] [--symbols SYM,SYM,...] [-o FILE]",
	.about = "HMA/HMA3 stop-and-reverse backtester (contract: docs/strategy.md).\n",
	.more =
"Only one output can go to standard output (or -o): the others need a FILE\n"
"(--tape=FILE, --stats=FILE, --book-out FILE, --dump=FILE).  A bad day file\n"
"(cut short, a length that runs past the end, corrupt gzip) is an error naming\n"
"the file and the byte offset; malformed blocks are counted and skipped.\n"
"Exit status: 0 ok, 1 kernels disagree, 2 bad usage or input (a bad day file,\n"
"a symbol not in the day's directory).\n",
	.opts = opts,
};

static int do_gen(uint64_t N, uint64_t seed, FILE *out)
{
	struct gbm g;

	gbm_init(&g, seed);
	for (uint64_t t = 0; t < N; t++)
		if (fprintf(out, "%" PRIu32 "\n", gbm_next(&g)) < 0)
			goto fail;
	if (fflush(out) == 0)
		return 0;
fail:
	fprintf(stderr, "t2t-backtest: write error: %s\n", strerror(errno));
	return EXIT_USAGE;
}

static int do_sweep(const char *path, const unsigned int *lengths,
		    unsigned int nlen, const char *kernel, int quiet, FILE *out)
{
	int want_batch = !strcmp(kernel, "batch") || !strcmp(kernel, "both");
	int want_incr = !strcmp(kernel, "incremental") || !strcmp(kernel, "both");
	int progress = !quiet && isatty(STDERR_FILENO);
	char err[256];
	uint32_t *x;
	size_t N;
	int ret;

	ret = prices_load(path, &x, &N, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "t2t-backtest: %s\n", err);
		return EXIT_USAGE;
	}

	fprintf(out, "length,trades,pnl_pct\n");
	for (unsigned int i = 0; i < nlen; i++) {
		struct sar rb, ri;

		if (want_batch && (ret = sweep_run(x, N, lengths[i], HMA_KERNEL_BATCH, &rb)))
			goto fail;
		if (want_incr && (ret = sweep_run(x, N, lengths[i], HMA_KERNEL_INCREMENTAL, &ri)))
			goto fail;
		if (want_batch && want_incr &&
		    /* One kernel, bit for bit: the same signals make the same doubles. */
		    (rb.trades != ri.trades || rb.pnl_pct != ri.pnl_pct)) {
			fflush(out);
			fprintf(stderr,
				"t2t-backtest: kernels disagree at length %u: batch %" PRIu64
				" trades %.9f%%, incremental %" PRIu64 " trades %.9f%%\n",
				lengths[i], rb.trades, rb.pnl_pct, ri.trades, ri.pnl_pct);
			free(x);
			return EXIT_MISMATCH;
		}
		const struct sar *r = want_incr ? &ri : &rb;

		fprintf(out, "%u,%" PRIu64 ",%.9f\n", lengths[i], r->trades, r->pnl_pct);
		if (progress)
			fprintf(stderr, "\rbacktest: %u/%u lengths", i + 1, nlen);
	}
	if (progress)
		fprintf(stderr, "\n");
	free(x);
	if (fflush(out)) {
		fprintf(stderr, "t2t-backtest: write error: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
fail:
	fprintf(stderr, "t2t-backtest: %s\n", ret == -ENOMEM ? "out of memory" :
		"invalid length or price");
	free(x);
	return EXIT_USAGE;
}

/* Replay recorded ticks: the orders the gateway must have sent, in order. */
static int do_replay(const char *path, const struct inst_spec *spec,
		     unsigned int nspec, FILE *out)
{
	static struct trader tr[MAX_SYMBOLS];
	struct tick_rec *t;
	char err[256];
	size_t n;
	int ret;

	ret = ticks_load(path, &t, &n, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "t2t-backtest: %s\n", err);
		return EXIT_USAGE;
	}
	for (unsigned int k = 0; k < nspec; k++)
		trader_init(&tr[k], &spec[k]);

	fputs(TRADER_CSV_HEADER, out);
	for (size_t i = 0; i < n; i++) {
		unsigned int k;

		for (k = 0; k < nspec && strcmp(spec[k].symbol, t[i].symbol); k++)
			;
		if (k < nspec)
			trader_tick(&tr[k], t[i].seq, t[i].price, out);
	}
	for (unsigned int k = 0; k < nspec; k++)
		trader_summary(&tr[k], stderr);
	free(t);
	return fflush(out) ? EXIT_USAGE : 0;
}

/* What goes with --itch only, and what the main output can hold. */
static int itch_checks(struct bt_cfg *c)
{
	struct itch_opts *io = &c->io;
	int main_users = (io->tape && !strcmp(io->tape, ITCH_OUT_MAIN)) +
			 (io->stats && !strcmp(io->stats, ITCH_OUT_MAIN)) +
			 (io->dump && !strcmp(io->dump, ITCH_OUT_MAIN)) +
			 (io->book_symbol && !io->book_out) + !!c->nspec;
	int ret;

	if (!io->path) {
		if (io->tape || io->stats || io->book_symbol || io->book_out || io->book_orders ||
		    c->track >= 0 || c->pages >= 0 || c->symbols_arg || io->dump || io->paper ||
		    io->limit_bp != ITCH_LIMIT_GATEWAY)
			return opt_error(&prog, "--tape, --stats, --book, --book-out, "
					 "--book-orders, --track, --pages, --symbols, --dump, "
					 "--paper and --limit-bp go with --itch");
		return 0;
	}
	if (io->limit_bp != ITCH_LIMIT_GATEWAY && !io->paper)
		return opt_error(&prog, "--limit-bp goes with --paper");
	if (io->paper && (!c->nspec || io->tape || io->stats || io->book_symbol || io->dump))
		return opt_error(&prog, "--paper wants --symbol SYM:LEN (one or more) and none of "
				 "--tape, --stats, --book, --dump");
	if (!io->tape && !io->stats && !io->book_symbol && !c->nspec && !io->dump)
		return opt_error(&prog, "--itch needs --tape, --stats, --book SYM, --dump or "
				 "--symbol");
	if (main_users > 1)
		return opt_error(&prog, "only one of --tape, --stats, --book, --dump and the "
				 "--symbol orders can go to the main output; give the others a "
				 "file (--tape=FILE, --stats=FILE, --book-out FILE, --dump=FILE)");
	if (io->book_out && !io->book_symbol)
		return opt_error(&prog, "--book-out goes with --book SYM");
	if (c->symbols_arg) {
		char why[128];

		ret = itch_parse_symbols(c->symbols_arg, c->chosen, ITCH_FILTER_MAX, why,
					 sizeof(why));
		if (ret < 0)
			return opt_error(&prog, "--symbols %s", why);
		io->symbols = c->chosen;
		io->nsymbols = (unsigned int)ret;
	}
	io->track_named = c->track == 1;
	io->pages = c->pages >= 0 ? (enum table_mem_pages)c->pages : TABLE_MEM_AUTO;
	io->spec = c->spec;
	io->nspec = c->nspec;
	return 0;
}

/* The command line into @c.  Returns 0 to run, 1 after --help, 2 after an error. */
static int parse_args(struct bt_cfg *c, int argc, char **argv)
{
	int ret = opt_parse(&prog, c, argc, argv, NULL);

	if (ret)
		return ret;
	if (!!c->gen + !!c->prices + !!c->ticks + !!c->io.path != 1)
		return opt_error(&prog, "give exactly one of --gen N, --prices FILE, --ticks FILE "
				 "or --itch FILE");
	if (c->ticks && !c->nspec)
		return opt_error(&prog, "--ticks needs at least one --symbol SYM:LEN");
	if (c->nspec && !c->ticks && !c->io.path)
		return opt_error(&prog, "--symbol goes with --ticks or --itch");
	ret = itch_checks(c);
	if (ret)
		return ret;
	if (c->nlen == 0)
		for (c->nlen = 0; c->nlen < HMA_GRID_SIZE; c->nlen++)
			c->lengths[c->nlen] = hma_grid_length(c->nlen);
	return 0;
}

int main(int argc, char **argv)
{
	static struct bt_cfg c = { .seed = 42, .kernel = 1, .track = -1, .pages = -1,
				   .io.limit_bp = ITCH_LIMIT_GATEWAY };
	FILE *out = stdout;
	int ret;

	ret = parse_args(&c, argc, argv);
	if (ret)
		return ret == 1 ? 0 : EXIT_USAGE;
	if (c.output && !(out = fopen(c.output, "w"))) {
		fprintf(stderr, "t2t-backtest: %s: %s\n", c.output, strerror(errno));
		return EXIT_USAGE;
	}
	if (c.gen) {
		ret = do_gen(c.gen, c.seed, out);
	} else if (c.ticks) {
		ret = do_replay(c.ticks, c.spec, c.nspec, out);
	} else if (c.io.path) {
		c.io.out = out;
		ret = c.io.paper ? backtest_paper(&c.io) : backtest_itch(&c.io);
	} else {
		ret = do_sweep(c.prices, c.lengths, c.nlen, kernels[c.kernel], c.quiet, out);
	}
	if (out != stdout && fclose(out) && !ret) {
		fprintf(stderr, "t2t-backtest: %s: %s\n", c.output, strerror(errno));
		ret = EXIT_USAGE;
	}
	return ret;
}
