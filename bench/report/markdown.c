// SPDX-License-Identifier: MIT
/* The benchmark's tables, in markdown: what README.md quotes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/report.h"
#include "bench/report/view.h"

#define MAXR 64

static void us(FILE *o, double ns)
{
	if (isnan(ns))
		fputs("-", o);
	else
		fprintf(o, "%.2f", ns / 1000);
}

static void us_pair(FILE *o, double a, double b)
{
	us(o, a);
	fputs(" / ", o);
	us(o, b);
}

static void ratio(FILE *o, double x)
{
	if (isnan(x))
		fputs("-", o);
	else
		fprintf(o, "%.2f", x);
}

static void signed_ns(FILE *o, double ns)
{
	if (isnan(ns))
		fputs("-", o);
	else
		fprintf(o, "%+.0f", ns);
}

static void headline_row(FILE *o, const struct runs *rs, const char *resp, const char *load)
{
	struct view v;

	if (!view_of(rs, resp, load, &v))
		return;
	fprintf(o, "| %s | ", view_label(resp));
	if (v.is_sockperf)
		fputs("-", o);
	else
		fprintf(o, "%.0f", v.rate);
	fprintf(o, " | %.0f | ", v.orders);
	if (v.is_sockperf) {
		us(o, v.rtt.q[Q_P50]);
		fputs(" | ", o);
		us(o, v.rtt.q[Q_P90]);
		fputs(" | ", o);
		us(o, v.rtt.q[Q_P99]);
		fputs(" | ", o);
		us(o, v.rtt.q[Q_P999]);
		fputs(" | ", o);
		us(o, v.rtt.q[Q_P9999]);
		fputs(" | - | - | - | - | - | - | - |", o);
	} else {
		const struct dist *w = &v.stage[STAGE_SEND_ACK], *g = &v.stage[STAGE_HOOK_QUEUED];

		for (int q = Q_P50; q <= Q_P9999; q++) {
			us(o, w->q[q]);
			fputs(" | ", o);
		}
		us(o, v.w2w_intended.q[Q_P50]);
		fputs(" | ", o);
		us(o, v.w2w_intended.q[Q_P999]);
		fputs(" | ", o);
		us(o, g->q[Q_P50]);
		fputs(" | ", o);
		us(o, g->q[Q_P99]);
		fputs(" | ", o);
		us(o, g->q[Q_P999]);
		fputs(" | ", o);
		us(o, v.stage[STAGE_SEEN_QUEUED].q[Q_P50]);
		fprintf(o, " | %.0f |", v.lost);
	}
	fprintf(o, " %u of %u%s", v.quiet, v.n, v.quiet < v.n ? " \\*" : "");
	if (v.failed)
		fprintf(o, ", checks failed in %u !", v.failed);
	fputs(" |\n", o);
}

static void headline(FILE *o, const struct runs *rs)
{
	static const char *const low[] = {
		"af_xdp", "af_xdp_ktcp", "floor_xdp", "udp_spin", "floor_udp", "udp_block",
	};

	fputs("| run | ticks/s | orders | w2w p50 | p90 | p99 | p99.9 | p99.99 | from intended p50 "
	      "| p99.9 | in-gw p50 | p99 | p99.9 | seen->queued p50 | lost ticks | quiet reps |\n"
	      "|-----|--------:|-------:|--------:|----:|----:|------:|-------:|------------------:"
	      "|------:|----------:|----:|------:|-----------------:|-----------:|-----------:|\n", o);
	for (size_t i = 0; i < sizeof(low) / sizeof(low[0]); i++)
		headline_row(o, rs, low[i], "low");
	for (size_t i = 0; i < 3; i++)
		headline_row(o, rs, view_gateways[i], "load");
	headline_row(o, rs, "sockperf_default", "low");
	headline_row(o, rs, "sockperf_nonblocked", "low");
}

/* One stage's figure of a view (NaN without one); STAGE_NR: the order stage. */
static double stage_q(const struct view *v, int s, int q)
{
	if (!v)
		return NAN;
	return s == STAGE_NR ? v->order_stage.q[q] : v->stage[s].q[q];
}

/* "| A | B | A - B ": two views' p50 / p99 and the first one's excess. */
static void stage_excess(FILE *o, const struct view *a, const struct view *b, int s)
{
	double a50 = stage_q(a, s, Q_P50), a99 = stage_q(a, s, Q_P99);
	double b50 = stage_q(b, s, Q_P50), b99 = stage_q(b, s, Q_P99);

	fputs("| ", o);
	us_pair(o, a50, a99);
	fputs(" | ", o);
	us_pair(o, b50, b99);
	fputs(" | ", o);
	us_pair(o, a50 - b50, a99 - b99);
	fputs(" ", o);
}

/*
 * Gateway, floor and their excess; the AF_XDP gateway with kernel TCP
 * orders and its excess over the own TCP's; then sockperf, stage by stage,
 * and the order stage last.
 */
static void stages(FILE *o, const struct runs *rs)
{
	struct view gx, gk, fx, gu, fu, sp;
	bool hgx = view_of(rs, "af_xdp", "low", &gx), hfx = view_of(rs, "floor_xdp", "low", &fx);
	bool hgk = view_of(rs, "af_xdp_ktcp", "low", &gk);
	bool hgu = view_of(rs, "udp_spin", "low", &gu), hfu = view_of(rs, "floor_udp", "low", &fu);
	bool hsp = view_of(rs, "sockperf_nonblocked", "low", &sp);

	fputs("| stage | gateway AF_XDP | floor AF_XDP | gateway's excess "
	      "| gateway AF_XDP, kernel TCP orders | kernel TCP's excess over own TCP "
	      "| gateway UDP spin | floor UDP spin | gateway's excess | sockperf --nonblocked |\n"
	      "|-------|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", o);
	for (int s = 0; s <= STAGE_NR; s++) {
		const struct view *k = hgk ? &gk : NULL, *x = hgx ? &gx : NULL;
		double k50 = stage_q(k, s, Q_P50), k99 = stage_q(k, s, Q_P99);

		fprintf(o, "| %s ", s == STAGE_NR ? ORDER_STAGE_NAME " (the order stage)" :
			stage_names[s]);
		stage_excess(o, x, hfx ? &fx : NULL, s);
		fputs("| ", o);
		us_pair(o, k50, k99);
		fputs(" | ", o);
		us_pair(o, k50 - stage_q(x, s, Q_P50), k99 - stage_q(x, s, Q_P99));
		fputs(" ", o);
		stage_excess(o, hgu ? &gu : NULL, hfu ? &fu : NULL, s);
		fputs("| ", o);
		if (s == STAGE_SEND_ACK && hsp)
			us_pair(o, sp.rtt.q[Q_P50], sp.rtt.q[Q_P99]);
		else
			fputs("-", o);
		fputs(" |\n", o);
	}
}

static void us3(FILE *o, const struct dist *d)
{
	us(o, d->q[Q_P50]);
	fputs(" / ", o);
	us(o, d->q[Q_P99]);
	fputs(" / ", o);
	us(o, d->q[Q_P999]);
}

/*
 * The day workload beside the GBM one, stage by stage: the gateway's and
 * the floor's p50 / p99 / p99.9 on each, and the day's excess at p50 (what
 * each stage adds to the day's in-gateway p50).
 */
static void day_stages(FILE *o, const struct runs *rs)
{
	static const int rows[] = {
		STAGE_HOOK_SEEN, STAGE_SEEN_DECIDED, STAGE_DECIDED_QUEUED, STAGE_SEEN_QUEUED,
		STAGE_HOOK_QUEUED, STAGE_QUEUED_SENT, STAGE_SEND_ACK,
	};
	struct view gd, gg, fd, fg;
	bool hgd = view_of(rs, "af_xdp", "day", &gd), hgg = view_of(rs, "af_xdp", "low", &gg);
	bool hfd = view_of(rs, "floor_xdp", "day", &fd), hfg = view_of(rs, "floor_xdp", "low", &fg);

	if (!hgd && !hfd) {
		fputs("(no day runs)\n", o);
		return;
	}
	fprintf(o, "| | gateway AF_XDP, day | gateway AF_XDP, GBM | day's excess p50 | floor AF_XDP, "
		"day | floor AF_XDP, GBM |\n|---|---:|---:|---:|---:|---:|\n"
		"| runs (quiet) | %u (%u) | %u (%u) | | %u (%u) | %u (%u) |\n"
		"| orders per run | %.0f | %.0f | | %.0f | %.0f |\n"
		"| lost (messages, or prints unanswered) | %.0f | %.0f | | %.0f | %.0f |\n",
		gd.n, gd.quiet, gg.n, gg.quiet, fd.n, fd.quiet, fg.n, fg.quiet,
		gd.orders, gg.orders, fd.orders, fg.orders, gd.lost, gg.lost, fd.lost, fg.lost);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int s = rows[i];

		fprintf(o, "| %s | ", stage_names[s]);
		if (hgd)
			us3(o, &gd.stage[s]);
		fputs(" | ", o);
		if (hgg)
			us3(o, &gg.stage[s]);
		fputs(" | ", o);
		us(o, hgd && hgg ? gd.stage[s].q[Q_P50] - gg.stage[s].q[Q_P50] : NAN);
		fputs(" | ", o);
		if (hfd)
			us3(o, &fd.stage[s]);
		fputs(" | ", o);
		if (hfg)
			us3(o, &fg.stage[s]);
		fputs(" |\n", o);
	}
}

/* Each repetition's day run beside its GBM run (view.h's day_pairs). */
static void day_reps(FILE *o, const struct runs *rs)
{
	struct day_pairs d;

	day_pairs_eval(rs, &d);
	if (!d.n)
		return;
	fputs("\nEach repetition, the day beside its GBM run (in-gateway p50, µs; the bench "
	      "runs the gateway's GBM run just before its day run, the floor's just after "
	      "its day run):\n\n| rep | gateway day | gateway GBM | day / GBM | floor day | "
	      "floor GBM | day / GBM |\n|----:|---:|---:|---:|---:|---:|---:|\n", o);
	for (unsigned int i = 0; i < d.n; i++) {
		const struct day_pair *p = &d.p[i];

		fprintf(o, "| %d | ", p->rep);
		us(o, p->gw_day);
		fputs(" | ", o);
		us(o, p->gw_gbm);
		fputs(" | ", o);
		ratio(o, p->gw_ratio);
		fputs(" | ", o);
		us(o, p->fl_day);
		fputs(" | ", o);
		us(o, p->fl_gbm);
		fputs(" | ", o);
		ratio(o, p->fl_ratio);
		fputs(" |\n", o);
	}
	fputs("| median | | | ", o);
	ratio(o, d.gw_median);
	fputs(" | | | ", o);
	ratio(o, d.fl_median);
	fputs(" |\n", o);
}

static const char *verdict(int v)
{
	return v < 0 ? "**lower**" : v > 0 ? "higher" : "no clear effect";
}

static void knobs(FILE *o, const struct runs *rs)
{
	static const int cols[] = {
		STAGE_SEND_HOOK, STAGE_HOOK_SEEN, STAGE_SEEN_QUEUED, STAGE_QUEUED_SENT,
		STAGE_HOOK_QUEUED,
	};
	struct knob_row k[64];
	unsigned int n = knob_rows(rs, k, 64);

	if (!n) {
		fputs("(no knob runs)\n", o);
		return;
	}
	fputs("| knob | responder | variant (default) | pairs | send->hook | hook->seen "
	      "| seen->queued | queued->sent | in-gw (hook->queued) | w2w p50: default -> variant "
	      "| w2w p99 | w2w p50 | in-gw p50 |\n"
	      "|------|-----------|-------------------|------:|---:|---:|---:|---:|---:|---:"
	      "|---:|---|---|\n", o);
	for (unsigned int i = 0; i < n; i++) {
		struct paired p;

		fprintf(o, "| %s | %s | %s (%s) | ", k[i].knob, view_label(k[i].resp),
			k[i].variant, k[i].dflt);
		paired_compare(k[i].base, k[i].nb, k[i].var, k[i].nv, STAGE_SEND_ACK, Q_P50, &p);
		fprintf(o, "%u | ", p.pairs);
		for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			struct paired s;

			paired_compare(k[i].base, k[i].nb, k[i].var, k[i].nv, cols[c], Q_P50, &s);
			signed_ns(o, s.diff);
			fputs(" | ", o);
		}
		us(o, p.base);
		fputs(" -> ", o);
		us(o, p.knob);
		fputs(" | ", o);
		{
			struct paired p99, g;

			paired_compare(k[i].base, k[i].nb, k[i].var, k[i].nv, STAGE_SEND_ACK, Q_P99,
				       &p99);
			us(o, p99.base);
			fputs(" -> ", o);
			us(o, p99.knob);
			paired_compare(k[i].base, k[i].nb, k[i].var, k[i].nv, STAGE_HOOK_QUEUED,
				       Q_P50, &g);
			fprintf(o, " | %s | %s |\n", verdict(p.verdict), verdict(g.verdict));
		}
	}
}

static void repetitions(FILE *o, const struct runs *rs)
{
	static const char *const cols[] = {
		"af_xdp", "af_xdp_ktcp", "floor_xdp", "udp_spin", "floor_udp", "udp_block",
	};
	int maxrep = 0;

	for (unsigned int i = 0; i < rs->n; i++)
		if (rs->r[i].rep > maxrep)
			maxrep = rs->r[i].rep;
	fputs("| rep |", o);
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fprintf(o, " %s w2w p50 / p99 |", view_label(cols[c]));
	fputs(" gateway AF_XDP in-gw p50 / p99 | attempts (quiet) |\n|----:|", o);
	for (size_t c = 0; c <= sizeof(cols) / sizeof(cols[0]); c++)
		fputs("---:|", o);
	fputs("---|\n", o);
	for (int rep = 1; rep <= maxrep; rep++) {
		unsigned int attempts = 0, quiet = 0;
		const struct run *xdp = NULL;

		for (unsigned int i = 0; i < rs->n; i++) {
			const struct run *r = &rs->r[i];

			if (r->rep != rep || strcmp(r->knob, "-") || strcmp(r->load, "low"))
				continue;
			attempts++;
			quiet += !r->disturbed;
		}
		if (!attempts)
			continue;
		fprintf(o, "| %d ", rep);
		for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			const struct run *r = view_rep(rs, cols[c], "low", rep);

			fputs("| ", o);
			if (r)
				us_pair(o, r->stage[STAGE_SEND_ACK].q[Q_P50],
					r->stage[STAGE_SEND_ACK].q[Q_P99]);
			else
				fputs("-", o);
			fputs(r && r->disturbed ? " \\* " : " ", o);
			if (!strcmp(cols[c], "af_xdp"))
				xdp = r;
		}
		fputs("| ", o);
		if (xdp)
			us_pair(o, xdp->stage[STAGE_HOOK_QUEUED].q[Q_P50],
				xdp->stage[STAGE_HOOK_QUEUED].q[Q_P99]);
		else
			fputs("-", o);
		fprintf(o, " | %u (%u) |\n", attempts, quiet);
	}
}

static void machine(FILE *o, const struct runs *rs)
{
	unsigned int attempts = 0, disturbed = 0, kept = 0, samples = 0;
	double k1 = 0;

	for (unsigned int i = 0; i < rs->n; i++) {
		const struct run *r = &rs->r[i];

		attempts++;
		samples += r->mach.samples;
		k1 += r->mach.kernel_cpu1_ms;
		if (!r->disturbed)
			continue;
		disturbed++;
		kept += r->used;
	}
	fprintf(o, "The machine was watched every quarter second (t2t-watch): %u run attempts, "
		"%u samples; %u attempt(s) saw another session use the CPU", attempts, samples,
		disturbed);
	if (!disturbed) {
		fputs(".", o);
	} else {
		fprintf(o, " and were repeated (while the time budget allowed); %u run(s) had no "
			"quiet attempt and are marked \\* (their least disturbed attempt is in the "
			"medians).\n\n", kept);
		fputs("| run | attempt | other sessions' CPU (ms) | busy samples | their commands | taken |\n"
		      "|-----|--------:|----:|----:|-----|---|\n", o);
		for (unsigned int i = 0; i < rs->n; i++) {
			const struct run *r = &rs->r[i];

			if (r->disturbed)
				fprintf(o, "| %s | %d | %.0f | %u of %u | %s | %s |\n", r->name,
					r->attempt, r->mach.other_ms, r->mach.busy, r->mach.samples,
					r->mach.names[0] ? r->mach.names : "-",
					r->used ? "yes (the least disturbed)" : "no");
		}
	}
	fprintf(o, "\nKernel threads on CPU 1 (the hot CPU) ran %.0f ms in all during the runs "
		"(kdamond, kworkers, ksoftirqd, rcu: they preempt the spinning loop).\n", k1);
}

static void zero_loss(FILE *o, const struct runs *rs)
{
	static const char *const loads[] = { "zl_default", "zl_q8", "zl_long", "zl_flat" };
	static const char *const what[] = {
		"1 M/s, default strategy", "1 M/s, HMA 256, the feed on queue 5 of 8",
		"1 M/s, HMA 256 (fewer orders)", "flat out, HMA 256",
	};

	fputs("| run | offered ticks/s | ticks sent | decoded | XDP drops (rx_dropped + ring full "
	      "+ fill ring empty) | orders sent | in-gw p50 / p99 (µs) |\n"
	      "|-----|----------------:|-----------:|--------:|-----:|-----:|-----:|\n", o);
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
		const struct run *r[MAXR];
		unsigned int n = runs_pick(rs, "af_xdp", loads[i], NULL, NULL, r, MAXR);

		if (!n)
			continue;
		fprintf(o, "| %s%s | %.0f | %llu | %llu | %llu | %llu | ", what[i],
			r[0]->disturbed ? " \\*" : "", r[0]->achieved_tps,
			(unsigned long long)r[0]->ticks_sent, (unsigned long long)r[0]->ticks_decoded,
			(unsigned long long)r[0]->xdp_drops, (unsigned long long)r[0]->orders_sent);
		us_pair(o, r[0]->stage[STAGE_HOOK_QUEUED].q[Q_P50],
			r[0]->stage[STAGE_HOOK_QUEUED].q[Q_P99]);
		fputs(" |\n", o);
	}
}

/* A target's figure: whole numbers as such, ratios with two decimals. */
static void figure(FILE *o, double v)
{
	if (isnan(v))
		fputs("-", o);
	else if (v == floor(v))
		fprintf(o, "%.0f", v);
	else
		fprintf(o, "%.2f", v);
}

static void target_rows(FILE *o, const struct target *t, unsigned int n)
{
	fputs("| target | wanted | measured | met |\n|--------|-------:|---------:|-----|\n", o);
	for (unsigned int i = 0; i < n; i++) {
		fprintf(o, "| %s | %s ", t[i].name, t[i].higher_is_better ? ">=" : "<=");
		figure(o, t[i].target);
		fputs(" | ", o);
		figure(o, t[i].measured);
		/* A run left out (--reps 0, --no-day) measured nothing: not a miss. */
		fprintf(o, "%s%s%s | %s |\n", t[i].note[0] ? " (" : "", t[i].note,
			t[i].note[0] ? ")" : "",
			isnan(t[i].measured) ? "not measured" : t[i].met ? "yes" : "**no**");
	}
}

static void targets(FILE *o, const struct runs *rs)
{
	struct target t[32];

	target_rows(o, t, targets_eval(rs, t, 32));
}

static void targets_soup(FILE *o, const struct runs *rs)
{
	struct soup_targets s;

	soup_targets_eval(rs, &s);
	target_rows(o, s.t, SOUP_NR);
}

int report_markdown(const struct runs *rs, FILE *o)
{
	struct env_info env;

	env_read(rs, &env);
	fprintf(o, "Latency in µs: medians over the quiet repetitions of each percentile "
		"(%s repetitions, %s ticks/s, %s ticks per run; the gateway trades, the floor "
		"answers every tick). Wire to wire (w2w) = exchange send -> exchange kernel "
		"arrival of the order (send->ack); from intended = the same from the tick's "
		"scheduled send (coordinated omission); in-gw = XDP hook / kernel receive stamp "
		"-> order on the TX ring (hook->queued). sockperf: round trip. The AF_XDP "
		"gateway sends its orders on its own TCP; \"kernel TCP orders\" is the same "
		"path with them on a kernel TCP socket (--order-stack kernel).\n\n",
		env_get(&env, "reps"), env_get(&env, "low_rate"), env_get(&env, "low_count"));
	headline(o, rs);
	fputs("\n\\* some repetitions were disturbed by another session in every attempt: "
	      "their least disturbed attempt is in the medians (see below). ! the run's "
	      "checks failed (ticks lost, parity, reconciliation, or for a floor an "
	      "unanswered tick): its figures are still in.\n\nPer stage at the low rate, p50 / p99 (µs): gateway, floor (the "
	      "bare responder on the same rig in the same run) and the gateway's excess over it; "
	      "the AF_XDP gateway with kernel TCP orders and its excess over the own TCP's; "
	      "last, the order stage, " ORDER_STAGE_NAME ": from the order built to its send "
	      "returned, each order's decided->queued + queued->sent:\n\n", o);
	stages(o, rs);
	fprintf(o, "\nEach stage includes about one clock read: clock_gettime(CLOCK_MONOTONIC) "
		"back to back on CPU 1 costs p50 %.0f ns (min %.0f, p99 %.0f); nothing is "
		"subtracted.\n\nKnobs, each against the default in the same repetitions "
		"(pairs), low rate: stage columns are the median over pairs of the variant's "
		"p50 minus the default's, ns (negative = the variant is faster); the verdicts "
		"say lower or higher only when every pair agrees and the median moved by more "
		"than 2 %%:\n\n", rs->clock_p50, rs->clock_min, rs->clock_p99);
	knobs(o, rs);
	fputs("\nEach repetition at the low rate (\\* = no quiet attempt):\n\n", o);
	repetitions(o, rs);
	fputc('\n', o);
	machine(o, rs);
	fprintf(o, "\nThe day workload: the AF_XDP gateway trading a real-shaped day replayed at its "
		"own pace (%s), and the floor on the same replay answering the prints the "
		"strategy trades (t2t-backtest's orders on the day), beside the GBM workload of "
		"the same run (one tick per packet at %s ticks/s); p50 / p99 / p99.9, µs. The day "
		"packs what is due together (up to a full packet in a burst): a print's "
		"seen->decided includes decoding and booking the messages before it in its "
		"packet, and hook->seen the packets before it in a burst. The day's feed carries "
		"its time of day: its wire to wire is the simulator's (send of the print -> the "
		"order's arrival).\n\n", env_get(&env, "day"), env_get(&env, "low_rate"));
	day_stages(o, rs);
	day_reps(o, rs);
	fputs("\nSustained rate through AF_XDP (one run each):\n\n", o);
	zero_loss(o, rs);
	fputs("\nTargets:\n\n", o);
	targets(o, rs);
	fputs("\nTargets, orders over SoupBinTCP: the own TCP against the floor, sockperf and "
	      "kernel TCP (low rate, the same run). Kernel TCP against own TCP is decided on "
	      "wire to wire; the order stage (" ORDER_STAGE_NAME ": on the own TCP the segment "
	      "made and put on the TX ring, then the kick; on kernel TCP the send()) is shown "
	      "beside it:\n\n", o);
	targets_soup(o, rs);
	fprintf(o, "\n%s, %s vCPU %s VM, %s, kernel %s\n", env_get(&env, "date"), env_get(&env, "cpus"),
		env_get(&env, "hypervisor"), env_get(&env, "cpu"), env_get(&env, "kernel"));
	return ferror(o) ? -1 : 0;
}
