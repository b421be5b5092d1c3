// SPDX-License-Identifier: MIT
/*
 * The latency benchmark's report (bench/report/): the flat JSON reader on
 * what our programs write and on bad input, the machine log's verdict per
 * run, sockperf's output, medians (of the stages, the order stage and the
 * round trip) and the knob pairing rule.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bench/report/jflat.h"
#include "bench/report/report.h"

static void test_jflat(void **state)
{
	static const char doc[] =
		"{\n  \"ticks\": 30000, \"achieved_tps\": 9999.5,\n"
		"  \"orders\": {\"received\": 2281, \"rejects\": {\"closed\": 0}},\n"
		"  \"symbols\": [{\"symbol\": \"AAPL\", \"position\": -100}, {\"symbol\": \"MS\\\"FT\"}],\n"
		"  \"ok\": true, \"none\": null, \"esc\": \"a\\u0041\\n\", \"empty\": {}, \"list\": []\n}\n";
	struct jflat j;
	char err[128];

	(void)state;
	assert_int_equal(jflat_parse(&j, doc, err, sizeof(err)), 0);
	assert_string_equal(jflat_get(&j, "ticks"), "30000");
	assert_true(jflat_num(&j, "achieved_tps", 0) == 9999.5);
	assert_true(jflat_num(&j, "orders.received", 0) == 2281);
	assert_true(jflat_num(&j, "orders.rejects.closed", -1) == 0);
	assert_string_equal(jflat_get(&j, "symbols.0.symbol"), "AAPL");
	assert_true(jflat_num(&j, "symbols.0.position", 0) == -100);
	assert_string_equal(jflat_get(&j, "symbols.1.symbol"), "MS\"FT");
	assert_string_equal(jflat_get(&j, "ok"), "true");
	assert_true(isnan(jflat_num(&j, "none", NAN)));
	assert_true(jflat_num(&j, "ok", -7) == -7);	/* not a number */
	assert_true(jflat_num(&j, "absent", -7) == -7);
	assert_string_equal(jflat_get(&j, "esc"), "aA\n");
	assert_true(jflat_has(&j, "orders"));
	assert_true(jflat_has(&j, "orders.rejects"));
	assert_false(jflat_has(&j, "order"));
	assert_null(jflat_get(&j, "orders"));
	jflat_free(&j);

	assert_int_equal(jflat_parse(&j, "{\"a\": 1,}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "expected a key"));
	assert_int_equal(jflat_parse(&j, "{\"a\" 1}", err, sizeof(err)), -1);
	assert_int_equal(jflat_parse(&j, "{\"a\": \"open", err, sizeof(err)), -1);
	assert_int_equal(jflat_parse(&j, "[1, 2] x", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "after the document"));
	assert_int_equal(jflat_parse(&j, "[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]", err,
					 sizeof(err)), -1);
	assert_non_null(strstr(err, "deep"));
	assert_int_equal(jflat_load(&j, "/nonexistent/x.json", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/x.json"));

	/* Too long to keep whole: refused, never cut. */
	{
		static char doc[2048];
		char name[JFLAT_KEY_LEN + 1], val[JFLAT_VAL_LEN + 1];

		memset(name, 'k', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		snprintf(doc, sizeof(doc), "{\"%s\": 1}", name);
		assert_int_equal(jflat_parse(&j, doc, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "longer than"));
		name[JFLAT_KEY_LEN - 10] = '\0';
		snprintf(doc, sizeof(doc), "{\"%s\": {\"abcdefghijkl\": 1}}", name);
		assert_int_equal(jflat_parse(&j, doc, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "key path longer"));
		memset(val, 'v', sizeof(val) - 1);
		val[sizeof(val) - 1] = '\0';
		snprintf(doc, sizeof(doc), "{\"a\": \"%s\"}", val);
		assert_int_equal(jflat_parse(&j, doc, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "longer than"));
		val[JFLAT_VAL_LEN - 1] = '\0';
		snprintf(doc, sizeof(doc), "{\"a\": \"%s\"}", val);
		assert_int_equal(jflat_parse(&j, doc, err, sizeof(err)), 0);
		assert_int_equal(strlen(jflat_get(&j, "a")), JFLAT_VAL_LEN - 1);
		jflat_free(&j);
	}
}

/* A machine log as t2t-watch and the run script write it. */
static void write_log(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("100.00 tick\n"
	      "100.25 tick\n"
	      "100.30 begin quiet#1\n"
	      "100.50 system 1 process_api 10 -\n"
	      "100.50 kernel 78 kdamond.0 10 cpu1\n"
	      "100.50 tick\n"
	      "100.75 tick\n"
	      "100.80 end quiet#1\n"
	      "100.90 begin busy#1\n"
	      "101.00 tick\n"
	      "101.25 other 4242 cc1 120 R\n"
	      "101.25 other 4243 make 10 -\n"
	      "101.25 tick\n"
	      "101.40 end busy#1\n"
	      /* After the end, but before the next sample: still the run's. */
	      "101.50 other 4250 exsim 0 R\n"
	      "101.50 tick\n"
	      "101.70 begin late#1\n"
	      "101.75 tick\n"
	      "101.80 end late#1\n"
	      "102.00 other 4242 cc1 30 -\n"
	      "102.00 tick\n", f);
	fclose(f);
}

static void test_machine(void **state)
{
	char path[] = "/tmp/test_latency_report.XXXXXX";
	struct machine_use u;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_log(path);

	/* 100.50, 100.75 and 101.00 (which covers its last 50 ms). */
	assert_int_equal(machine_use(path, "quiet#1", &u), 0);
	assert_int_equal(u.samples, 3);
	assert_int_equal(u.busy, 0);
	assert_true(u.system_ms == 10 && u.kernel_cpu1_ms == 10 && u.other_ms == 0);
	assert_false(machine_disturbed(&u));

	/* 101.25 counts; 101.50 only saw a runnable process, no CPU time. */
	assert_int_equal(machine_use(path, "busy#1", &u), 0);
	assert_int_equal(u.samples, 3);
	assert_int_equal(u.busy, 1);
	assert_true(u.other_ms == 130);
	assert_string_equal(u.names, "cc1, make");	/* runnable only: not named */
	assert_true(machine_disturbed(&u));

	/* The sample after a run's end covers its last moments. */
	assert_int_equal(machine_use(path, "late#1", &u), 0);
	assert_int_equal(u.samples, 2);
	assert_int_equal(u.busy, 1);

	assert_int_equal(machine_use(path, "absent#1", &u), -1);
	unlink(path);
}

static void test_sockperf(void **state)
{
	static const char out[] =
		"sockperf: == version #3.7-no.git ==\n"
		"sockperf: \x1b[2;35m====> avg-rtt=12.403 (std-dev=3.1)\x1b[0m\n"
		"sockperf: Summary: Round trip is 12.403 usec\n"
		"sockperf: Total 335411 observations; each percentile contains 3354.11 observations\n"
		"sockperf: ---> <MAX> observation = 2387.042\n"
		"sockperf: ---> percentile 99.990 =  100.808\n"
		"sockperf: ---> percentile 99.900 =   20.077\n"
		"sockperf: ---> percentile 99.000 =   15.288\n"
		"sockperf: ---> percentile 90.000 =   13.100\n"
		"sockperf: ---> percentile 50.000 =   12.403\n"
		"sockperf: ---> <MIN> observation =    9.001\n";
	FILE *f = fmemopen((void *)out, sizeof(out) - 1, "r");
	struct dist d;

	(void)state;
	assert_non_null(f);
	assert_true(sockperf_parse(f, &d));
	fclose(f);
	assert_true(d.have);
	assert_true(fabs(d.q[Q_P50] - 12403) < 0.5);
	assert_true(fabs(d.q[Q_P99] - 15288) < 0.5);
	assert_true(fabs(d.q[Q_P9999] - 100808) < 0.5);
	assert_true(fabs(d.q[Q_MAX] - 2387042) < 0.5);
	assert_true(fabs(d.q[Q_MIN] - 9001) < 0.5);
	assert_true(fabs(d.q[Q_MEAN] - 12403) < 0.5);
	assert_true(d.q[Q_COUNT] == 335411);

	f = fmemopen((void *)"sockperf: ERROR: no server\n", 27, "r");
	assert_false(sockperf_parse(f, &d));
	fclose(f);
}

static void test_median(void **state)
{
	double a[] = { 5, 1, 3 }, b[] = { 4, NAN, 1, 2, 3 }, c[] = { NAN };

	(void)state;
	assert_true(median(a, 3) == 3);
	assert_true(median(b, 5) == 2.5);
	assert_true(isnan(median(c, 1)));
	assert_true(isnan(median(c, 0)));
}

static void set_p50(struct run *r, int rep, double v)
{
	memset(r, 0, sizeof(*r));
	r->rep = rep;
	r->stage[STAGE_SEND_ACK].have = true;
	r->stage[STAGE_SEND_ACK].q[Q_P50] = v;
}

static void test_paired(void **state)
{
	struct run base[3], knob[3];
	const struct run *b[3] = { &base[0], &base[1], &base[2] };
	const struct run *k[3] = { &knob[0], &knob[1], &knob[2] };
	struct paired p;

	(void)state;
	set_p50(&base[0], 1, 5000);
	set_p50(&base[1], 2, 6000);
	set_p50(&base[2], 3, 5500);
	/* Lower in every pair, by far more than 2 %: the variant is faster. */
	set_p50(&knob[0], 3, 5000);
	set_p50(&knob[1], 1, 4500);
	set_p50(&knob[2], 2, 5000);
	paired_compare(b, 3, k, 3, STAGE_SEND_ACK, Q_P50, &p);
	assert_int_equal(p.pairs, 3);
	assert_true(p.diff == -500);	/* -500, -1000, -500 */
	assert_true(p.base == 5500 && p.knob == 5000);
	assert_int_equal(p.verdict, -1);

	/* One pair the other way: no clear effect. */
	set_p50(&knob[1], 1, 5100);
	paired_compare(b, 3, k, 3, STAGE_SEND_ACK, Q_P50, &p);
	assert_int_equal(p.verdict, 0);

	/* Higher everywhere, but within 2 %: no clear effect either. */
	set_p50(&knob[0], 3, 5550);
	set_p50(&knob[1], 1, 5050);
	set_p50(&knob[2], 2, 6050);
	paired_compare(b, 3, k, 3, STAGE_SEND_ACK, Q_P50, &p);
	assert_int_equal(p.verdict, 0);
	set_p50(&knob[1], 1, 6000);
	set_p50(&knob[0], 3, 6000);
	set_p50(&knob[2], 2, 7000);
	paired_compare(b, 3, k, 3, STAGE_SEND_ACK, Q_P50, &p);
	assert_int_equal(p.verdict, 1);

	/* A variant without its repetition's default is not paired. */
	set_p50(&knob[2], 4, 7000);
	paired_compare(b, 3, k, 3, STAGE_SEND_ACK, Q_P50, &p);
	assert_int_equal(p.pairs, 2);
}

/* The order stage and the round trip are figures of their own (DIST_ORDER, DIST_RTT). */
static void test_other_dists(void **state)
{
	struct run a, b;
	const struct run *r[2] = { &a, &b };
	struct dist d;

	(void)state;
	set_p50(&a, 1, 9000);
	set_p50(&b, 2, 11000);
	a.order_stage.have = b.order_stage.have = true;
	a.order_stage.q[Q_P50] = 4000;
	b.order_stage.q[Q_P50] = 5000;
	dist_median(r, 2, DIST_ORDER, &d);
	assert_true(d.have && d.q[Q_P50] == 4500);
	dist_median(r, 2, STAGE_SEND_ACK, &d);
	assert_true(d.have && d.q[Q_P50] == 10000);
	/* A run without the figure is not in its median. */
	b.order_stage.have = false;
	dist_median(r, 2, DIST_ORDER, &d);
	assert_true(d.have && d.q[Q_P50] == 4000);
	dist_median(r, 2, DIST_RTT, &d);
	assert_false(d.have);
	assert_true(isnan(d.q[Q_P50]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jflat),
		cmocka_unit_test(test_machine),
		cmocka_unit_test(test_sockperf),
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_paired),
		cmocka_unit_test(test_other_dists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
