/* SPDX-License-Identifier: MIT */
/*
 * t2t-latency-report: the latency benchmark's report, built from what its
 * run left in RUNS (bench/latency-bench.sh):
 *
 *	manifest.tsv	one line per run attempt (columns: see read_manifest())
 *	machine.log	t2t-watch's samples with the run's begin/end lines
 *	clock.txt	t2t-capture clock's line for the hot CPU
 *	<run files>	each attempt's capture log, exsim/responder JSON,
 *			sockperf output, under the prefix its manifest line names
 *
 * A run disturbed by another session (machine.log) was repeated by the run
 * script; the report takes each run's first quiet attempt whose checks
 * passed, else its first quiet one, else its least disturbed one, marked.
 */
#ifndef BENCH_REPORT_REPORT_H
#define BENCH_REPORT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "latency/order_rec.h"

/* The figures of one distribution, ns (sockperf's: converted from us). */
enum { Q_COUNT, Q_MIN, Q_MEAN, Q_P50, Q_P90, Q_P99, Q_P999, Q_P9999, Q_MAX, Q_NR };

extern const char *const q_names[Q_NR];

struct dist {
	bool have;
	double q[Q_NR];
};

/* What else ran during one attempt (machine.log between its begin and end). */
struct machine_use {
	unsigned int samples;		/* watcher samples inside the run */
	unsigned int busy;		/* of which another session used CPU time */
	double other_ms;		/* CPU time other sessions used */
	double system_ms;		/* the machine's own services (session 0) */
	double kernel_cpu1_ms;		/* kernel threads last seen on the hot CPU */
	char names[96];			/* the other sessions' busiest commands */
};

struct run {
	/* From the manifest. */
	char name[128];			/* the run, without the attempt */
	char kind[12];			/* gw, floor, sockperf */
	char resp[24];			/* af_xdp ... floor_xdp ... sockperf_nonblocked */
	char load[16];			/* low, load, zl_default, zl_long, zl_flat */
	double rate;
	uint64_t count;
	int rep;
	char knob[24];			/* "-": a headline run */
	char variant[96];		/* knob runs: "VARIANT|DEFAULT" */
	int attempt;
	int status;			/* the run's exit status (gw: its checks) */
	char prefix[512];		/* its files: PREFIX.capture.gz ... */

	/* Machine. */
	struct machine_use mach;
	bool disturbed;
	bool used;			/* the attempt the report takes for its run */

	/* Figures. */
	bool loaded;
	char why[256];			/* what could not be read */
	struct dist stage[STAGE_NR];
	struct dist order_stage;	/* decided->sent: the order stage, see below */
	struct dist w2w_intended;	/* exsim: kernel arrival - intended send */
	struct dist rtt;		/* sockperf round trip */
	uint64_t ticks_sent, ticks_decoded, orders_sent, orders_exch, xdp_drops;
	double achieved_tps;
	unsigned int max_per_packet;
	bool have_xdp;
};

struct runs {
	struct run *r;
	unsigned int n, cap;
	char dir[256];
	char clock_line[256];
	double clock_p50, clock_min, clock_p99;
};

/* manifest.tsv, then every attempt's machine use and files. */
int runs_load(struct runs *rs, const char *dir, char *err, size_t errlen);
void runs_free(struct runs *rs);

/* machine.log: the use between "begin NAME" and "end NAME" (-1: no such run). */
int machine_use(const char *log, const char *name, struct machine_use *u);
/* Is that use a disturbance?  (Another session used a clock tick of CPU.) */
bool machine_disturbed(const struct machine_use *u);

/* One attempt's files into its figures; false with r->why. */
bool run_read(struct run *r);
/* sockperf's output (escape codes allowed) into a round-trip distribution. */
bool sockperf_parse(FILE *f, struct dist *d);

/*
 * The order stage: from the order built to its send returned (t_sent -
 * t_decided), each order's decided->queued + queued->sent, taken where it
 * has both.  On the own TCP that is the segment made and put on the TX ring,
 * then the kick; on kernel TCP (decided == queued) the send() alone.
 */
#define ORDER_STAGE_NAME "decided->sent"

/* dist_median()'s and paired_compare()'s figures beside the stages. */
enum { DIST_RTT = -1, DIST_ORDER = -2 };

/* Median of n values (NaN skipped); NaN when none. */
double median(double *v, unsigned int n);

/* The used runs of one (responder, load, knob, variant); knob NULL: headline. */
unsigned int runs_pick(const struct runs *rs, const char *resp, const char *load,
		       const char *knob, const char *variant, const struct run **out,
		       unsigned int max);
/* Median over runs of each figure of one distribution (a stage, DIST_RTT or DIST_ORDER). */
void dist_median(const struct run *const *r, unsigned int n, int stage, struct dist *out);

/*
 * A knob against its default, run by run (same repetition): the median of
 * the paired differences of one figure, and the verdict: -1 the knob is
 * lower (better) in every pair by more than 2 % at the median, +1 higher in
 * every pair likewise, 0 no clear effect.
 */
struct paired {
	unsigned int pairs;
	double base, knob;		/* medians */
	double diff;			/* median of knob - base, pair by pair */
	int verdict;
};
void paired_compare(const struct run *const *base, unsigned int nb,
		    const struct run *const *knob, unsigned int nk, int stage, int q,
		    struct paired *p);

/* The outputs. */
int report_markdown(const struct runs *rs, FILE *out);
int report_json(const struct runs *rs, FILE *out);

#endif /* BENCH_REPORT_REPORT_H */
