// SPDX-License-Identifier: MIT
/*
 * make bench-boundary's C side, through libt2t.so as any host would call it:
 * the reference sweep (150,000 GBM ticks x the 80-length grid) in process
 * on every CPU, on one, one call per length, with the gateway's scalar
 * kernel on one CPU (what t2t-backtest --prices runs), the raw copy of the
 * series as float64 (the study's 1.2 MB), and a day's research pass (16
 * symbols x 40 lengths) against one plain replay of the same day.  Each is
 * repeated and its median printed as "key value" lines for
 * bench/boundary/boundary.py, which makes the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/t2t_api.h"
#include "strategy/gbm.h"
#include "strategy/hma.h"
#include "util/clock.h"

#define TICKS	150000
#define SEED	42
#define NSYM	16
#define NLEN	40

static const char *const syms[NSYM] = {
	"AAPL", "MSFT", "NVDA", "AMZN", "GOOG", "META", "TSLA", "AMD",
	"INTC", "NFLX", "QQQ", "SPY", "CSCO", "ADBE", "PEP", "COST",
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static double median_s(uint64_t *ns, int n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	return (double)ns[n / 2] / 1e9;
}

static void die(t2t *h, int st, const char *what)
{
	fprintf(stderr, "bench_boundary: %s: %s: %s\n", what, t2t_status_name(st),
		h ? t2t_error(h) : "");
	exit(1);
}

static t2t *open_h(uint32_t threads, uint32_t days)
{
	struct t2t_options o = { .threads = threads, .days = days };
	char err[256];
	t2t *h;
	int st = t2t_open(&h, &o, err, sizeof(err));

	if (st) {
		fprintf(stderr, "bench_boundary: t2t_open: %s\n", err);
		exit(1);
	}
	return h;
}

/* One whole sweep: every length in one call, or one call per length. */
static uint64_t sweep_ns(t2t *h, const uint32_t *x, const uint32_t *L, int kernel,
			 int per_length, uint64_t *trades, double *pnl)
{
	uint64_t t0 = mono_ns();
	int st;

	if (per_length) {
		for (unsigned int k = 0; k < HMA_GRID_SIZE; k++)
			if ((st = t2t_sweep_u32(h, x, TICKS, L + k, 1, T2T_FEE_PCT, kernel, trades + k,
						pnl + k)))
				die(h, st, "sweep");
	} else if ((st = t2t_sweep_u32(h, x, TICKS, L, HMA_GRID_SIZE, T2T_FEE_PCT, kernel, trades,
				       pnl))) {
		die(h, st, "sweep");
	}
	return mono_ns() - t0;
}

static void sweeps(int reps)
{
	uint32_t *x = malloc(TICKS * sizeof(*x)), L[HMA_GRID_SIZE];
	double *xd = malloc(TICKS * sizeof(*xd)), *copy = malloc(TICKS * sizeof(*copy));
	uint64_t trades[HMA_GRID_SIZE], ref_trades[HMA_GRID_SIZE], t[5][64];
	double pnl[HMA_GRID_SIZE], ref_pnl[HMA_GRID_SIZE];
	t2t *all = open_h(0, 0), *one = open_h(1, 0);

	if (!x || !xd || !copy || reps > 64)
		exit(1);
	gbm_series(SEED, x, TICKS);
	for (size_t i = 0; i < TICKS; i++)
		xd[i] = x[i] / 1e4;
	for (unsigned int k = 0; k < HMA_GRID_SIZE; k++)
		L[k] = hma_grid_length(k);
	sweep_ns(one, x, L, T2T_KERNEL_SCALAR, 0, ref_trades, ref_pnl);
	for (int r = 0; r < reps; r++) {
		t[0][r] = sweep_ns(all, x, L, T2T_KERNEL_INCREMENTAL, 0, trades, pnl);
		if (memcmp(trades, ref_trades, sizeof(trades)) || memcmp(pnl, ref_pnl, sizeof(pnl))) {
			fprintf(stderr, "bench_boundary: lanes != scalar kernel\n");
			exit(1);
		}
		t[1][r] = sweep_ns(one, x, L, T2T_KERNEL_INCREMENTAL, 0, trades, pnl);
		t[2][r] = sweep_ns(all, x, L, T2T_KERNEL_INCREMENTAL, 1, trades, pnl);
		t[3][r] = r < 3 ? sweep_ns(one, x, L, T2T_KERNEL_SCALAR, 0, trades, pnl) : t[3][0];
		t[4][r] = mono_ns();
		memcpy(copy, xd, TICKS * sizeof(*xd));
		__asm__ volatile("" : : "r"(copy) : "memory");
		t[4][r] = mono_ns() - t[4][r];
	}
	printf("isa %s\nthreads %u\n", t2t_isa(all), t2t_threads(all));
	printf("c_sweep %.6f\nc_sweep_1cpu %.6f\nc_per_length %.6f\nc_scalar_1cpu %.6f\n"
	       "raw_copy %.9f\n", median_s(t[0], reps), median_s(t[1], reps), median_s(t[2], reps),
	       median_s(t[3], reps < 3 ? reps : 3), median_s(t[4], reps));
	t2t_close(all);
	t2t_close(one);
	free(x);
	free(xd);
	free(copy);
}

static void research(const char *day, int reps)
{
	static struct t2t_combo c[NSYM * NLEN];
	static struct t2t_result res[NSYM * NLEN];
	uint64_t tr[64], tp[64];
	struct t2t_day d;
	t2t *h = open_h(1, 1);
	int st;

	for (int s = 0; s < NSYM; s++)
		for (int k = 0; k < NLEN; k++) {
			struct t2t_combo *x = &c[s * NLEN + k];

			snprintf(x->symbol, sizeof(x->symbol), "%s", syms[s]);
			x->length = 6 + 5 * k;
		}
	/* a first reading of each warms the file's pages and the books */
	if ((st = t2t_replay_day(h, day, &d)) ||
	    (st = t2t_research_day(h, day, c, NSYM * NLEN, res, NULL, 0, NULL, &d)))
		die(h, st, day);
	for (int r = 0; r < reps; r++) {
		uint64_t t0 = mono_ns();

		if ((st = t2t_replay_day(h, day, &d)))
			die(h, st, day);
		tp[r] = mono_ns() - t0;
		t0 = mono_ns();
		if ((st = t2t_research_day(h, day, c, NSYM * NLEN, res, NULL, 0, NULL, &d)))
			die(h, st, day);
		tr[r] = mono_ns() - t0;
	}
	printf("day_messages %llu\nday_prints %llu\nreplay %.6f\nresearch %.6f\n",
	       (unsigned long long)d.messages, (unsigned long long)d.prints, median_s(tp, reps),
	       median_s(tr, reps));
	t2t_close(h);
}

int main(int argc, char **argv)
{
	int reps = 9;

	if (argc < 2 || (strcmp(argv[1], "sweep") && strcmp(argv[1], "research")) ||
	    (!strcmp(argv[1], "research") && argc < 3)) {
		fprintf(stderr, "usage: bench_boundary sweep [REPS] | research DAY [REPS]\n");
		return 2;
	}
	if (!strcmp(argv[1], "sweep")) {
		if (argc > 2)
			reps = atoi(argv[2]);
		sweeps(reps < 1 ? 1 : reps > 64 ? 64 : reps);
	} else {
		if (argc > 3)
			reps = atoi(argv[3]);
		research(argv[2], reps < 1 ? 1 : reps > 64 ? 64 : reps);
	}
	return 0;
}
