// SPDX-License-Identifier: MIT
/* Reading the run: the manifest, each attempt's files, and the picks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/report/jflat.h"
#include "bench/report/report.h"
#include "latency/capture.h"
#include "latency/hdr.h"

const char *const q_names[Q_NR] = {
	"count", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "max",
};

/* exsim's JSON names for the same figures. */
static const char *const ex_q_names[Q_NR] = {
	"count", "min", "mean", "p50", "p90", "p99", "p99_9", "p99_99", "max",
};

static const double q_pct[Q_NR] = { 0, 0, 0, 50, 90, 99, 99.9, 99.99, 0 };

static void dist_from_hdr(const struct hdr_hist *h, struct dist *d)
{
	memset(d, 0, sizeof(*d));
	if (!hdr_count(h))
		return;
	d->have = true;
	d->q[Q_COUNT] = (double)hdr_count(h);
	d->q[Q_MIN] = (double)hdr_min(h);
	d->q[Q_MEAN] = hdr_mean(h);
	d->q[Q_MAX] = (double)hdr_max(h);
	for (int q = Q_P50; q <= Q_P9999; q++)
		d->q[q] = (double)hdr_value_at_percentile(h, q_pct[q]);
}

/* The stages, and the order stage (report.h) of every order that has it. */
struct run_hists {
	struct capture_hists c;
	struct hdr_hist order;
};

static void order_stage_add(struct hdr_hist *h, const struct capture_rec *rec)
{
	const unsigned int both = 1u << STAGE_DECIDED_QUEUED | 1u << STAGE_QUEUED_SENT;
	int64_t v[STAGE_NR];

	if ((order_stages(&rec->t, rec->outcome, rec->flags, v, NULL) & both) == both)
		hdr_record(h, v[STAGE_DECIDED_QUEUED] + v[STAGE_QUEUED_SENT]);
}

static bool read_capture(struct run *r, const char *path)
{
	struct run_hists *h = malloc(sizeof(*h));
	struct capture_reader cr;
	struct capture_rec rec;
	int ret;

	if (!h) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return false;
	}
	capture_hists_reset(&h->c);
	hdr_reset(&h->order);
	if (capture_reader_open(&cr, path)) {
		snprintf(r->why, sizeof(r->why), "%.250s", cr.err);
		free(h);
		return false;
	}
	while ((ret = capture_read(&cr, &rec)) == 1) {
		capture_hists_add(&h->c, &rec);
		order_stage_add(&h->order, &rec);
	}
	if (ret < 0)
		snprintf(r->why, sizeof(r->why), "%.250s", cr.err);
	capture_reader_close(&cr);
	for (int s = 0; s < STAGE_NR; s++)
		dist_from_hdr(&h->c.stage[s], &r->stage[s]);
	dist_from_hdr(&h->order, &r->order_stage);
	free(h);
	return ret == 0;
}

static void dist_from_json(const struct jflat *j, const char *key, struct dist *d)
{
	char k[JFLAT_KEY_LEN];

	memset(d, 0, sizeof(*d));
	for (int q = 0; q < Q_NR; q++) {
		snprintf(k, sizeof(k), "%s.%s", key, ex_q_names[q]);
		d->q[q] = jflat_num(j, k, NAN);
	}
	d->have = d->q[Q_COUNT] > 0;
}

static bool read_json(struct run *r, const char *suffix, struct jflat *j)
{
	char path[600];

	snprintf(path, sizeof(path), "%s.%s", r->prefix, suffix);
	return !jflat_load(j, path, r->why, sizeof(r->why));
}

bool sockperf_parse(FILE *f, struct dist *d)
{
	static const struct { const char *pat; int q; } pct[] = {
		{ "percentile 50.000 =", Q_P50 }, { "percentile 90.000 =", Q_P90 },
		{ "percentile 99.000 =", Q_P99 }, { "percentile 99.900 =", Q_P999 },
		{ "percentile 99.990 =", Q_P9999 }, { "<MAX> observation =", Q_MAX },
		{ "<MIN> observation =", Q_MIN },
	};
	char raw[512], line[512];

	memset(d, 0, sizeof(*d));
	for (int q = 0; q < Q_NR; q++)
		d->q[q] = NAN;
	while (fgets(raw, sizeof(raw), f)) {
		const char *p;
		size_t n = 0;

		/* Colour escapes out: ESC [ ... m */
		for (const char *s = raw; *s && n + 1 < sizeof(line); s++) {
			if (*s == '\x1b' && s[1] == '[') {
				s += 2;
				while (*s && *s != 'm')
					s++;
				if (!*s)
					break;
				continue;
			}
			line[n++] = *s;
		}
		line[n] = '\0';
		for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
			p = strstr(line, pct[i].pat);
			if (p)
				d->q[pct[i].q] = strtod(p + strlen(pct[i].pat), NULL) * 1000;
		}
		if ((p = strstr(line, "avg-rtt=")))
			d->q[Q_MEAN] = strtod(p + 8, NULL) * 1000;
		if ((p = strstr(line, "Total ")) && strstr(line, "observations"))
			d->q[Q_COUNT] = strtod(p + 6, NULL);
	}
	d->have = !isnan(d->q[Q_P50]);
	return d->have;
}

bool run_read(struct run *r)
{
	struct jflat ex = { 0 }, resp = { 0 };
	char path[600];
	bool ok = false;

	r->why[0] = '\0';
	if (!strcmp(r->kind, "sockperf")) {
		FILE *f;

		snprintf(path, sizeof(path), "%s.txt", r->prefix);
		f = fopen(path, "r");
		if (!f) {
			snprintf(r->why, sizeof(r->why), "%.200s: %s", path, strerror(errno));
			return false;
		}
		ok = sockperf_parse(f, &r->rtt);
		fclose(f);
		if (!ok)
			snprintf(r->why, sizeof(r->why), "%.200s: no percentiles", path);
		r->loaded = ok;
		return ok;
	}
	snprintf(path, sizeof(path), "%s.capture.gz", r->prefix);
	if (!read_capture(r, path))
		return false;
	if (!read_json(r, "ex.json", &ex))
		goto out;
	if (!read_json(r, strcmp(r->kind, "gw") ? "floor.json" : "gw.json", &resp))
		goto out;
	r->ticks_sent = (uint64_t)jflat_num(&ex, "ticks", 0);
	r->achieved_tps = jflat_num(&ex, "achieved_tps", NAN);
	r->max_per_packet = (unsigned int)jflat_num(&ex, "max_ticks_per_packet", 0);
	r->orders_exch = (uint64_t)jflat_num(&ex, "orders.received", 0);
	dist_from_json(&ex, "wire_to_wire_intended_ns", &r->w2w_intended);
	if (!strcmp(r->load, "day")) {
		/*
		 * A replayed day: every message must be decoded (the gateway) or
		 * every listed print answered (the floor).  The feed carries the
		 * day's time, not this host's clock: wire to wire is the
		 * simulator's own (its send of the print -> the order's arrival).
		 */
		if (!strcmp(r->kind, "gw")) {
			r->ticks_sent = (uint64_t)jflat_num(&ex, "messages", 0);
			r->ticks_decoded = (uint64_t)jflat_num(&resp, "feed.messages", 0);
		} else {
			r->ticks_sent = (uint64_t)jflat_num(&resp, "answer_seqs", 0);
			r->ticks_decoded = (uint64_t)jflat_num(&resp, "ticks", 0);
		}
		r->orders_sent = (uint64_t)jflat_num(&resp, "orders.sent", 0);
		r->max_per_packet = (unsigned int)jflat_num(&ex, "max_msgs_per_packet", 0);
		if (!r->stage[STAGE_SEND_ACK].have)
			dist_from_json(&ex, "wire_to_wire_ns", &r->stage[STAGE_SEND_ACK]);
	} else if (!strcmp(r->kind, "gw")) {
		r->ticks_decoded = (uint64_t)jflat_num(&resp, "feed.ticks", 0);
		r->orders_sent = (uint64_t)jflat_num(&resp, "orders.sent", 0);
	} else {
		/* The floor answers ticks; a packed packet's later ticks go unanswered. */
		r->ticks_decoded = (uint64_t)jflat_num(&resp, "ticks", 0);
		r->orders_sent = (uint64_t)jflat_num(&resp, "orders.sent", 0);
	}
	r->have_xdp = jflat_has(&resp, "xdp");
	if (r->have_xdp)
		r->xdp_drops = (uint64_t)(jflat_num(&resp, "xdp.rx_dropped", 0) +
					  jflat_num(&resp, "xdp.rx_ring_full", 0) +
					  jflat_num(&resp, "xdp.rx_fill_ring_empty", 0));
	ok = true;
out:
	jflat_free(&ex);
	jflat_free(&resp);
	r->loaded = ok;
	return ok;
}

static int split_tabs(char *line, char **f, int max)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

/*
 * manifest.tsv, after a header line:
 * name kind resp load rate count rep knob variant attempt status prefix
 * (prefix relative to the runs directory).
 */
static int read_manifest(struct runs *rs, char *err, size_t errlen)
{
	char path[300], line[1024], *f[12];
	unsigned long ln = 0;
	FILE *in;

	snprintf(path, sizeof(path), "%s/manifest.tsv", rs->dir);
	in = fopen(path, "r");
	if (!in) {
		snprintf(err, errlen, "%s: %s (no runs here: run bench/latency-bench.sh)", path,
			 strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		struct run *r;

		if (++ln == 1 || line[0] == '#')
			continue;
		if (split_tabs(line, f, 12) != 12) {
			snprintf(err, errlen, "%s:%lu: not 12 tab-separated columns", path, ln);
			fclose(in);
			return -1;
		}
		if (rs->n == rs->cap) {
			unsigned int cap = rs->cap ? rs->cap * 2 : 64;
			struct run *n = realloc(rs->r, cap * sizeof(*n));

			if (!n) {
				snprintf(err, errlen, "out of memory");
				fclose(in);
				return -1;
			}
			rs->r = n;
			rs->cap = cap;
		}
		r = &rs->r[rs->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->name, sizeof(r->name), "%s", f[0]);
		snprintf(r->kind, sizeof(r->kind), "%s", f[1]);
		snprintf(r->resp, sizeof(r->resp), "%s", f[2]);
		snprintf(r->load, sizeof(r->load), "%s", f[3]);
		r->rate = strtod(f[4], NULL);
		r->count = strtoull(f[5], NULL, 10);
		r->rep = atoi(f[6]);
		snprintf(r->knob, sizeof(r->knob), "%s", f[7]);
		snprintf(r->variant, sizeof(r->variant), "%s", f[8]);
		r->attempt = atoi(f[9]);
		r->status = atoi(f[10]);
		snprintf(r->prefix, sizeof(r->prefix), "%.255s/%.200s", rs->dir, f[11]);
	}
	fclose(in);
	return 0;
}

/* Is attempt a better pick than b?  Quiet, then checks passed, then less disturbed. */
static bool better(const struct run *a, const struct run *b)
{
	if (!b)
		return true;
	if (a->disturbed != b->disturbed)
		return !a->disturbed;
	if ((a->status == 0) != (b->status == 0))
		return a->status == 0;
	if (a->mach.other_ms != b->mach.other_ms)
		return a->mach.other_ms < b->mach.other_ms;
	return a->attempt < b->attempt;
}

/* Each run's attempt the report takes (report.h). */
static void choose_attempts(struct runs *rs)
{
	for (unsigned int i = 0; i < rs->n; i++) {
		struct run *pick = NULL;
		bool done = false;

		for (unsigned int j = 0; j < i && !done; j++)
			done = !strcmp(rs->r[j].name, rs->r[i].name);
		if (done)
			continue;	/* this name was settled at its first attempt */
		for (unsigned int j = i; j < rs->n; j++) {
			struct run *a = &rs->r[j];

			if (!strcmp(a->name, rs->r[i].name) && a->loaded && better(a, pick))
				pick = a;
		}
		if (pick)
			pick->used = true;
	}
}

/* The number after @label in t2t-capture clock's line; NaN when absent. */
static double figure_after(const char *line, const char *label)
{
	const char *p = strstr(line, label);

	return p ? strtod(p + strlen(label), NULL) : NAN;
}

int runs_load(struct runs *rs, const char *dir, char *err, size_t errlen)
{
	char path[300];
	FILE *f;

	memset(rs, 0, sizeof(*rs));
	snprintf(rs->dir, sizeof(rs->dir), "%s", dir);
	if (read_manifest(rs, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/clock.txt", dir);
	f = fopen(path, "r");
	if (f) {
		if (fgets(rs->clock_line, sizeof(rs->clock_line), f))
			rs->clock_line[strcspn(rs->clock_line, "\n")] = '\0';
		fclose(f);
		rs->clock_min = figure_after(rs->clock_line, ": min ");
		rs->clock_p50 = figure_after(rs->clock_line, " p50 ");
		rs->clock_p99 = figure_after(rs->clock_line, " p99 ");
	}
	snprintf(path, sizeof(path), "%s/machine.log", dir);
	for (unsigned int i = 0; i < rs->n; i++) {
		struct run *r = &rs->r[i];
		char key[160];

		snprintf(key, sizeof(key), "%s#%d", r->name, r->attempt);
		if (machine_use(path, key, &r->mach) == 0)
			r->disturbed = machine_disturbed(&r->mach);
		if (!run_read(r))
			fprintf(stderr, "t2t-latency-report: %s attempt %d left out: %s\n",
				r->name, r->attempt, r->why);
	}
	choose_attempts(rs);
	return 0;
}

void runs_free(struct runs *rs)
{
	free(rs->r);
	memset(rs, 0, sizeof(*rs));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double median(double *v, unsigned int n)
{
	unsigned int m = 0;

	for (unsigned int i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	if (!m)
		return NAN;
	qsort(v, m, sizeof(*v), cmp_double);
	return m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2;
}

unsigned int runs_pick(const struct runs *rs, const char *resp, const char *load,
		       const char *knob, const char *variant, const struct run **out,
		       unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rs->n && n < max; i++) {
		const struct run *r = &rs->r[i];

		if (!r->used || strcmp(r->resp, resp) || strcmp(r->load, load))
			continue;
		if (strcmp(r->knob, knob ? knob : "-"))
			continue;
		if (variant && strcmp(r->variant, variant))
			continue;
		out[n++] = r;
	}
	return n;
}

static const struct dist *dist_of(const struct run *r, int stage)
{
	if (stage == DIST_RTT)
		return &r->rtt;
	if (stage == DIST_ORDER)
		return &r->order_stage;
	return &r->stage[stage];
}

void dist_median(const struct run *const *r, unsigned int n, int stage, struct dist *out)
{
	double v[64];

	memset(out, 0, sizeof(*out));
	if (n > 64)
		n = 64;
	for (int q = 0; q < Q_NR; q++) {
		unsigned int m = 0;

		for (unsigned int i = 0; i < n; i++)
			if (dist_of(r[i], stage)->have)
				v[m++] = dist_of(r[i], stage)->q[q];
		out->q[q] = median(v, m);
		out->have = m > 0;
	}
}

void paired_compare(const struct run *const *base, unsigned int nb,
		    const struct run *const *knob, unsigned int nk, int stage, int q,
		    struct paired *p)
{
	double b[64], k[64], d[64];
	int lower = 0, higher = 0;

	memset(p, 0, sizeof(*p));
	for (unsigned int i = 0; i < nk && p->pairs < 64; i++) {
		for (unsigned int j = 0; j < nb; j++) {
			const struct dist *x = dist_of(base[j], stage), *y = dist_of(knob[i], stage);

			if (base[j]->rep != knob[i]->rep || !x->have || !y->have)
				continue;
			b[p->pairs] = x->q[q];
			k[p->pairs] = y->q[q];
			d[p->pairs] = y->q[q] - x->q[q];
			lower += d[p->pairs] < 0;
			higher += d[p->pairs] > 0;
			p->pairs++;
			break;
		}
	}
	if (!p->pairs) {
		p->base = p->knob = p->diff = NAN;
		return;
	}
	p->base = median(b, p->pairs);
	p->knob = median(k, p->pairs);
	p->diff = median(d, p->pairs);
	if (lower == (int)p->pairs && p->diff < -0.02 * p->base)
		p->verdict = -1;
	else if (higher == (int)p->pairs && p->diff > 0.02 * p->base)
		p->verdict = 1;
}
