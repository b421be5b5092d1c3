// SPDX-License-Identifier: MIT
/*
 * Capture log: write -> read round trip of every field, the histograms a
 * reader builds against ones computed here from the timestamps directly,
 * the stage rules, header keys, and the reader's errors on damaged gzip,
 * cut-short files and bad headers or records (with file:line).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "latency/capture.h"

#define NREC 5000

static char tmpdir[] = "/tmp/test_capture.XXXXXX";
static char path[256];
static struct capture_rec recs[NREC];
static struct capture_hists direct, read_back;
static struct capture_reader rd;

static uint64_t rng_state = 12345;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Log-uniform-ish latency in [lo, lo * 2^spread). */
static uint64_t lat(uint64_t lo, unsigned int spread)
{
	return lo + (splitmix64() % (lo << (splitmix64() % (spread + 1))));
}

static void make_records(void)
{
	static const char *const syms[] = { "AAPL", "MSFT", "NVDA", "BRK.B", "X" };
	uint64_t t = 1000000000000ull;

	for (int i = 0; i < NREC; i++) {
		struct capture_rec *r = &recs[i];

		memset(r, 0, sizeof(*r));
		r->order_no = (uint64_t)i;
		r->md_seq = 100 + 7 * (uint64_t)i;
		strcpy(r->symbol, syms[i % 5]);
		r->side = i & 1 ? 'S' : 'B';
		r->shares = 100 * (1 + (uint32_t)(i % 5));
		r->price = 1000000 + (uint32_t)i;
		r->outcome = (uint8_t)(i % ORDER_OUTCOME_NR);
		r->flags = i % 97 == 0 ? ORDER_F_CATCHUP : i % 89 == 0 ? ORDER_F_RETRANS : 0;
		t += 100000;
		r->t.t_send = t;
		r->t.t_hook = r->t.t_send + lat(3000, 3);
		r->t.t_seen = r->t.t_hook + lat(500, 4);
		r->t.t_decided = r->t.t_seen + lat(100, 3);
		r->t.t_queued = r->t.t_decided + lat(30, 2);
		r->t.t_sent = r->t.t_queued + lat(4000, 3);
		r->t.t_ack = r->t.t_queued + lat(2000, 3);
		if (i % 13 == 0)
			r->t.t_ack = 0;	/* no reply */
		if (i % 101 == 0)
			r->t.t_hook = r->t.t_seen = r->t.t_decided = 0;
		if (i % 53 == 0)
			r->t.t_ack = r->t.t_send - 5;	/* clock anomaly: under */
		r->exch_ts = 34200000000000ull + (uint64_t)i * 1000;	/* 09:30 + i us */
	}
}

/* One stage by hand: an end before its start is a clock error, not a value. */
static void put(struct capture_hists *h, int stage, uint64_t a, uint64_t b)
{
	if (b < a)
		h->clock_errors++;
	else
		hdr_record(&h->stage[stage], (int64_t)(b - a));
}

/* The stage rules, spelled out here independently of order_stages(). */
static void hists_direct(struct capture_hists *h, const struct capture_rec *r, int n)
{
	capture_hists_reset(h);
	for (int i = 0; i < n; i++, r++) {
		const struct order_times *t = &r->t;

		h->records++;
		if ((r->flags & ORDER_F_CATCHUP) || r->outcome == ORDER_SEND_FAILED ||
		    !t->t_hook || !t->t_sent)
			continue;
		put(h, STAGE_SEND_HOOK, t->t_send, t->t_hook);
		put(h, STAGE_HOOK_SEEN, t->t_hook, t->t_seen);
		put(h, STAGE_SEEN_DECIDED, t->t_seen, t->t_decided);
		put(h, STAGE_DECIDED_QUEUED, t->t_decided, t->t_queued);
		put(h, STAGE_QUEUED_SENT, t->t_queued, t->t_sent);
		put(h, STAGE_SEEN_QUEUED, t->t_seen, t->t_queued);
		put(h, STAGE_HOOK_QUEUED, t->t_hook, t->t_queued);
		put(h, STAGE_HOOK_SENT, t->t_hook, t->t_sent);
		if (t->t_ack)
			put(h, STAGE_SEND_ACK, t->t_send, t->t_ack);
	}
}

static void assert_hists_equal(const struct capture_hists *a, const struct capture_hists *b)
{
	assert_int_equal(a->records, b->records);
	assert_int_equal(a->clock_errors, b->clock_errors);
	for (int i = 0; i < STAGE_NR; i++)
		assert_memory_equal(&a->stage[i], &b->stage[i], sizeof(a->stage[i]));
}

static void write_file(const char *p, const struct capture_rec *r, int n)
{
	struct capture_writer w;
	struct capture_meta m;

	capture_meta_init(&m, "af_xdp");
	assert_int_equal(capture_meta_set(&m, "rate", "%d", 10000), 0);
	assert_int_equal(capture_meta_set(&m, "note", "a\nb=c"), 0);
	assert_int_equal(capture_open(&w, p, &m), 0);
	for (int i = 0; i < n; i++)
		capture_write(&w, &r[i]);
	assert_int_equal(capture_close(&w), 0);
}

/* Read p completely; -1 on error (message in rd.err). */
static int read_file(const char *p, struct capture_hists *h, struct capture_rec *out,
		     int max)
{
	struct capture_rec r;
	int n = 0, got;

	capture_hists_reset(h);
	if (capture_reader_open(&rd, p))
		return -1;
	while ((got = capture_read(&rd, &r)) > 0) {
		capture_hists_add(h, &r);
		if (out && n < max)
			out[n] = r;
		n++;
	}
	capture_reader_close(&rd);
	return got < 0 ? -1 : n;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/cap.gz", tmpdir);
	make_records();
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

static void test_round_trip(void **state)
{
	static struct capture_rec back[NREC];
	unsigned char magic[2];
	FILE *f;

	(void)state;
	write_file(path, recs, NREC);

	/* gzip on disk */
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(magic, 1, 2, f), 2);
	fclose(f);
	assert_int_equal(magic[0], 0x1f);
	assert_int_equal(magic[1], 0x8b);

	assert_int_equal(read_file(path, &read_back, back, NREC), NREC);
	for (int i = 0; i < NREC; i++)
		assert_memory_equal(&back[i], &recs[i], sizeof(recs[i]));
	assert_string_equal(capture_meta_get(&rd.meta, "path"), "af_xdp");
	assert_string_equal(capture_meta_get(&rd.meta, "rate"), "10000");
	/* a newline in a value cannot break the header */
	assert_string_equal(capture_meta_get(&rd.meta, "note"), "a?b=c");

	hists_direct(&direct, recs, NREC);
	assert_hists_equal(&read_back, &direct);
	/* the exchange's own time of each order's tick travels too (v2) */
	{
		struct capture_rec some[3];

		assert_int_equal(read_file(path, &read_back, some, 3), NREC);
		for (int i = 0; i < 3; i++)
			assert_int_equal(some[i].exch_ts, recs[i].exch_ts);
	}
	/* the clock anomaly is counted, not hidden in a histogram */
	assert_true(read_back.clock_errors > 0);
	assert_int_equal(read_back.stage[STAGE_SEND_ACK].under, 0);
}

static void test_empty_capture(void **state)
{
	(void)state;
	write_file(path, recs, 0);
	assert_int_equal(read_file(path, &read_back, NULL, 0), 0);
	assert_int_equal(read_back.records, 0);
	for (int i = 0; i < STAGE_NR; i++)
		assert_int_equal(hdr_count(&read_back.stage[i]), 0);
}

static void test_odd_fields_sanitised(void **state)
{
	struct capture_rec r = recs[1], back;

	(void)state;
	strcpy(r.symbol, "A,B\tC");
	r.side = ',';
	r.flags = ORDER_F_CATCHUP | ORDER_F_RETRANS;
	write_file(path, &r, 1);
	assert_int_equal(read_file(path, &read_back, &back, 1), 1);
	assert_string_equal(back.symbol, "A?B?C");
	assert_int_equal(back.side, '?');
	assert_int_equal(back.flags, ORDER_F_CATCHUP | ORDER_F_RETRANS);
}

static void test_stage_rules(void **state)
{
	struct capture_rec r = recs[2];
	int64_t v[STAGE_NR];
	unsigned int all = (1u << STAGE_NR) - 1, errs;

	(void)state;
	r.flags = 0;
	r.outcome = ORDER_FILLED;
	assert_int_equal(order_stages(&r.t, r.outcome, r.flags, v, NULL), all);
	assert_int_equal(v[STAGE_HOOK_QUEUED], (int64_t)(r.t.t_queued - r.t.t_hook));
	assert_int_equal(v[STAGE_SEND_ACK], (int64_t)(r.t.t_ack - r.t.t_send));
	r.t.t_ack = 0;
	assert_int_equal(order_stages(&r.t, r.outcome, r.flags, v, NULL), all & ~(1u << STAGE_SEND_ACK));
	r.t.t_send = 0;
	assert_int_equal(order_stages(&r.t, r.outcome, r.flags, v, NULL),
			 all & ~(1u << STAGE_SEND_ACK | 1u << STAGE_SEND_HOOK));
	r = recs[2];
	r.outcome = ORDER_SEND_FAILED;
	assert_int_equal(order_stages(&r.t, r.outcome, r.flags, v, NULL), 0);
	r.outcome = ORDER_FILLED;
	r.flags = ORDER_F_CATCHUP;
	assert_int_equal(order_stages(&r.t, r.outcome, r.flags, v, NULL), 0);
	r.flags = ORDER_F_RETRANS;
	assert_int_equal(order_stages(&r.t, r.outcome, r.flags, v, NULL), all);
	r.t.t_sent = 0;
	assert_int_equal(order_stages(&r.t, r.outcome, r.flags, v, NULL), 0);
	/* An end before its start: left out and counted, never clamped to 0. */
	r = recs[2];
	r.flags = 0;
	r.outcome = ORDER_FILLED;
	r.t.t_ack = r.t.t_send - 1;
	errs = 0;
	assert_int_equal(order_stages(&r.t, r.outcome, r.flags, v, &errs),
			 all & ~(1u << STAGE_SEND_ACK));
	assert_int_equal(errs, 1);
}

static void test_meta(void **state)
{
	struct capture_meta m;
	char key[8];

	(void)state;
	capture_meta_init(&m, "udp_spin");
	assert_int_equal(capture_meta_set(&m, "Bad", "x"), -EINVAL);
	assert_int_equal(capture_meta_set(&m, "", "x"), -EINVAL);
	assert_int_equal(capture_meta_set(&m, "has space", "x"), -EINVAL);
	assert_int_equal(capture_meta_set(&m, "a234567890123456789012345678901", "x"), 0);
	assert_int_equal(capture_meta_set(&m, "a2345678901234567890123456789012", "x"), -EINVAL);
	assert_int_equal(capture_meta_set(&m, "rate", "1"), 0);
	assert_int_equal(capture_meta_set(&m, "rate", "2"), 0);
	assert_string_equal(capture_meta_get(&m, "rate"), "2");
	assert_null(capture_meta_get(&m, "count"));
	while (m.n < CAPTURE_META_MAX) {
		snprintf(key, sizeof(key), "k%u", m.n);
		assert_int_equal(capture_meta_set(&m, key, "v"), 0);
	}
	assert_int_equal(capture_meta_set(&m, "one_more", "v"), -ENOSPC);
}

/* A gzip file holding text, written here as it is (not by the writer). */
static void write_gz_text(const char *p, const char *text)
{
	gzFile gz = gzopen(p, "wb");

	assert_non_null(gz);
	if (*text)
		assert_int_equal(gzwrite(gz, text, (unsigned int)strlen(text)), (int)strlen(text));
	assert_int_equal(gzclose(gz), Z_OK);
}

#define HDR "# t2t-capture v1\n# path=af_xdp\n" \
	"order_no,md_seq,symbol,side,shares,price,outcome,flags,t_send,t_hook,t_seen,t_decided,t_queued,t_sent,t_ack\n"
#define REC "1,2,AAPL,B,100,1000000,filled,-,10,20,30,40,50,60,70\n"

static void expect_error(const char *text, const char *what)
{
	char want[512];

	write_gz_text(path, text);
	assert_int_equal(read_file(path, &read_back, NULL, 0), -1);
	snprintf(want, sizeof(want), "%s:%s", path, what);
	if (!strstr(rd.err, want)) {
		print_error("error '%s' lacks '%s'\n", rd.err, want);
		fail();
	}
}

static void test_bad_headers(void **state)
{
	(void)state;
	expect_error("", "1: empty file");
	expect_error("hello\n", "1: not a t2t capture file");
	expect_error("# t2t-capture v3\n", "1: capture format version 3; this reader knows versions 1 to 2");
	expect_error("# t2t-capture vx\n", "1: bad version");
	expect_error("# t2t-capture v1\n# path=af_xdp\n", "3: ends inside the header");
	expect_error("# t2t-capture v1\n# path=a\n# path=b\n", "3: header key 'path' given twice");
	expect_error("# t2t-capture v1\n# path\n", "2: header line without '='");
	expect_error("# t2t-capture v1\n# Rate=1\n", "2: bad header key 'Rate'");
	expect_error("# t2t-capture v1\n# path=a\norder_no,md_seq\n",
		     "3: expected '# key=value' or the column line");
	expect_error("# t2t-capture v1\n# rate=1\n"
		     "order_no,md_seq,symbol,side,shares,price,outcome,flags,t_send,t_hook,"
		     "t_seen,t_decided,t_queued,t_sent,t_ack\n", "3: the header names no path");
}

static void test_bad_records(void **state)
{
	(void)state;
	/* the good file first, so the rest fail for what they change */
	write_gz_text(path, HDR REC "# end records=1\n");
	assert_int_equal(read_file(path, &read_back, NULL, 0), 1);

	expect_error(HDR REC, "5: no '# end records=N' trailer after 1 records (file cut short?)");
	expect_error(HDR REC "# end records=2\n", "5: trailer says 2 records, the file has 1");
	expect_error(HDR REC "# end records=1\nmore\n", "6: text after the trailer");
	expect_error(HDR REC "# note\n", "5: comment line among the records");
	expect_error(HDR REC "1,2,AAPL\n", "5: 3 fields, expected 15");
	expect_error(HDR "1,2,AAPL,B,100,1000000,filled,-,10,20,30,40,50,60,70,80\n",
		     "4: more than 15 fields");
	expect_error(HDR "x,2,AAPL,B,100,1000000,filled,-,10,20,30,40,50,60,70\n",
		     "4: order_no: not a number: 'x'");
	expect_error(HDR "1,2,AAPL,B,-100,1000000,filled,-,10,20,30,40,50,60,70\n",
		     "4: shares: not a number");
	expect_error(HDR "1,2,AAPL,B,100,4294967296,filled,-,10,20,30,40,50,60,70\n",
		     "4: price: not a number up to 2^32-1");
	expect_error(HDR "1,2,,B,100,1,filled,-,10,20,30,40,50,60,70\n",
		     "4: symbol: 1 to 8 characters");
	expect_error(HDR "1,2,AAPL,BS,100,1,filled,-,10,20,30,40,50,60,70\n",
		     "4: side: one character");
	expect_error(HDR "1,2,AAPL,B,100,1,won,-,10,20,30,40,50,60,70\n",
		     "4: outcome: unknown 'won'");
	expect_error(HDR "1,2,AAPL,B,100,1,filled,catchup+catchup,10,20,30,40,50,60,70\n",
		     "4: flags:");
	expect_error(HDR "1,2,AAPL,B,100,1,filled,-,10,20,30,40,50,60,18446744073709551616\n",
		     "4: t_ack: not a number");
	expect_error(HDR "1,2,AAPL,B,100,1,filled,-,10,20,30,40,50,60,70",
		     "4: last line has no newline (file cut short?)");
}

static void test_long_line(void **state)
{
	static char text[4096];

	(void)state;
	snprintf(text, sizeof(text), "%s", HDR);
	memset(text + strlen(text), '7', 2000);
	strcat(text, "\n");
	expect_error(text, "4: line longer than");
}

/* Cut the writer's file at several places: every cut is an error. */
static void test_truncated_gzip(void **state)
{
	char cut[300];
	long size;
	FILE *f;

	(void)state;
	write_file(path, recs, NREC);
	f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	assert_true(size > 1000);
	snprintf(cut, sizeof(cut), "%s/cut.gz", tmpdir);

	for (long keep = 20; keep < size; keep += size / 7) {
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "head -c %ld '%s' > '%s'", keep, path, cut);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(read_file(cut, &read_back, NULL, 0), -1);
		assert_non_null(strstr(rd.err, cut));
		if (!strstr(rd.err, "gzip:") && !strstr(rd.err, "cut short")) {
			print_error("cut at %ld: unclear error '%s'\n", keep, rd.err);
			fail();
		}
	}
	/* the whole file minus its 8-byte gzip trailer (CRC, size) */
	{
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "head -c %ld '%s' > '%s'", size - 8, path, cut);
		assert_int_equal(system(cmd), 0);
		assert_int_equal(read_file(cut, &read_back, NULL, 0), -1);
		assert_non_null(strstr(rd.err, "gzip:"));
	}
}

static void test_corrupt_gzip(void **state)
{
	char cmd[700];

	(void)state;
	write_file(path, recs, NREC);
	/* flip bytes in the middle of the deflate stream */
	snprintf(cmd, sizeof(cmd),
		 "printf '\\377\\377\\377\\377\\377\\377\\377\\377' | "
		 "dd of='%s' bs=1 seek=5000 conv=notrunc status=none", path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(read_file(path, &read_back, NULL, 0), -1);
	if (!strstr(rd.err, "gzip:")) {
		print_error("unclear error '%s'\n", rd.err);
		fail();
	}
}

static void test_missing_file(void **state)
{
	(void)state;
	assert_int_equal(read_file("/nonexistent/cap.gz", &read_back, NULL, 0), -1);
	assert_string_equal(rd.err, "/nonexistent/cap.gz: No such file or directory");
}

static void test_writer_error(void **state)
{
	struct capture_writer w;
	struct capture_meta m;

	(void)state;
	capture_meta_init(&m, "af_xdp");
	assert_int_equal(capture_open(&w, "/nonexistent/cap.gz", &m), -ENOENT);
	/* a full disk shows at close */
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(capture_open(&w, "/dev/full", &m), 0);
		for (int i = 0; i < NREC; i++)
			capture_write(&w, &recs[i]);
		assert_int_equal(capture_close(&w), -ENOSPC);
	}
}

/* --capture-note KEY=VALUE, as the gateway and t2t-floor take it. */
static void test_capture_notes(void **state)
{
	const char *notes[2];
	unsigned int n = 0;
	char why[128];

	(void)state;
	assert_int_equal(capture_note_add(notes, &n, 2, "rig=p1", why, sizeof(why)), 0);
	assert_int_equal(capture_note_add(notes, &n, 2, "rate=10000", why, sizeof(why)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(notes[1], "rate=10000");
	assert_int_equal(capture_note_add(notes, &n, 2, "x=1", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more than 2"));
	n = 0;
	assert_int_equal(capture_note_add(notes, &n, 2, "novalue", why, sizeof(why)), -1);
	assert_int_equal(capture_note_add(notes, &n, 2, "Bad=1", why, sizeof(why)), -1);
	assert_int_equal(capture_note_add(notes, &n, 2, "=1", why, sizeof(why)), -1);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_empty_capture),
		cmocka_unit_test(test_odd_fields_sanitised),
		cmocka_unit_test(test_stage_rules),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_truncated_gzip),
		cmocka_unit_test(test_corrupt_gzip),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_writer_error),
		cmocka_unit_test(test_capture_notes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
