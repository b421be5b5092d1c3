// SPDX-License-Identifier: MIT
/* Medians, knob pairs, targets and the environment, for both outputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report/view.h"

const char *const view_gateways[3] = { "af_xdp", "udp_spin", "udp_block" };

const char *view_label(const char *resp)
{
	static const struct { const char *resp, *label; } l[] = {
		{ "af_xdp", "gateway AF_XDP" },
		{ "af_xdp_ktcp", "gateway AF_XDP, kernel TCP orders" },
		{ "udp_spin", "gateway UDP spin" },
		{ "udp_block", "gateway UDP blocking" },
		{ "floor_xdp", "floor AF_XDP" },
		{ "floor_udp", "floor UDP spin" },
		{ "sockperf_default", "sockperf ping-pong (RTT)" },
		{ "sockperf_nonblocked", "sockperf --nonblocked (RTT)" },
	};

	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		if (!strcmp(l[i].resp, resp))
			return l[i].label;
	return resp;
}

bool view_of(const struct runs *rs, const char *resp, const char *load, struct view *v)
{
	const struct run *r[VIEW_MAX_RUNS];
	double orders[VIEW_MAX_RUNS];
	unsigned int n = runs_pick(rs, resp, load, NULL, NULL, r, VIEW_MAX_RUNS);

	memset(v, 0, sizeof(*v));
	v->xdp_drops = NAN;
	if (!n)
		return false;
	v->n = n;
	v->is_sockperf = !strcmp(r[0]->kind, "sockperf");
	v->rate = r[0]->rate;
	for (unsigned int i = 0; i < n; i++) {
		v->quiet += !r[i]->disturbed;
		v->failed += r[i]->status != 0;
		orders[i] = v->is_sockperf ? r[i]->rtt.q[Q_COUNT] : (double)r[i]->orders_sent;
		v->lost += (double)r[i]->ticks_sent - (double)r[i]->ticks_decoded;
		if (r[i]->have_xdp)
			v->xdp_drops = (isnan(v->xdp_drops) ? 0 : v->xdp_drops) +
				       (double)r[i]->xdp_drops;
	}
	v->orders = median(orders, n);
	for (int s = 0; s < STAGE_NR; s++)
		dist_median(r, n, s, &v->stage[s]);
	dist_median(r, n, DIST_ORDER, &v->order_stage);
	dist_median(r, n, DIST_RTT, &v->rtt);
	{
		double q[VIEW_MAX_RUNS];

		for (int k = 0; k < Q_NR; k++) {
			unsigned int m = 0;

			for (unsigned int i = 0; i < n; i++)
				if (r[i]->w2w_intended.have)
					q[m++] = r[i]->w2w_intended.q[k];
			v->w2w_intended.q[k] = median(q, m);
			v->w2w_intended.have = m > 0;
		}
	}
	return true;
}

const struct run *view_rep(const struct runs *rs, const char *resp, const char *load,
			   int rep)
{
	for (unsigned int i = 0; i < rs->n; i++) {
		const struct run *r = &rs->r[i];

		if (r->used && r->rep == rep && !strcmp(r->resp, resp) && !strcmp(r->load, load) &&
		    !strcmp(r->knob, "-"))
			return r;
	}
	return NULL;
}

unsigned int knob_rows(const struct runs *rs, struct knob_row *k, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rs->n && n < max; i++) {
		const struct run *r = &rs->r[i];
		char variant[96], *bar;
		bool seen = false;

		if (!strcmp(r->knob, "-") || !r->used)
			continue;
		for (unsigned int j = 0; j < n && !seen; j++)
			seen = !strcmp(k[j].knob, r->knob) && !strcmp(k[j].resp, r->resp) &&
			       !strcmp(k[j].raw, r->variant);
		if (seen)
			continue;
		/* The manifest says "VARIANT|DEFAULT". */
		snprintf(variant, sizeof(variant), "%s", r->variant);
		bar = strchr(variant, '|');
		if (bar)
			*bar = '\0';
		memset(&k[n], 0, sizeof(k[n]));
		snprintf(k[n].knob, sizeof(k[n].knob), "%s", r->knob);
		snprintf(k[n].resp, sizeof(k[n].resp), "%s", r->resp);
		snprintf(k[n].raw, sizeof(k[n].raw), "%s", r->variant);
		snprintf(k[n].variant, sizeof(k[n].variant), "%s", variant);
		snprintf(k[n].dflt, sizeof(k[n].dflt), "%s", bar ? bar + 1 : "default");
		k[n].nb = runs_pick(rs, r->resp, r->load, NULL, NULL, k[n].base, VIEW_MAX_RUNS);
		k[n].nv = runs_pick(rs, r->resp, r->load, r->knob, r->variant, k[n].var,
				    VIEW_MAX_RUNS);
		n++;
	}
	return n;
}

static struct target *add(struct target *t, unsigned int *n, unsigned int max,
			  const char *issue, const char *name, double target, double measured,
			  bool higher)
{
	struct target *x;

	if (*n == max)
		return NULL;
	x = &t[(*n)++];
	memset(x, 0, sizeof(*x));
	snprintf(x->issue, sizeof(x->issue), "%s", issue);
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->target = target;
	x->measured = measured;
	x->higher_is_better = higher;
	x->met = !isnan(measured) && (higher ? measured >= target : measured <= target);
	return x;
}

static double q_of(const struct runs *rs, const char *resp, const char *load, int stage, int q)
{
	struct view v;

	if (!view_of(rs, resp, load, &v))
		return NAN;
	if (stage == DIST_RTT)
		return v.rtt.q[q];
	if (stage == DIST_ORDER)
		return v.order_stage.q[q];
	return v.stage[stage].q[q];
}

static double round2(double x)
{
	return round(x * 100) / 100;
}

/* A zero-loss run: its offered rate when nothing was lost, else 0. */
static void zero_loss(const struct runs *rs, struct target *t, unsigned int *n,
		      unsigned int max, const char *load, const char *name, bool paced)
{
	struct view v;
	struct target *x;
	double m = NAN;

	if (view_of(rs, "af_xdp", load, &v)) {
		const struct run *r[VIEW_MAX_RUNS];

		runs_pick(rs, "af_xdp", load, NULL, NULL, r, VIEW_MAX_RUNS);
		m = v.lost == 0 && v.xdp_drops == 0 ? r[0]->achieved_tps : 0;
		x = add(t, n, max, "6", name, paced ? 990000 : 1000000, round(m), true);
		if (x)
			snprintf(x->note, sizeof(x->note), "%s%.0f/s offered; sent %llu, decoded "
				 "%llu, XDP drops %.0f", paced ? "1 M/s paced, 1 % slack; " : "",
				 r[0]->achieved_tps, (unsigned long long)r[0]->ticks_sent,
				 (unsigned long long)r[0]->ticks_decoded, v.xdp_drops);
	}
}

/* A knob's paired difference (variant minus default) at (stage, q); NaN: no pairs. */
static double knob_diff(const struct runs *rs, const char *knob, const char *resp,
			const char *variant_prefix, int stage, int q, struct paired *p)
{
	static struct knob_row k[64];
	unsigned int n = knob_rows(rs, k, 64);

	for (unsigned int i = 0; i < n; i++) {
		if (strcmp(k[i].knob, knob) || strcmp(k[i].resp, resp) ||
		    strncmp(k[i].variant, variant_prefix, strlen(variant_prefix)))
			continue;
		paired_compare(k[i].base, k[i].nb, k[i].var, k[i].nv, stage, q, p);
		return p->diff;
	}
	p->pairs = 0;
	return NAN;
}

unsigned int targets_eval(const struct runs *rs, struct target *t, unsigned int max)
{
	double gw_g = q_of(rs, "af_xdp", "low", STAGE_HOOK_QUEUED, Q_P50);
	double gw_g99 = q_of(rs, "af_xdp", "low", STAGE_HOOK_QUEUED, Q_P99);
	double fl_g = q_of(rs, "floor_xdp", "low", STAGE_HOOK_QUEUED, Q_P50);
	double w50 = q_of(rs, "af_xdp", "low", STAGE_SEND_ACK, Q_P50);
	double w99 = q_of(rs, "af_xdp", "low", STAGE_SEND_ACK, Q_P99);
	double w999 = q_of(rs, "af_xdp", "low", STAGE_SEND_ACK, Q_P999);
	double fw50 = q_of(rs, "floor_xdp", "low", STAGE_SEND_ACK, Q_P50);
	double fw99 = q_of(rs, "floor_xdp", "low", STAGE_SEND_ACK, Q_P99);
	double spn = q_of(rs, "sockperf_nonblocked", "low", DIST_RTT, Q_P50);
	double spd = q_of(rs, "sockperf_default", "low", DIST_RTT, Q_P50);
	double blk = q_of(rs, "udp_block", "low", STAGE_SEND_ACK, Q_P50);
	double sp_best = isnan(spd) ? spn : isnan(spn) ? spd : fmin(spn, spd);
	unsigned int n = 0;
	struct target *x;

	x = add(t, &n, max, "16", "AF_XDP in-gateway p50 minus the bare AF_XDP responder's (ns)",
		200, round(gw_g - fl_g), false);
	if (x)
		snprintf(x->note, sizeof(x->note), "gateway %.0f, floor %.0f", gw_g, fl_g);
	x = add(t, &n, max, "16", "AF_XDP wire-to-wire p50 / sockperf --nonblocked round trip "
		"p50 (x)", 0.8, round2(w50 / spn), false);
	if (x)
		snprintf(x->note, sizeof(x->note), "%.0f / %.0f ns; the floor's: %.2f", w50, spn,
			 fw50 / spn);
	x = add(t, &n, max, "16", "AF_XDP wire-to-wire p99 / p50 (x)", 3, round2(w99 / w50),
		false);
	if (x)
		snprintf(x->note, sizeof(x->note), "the floor's: %.2f", fw99 / fw50);
	add(t, &n, max, "16", "AF_XDP in-gateway p99 / p50 (x)", 3, round2(gw_g99 / gw_g), false);

	add(t, &n, max, "6", "AF_XDP hook->queued p50 (ns)", 700, round(gw_g), false);
	add(t, &n, max, "6", "AF_XDP hook->queued p99 (ns)", 1500, round(gw_g99), false);
	add(t, &n, max, "6", "AF_XDP seen->queued p50 (ns)", 150,
	    round(q_of(rs, "af_xdp", "low", STAGE_SEEN_QUEUED, Q_P50)), false);
	add(t, &n, max, "6", "AF_XDP wire-to-wire p50 (ns)", 3500, round(w50), false);
	add(t, &n, max, "6", "AF_XDP wire-to-wire p99.9 (ns)", 15000, round(w999), false);
	add(t, &n, max, "6", "AF_XDP wire-to-wire p50 below the best sockperf UDP round trip "
	    "p50 (ns)", round(sp_best), round(w50), false);
	add(t, &n, max, "6", "kernel UDP blocking wire-to-wire p50 / AF_XDP p50 (x)", 2,
	    round2(blk / w50), true);
	{
		double d50 = q_of(rs, "af_xdp", "day", STAGE_HOOK_QUEUED, Q_P50);
		struct day_pairs dp;

		day_pairs_eval(rs, &dp);
		x = isnan(dp.gw_median) ? NULL :
		    add(t, &n, max, "day", "AF_XDP in-gateway p50, real-shaped day / GBM, median "
			"of the repetitions' ratios (x)", 1.3, round2(dp.gw_median), false);
		if (x)
			snprintf(x->note, sizeof(x->note), "%u repetitions, each day run beside its "
				 "GBM run; pooled medians %.0f / %.0f ns, %.2f x; the floor's: %.2f x "
				 "paired, %.0f / %.0f ns pooled", dp.gw_n, d50, gw_g, d50 / gw_g,
				 dp.fl_median, q_of(rs, "floor_xdp", "day", STAGE_HOOK_QUEUED, Q_P50),
				 fl_g);
	}
	zero_loss(rs, t, &n, max, "zl_default", "AF_XDP zero-loss rate, default strategy "
		  "(ticks/s)", true);
	zero_loss(rs, t, &n, max, "zl_q8", "AF_XDP zero-loss rate, HMA 256, the feed on queue 5 "
		  "of 8 served (ticks/s)", true);
	{
		struct paired p;
		double d = knob_diff(rs, "queues", "af_xdp", "8", STAGE_HOOK_QUEUED, Q_P50, &p);

		x = isnan(d) ? NULL :
		    add(t, &n, max, "39", "AF_XDP in-gateway p50, 8 queues served minus 1, paired "
			"(ns)", 30, round(d), false);
		if (x)
			snprintf(x->note, sizeof(x->note), "%u pairs, %.0f against %.0f ns", p.pairs,
				 p.knob, p.base);
		/* The other XDP mode's wire-to-wire minus the default's: the default wins. */
		d = knob_diff(rs, "xdp_mode", "af_xdp", "", STAGE_SEND_ACK, Q_P50, &p);
		x = isnan(d) ? NULL :
		    add(t, &n, max, "39", "AF_XDP wire-to-wire p50, the other XDP mode minus the "
			"default, paired (ns)", 0, round(d), true);
		if (x) {
			struct paired h;

			knob_diff(rs, "xdp_mode", "af_xdp", "", STAGE_HOOK_QUEUED, Q_P50, &h);
			snprintf(x->note, sizeof(x->note), "%u pairs, %.0f against %.0f ns; in-gateway "
				 "p50 %.0f against %.0f ns", p.pairs, p.knob, p.base, h.knob, h.base);
		}
	}
	zero_loss(rs, t, &n, max, "zl_long", "AF_XDP zero-loss rate, HMA 256 (ticks/s)", true);
	zero_loss(rs, t, &n, max, "zl_flat", "AF_XDP zero-loss, flat out, HMA 256 (ticks/s)",
		  false);
	return n;
}

static double rep_p50(const struct runs *rs, const char *resp, const char *load, int rep)
{
	const struct run *r = view_rep(rs, resp, load, rep);

	return r ? r->stage[STAGE_HOOK_QUEUED].q[Q_P50] : NAN;
}

void day_pairs_eval(const struct runs *rs, struct day_pairs *d)
{
	double g[VIEW_MAX_RUNS], f[VIEW_MAX_RUNS];
	int maxrep = 0;

	memset(d, 0, sizeof(*d));
	for (unsigned int i = 0; i < rs->n; i++)
		if (rs->r[i].rep > maxrep)
			maxrep = rs->r[i].rep;
	for (int rep = 1; rep <= maxrep && d->n < VIEW_MAX_RUNS; rep++) {
		struct day_pair *p = &d->p[d->n];

		p->rep = rep;
		p->gw_day = rep_p50(rs, "af_xdp", "day", rep);
		p->gw_gbm = rep_p50(rs, "af_xdp", "low", rep);
		p->fl_day = rep_p50(rs, "floor_xdp", "day", rep);
		p->fl_gbm = rep_p50(rs, "floor_xdp", "low", rep);
		if (isnan(p->gw_day) && isnan(p->fl_day))
			continue;
		p->gw_ratio = p->gw_day / p->gw_gbm;
		p->fl_ratio = p->fl_day / p->fl_gbm;
		if (!isnan(p->gw_ratio))
			g[d->gw_n++] = p->gw_ratio;
		if (!isnan(p->fl_ratio))
			f[d->fl_n++] = p->fl_ratio;
		d->n++;
	}
	d->gw_median = d->gw_n ? median(g, d->gw_n) : NAN;
	d->fl_median = d->fl_n ? median(f, d->fl_n) : NAN;
}

void soup_targets_eval(const struct runs *rs, struct soup_targets *s)
{
	unsigned int n = 0;
	struct target *x;

	s->w2w_own = q_of(rs, "af_xdp", "low", STAGE_SEND_ACK, Q_P50);
	s->w2w_ktcp = q_of(rs, "af_xdp_ktcp", "low", STAGE_SEND_ACK, Q_P50);
	s->w2w_floor = q_of(rs, "floor_xdp", "low", STAGE_SEND_ACK, Q_P50);
	s->rtt_nonblocked = q_of(rs, "sockperf_nonblocked", "low", DIST_RTT, Q_P50);
	s->order_own = q_of(rs, "af_xdp", "low", DIST_ORDER, Q_P50);
	s->order_ktcp = q_of(rs, "af_xdp_ktcp", "low", DIST_ORDER, Q_P50);
	s->order_ratio = round2(s->order_ktcp / s->order_own);

	x = add(s->t, &n, SOUP_NR, "soup", "AF_XDP wire-to-wire p50, own TCP / the floor AF_XDP's "
		"(x)", 1.1, round2(s->w2w_own / s->w2w_floor), false);
	if (x)
		snprintf(x->note, sizeof(x->note), "%.0f / %.0f ns", s->w2w_own, s->w2w_floor);
	x = add(s->t, &n, SOUP_NR, "soup", "AF_XDP wire-to-wire p50, own TCP / sockperf "
		"--nonblocked round trip p50 (x)", 0.8, round2(s->w2w_own / s->rtt_nonblocked),
		false);
	if (x)
		snprintf(x->note, sizeof(x->note), "%.0f / %.0f ns", s->w2w_own,
			 s->rtt_nonblocked);
	x = add(s->t, &n, SOUP_NR, "soup", "AF_XDP wire-to-wire p50, kernel TCP orders / own TCP "
		"(x)", 1.5, round2(s->w2w_ktcp / s->w2w_own), true);
	if (x)
		snprintf(x->note, sizeof(x->note), "%.0f / %.0f ns; the order stage alone, "
			 ORDER_STAGE_NAME " p50: %.0f / %.0f ns, %.2f x", s->w2w_ktcp, s->w2w_own,
			 s->order_ktcp, s->order_own, s->order_ratio);
}

void env_read(const struct runs *rs, struct env_info *e)
{
	char path[300], line[256];
	FILE *f;

	memset(e, 0, sizeof(*e));
	snprintf(path, sizeof(path), "%s/env.txt", rs->dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (e->n < 40 && fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		eq[1 + strcspn(eq + 1, "\n")] = '\0';
		snprintf(e->key[e->n], sizeof(e->key[0]), "%.31s", line);
		snprintf(e->val[e->n], sizeof(e->val[0]), "%.159s", eq + 1);
		e->n++;
	}
	fclose(f);
}

const char *env_get(const struct env_info *e, const char *key)
{
	for (unsigned int i = 0; i < e->n; i++)
		if (!strcmp(e->key[i], key))
			return e->val[i];
	return "?";
}
