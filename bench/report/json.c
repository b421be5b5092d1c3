// SPDX-License-Identifier: MIT
/* The same figures as the tables, as JSON (build/bench/latency.json). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/view.h"
#include "util/json.h"

static void num(FILE *o, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", o);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(o, "%.0f", v);
	else
		fprintf(o, "%.3f", v);
}

/* A string from our own files, as JSON (util/json.h's one rule). */
static void str(FILE *o, const char *s)
{
	json_str(o, s);
}

static void dist(FILE *o, const struct dist *d)
{
	if (!d->have) {
		fputs("null", o);
		return;
	}
	fputc('{', o);
	for (int q = 0; q < Q_NR; q++) {
		fprintf(o, "%s\"%s\": ", q ? ", " : "", q_names[q]);
		num(o, d->q[q]);
	}
	fputc('}', o);
}

static void stages(FILE *o, const struct dist *s)
{
	fputc('{', o);
	for (int i = 0; i < STAGE_NR; i++) {
		fprintf(o, "%s\n        \"%s\": ", i ? "," : "", stage_names[i]);
		dist(o, &s[i]);
	}
	fputs("}", o);
}

static void headline(FILE *o, const struct runs *rs)
{
	static const char *const resp[] = {
		"af_xdp", "af_xdp_ktcp", "floor_xdp", "udp_spin", "floor_udp", "udp_block",
		"sockperf_default", "sockperf_nonblocked",
	};
	static const char *const loads[] = {
		"low", "load", "day", "zl_default", "zl_q8", "zl_long", "zl_flat",
	};
	bool first = true;

	fputs("  \"headline\": [", o);
	for (size_t l = 0; l < sizeof(loads) / sizeof(loads[0]); l++) {
		for (size_t i = 0; i < sizeof(resp) / sizeof(resp[0]); i++) {
			struct view v;

			if (!view_of(rs, resp[i], loads[l], &v))
				continue;
			fprintf(o, "%s\n    {\"responder\": ", first ? "" : ",");
			first = false;
			str(o, resp[i]);
			fputs(", \"label\": ", o);
			str(o, view_label(resp[i]));
			fputs(", \"load\": ", o);
			str(o, loads[l]);
			fprintf(o, ", \"runs\": %u, \"quiet\": %u, \"rate\": ", v.n, v.quiet);
			num(o, v.rate);
			fputs(", \"orders_per_run\": ", o);
			num(o, v.orders);
			fputs(", \"ticks_lost\": ", o);
			num(o, v.is_sockperf ? NAN : v.lost);
			fputs(", \"xdp_drops\": ", o);
			num(o, v.xdp_drops);
			if (v.is_sockperf) {
				fputs(", \"rtt\": ", o);
				dist(o, &v.rtt);
			} else {
				fputs(",\n      \"w2w_intended\": ", o);
				dist(o, &v.w2w_intended);
				fputs(",\n      \"stages\": ", o);
				stages(o, v.stage);
				fputs(",\n      \"order_stage\": ", o);
				dist(o, &v.order_stage);
			}
			fputc('}', o);
		}
	}
	fputs("\n  ],\n", o);
}

static void knobs(FILE *o, const struct runs *rs)
{
	struct knob_row k[64];
	unsigned int n = knob_rows(rs, k, 64);

	fputs("  \"knobs\": [", o);
	for (unsigned int i = 0; i < n; i++) {
		struct paired w, g;

		fprintf(o, "%s\n    {\"knob\": ", i ? "," : "");
		str(o, k[i].knob);
		fputs(", \"responder\": ", o);
		str(o, k[i].resp);
		fputs(", \"variant\": ", o);
		str(o, k[i].variant);
		fputs(", \"default\": ", o);
		str(o, k[i].dflt);
		fputs(",\n      \"p50\": {", o);
		for (int s = 0; s < STAGE_NR; s++) {
			struct paired p;

			paired_compare(k[i].base, k[i].nb, k[i].var, k[i].nv, s, Q_P50, &p);
			fprintf(o, "%s\n        \"%s\": {\"pairs\": %u, \"default\": ", s ? "," : "",
				stage_names[s], p.pairs);
			num(o, p.base);
			fputs(", \"variant\": ", o);
			num(o, p.knob);
			fputs(", \"diff\": ", o);
			num(o, p.diff);
			fprintf(o, ", \"verdict\": %d}", p.verdict);
		}
		paired_compare(k[i].base, k[i].nb, k[i].var, k[i].nv, STAGE_SEND_ACK, Q_P99, &w);
		fputs("},\n      \"w2w_p99\": {\"default\": ", o);
		num(o, w.base);
		fputs(", \"variant\": ", o);
		num(o, w.knob);
		fputs(", \"diff\": ", o);
		num(o, w.diff);
		paired_compare(k[i].base, k[i].nb, k[i].var, k[i].nv, STAGE_HOOK_QUEUED, Q_P99, &g);
		fputs("},\n      \"in_gw_p99\": {\"default\": ", o);
		num(o, g.base);
		fputs(", \"variant\": ", o);
		num(o, g.knob);
		fputs(", \"diff\": ", o);
		num(o, g.diff);
		fputs("}}", o);
	}
	fputs("\n  ],\n", o);
}

static void attempts(FILE *o, const struct runs *rs)
{
	fputs("  \"attempts\": [", o);
	for (unsigned int i = 0; i < rs->n; i++) {
		const struct run *r = &rs->r[i];

		fprintf(o, "%s\n    {\"name\": ", i ? "," : "");
		str(o, r->name);
		fprintf(o, ", \"attempt\": %d, \"rep\": %d, \"responder\": ", r->attempt, r->rep);
		str(o, r->resp);
		fputs(", \"load\": ", o);
		str(o, r->load);
		fputs(", \"knob\": ", o);
		str(o, r->knob);
		fputs(", \"variant\": ", o);
		str(o, r->variant);
		fprintf(o, ", \"status\": %d, \"read\": %s, \"disturbed\": %s, \"used\": %s,\n"
			"      \"machine\": {\"samples\": %u, \"busy\": %u, \"other_ms\": %.0f, "
			"\"system_ms\": %.0f, \"kernel_cpu1_ms\": %.0f, \"other_commands\": ",
			r->status, r->loaded ? "true" : "false", r->disturbed ? "true" : "false",
			r->used ? "true" : "false", r->mach.samples, r->mach.busy, r->mach.other_ms,
			r->mach.system_ms, r->mach.kernel_cpu1_ms);
		str(o, r->mach.names);
		fputs("}", o);
		if (r->loaded && strcmp(r->kind, "sockperf")) {
			fputs(",\n      \"w2w\": ", o);
			dist(o, &r->stage[STAGE_SEND_ACK]);
			fputs(",\n      \"in_gw\": ", o);
			dist(o, &r->stage[STAGE_HOOK_QUEUED]);
		} else if (r->loaded) {
			fputs(",\n      \"rtt\": ", o);
			dist(o, &r->rtt);
		}
		if (!r->loaded) {
			fputs(", \"why\": ", o);
			str(o, r->why);
		}
		fputc('}', o);
	}
	fputs("\n  ],\n", o);
}

static void targets(FILE *o, const struct runs *rs)
{
	struct target t[32];
	unsigned int n = targets_eval(rs, t, 32);

	fputs("  \"targets\": [", o);
	for (unsigned int i = 0; i < n; i++) {
		fprintf(o, "%s\n    {\"issue\": ", i ? "," : "");
		str(o, t[i].issue);
		fputs(", \"name\": ", o);
		str(o, t[i].name);
		fputs(", \"target\": ", o);
		num(o, t[i].target);
		fputs(", \"measured\": ", o);
		num(o, t[i].measured);
		fprintf(o, ", \"higher_is_better\": %s, \"met\": %s, \"note\": ",
			t[i].higher_is_better ? "true" : "false", t[i].met ? "true" : "false");
		str(o, t[i].note);
		fputc('}', o);
	}
	fputs("\n  ],\n", o);
}

/* The day workload's repetitions, each beside its GBM run (view.h). */
static void day_pairs(FILE *o, const struct runs *rs)
{
	struct day_pairs d;

	day_pairs_eval(rs, &d);
	fputs("  \"day_pairs\": [", o);
	for (unsigned int i = 0; i < d.n; i++) {
		const struct day_pair *p = &d.p[i];

		fprintf(o, "%s\n    {\"rep\": %d, \"gateway_day_ns\": ", i ? "," : "", p->rep);
		num(o, p->gw_day);
		fputs(", \"gateway_gbm_ns\": ", o);
		num(o, p->gw_gbm);
		fputs(", \"gateway_ratio\": ", o);
		num(o, p->gw_ratio);
		fputs(", \"floor_day_ns\": ", o);
		num(o, p->fl_day);
		fputs(", \"floor_gbm_ns\": ", o);
		num(o, p->fl_gbm);
		fputs(", \"floor_ratio\": ", o);
		num(o, p->fl_ratio);
		fputc('}', o);
	}
	fputs("\n  ],\n", o);
}

static void target_obj(FILE *o, const struct target *t)
{
	fputs("{\"name\": ", o);
	str(o, t->name);
	fprintf(o, ", \"%s\": ", t->higher_is_better ? "wanted_min" : "wanted_max");
	num(o, t->target);
	fputs(", \"measured\": ", o);
	num(o, t->measured);
	fprintf(o, ", \"met\": %s", t->met ? "true" : "false");
}

/* The order session's targets (view.h), each under a name of its own. */
static void targets_soup(FILE *o, const struct runs *rs)
{
	struct soup_targets s;

	soup_targets_eval(rs, &s);
	fputs("  \"targets_soup\": {\n    \"w2w_p50_own_tcp_over_floor_xdp\": ", o);
	target_obj(o, &s.t[SOUP_VS_FLOOR]);
	fputs(", \"af_xdp_ns\": ", o);
	num(o, s.w2w_own);
	fputs(", \"floor_xdp_ns\": ", o);
	num(o, s.w2w_floor);
	fputs("},\n    \"w2w_p50_own_tcp_over_sockperf_nonblocked_rtt\": ", o);
	target_obj(o, &s.t[SOUP_VS_SOCKPERF]);
	fputs(", \"af_xdp_ns\": ", o);
	num(o, s.w2w_own);
	fputs(", \"sockperf_nonblocked_rtt_ns\": ", o);
	num(o, s.rtt_nonblocked);
	fputs("},\n    \"kernel_tcp_over_own_tcp\": ", o);
	target_obj(o, &s.t[SOUP_KTCP_VS_OWN]);
	fputs(", \"decided_on\": \"w2w p50\",\n      \"w2w_p50_ns\": {\"af_xdp_ktcp\": ", o);
	num(o, s.w2w_ktcp);
	fputs(", \"af_xdp\": ", o);
	num(o, s.w2w_own);
	fputs("},\n      \"order_stage\": \"" ORDER_STAGE_NAME "\", \"order_stage_p50_ns\": "
	      "{\"af_xdp_ktcp\": ", o);
	num(o, s.order_ktcp);
	fputs(", \"af_xdp\": ", o);
	num(o, s.order_own);
	fputs("}, \"order_stage_ratio\": ", o);
	num(o, s.order_ratio);
	fputs("}\n  }\n", o);
}

int report_json(const struct runs *rs, FILE *o)
{
	struct env_info env;

	env_read(rs, &env);
	fputs("{\n  \"env\": {", o);
	for (unsigned int i = 0; i < env.n; i++) {
		fputs(i ? ", " : "", o);
		str(o, env.key[i]);
		fputs(": ", o);
		str(o, env.val[i]);
	}
	fputs("},\n  \"clock_read_ns\": {\"min\": ", o);
	num(o, rs->clock_min);
	fputs(", \"p50\": ", o);
	num(o, rs->clock_p50);
	fputs(", \"p99\": ", o);
	num(o, rs->clock_p99);
	fputs("},\n", o);
	headline(o, rs);
	knobs(o, rs);
	attempts(o, rs);
	day_pairs(o, rs);
	targets(o, rs);
	targets_soup(o, rs);
	fputs("}\n", o);
	return ferror(o) ? -1 : 0;
}
