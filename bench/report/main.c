// SPDX-License-Identifier: MIT
/* t2t-latency-report: the latency benchmark's report (bench/report/report.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/report/jflat.h"
#include "bench/report/report.h"
#include "bench/report/view.h"
#include "util/opt.h"

struct report_cfg {
	const char *md;
	const char *json;
};

#define R(f) OFF(struct report_cfg, f)
static const struct opt opts[] = {
	OPT("md", 0, OPT_STR, R(md), "FILE", "report: the markdown tables (default: stdout)"),
	OPT("json", 0, OPT_STR, R(json), "FILE", "report: the same figures as JSON"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-latency-report",
	.usage = "COMMAND [options] ARGS...",
	.about =
"The latency benchmark's report, from what its run left behind\n"
"(bench/latency-bench.sh; bench/README.md).\n"
"\n"
"Commands:\n"
"  report [--md FILE] [--json FILE] RUNS\n"
"                      tables and JSON from RUNS (manifest.tsv, machine.log,\n"
"                      clock.txt, env.txt and every attempt's files)\n"
"  disturbed LOG NAME  did another session use the machine during run NAME\n"
"                      (machine.log LOG)?  Prints what it saw; exit 1 when\n"
"                      so, 0 when quiet\n"
"  plots RUNS          the capture logs the report took, one line per\n"
"                      responder and load: LOAD RESPONDER FILE...\n"
"  check-floor PREFIX  did a floor run answer every tick (or every print it\n"
"                      was given to answer) with an order the\n"
"                      exchange took (PREFIX.ex.json, PREFIX.floor.json)?\n"
"                      Exit 1 when not\n"
"Options:",
	.more = "Exit status: 0 ok, 1 unreadable runs (or: disturbed), 2 bad usage.\n",
	.opts = opts,
};

static int cmd_disturbed(const char *log, const char *name)
{
	struct machine_use u;

	if (machine_use(log, name, &u)) {
		fprintf(stderr, "t2t-latency-report: %s: no run '%s'\n", log, name);
		return 2;
	}
	printf("other sessions busy in %u of %u samples (%.0f ms of CPU%s%s), kernel threads "
	       "on CPU 1 %.0f ms\n", u.busy, u.samples, u.other_ms, u.names[0] ? ": " : "",
	       u.names, u.kernel_cpu1_ms);
	return machine_disturbed(&u) ? 1 : 0;
}

/* Every tick answered, every answer a valid order of the tick's token. */
static int cmd_check_floor(const char *prefix)
{
	struct jflat ex, fl;
	char path[600], err[700];
	double ticks, answered, received, acked, bad, every, wanted, missed, due;
	int ret = 1;

	snprintf(path, sizeof(path), "%s.ex.json", prefix);
	if (jflat_load(&ex, path, err, sizeof(err))) {
		fprintf(stderr, "t2t-latency-report: %s\n", err);
		return 1;
	}
	snprintf(path, sizeof(path), "%s.floor.json", prefix);
	if (jflat_load(&fl, path, err, sizeof(err))) {
		fprintf(stderr, "t2t-latency-report: %s\n", err);
		jflat_free(&ex);
		return 1;
	}
	ticks = jflat_num(&ex, "ticks", -1);
	received = jflat_num(&ex, "orders.received", -1);
	answered = jflat_num(&fl, "ticks", -1);
	acked = jflat_num(&fl, "orders.acked", -1);
	every = jflat_num(&fl, "answer_every", 1);
	wanted = jflat_num(&fl, "answer_seqs", 0);
	missed = jflat_num(&fl, "want_missed", 0) + jflat_num(&fl, "want_bad", 0);
	/*
	 * A listed print after the close (the closing cross) triggers an order
	 * the exchange refuses as closed: answered, and its refusal is the
	 * right answer.
	 */
	bad = jflat_num(&ex, "orders.rejected", 1) - jflat_num(&ex, "orders.rejects.closed", 0) +
	      jflat_num(&ex, "orders.malformed", 1) +
	      jflat_num(&ex, "orders.unreadable", 1) + jflat_num(&ex, "orders.bad_token", 1) +
	      jflat_num(&ex, "orders.unmatched_seq", 1) +
	      jflat_num(&fl, "orders.send_failed", 1) + jflat_num(&fl, "reply_bad", 1);
	/* The first tick, then one in every: ceil(ticks / every); or each listed print. */
	due = wanted > 0 ? wanted : ceil(ticks / every);
	if (wanted > 0)
		printf("floor %s: %.0f prints listed to answer (%.0f missed or not prints), "
		       "%.0f answered, ", prefix, wanted, missed, answered);
	else
		printf("floor %s: %.0f ticks sent, %.0f answered (one in %.0f), ", prefix, ticks,
		       answered, every);
	printf("%.0f orders at the exchange, %.0f acknowledged; rejected (not as closed), malformed, "
	       "unreadable, bad token, unmatched, send failed, bad replies: %.0f\n", received,
	       acked, bad);
	if ((wanted > 0 || (ticks > 0 && every >= 1)) && answered == due && missed == 0 &&
	    received == answered && acked == answered && bad == 0)
		ret = 0;
	jflat_free(&ex);
	jflat_free(&fl);
	return ret;
}

static int cmd_plots(const struct runs *rs)
{
	static const char *const resp[] = {
		"af_xdp", "af_xdp_ktcp", "floor_xdp", "udp_spin", "floor_udp", "udp_block",
	};
	static const char *const loads[] = { "low", "load" };

	for (size_t l = 0; l < 2; l++) {
		for (size_t i = 0; i < sizeof(resp) / sizeof(resp[0]); i++) {
			const struct run *r[VIEW_MAX_RUNS];
			unsigned int n = runs_pick(rs, resp[i], loads[l], NULL, NULL, r,
						   VIEW_MAX_RUNS);

			if (!n)
				continue;
			printf("%s\t%s", loads[l], resp[i]);
			for (unsigned int k = 0; k < n; k++)
				printf("\t%s.capture.gz", r[k]->prefix);
			putchar('\n');
		}
	}
	return 0;
}

static int write_to(const char *path, const struct runs *rs,
		    int (*fn)(const struct runs *, FILE *))
{
	FILE *f = path ? fopen(path, "w") : stdout;
	int ret;

	if (!f) {
		fprintf(stderr, "t2t-latency-report: %s: %s\n", path, strerror(errno));
		return 1;
	}
	ret = fn(rs, f);
	if (path && fclose(f))
		ret = -1;
	if (ret)
		fprintf(stderr, "t2t-latency-report: %s: write error\n", path ? path : "stdout");
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct report_cfg c = { 0 };
	const char *cmd;
	struct runs rs;
	char err[512];
	int first, ret;

	ret = opt_parse(&prog, &c, argc, argv, &first);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (first >= argc)
		return opt_error(&prog, "no command");
	cmd = argv[first++];
	if (!strcmp(cmd, "disturbed")) {
		if (argc - first != 2)
			return opt_error(&prog, "disturbed wants LOG NAME");
		return cmd_disturbed(argv[first], argv[first + 1]);
	}
	if (!strcmp(cmd, "check-floor")) {
		if (argc - first != 1)
			return opt_error(&prog, "check-floor wants PREFIX");
		return cmd_check_floor(argv[first]);
	}
	if (strcmp(cmd, "report") && strcmp(cmd, "plots"))
		return opt_error(&prog, "unknown command '%s'", cmd);
	if (argc - first != 1)
		return opt_error(&prog, "%s wants RUNS (the run's directory)", cmd);
	if (runs_load(&rs, argv[first], err, sizeof(err))) {
		fprintf(stderr, "t2t-latency-report: %s\n", err);
		return 1;
	}
	if (!strcmp(cmd, "plots")) {
		ret = cmd_plots(&rs);
	} else {
		ret = write_to(c.md, &rs, report_markdown);
		if (!ret && c.json)
			ret = write_to(c.json, &rs, report_json);
	}
	runs_free(&rs);
	return ret;
}
