/* SPDX-License-Identifier: MIT */
/*
 * What the report's tables and its JSON both show, computed once: each
 * responder's medians at one load, the knob comparisons, the targets, and
 * the run's environment (env.txt).
 */
#ifndef BENCH_REPORT_VIEW_H
#define BENCH_REPORT_VIEW_H

#include "bench/report/report.h"

#define VIEW_MAX_RUNS 64

/* One responder at one load: medians over its used headline runs. */
struct view {
	unsigned int n;			/* runs */
	unsigned int quiet;		/* of which not disturbed */
	unsigned int failed;		/* of which the run's checks failed */
	bool is_sockperf;
	double rate;
	double orders;			/* per run, median */
	double lost;			/* ticks sent - decoded (floor: answered), summed */
	double xdp_drops;		/* summed; NaN: no XDP */
	struct dist stage[STAGE_NR];
	struct dist order_stage;	/* decided->sent (report.h) */
	struct dist w2w_intended;
	struct dist rtt;
};

extern const char *const view_gateways[3];	/* af_xdp, udp_spin, udp_block */

bool view_of(const struct runs *rs, const char *resp, const char *load, struct view *v);
/* "gateway AF_XDP", "gateway AF_XDP, kernel TCP orders", "floor UDP spin", ... */
const char *view_label(const char *resp);
/* The used headline run of one repetition, or NULL. */
const struct run *view_rep(const struct runs *rs, const char *resp, const char *load,
			   int rep);

/* A knob's variant on one responder, and the default runs it is paired with. */
struct knob_row {
	char knob[24];
	char resp[24];
	char raw[96];			/* the manifest's "VARIANT|DEFAULT" */
	char variant[96];
	char dflt[96];			/* what the default is, for the table */
	const struct run *base[VIEW_MAX_RUNS];
	const struct run *var[VIEW_MAX_RUNS];
	unsigned int nb, nv;
};
unsigned int knob_rows(const struct runs *rs, struct knob_row *k, unsigned int max);

struct target {
	char name[128];
	double target;
	double measured;		/* NaN: not measured */
	bool higher_is_better;
	bool met;
	char issue[8];			/* "16", "6", "soup" */
	char note[256];
};
unsigned int targets_eval(const struct runs *rs, struct target *t, unsigned int max);

/*
 * The day workload against the GBM one, repetition by repetition: in-gateway
 * p50 (hook->queued) of each repetition's day run over its own low-rate GBM
 * run, which the bench runs just before it (the floor's likewise, just
 * after), so that a host that slows for a few minutes slows both sides of a
 * ratio rather than one.  The target is the median of these ratios; the
 * medians of the pooled runs stay beside it.
 */
struct day_pair {
	int rep;
	double gw_day, gw_gbm, fl_day, fl_gbm;	/* ns; NaN: no such run */
	double gw_ratio, fl_ratio;		/* NaN unless both runs are there */
};
struct day_pairs {
	unsigned int n;
	struct day_pair p[VIEW_MAX_RUNS];
	double gw_median, fl_median;		/* of the ratios; NaN: none */
	unsigned int gw_n, fl_n;		/* ratios behind each median */
};
void day_pairs_eval(const struct runs *rs, struct day_pairs *d);

/*
 * The order session's targets (SoupBinTCP over the own TCP against kernel
 * TCP, issue "soup"), from the same run's low-rate medians: AF_XDP wire to
 * wire with the own TCP against the floor's and sockperf --nonblocked's
 * round trip, and the AF_XDP path with its orders on kernel TCP
 * (af_xdp_ktcp) against it, wire to wire (the verdict) and in the order
 * stage alone (decided->sent, shown beside it).
 */
enum { SOUP_VS_FLOOR, SOUP_VS_SOCKPERF, SOUP_KTCP_VS_OWN, SOUP_NR };
struct soup_targets {
	double w2w_own, w2w_ktcp, w2w_floor;	/* send->ack p50, ns (NaN: no run) */
	double rtt_nonblocked;			/* sockperf --nonblocked p50, ns */
	double order_own, order_ktcp;		/* decided->sent p50, ns */
	double order_ratio;			/* order_ktcp / order_own */
	struct target t[SOUP_NR];
};
void soup_targets_eval(const struct runs *rs, struct soup_targets *s);

/* env.txt: key=value lines the run script wrote (date, machine, config). */
struct env_info {
	unsigned int n;
	char key[40][32];
	char val[40][160];
};
void env_read(const struct runs *rs, struct env_info *e);
/* The value, or "?" when absent. */
const char *env_get(const struct env_info *e, const char *key);

#endif /* BENCH_REPORT_VIEW_H */
