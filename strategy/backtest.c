// SPDX-License-Identifier: MIT
/*
 * backtest: generate the spec's synthetic prices, and sweep the HMA/HMA3
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
#define PNL_TOLERANCE	1e-6

static const char usage[] =
"Usage: backtest --gen N [--seed S] [-o FILE]\n"
"       backtest --prices FILE [--lengths L1,L2,...] [--kernel K] [-o FILE]\n"
"       backtest --ticks FILE --symbol SYM:LEN[:UNIT] [--symbol ...] [-o FILE]\n"
"\n"
"HMA/HMA3 stop-and-reverse backtester (contract: shared/spec/strategy.md).\n"
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
"                    (exsim --record) through the gateway's strategy code and\n"
"                    print the orders it would send, as CSV\n"
"                    md_seq,symbol,side,shares (summary on standard error)\n"
"  --symbol SPEC     with --ticks: trade SYM with HMA length LEN and UNIT\n"
"                    shares per unit of position (default 100); repeatable\n"
"  -o, --output FILE write to FILE instead of standard output\n"
"  -q, --quiet       no progress on standard error\n"
"  -h, --help        this text\n"
"\n"
"Sweep output is CSV: length,trades,pnl_pct (one row per length).\n"
"Exit status: 0 ok, 1 kernels disagree, 2 bad usage or input.\n";

static int die_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "backtest: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'backtest --help'.\n");
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
	fprintf(stderr, "backtest: write error: %s\n", strerror(errno));
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
		fprintf(stderr, "backtest: %s\n", err);
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
		    (rb.trades != ri.trades || fabs(rb.pnl_pct - ri.pnl_pct) > PNL_TOLERANCE)) {
			fflush(out);
			fprintf(stderr,
				"backtest: kernels disagree at length %u: batch %" PRIu64
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
		fprintf(stderr, "backtest: write error: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
fail:
	fprintf(stderr, "backtest: %s\n", ret == -ENOMEM ? "out of memory" :
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
		fprintf(stderr, "backtest: %s\n", err);
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
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned int lengths[HMA_LEN_MAX], nlen = 0;
	const char *prices = NULL, *output = NULL, *kernel = "incremental";
	const char *ticks = NULL;
	static struct inst_spec spec[MAX_SYMBOLS];
	unsigned int nspec = 0;
	char why[128];
	uint64_t gen = 0, seed = 42;
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
				fprintf(stderr, "backtest: length %ld out of range [%d, %d]\n",
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
				fprintf(stderr, "backtest: --symbol '%s': %s\n", optarg, why);
				return EXIT_USAGE;
			}
			nspec++;
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
			fprintf(stderr, "Try 'backtest --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return die_usage("unexpected argument '%s'", argv[optind]);
	if (have_gen + !!prices + !!ticks != 1)
		return die_usage("%s", "give exactly one of --gen N, --prices FILE or --ticks FILE");
	if (ticks && !nspec)
		return die_usage("%s", "--ticks needs at least one --symbol SYM:LEN");
	if (nspec && !ticks)
		return die_usage("%s", "--symbol goes with --ticks");

	if (nlen == 0)
		for (nlen = 0; nlen < HMA_GRID_SIZE; nlen++)
			lengths[nlen] = hma_grid_length(nlen);

	if (output && !(out = fopen(output, "w"))) {
		fprintf(stderr, "backtest: %s: %s\n", output, strerror(errno));
		return EXIT_USAGE;
	}
	if (have_gen)
		ret = do_gen(gen, seed, out);
	else if (ticks)
		ret = do_replay(ticks, spec, nspec, out);
	else
		ret = do_sweep(prices, lengths, nlen, kernel, quiet, out);
	if (out != stdout && fclose(out) && !ret) {
		fprintf(stderr, "backtest: %s: %s\n", output, strerror(errno));
		ret = EXIT_USAGE;
	}
	return ret;
}
