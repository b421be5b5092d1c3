// SPDX-License-Identifier: MIT
/*
 * t2t-backtest: generate the spec's synthetic prices, and sweep the HMA/HMA3
 * stop-and-reverse strategy over a price file with the batch reference
 * kernel, the incremental kernel (the one the gateway runs), or both.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "book/book.h"
#include "proto/itch_filter.h"
#include "strategy/backtest_itch.h"
#include "strategy/gbm.h"
#include "strategy/hma.h"
#include "strategy/inst_spec.h"
#include "strategy/prices.h"
#include "strategy/strat.h"
#include "strategy/ticks.h"
#include "strategy/trader.h"
#include "strategy/sweep.h"

#define EXIT_MISMATCH	1
#define EXIT_USAGE	2

static const char usage[] =
"Usage: t2t-backtest --gen N [--seed S] [-o FILE]\n"
"       t2t-backtest --prices FILE [--lengths L1,L2,...] [--kernel K] [-o FILE]\n"
"       t2t-backtest --ticks FILE --symbol SYM:LEN[:UNIT] [--symbol ...] [-o FILE]\n"
"       t2t-backtest --itch DAY[.gz] [--tape[=FILE]] [--book SYM [--book-out FILE]]\n"
"                [--stats[=FILE]] [--dump[=FILE]] [--symbols SYM,SYM,...]\n"
"                [--symbol SYM:LEN[:UNIT] ...] [-o FILE]\n"
"\n"
"HMA/HMA3 stop-and-reverse backtester (contract: docs/strategy.md).\n"
"\n"
"  --gen N           write N synthetic GBM prices (Price(4) integers, one per\n"
"                    line) to standard output or FILE\n"
"  --seed S          generator seed (default 42)\n"
"  --prices FILE     sweep the strategy over the prices in FILE ('-' = stdin)\n"
"  --lengths LIST    comma-separated HMA lengths in [6, 256]\n"
"                    (default: the spec's 80-length grid, 6..200)\n"
"  --kernel K        batch | incremental | both (default incremental);\n"
"                    'both' checks that the two agree (trades exactly, PnL\n"
"                    within 1e-6) and exits 1 naming the first length that\n"
"                    differs\n"
"  --ticks FILE      replay ticks recorded by the exchange simulator\n"
"                    (t2t-exsim --record) through the gateway's strategy code and\n"
"                    print the orders it would send, as CSV\n"
"                    md_seq,symbol,side,shares (summary on standard error)\n"
"  --symbol SPEC     with --ticks or --itch: trade SYM with HMA length LEN and\n"
"                    UNIT shares per unit of position (default 100);\n"
"                    repeatable\n"
"\n"
"  --itch FILE       replay a TotalView-ITCH 5.0 day file (Nasdaq BinaryFILE:\n"
"                    each message after its 2-byte big-endian length; gzip or\n"
"                    plain, told apart by the gzip magic) through the order\n"
"                    book of every stock locate into the execution tape\n"
"                    (docs/book.md).  Message n is sequence\n"
"                    number n.  With --symbol, each symbol's strategy runs on\n"
"                    its prints in tape order (E at the resting order's\n"
"                    price, printable C, P, Q with shares > 0), through the\n"
"                    gateway's strategy code, and its orders are printed as\n"
"                    with --ticks: CSV md_seq,symbol,side,shares, one order of\n"
"                    |change| x UNIT shares per change of position, at the\n"
"                    print's seq (summary per symbol on standard error).\n"
"                    Symbols are found in the day's stock directory (R).\n"
"  --tape[=FILE]     every print in order, CSV seq,locate,price,shares,kind\n"
"                    (kind E, C, P or Q; price in Price(4) units)\n"
"  --book SYM        the final book of SYM, CSV side,price,shares,orders: bids\n"
"                    from the highest price down, then asks from the lowest\n"
"                    up (side B or S)\n"
"  --book-out FILE   write --book to FILE\n"
"  --stats[=FILE]    JSON: messages per type, malformed blocks, prints, the\n"
"                    impossible-event counters (dup_ref, unknown_ref,\n"
"                    overfill, book_full, bad_side), live orders at the end\n"
"                    and at the peak, the book digest, and the whole run's\n"
"                    messages per second and ns per message (reading and\n"
"                    decompressing included)\n"
"  --symbols LIST    only these symbols' session (comma-separated): the\n"
"                    system events, their directory entries and every message\n"
"                    of their locates, numbered 1, 2, 3 ... without a gap,\n"
"                    exactly as t2t-exsim --replay DAY --symbols LIST publishes\n"
"                    it (proto/itch_filter.h); the tape, orders and --dump\n"
"                    carry those numbers\n"
"  --dump[=FILE]     every message (kept), CSV seq,hex: the format of\n"
"                    fault_recv --dump, to compare with what a replay sent\n"
"  --book-orders N   live orders the order table holds (default 2097152);\n"
"                    adds beyond it are dropped and counted (book_full)\n"
"  --track all|named keep the book of every locate (default), or only of the\n"
"                    symbols named by --symbol and --book (the others are\n"
"                    skipped on their locate: no book, no print, no counter\n"
"                    but their type's)\n"
"  --pages auto|4k|thp  the book's memory: auto = 2 MB hugetlb pages when\n"
"                    reserved, else 4 KB; thp = also ask for transparent\n"
"                    huge pages (default auto)\n"
"  Only one output can go to standard output (or -o): the others need a\n"
"  FILE (--tape=FILE, --stats=FILE, --book-out FILE).  A bad day file (cut\n"
"  short, a length that runs past the end, corrupt gzip) is an error naming\n"
"  the file and the byte offset; malformed blocks are counted and skipped.\n"
"  -o, --output FILE write to FILE instead of standard output\n"
"  -q, --quiet       no progress on standard error\n"
"  -h, --help        this text\n"
"\n"
"Sweep output is CSV: length,trades,pnl_pct (one row per length).\n"
"Exit status: 0 ok, 1 kernels disagree, 2 bad usage or input (a bad day file,\n"
"a symbol not in the day's directory).\n";

static int die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "t2t-backtest: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 't2t-backtest --help'.\n");
	return EXIT_USAGE;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

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

#define MAX_SYMBOLS 64

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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "gen", required_argument, NULL, 'g' },
		{ "seed", required_argument, NULL, 's' },
		{ "prices", required_argument, NULL, 'p' },
		{ "lengths", required_argument, NULL, 'l' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "ticks", required_argument, NULL, 't' },
		{ "symbol", required_argument, NULL, 'S' },
		{ "itch", required_argument, NULL, 'I' },
		{ "tape", optional_argument, NULL, 'T' },
		{ "stats", optional_argument, NULL, 'J' },
		{ "book", required_argument, NULL, 'B' },
		{ "book-out", required_argument, NULL, 'U' },
		{ "book-orders", required_argument, NULL, 'N' },
		{ "track", required_argument, NULL, 'R' },
		{ "pages", required_argument, NULL, 'P' },
		{ "symbols", required_argument, NULL, 'Y' },
		{ "dump", optional_argument, NULL, 'D' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned int lengths[HMA_LEN_MAX], nlen = 0;
	const char *prices = NULL, *output = NULL, *kernel = "incremental";
	const char *ticks = NULL;
	struct itch_opts io = { 0 };
	int itch_opts_given = 0;
	static struct inst_spec spec[MAX_SYMBOLS];
	static char chosen[ITCH_FILTER_MAX][ITCH_SYMBOL_LEN];
	unsigned int nspec = 0;
	char why[128];
	uint64_t gen = 0, seed = 42, n_orders;
	int have_gen = 0, quiet = 0, c, ret;
	FILE *out = stdout;
	long bad;

	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (parse_u64(optarg, &gen) || gen == 0)
				return die_usage("--gen wants a positive count, not '%s'", optarg);
			have_gen = 1;
			break;
		case 's':
			if (parse_u64(optarg, &seed))
				return die_usage("--seed wants an unsigned integer, not '%s'", optarg);
			break;
		case 'p':
			prices = optarg;
			break;
		case 'l':
			ret = sweep_parse_lengths(optarg, lengths, HMA_LEN_MAX, &nlen, &bad);
			if (ret == -ERANGE) {
				fprintf(stderr, "t2t-backtest: length %ld out of range [%d, %d]\n",
					bad, HMA_LEN_MIN, HMA_LEN_MAX);
				return EXIT_USAGE;
			}
			if (ret)
				return die_usage("--lengths wants a list like 6,12,20, not '%s'", optarg);
			break;
		case 'k':
			if (strcmp(optarg, "batch") && strcmp(optarg, "incremental") &&
			    strcmp(optarg, "both"))
				return die_usage("--kernel is batch, incremental or both, not '%s'", optarg);
			kernel = optarg;
			break;
		case 't':
			ticks = optarg;
			break;
		case 'S':
			if (nspec == MAX_SYMBOLS)
				return die_usage("too many --symbol (at most 64): '%s'", optarg);
			if (inst_spec_parse(optarg, &spec[nspec], why, sizeof(why))) {
				fprintf(stderr, "t2t-backtest: --symbol '%s': %s\n", optarg, why);
				return EXIT_USAGE;
			}
			nspec++;
			break;
		case 'I':
			io.path = optarg;
			break;
		case 'T':
			io.tape = optarg ? optarg : ITCH_OUT_MAIN;
			itch_opts_given = 1;
			break;
		case 'J':
			io.stats = optarg ? optarg : ITCH_OUT_MAIN;
			itch_opts_given = 1;
			break;
		case 'B':
			if (!*optarg || strlen(optarg) > 8)
				return die_usage("--book wants a symbol of 1 to 8 characters, not '%s'",
						 optarg);
			io.book_symbol = optarg;
			itch_opts_given = 1;
			break;
		case 'U':
			io.book_out = optarg;
			itch_opts_given = 1;
			break;
		case 'N':
			if (parse_u64(optarg, &n_orders) || n_orders == 0 ||
			    n_orders > BOOK_MAX_ORDERS)
				return die_usage("--book-orders wants 1 to 2^30, not '%s'", optarg);
			io.book_orders = (uint32_t)n_orders;
			itch_opts_given = 1;
			break;
		case 'R':
			if (strcmp(optarg, "all") && strcmp(optarg, "named"))
				return die_usage("--track is all or named, not '%s'", optarg);
			io.track_named = !strcmp(optarg, "named");
			itch_opts_given = 1;
			break;
		case 'P':
			if (!strcmp(optarg, "auto"))
				io.pages = TABLE_MEM_AUTO;
			else if (!strcmp(optarg, "4k"))
				io.pages = TABLE_MEM_SMALL;
			else if (!strcmp(optarg, "thp"))
				io.pages = TABLE_MEM_THP;
			else
				return die_usage("--pages is auto, 4k or thp, not '%s'", optarg);
			itch_opts_given = 1;
			break;
		case 'Y':
			ret = itch_parse_symbols(optarg, chosen, ITCH_FILTER_MAX, why, sizeof(why));
			if (ret < 0) {
				fprintf(stderr, "t2t-backtest: --symbols %s\nTry 't2t-backtest --help'.\n", why);
				return EXIT_USAGE;
			}
			io.symbols = chosen;
			io.nsymbols = (unsigned int)ret;
			itch_opts_given = 1;
			break;
		case 'D':
			io.dump = optarg ? optarg : ITCH_OUT_MAIN;
			itch_opts_given = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fprintf(stderr, "Try 't2t-backtest --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return die_usage("unexpected argument '%s'", argv[optind]);
	if (have_gen + !!prices + !!ticks + !!io.path != 1)
		return die_usage("%s", "give exactly one of --gen N, --prices FILE, --ticks FILE "
				 "or --itch FILE");
	if (ticks && !nspec)
		return die_usage("%s", "--ticks needs at least one --symbol SYM:LEN");
	if (nspec && !ticks && !io.path)
		return die_usage("%s", "--symbol goes with --ticks or --itch");
	if (itch_opts_given && !io.path)
		return die_usage("%s", "--tape, --stats, --book, --book-out, --book-orders, "
				 "--track, --pages, --symbols and --dump go with --itch");
	if (io.path) {
		int main_users = (io.tape && !strcmp(io.tape, ITCH_OUT_MAIN)) +
				 (io.stats && !strcmp(io.stats, ITCH_OUT_MAIN)) +
				 (io.dump && !strcmp(io.dump, ITCH_OUT_MAIN)) +
				 (io.book_symbol && !io.book_out) + !!nspec;

		if (!io.tape && !io.stats && !io.book_symbol && !nspec && !io.dump)
			return die_usage("%s", "--itch needs --tape, --stats, --book SYM, --dump "
					 "or --symbol");
		if (main_users > 1)
			return die_usage("%s", "only one of --tape, --stats, --book, --dump and the "
					 "--symbol orders can go to the main output; give the "
					 "others a file (--tape=FILE, --stats=FILE, --book-out FILE, "
					 "--dump=FILE)");
		if (io.book_out && !io.book_symbol)
			return die_usage("%s", "--book-out goes with --book SYM");
		io.spec = spec;
		io.nspec = nspec;
	}

	if (nlen == 0)
		for (nlen = 0; nlen < HMA_GRID_SIZE; nlen++)
			lengths[nlen] = hma_grid_length(nlen);

	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "t2t-backtest: %s: %s\n", output, strerror(errno));
		return EXIT_USAGE;
	}
	if (have_gen)
		ret = do_gen(gen, seed, out);
	else if (ticks)
		ret = do_replay(ticks, spec, nspec, out);
	else if (io.path) {
		io.out = out;
		ret = backtest_itch(&io);
	}
	else
		ret = do_sweep(prices, lengths, nlen, kernel, quiet, out);
	if (out != stdout && fclose(out) && !ret) {
		fprintf(stderr, "t2t-backtest: %s: %s\n", output, strerror(errno));
		ret = EXIT_USAGE;
	}
	return ret;
}
