// SPDX-License-Identifier: MIT
/*
 * The day generator: the same bytes for the same seed (and other bytes for
 * another), the real day's mix within a few percent, every ITCH type, the
 * shape of the day (system events, directory before orders, crosses),
 * timestamps increasing inside the day, and only valid events: replayed
 * through a separate book it counts nothing impossible, no book ever
 * crosses, every E and C executes an order at the best level, and the
 * replayed book ends equal to the generator's.  Also the file it writes.
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
#include <cmocka.h>

#include "book/book_apply.h"
#include "book/daygen.h"
#include "proto/dayfile.h"

static uint64_t fnv_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Hash of every byte of a day, frames included. */
static uint64_t day_hash(uint64_t messages, uint32_t symbols, uint64_t seed)
{
	struct daygen_config c = { .messages = messages, .symbols = symbols, .seed = seed,
				   .max_orders = 1u << 16 };
	struct daygen *g;
	uint8_t buf[DAYGEN_MSG_MAX], pre[2];
	uint64_t h = 0xcbf29ce484222325ull;
	char err[256];
	uint16_t len;

	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), 0);
	while ((len = daygen_next(g, buf))) {
		be16_store(pre, len);
		h = fnv_bytes(h, pre, 2);
		h = fnv_bytes(h, buf, len);
	}
	daygen_free(g);
	return h;
}

static void test_same_seed_same_bytes(void **state)
{
	uint64_t a = day_hash(200000, 10, 7), b = day_hash(200000, 10, 7);

	(void)state;
	assert_true(a == b);
	assert_true(day_hash(200000, 10, 8) != a);
	assert_true(day_hash(200000, 11, 7) != a);
}

struct replay {
	uint64_t n;
	uint64_t by_type[256];
	uint64_t crossed, exec_not_best, ts_bad, order_before_dir;
	uint64_t first_ts, last_ts;
	char first[3], last[3];		/* first and last system events */
	int nsys;
};

/* Replay one generated day through a separate book, checking each event. */
static void replay_day(const struct daygen_config *c, struct replay *r)
{
	struct book_config bc = { .max_orders = 1u << 16, .track_all = true };
	static bool dir[65536];
	struct daygen *g;
	struct book *b = malloc(sizeof(*b));
	uint8_t buf[DAYGEN_MSG_MAX];
	char err[256];
	uint16_t len;

	memset(r, 0, sizeof(*r));
	memset(dir, 0, sizeof(dir));
	assert_non_null(b);
	assert_int_equal(book_init(b, &bc), 0);
	assert_int_equal(daygen_new(&g, c, err, sizeof(err)), 0);
	while ((len = daygen_next(g, buf))) {
		struct tape_print p;
		uint8_t type = buf[0];
		uint16_t loc = be16_load(buf + ITCH_OFF_LOCATE);
		uint64_t ts = be48_load(buf + ITCH_OFF_TIMESTAMP);

		assert_int_equal(len, itch_msg_len[type]);
		r->by_type[type]++;
		if (r->n == 0)
			r->first_ts = ts;
		else if (ts <= r->last_ts)
			r->ts_bad++;
		r->last_ts = ts;
		if (type == 'S') {
			if (r->nsys < 2)
				r->first[r->nsys] = (char)buf[ITCH_S_OFF_EVENT];
			r->last[0] = r->last[1];
			r->last[1] = r->last[2];
			r->last[2] = (char)buf[ITCH_S_OFF_EVENT];
			r->nsys++;
		}
		if (type == 'R')
			dir[loc] = true;
		if (strchr("AFPQ", type) && !dir[loc])
			r->order_before_dir++;
		if (type == 'E' || type == 'C') {
			const struct book_order *o = book_find(b, be64_load(buf + ITCH_E_OFF_ORDER_REF));

			if (o) {
				const struct book_level *l = book_level_of(b, o);

				if (book_best(b, l->locate, l->side) != l)
					r->exec_not_best++;
			}
		}
		book_apply(b, buf, len, ++r->n, &p);
		if (strchr("AFUECXD", type)) {
			const struct book_level *bid = book_best(b, loc, BOOK_BID);
			const struct book_level *ask = book_best(b, loc, BOOK_ASK);

			if (bid && ask && bid->price >= ask->price)
				r->crossed++;
		}
	}
	assert_int_equal(b->cnt.dup_ref + b->cnt.unknown_ref + b->cnt.overfill +
			 b->cnt.book_full + b->cnt.bad_side + b->cnt.malformed, 0);
	if (book_check(b, BOOK_CHECK_ALL_SIDES, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(book_digest(b) == book_digest(daygen_book(g)));
	assert_int_equal(b->live, daygen_book(g)->live);

	struct daygen_stats st;

	daygen_get_stats(g, &st);
	assert_int_equal(st.messages, r->n);
	assert_int_equal(st.impossible, 0);
	assert_memory_equal(st.by_type, r->by_type, sizeof(r->by_type));
	print_message("%llu messages, peak %llu live, %llu at the end, %llu fallbacks\n",
		      (unsigned long long)r->n, (unsigned long long)st.peak_live,
		      (unsigned long long)st.end_live, (unsigned long long)st.fallbacks);
	daygen_free(g);
	book_destroy(b);
	free(b);
}

static void assert_share(const struct replay *r, char type, double want_pct, double rel)
{
	double got = 100.0 * (double)r->by_type[(uint8_t)type] / (double)r->n;

	print_message("%c %.4f%% (target %.4f%%)\n", type, got, want_pct);
	if (got < want_pct * (1 - rel) || got > want_pct * (1 + rel))
		fail_msg("%c is %.4f%% of the day, target %.4f%% +- %.0f%%", type, got,
			 want_pct, rel * 100);
}

static void test_mix_and_validity(void **state)
{
	struct daygen_config c = { .messages = 1000000, .symbols = 8, .seed = 3,
				   .max_orders = 1u << 16 };
	struct replay r;

	(void)state;
	replay_day(&c, &r);
	assert_int_equal(r.n, c.messages);
	/* The real day's mix (percent), within a few percent of each. */
	assert_share(&r, 'A', 44.0, 0.03);
	assert_share(&r, 'D', 43.0, 0.03);
	assert_share(&r, 'U', 7.4, 0.03);
	assert_share(&r, 'E', 2.2, 0.05);
	assert_share(&r, 'X', 1.3, 0.05);
	assert_share(&r, 'P', 0.36, 0.10);
	assert_share(&r, 'C', 0.04, 0.25);
	/* Every ITCH 5.0 type appears. */
	for (const char *t = "SRHYLVWKJhAFECXDUPQBINO"; *t; t++)
		if (!r.by_type[(uint8_t)*t])
			fail_msg("no '%c' in the day", *t);
	for (int i = 0; i < 256; i++)
		if (r.by_type[i] && !itch_msg_len[i])
			fail_msg("type byte %d is not ITCH", i);

	assert_int_equal(r.crossed, 0);
	assert_int_equal(r.exec_not_best, 0);
	assert_int_equal(r.ts_bad, 0);
	assert_int_equal(r.order_before_dir, 0);
	assert_int_equal(r.by_type['R'], 8);
	assert_int_equal(r.by_type['Q'], 16);		/* opening and closing */
	assert_memory_equal(r.first, "OS", 2);
	assert_memory_equal(r.last, "MEC", 3);
	assert_int_equal(r.nsys, 6);
	assert_true(r.first_ts >= DAYGEN_START_NS);
	assert_true(r.last_ts < DAYGEN_START_NS + DAYGEN_DURATION_NS);
	/* Spread over the whole day, not bunched at the start. */
	assert_true(r.last_ts > DAYGEN_START_NS + DAYGEN_DURATION_NS / 100 * 99);
}

static void test_many_symbols_and_own_window(void **state)
{
	struct daygen_config c = { .messages = 100000, .symbols = 300, .seed = 5,
				   .start_ns = 3600ull * 1000000000ull,
				   .duration_ns = 60ull * 1000000000ull,
				   .max_orders = 1u << 16 };
	struct replay r;
	struct daygen *g;
	char err[256];

	(void)state;
	replay_day(&c, &r);
	assert_int_equal(r.by_type['R'], 300);
	assert_true(r.first_ts >= c.start_ns);
	assert_true(r.last_ts < c.start_ns + c.duration_ns);
	assert_int_equal(r.crossed + r.exec_not_best + r.ts_bad + r.order_before_dir, 0);

	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), 0);
	assert_string_equal(daygen_symbol(g, 1), "AAPL    ");
	assert_string_equal(daygen_symbol(g, 3), "NVDA    ");
	assert_string_equal(daygen_symbol(g, 17), "ZAAQ    ");
	assert_null(daygen_symbol(g, 301));
	assert_null(daygen_symbol(g, 0));
	daygen_free(g);
}

/* Names given by the caller: in the directory and the adds, same moves. */
static void test_named_symbols(void **state)
{
	static const char names[2][ITCH_SYMBOL_LEN] = { "IBM     ", "ORCL    " };
	struct daygen_config c = { .messages = 20000, .symbols = 2, .seed = 3,
				   .max_orders = 1u << 16 };
	struct daygen *g, *ref;
	uint8_t buf[DAYGEN_MSG_MAX], rbuf[DAYGEN_MSG_MAX];
	uint64_t named_adds = 0, dir = 0;
	char err[256];
	uint16_t len;

	(void)state;
	assert_int_equal(daygen_new(&ref, &c, err, sizeof(err)), 0);
	c.names = names;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), 0);
	assert_string_equal(daygen_symbol(g, 1), "IBM     ");
	assert_string_equal(daygen_symbol(g, 2), "ORCL    ");
	while ((len = daygen_next(g, buf))) {
		uint16_t loc = be16_load(buf + ITCH_OFF_LOCATE);

		/* The same day but for the names: the types and locates agree. */
		assert_int_equal(daygen_next(ref, rbuf), len);
		assert_int_equal(buf[0], rbuf[0]);
		if (buf[0] == 'R') {
			assert_memory_equal(buf + ITCH_R_OFF_STOCK, names[loc - 1], ITCH_SYMBOL_LEN);
			dir++;
		}
		if (buf[0] == 'A') {
			assert_memory_equal(buf + ITCH_A_OFF_STOCK, names[loc - 1], ITCH_SYMBOL_LEN);
			named_adds++;
		}
	}
	assert_int_equal(dir, 2);
	assert_true(named_adds > 1000);
	daygen_free(g);
	daygen_free(ref);
}

static void test_bad_config(void **state)
{
	struct daygen_config c = { .messages = 10, .symbols = 2 };
	struct daygen *g;
	char err[256];

	(void)state;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "messages must be 17"));
	c.messages = 1000;
	c.symbols = 0;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), -EINVAL);
	c.symbols = 2;
	c.duration_ns = 999;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), -EINVAL);
}

/* daygen_write: plain and gzip hold the same messages as daygen_next. */
static void test_write_file(void **state)
{
	struct daygen_config c = { .messages = 50000, .symbols = 4, .seed = 9,
				   .max_orders = 1u << 16 };
	char dir[] = "/tmp/test_daygen.XXXXXX", plain[256], gz[256];
	struct daygen_stats st;
	char err[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(plain, sizeof(plain), "%s/day.bin", dir);
	snprintf(gz, sizeof(gz), "%s/day.bin.gz", dir);
	assert_int_equal(daygen_write(plain, &c, 0, &st, err, sizeof(err)), 0);
	assert_int_equal(st.messages, 50000);
	assert_int_equal(daygen_write(gz, &c, 1, NULL, err, sizeof(err)), 0);

	for (int f = 0; f < 2; f++) {
		struct dayfile_reader r;
		struct daygen *g;
		const uint8_t *m;
		uint8_t buf[DAYGEN_MSG_MAX];
		uint16_t len;
		uint64_t seq, n = 0;

		assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), 0);
		assert_int_equal(dayfile_open(&r, f ? gz : plain, 0), 0);
		assert_int_equal(r.gzip, f == 1);
		while (dayfile_next(&r, &m, &len, &seq) == 1) {
			assert_int_equal(seq, ++n);
			assert_int_equal(daygen_next(g, buf), len);
			assert_memory_equal(m, buf, len);
		}
		assert_int_equal(n, 50000);
		assert_int_equal(r.base + r.pos, st.bytes);
		dayfile_close(&r);
		daygen_free(g);
	}
	assert_int_equal(daygen_write("/nonexistent-dir/day", &c, 0, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/day"));
	unlink(plain);
	unlink(gz);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_seed_same_bytes),
		cmocka_unit_test(test_mix_and_validity),
		cmocka_unit_test(test_many_symbols_and_own_window),
		cmocka_unit_test(test_named_symbols),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_write_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
