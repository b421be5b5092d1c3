// SPDX-License-Identifier: MIT
/*
 * t2t-capture: read the gateway's capture logs.  Percentile table per stage
 * (one file or several merged), CSV export, merge, the percentile
 * distribution the plots are drawn from, and the cost of a clock read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "latency/capture.h"
#include "latency/clock_cost.h"
#include "util/json.h"
#include "util/opt.h"

struct capture_cfg {
	bool json, tsv, force;
	const char *stage;
	const char *out;
	int cpu;
	uint32_t pairs;
};

#define C(f) OFF(struct capture_cfg, f)
static const struct opt opts[] = {
	OPT("json", 0, OPT_FLAG, C(json), NULL, "table: JSON instead of text"),
	OPT("tsv", 0, OPT_FLAG, C(tsv), NULL, "table: tab-separated instead of text"),
	OPT("force", 0, OPT_FLAG, C(force), NULL, "pool files of different paths"),
	OPT("stage", 0, OPT_STR, C(stage), "S", "percentiles: the stage"),
	OPT("out", 'o', OPT_STR, C(out), "OUT", "csv: write here instead of stdout"),
	OPT("cpu", 0, OPT_INT, C(cpu), "N", "clock: pinned to this CPU (-1: not pinned)",
	    .min = -1, .max = 4095),
	OPT("pairs", 0, OPT_U32, C(pairs), "N", "clock: back-to-back reads timed",
	    .min = 1, .max = 100000000),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-capture",
	.usage = "COMMAND [options] FILE...",
	.about =
"Reads capture logs written by t2t-gateway --capture (gzip text; see\n"
"latency/README.md).  Files given together must be of one path (af_xdp,\n"
"udp_spin, udp_block) unless --force; their orders are pooled.\n"
"\n"
"Commands:\n"
"  table [--json|--tsv] FILE...   per-stage latency table (ns): count, min,\n"
"                                 mean, p50, p90, p99, p99.9, p99.99, max\n"
"  csv [-o OUT] FILE...           every order as CSV, with its stage times\n"
"  merge OUT FILE...              one capture file holding every order\n"
"  percentiles [--stage S] FILE...\n"
"                                 percentile distribution of a stage for\n"
"                                 plotting: value (us), percentile, count,\n"
"                                 1/(1-percentile)\n"
"  clock [--cpu N] [--pairs N]    cost of clock_gettime(CLOCK_MONOTONIC) read\n"
"                                 back to back (ns)\n"
"Options:",
	.more =
"Stages: send->hook, hook->seen, seen->decided, decided->queued,\n"
"queued->sent, seen->queued (the loop's work), hook->queued (in-gateway\n"
"tick-to-trade), hook->sent, send->ack (wire to wire).  Each includes about\n"
"one clock read (see 'clock').\n"
"Exit status: 0 ok, 1 a file is unreadable, damaged or not a capture,\n"
"2 bad usage.\n",
	.opts = opts,
};

static const double pcts[] = { 50, 90, 99, 99.9, 99.99 };
#define NPCT (sizeof(pcts) / sizeof(pcts[0]))

/* ---- reading a set of files ---- */

struct pool {
	struct capture_hists *h;
	struct capture_meta meta;	/* merged header */
	unsigned int files;
	uint64_t merged_files;		/* inputs, counting merged ones' */
};

/*
 * Merge one file's header into the pool's: a key every file agrees on keeps
 * its value; where they differ the distinct values are listed, comma
 * separated (cut at the value limit).
 */
static void merge_meta(struct capture_meta *dst, const struct capture_meta *src,
		       bool first)
{
	if (first) {
		*dst = *src;
		return;
	}
	for (unsigned int i = 0; i < src->n; i++) {
		const char *k = src->kv[i].key, *v = src->kv[i].val;
		const char *have = capture_meta_get(dst, k);
		char joined[CAPTURE_VAL_LEN];
		size_t hl, vl;
		const char *p;

		if (!strcmp(k, "merged_files"))
			continue;
		if (!have) {
			capture_meta_set(dst, k, "%s", v);
			continue;
		}
		/* Already listed? */
		vl = strlen(v);
		for (p = have; p; p = strchr(p, ',')) {
			if (*p == ',')
				p++;
			if (!strncmp(p, v, vl) && (p[vl] == ',' || !p[vl]))
				break;
		}
		if (p)
			continue;
		hl = strlen(have);
		if (hl + 1 + vl < sizeof(joined)) {
			memcpy(joined, have, hl);
			joined[hl] = ',';
			memcpy(joined + hl + 1, v, vl + 1);
			capture_meta_set(dst, k, "%s", joined);
		} else if (hl < 3 || strcmp(have + hl - 3, "...")) {
			hl = hl < sizeof(joined) - 4 ? hl : sizeof(joined) - 4;
			memcpy(joined, have, hl);
			memcpy(joined + hl, "...", 4);
			capture_meta_set(dst, k, "%s", joined);
		}
	}
}

typedef int (*rec_fn)(void *ctx, const struct capture_rec *r);

/*
 * Read every file into the pool (and through fn, if given).  Paths must
 * agree unless force.  0, 1 on a bad file (message printed).
 */
static int read_files(struct pool *pl, int nfiles, char **files, bool force,
		      rec_fn fn, void *ctx)
{
	struct capture_reader *rd = malloc(sizeof(*rd));
	int ret = 0;

	if (!rd) {
		fprintf(stderr, "t2t-capture: out of memory\n");
		return 1;
	}
	for (int i = 0; i < nfiles && !ret; i++) {
		struct capture_rec rec;
		const char *path, *mf;
		int got;

		if (capture_reader_open(rd, files[i])) {
			fprintf(stderr, "t2t-capture: %s\n", rd->err);
			ret = 1;
			break;
		}
		path = capture_meta_get(&rd->meta, "path");
		if (pl->files && strcmp(path, capture_meta_get(&pl->meta, "path")) &&
		    !force) {
			fprintf(stderr, "t2t-capture: %s: path %s, but %s is %s: refusing to "
				"pool different paths (--force to do it anyway)\n", files[i],
				path, files[0], capture_meta_get(&pl->meta, "path"));
			capture_reader_close(rd);
			ret = 1;
			break;
		}
		mf = capture_meta_get(&rd->meta, "merged_files");
		pl->merged_files += mf && atoll(mf) > 0 ? (uint64_t)atoll(mf) : 1;
		merge_meta(&pl->meta, &rd->meta, pl->files == 0);
		pl->files++;
		while ((got = capture_read(rd, &rec)) > 0) {
			capture_hists_add(pl->h, &rec);
			if (fn && fn(ctx, &rec)) {
				ret = 1;
				break;
			}
		}
		if (got < 0) {
			fprintf(stderr, "t2t-capture: %s\n", rd->err);
			ret = 1;
		}
		capture_reader_close(rd);
	}
	free(rd);
	return ret;
}

static int pool_init(struct pool *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->h = malloc(sizeof(*pl->h));
	if (!pl->h) {
		fprintf(stderr, "t2t-capture: out of memory\n");
		return 1;
	}
	capture_hists_reset(pl->h);
	return 0;
}

/* ---- table ---- */

static void meta_line(FILE *out, const struct capture_meta *m, const char *key,
		      const char *label)
{
	const char *v = capture_meta_get(m, key);

	if (v)
		fprintf(out, "%s%s", label, v);
}

static void print_table(const struct pool *pl)
{
	const struct capture_meta *m = &pl->meta;

	printf("capture: path %s, %u file(s) (%" PRIu64 " run(s)), %" PRIu64 " orders",
	       capture_meta_get(m, "path"), pl->files, pl->merged_files, pl->h->records);
	meta_line(stdout, m, "rate", ", rate ");
	meta_line(stdout, m, "host", ", host ");
	printf("\n");
	printf("latency per order (ns):\n  %-16s %8s %8s %9s %8s %8s %8s %8s %8s %8s\n",
	       "stage", "count", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "max");
	for (int i = 0; i < STAGE_NR; i++) {
		const struct hdr_hist *h = &pl->h->stage[i];

		printf("  %-16s %8" PRIu64, stage_names[i], hdr_count(h));
		if (hdr_count(h)) {
			printf(" %8" PRId64 " %9.1f", hdr_min(h), hdr_mean(h));
			for (unsigned int j = 0; j < NPCT; j++)
				printf(" %8" PRId64, hdr_value_at_percentile(h, pcts[j]));
			printf(" %8" PRId64, hdr_max(h));
		}
		printf("\n");
	}
	if (capture_meta_get(m, "clock_read_ns_p50"))
		printf("  each stage includes about one clock read: p50 %s ns (min %s) "
		       "back to back on the hot CPU\n", capture_meta_get(m, "clock_read_ns_p50"),
		       capture_meta_get(m, "clock_read_ns_min") ?: "?");
}

static void print_json(const struct pool *pl)
{
	const struct capture_meta *m = &pl->meta;

	printf("{\n  \"files\": %u,\n  \"runs\": %" PRIu64 ",\n  \"orders\": %" PRIu64
	       ",\n  \"header\": {", pl->files, pl->merged_files, pl->h->records);
	for (unsigned int i = 0; i < m->n; i++) {
		printf("%s", i ? ", " : "");
		json_str(stdout, m->kv[i].key);
		printf(": ");
		json_str(stdout, m->kv[i].val);
	}
	printf("},\n  \"latency_ns\": {\n");
	for (int i = 0; i < STAGE_NR; i++) {
		const struct hdr_hist *h = &pl->h->stage[i];

		printf("    \"%s\": {\"count\": %" PRIu64, stage_names[i], hdr_count(h));
		if (hdr_count(h)) {
			printf(", \"min\": %" PRId64 ", \"mean\": %.1f", hdr_min(h), hdr_mean(h));
			for (unsigned int j = 0; j < NPCT; j++)
				printf(", \"p%g\": %" PRId64, pcts[j],
				       hdr_value_at_percentile(h, pcts[j]));
			printf(", \"max\": %" PRId64 ", \"under\": %" PRIu64 ", \"over\": %" PRIu64,
			       hdr_max(h), h->under, h->over);
		}
		printf("}%s\n", i + 1 < STAGE_NR ? "," : "");
	}
	printf("  }\n}\n");
}

static void print_tsv(const struct pool *pl)
{
	printf("stage\tcount\tmin\tmean\tp50\tp90\tp99\tp99.9\tp99.99\tmax\n");
	for (int i = 0; i < STAGE_NR; i++) {
		const struct hdr_hist *h = &pl->h->stage[i];

		printf("%s\t%" PRIu64 "\t%" PRId64 "\t%.1f", stage_names[i],
		       hdr_count(h), hdr_min(h), hdr_mean(h));
		for (unsigned int j = 0; j < NPCT; j++)
			printf("\t%" PRId64, hdr_value_at_percentile(h, pcts[j]));
		printf("\t%" PRId64 "\n", hdr_max(h));
	}
}

/* ---- csv ---- */

static int csv_rec(void *ctx, const struct capture_rec *r)
{
	FILE *out = ctx;
	int64_t v[STAGE_NR];
	unsigned int mask = order_stages(&r->t, r->outcome, r->flags, v, NULL);
	char flags[64];

	capture_flags_text(r->flags, flags, sizeof(flags));
	fprintf(out, "%" PRIu64 ",%" PRIu64 ",%s,%c,%u,%u,%s,%s,%" PRIu64 ",%"
		PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		r->order_no, r->md_seq, r->symbol, r->side, r->shares, r->price,
		order_outcome_names[r->outcome], flags, r->t.t_send, r->t.t_hook, r->t.t_seen, r->t.t_decided, r->t.t_queued, r->t.t_sent,
		r->t.t_ack);
	for (int i = 0; i < STAGE_NR; i++) {
		if (mask & (1u << i))
			fprintf(out, ",%" PRId64, v[i]);
		else
			fputc(',', out);
	}
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

static int cmd_csv(const char *out_path, int nfiles, char **files, bool force)
{
	struct pool pl;
	FILE *out = stdout;
	int ret;

	if (pool_init(&pl))
		return 1;
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			fprintf(stderr, "t2t-capture: %s: %s\n", out_path, strerror(errno));
			free(pl.h);
			return 1;
		}
	}
	fprintf(out, "order_no,md_seq,symbol,side,shares,price,outcome,flags,t_send,t_hook,"
		"t_seen,t_decided,t_queued,t_sent,t_ack");
	for (int i = 0; i < STAGE_NR; i++) {
		const char *n = stage_names[i];
		const char *arrow = strstr(n, "->");

		fprintf(out, ",%.*s_%s_ns", (int)(arrow - n), n, arrow + 2);
	}
	fputc('\n', out);
	ret = read_files(&pl, nfiles, files, force, csv_rec, out);
	if (out != stdout ? fclose(out) : fflush(out)) {
		fprintf(stderr, "t2t-capture: %s: %s\n", out_path ?: "stdout", strerror(errno));
		ret = 1;
	}
	free(pl.h);
	return ret;
}

/* ---- merge ---- */

static int merge_rec(void *ctx, const struct capture_rec *r)
{
	capture_write(ctx, r);
	return 0;
}

/*
 * Two passes: the headers first (the merged header leads the output), then
 * the records.  The inputs are checked completely before OUT is created.
 */
static int cmd_merge(const char *out_path, int nfiles, char **files, bool force)
{
	struct capture_writer w;
	struct pool pl, pass2;
	int ret;

	for (int i = 0; i < nfiles; i++)
		if (!strcmp(files[i], out_path))
			return opt_error(&prog, "merge: the output '%s' is also an input", out_path);
	if (pool_init(&pl))
		return 1;
	ret = read_files(&pl, nfiles, files, force, NULL, NULL);
	if (ret)
		goto out;
	if (force && strchr(capture_meta_get(&pl.meta, "path"), ','))
		capture_meta_set(&pl.meta, "path", "mixed");
	capture_meta_set(&pl.meta, "merged_files", "%" PRIu64, pl.merged_files);
	ret = capture_open(&w, out_path, &pl.meta);
	if (ret) {
		fprintf(stderr, "t2t-capture: %s: %s\n", out_path, strerror(-ret));
		ret = 1;
		goto out;
	}
	if (pool_init(&pass2)) {
		capture_close(&w);
		ret = 1;
		goto out;
	}
	ret = read_files(&pass2, nfiles, files, force, merge_rec, &w);
	free(pass2.h);
	if (capture_close(&w) && !ret) {
		fprintf(stderr, "t2t-capture: %s: write failed\n", out_path);
		ret = 1;
	}
	if (ret)
		unlink(out_path);
	else
		printf("t2t-capture: %s: %" PRIu64 " orders from %d file(s)\n", out_path,
		       pl.h->records, nfiles);
out:
	free(pl.h);
	return ret;
}

/* ---- percentiles ---- */

/*
 * HdrHistogram's percentile distribution: five points per halving of the
 * distance to 100%, up to where the count runs out, then the max.
 */
static void print_percentiles(const struct hdr_hist *h, const char *stage,
			      const char *path)
{
	uint64_t total = hdr_count(h);

	printf("# t2t-capture percentiles: stage %s, path %s, %" PRIu64 " values\n",
	       stage, path, total);
	printf("# %10s %12s %10s %16s\n", "value_us", "percentile", "count", "1/(1-p)");
	if (!total)
		return;
	for (unsigned int k = 0; k < 64; k++) {
		double base = 100.0 * (1.0 - 1.0 / (double)(1ull << k));
		double step = 100.0 / (double)(1ull << (k + 1)) / 5.0;
		bool stop = false;

		for (unsigned int j = 0; j < 5; j++) {
			double p = base + step * j;
			double inv = 1.0 / (1.0 - p / 100.0);

			if (inv > (double)total) {
				stop = true;
				break;
			}
			printf("  %10.3f %12.6f %10" PRIu64 " %16.2f\n",
			       (double)hdr_value_at_percentile(h, p) / 1000.0, p,
			       hdr_percentile_rank(total, p), inv);
		}
		if (stop)
			break;
	}
	/* The max, at the last rank's place. */
	printf("  %10.3f %12.6f %10" PRIu64 " %16.2f\n", (double)hdr_max(h) / 1000.0,
	       100.0 * (1.0 - 1.0 / (double)total), total, (double)total);
}

static int stage_index(const char *name)
{
	for (int i = 0; i < STAGE_NR; i++)
		if (!strcmp(name, stage_names[i]))
			return i;
	return -1;
}

/* ---- clock ---- */

static int cmd_clock(int cpu, unsigned int pairs)
{
	struct hdr_hist *h = malloc(sizeof(*h));
	int ret;

	if (!h)
		return 1;
	ret = clock_cost_measure(cpu, pairs, h);
	if (ret) {
		fprintf(stderr, "t2t-capture: clock: cannot run on CPU %d: %s\n", cpu,
			strerror(-ret));
		free(h);
		return 1;
	}
	printf("clock read (CLOCK_MONOTONIC, back to back, CPU %d, %u pairs): min %" PRId64
	       " ns, mean %.1f, p50 %" PRId64 ", p90 %" PRId64 ", p99 %" PRId64 ", p99.9 %"
	       PRId64 ", max %" PRId64 "\n", cpu, pairs, hdr_min(h), hdr_mean(h),
	       hdr_value_at_percentile(h, 50), hdr_value_at_percentile(h, 90),
	       hdr_value_at_percentile(h, 99), hdr_value_at_percentile(h, 99.9),
	       hdr_max(h));
	free(h);
	return 0;
}

int main(int argc, char **argv)
{
	struct capture_cfg c = { .stage = "send->ack", .cpu = -1, .pairs = 1000000 };
	const char *cmd;
	struct pool pl;
	int ret, si, first;

	if (argc < 2)
		return opt_error(&prog, "a command is needed: table, csv, merge, "
				 "percentiles, clock");
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		opt_usage(&prog, &c, stdout);
		return 0;
	}
	if (strcmp(cmd, "table") && strcmp(cmd, "csv") && strcmp(cmd, "merge") &&
	    strcmp(cmd, "percentiles") && strcmp(cmd, "clock"))
		return opt_error(&prog, "unknown command '%s'", cmd);
	/* The command stands where a program name would for the parser. */
	ret = opt_parse(&prog, &c, argc - 1, argv + 1, &first);
	if (ret)
		return ret == 1 ? 0 : ret;
	argc -= first + 1;
	argv += first + 1;

	if (!strcmp(cmd, "clock")) {
		if (argc)
			return opt_error(&prog, "clock takes no file: '%s'", argv[0]);
		return cmd_clock(c.cpu, c.pairs);
	}
	if (!strcmp(cmd, "merge")) {
		if (argc < 2)
			return opt_error(&prog, "merge wants OUT and at least one FILE");
		return cmd_merge(argv[0], argc - 1, argv + 1, c.force);
	}
	if (!argc)
		return opt_error(&prog, "%s: which file(s)?", cmd);
	if (!strcmp(cmd, "csv"))
		return cmd_csv(c.out, argc, argv, c.force);

	if (c.json && c.tsv)
		return opt_error(&prog, "--json or --tsv, not both");
	si = stage_index(c.stage);
	if (si < 0)
		return opt_error(&prog, "unknown stage '%s' (see --help)", c.stage);
	if (pool_init(&pl))
		return 1;
	ret = read_files(&pl, argc, argv, c.force, NULL, NULL);
	if (!ret) {
		if (!strcmp(cmd, "percentiles"))
			print_percentiles(&pl.h->stage[si], c.stage,
					  capture_meta_get(&pl.meta, "path"));
		else if (c.json)
			print_json(&pl);
		else if (c.tsv)
			print_tsv(&pl);
		else
			print_table(&pl);
		if (fflush(stdout)) {
			fprintf(stderr, "t2t-capture: stdout: %s\n", strerror(errno));
			ret = 1;
		}
	}
	free(pl.h);
	return ret;
}
