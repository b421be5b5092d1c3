// SPDX-License-Identifier: MIT
/*
 * The real shape of the day generator (book/README.md has its calibration
 * and the ranges held here): the same bytes for the same seed and others
 * for another; every event valid, replayed through a book of its own (no
 * impossible event, the self-check passes, the same levels as the
 * generator's; no book crossed; every E and C of an order at a best
 * level, at its price or, in a cross, at one its limit allows); the day's
 * layout (system events, directory first, NOII only before the crosses,
 * the crosses at the open and the close, timestamps nondecreasing within
 * the day); each measured stat of the shape within its range; the shape
 * the same at N and N / 10.  And the meter (book/dayshape.h) on a
 * hand-made stream.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "book/book_apply.h"
#include "book/daygen.h"
#include "book/dayshape.h"

#define SEC		1000000000ull
#define OPEN		DAYGEN_START_NS
#define CLOSE		(DAYGEN_START_NS + DAYGEN_DURATION_NS)
#define PRE		(OPEN - DAYGEN_DURATION_NS / 78)

static uint64_t fnv_bytes(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t day_hash(uint64_t messages, uint64_t seed)
{
	struct daygen_config c = { .messages = messages, .seed = seed,
				   .shape = DAYGEN_SHAPE_REAL };
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
	uint64_t a = day_hash(300000, 7);

	(void)state;
	assert_true(day_hash(300000, 7) == a);
	assert_true(day_hash(300000, 8) != a);
}

struct replay {
	uint64_t n;
	uint64_t by_type[256];
	uint64_t crossed, exec_not_best, exec_bad_price, ts_back, ts_out, before_dir;
	uint64_t noii_out, cross_out;
	char sys[8];
	int nsys;
	uint64_t sys_q_ts;
	struct dayshape shape;
};

/* Replay a real day through a separate book, checking each event, and
 * measure its shape from that book. */
static void replay_day(uint64_t messages, uint64_t seed, struct replay *r)
{
	struct daygen_config c = { .messages = messages, .seed = seed,
				   .shape = DAYGEN_SHAPE_REAL };
	static bool dir[65536];
	const struct daygen_config *dc;
	struct dayshape_meter *m;
	struct book_config bc;
	struct daygen *g;
	struct book *b = malloc(sizeof(*b));
	uint8_t buf[DAYGEN_MSG_MAX];
	uint64_t last = 0;
	char err[256];
	uint16_t len;

	memset(r, 0, sizeof(*r));
	memset(dir, 0, sizeof(dir));
	assert_non_null(b);
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), 0);
	dc = daygen_config(g);
	bc = (struct book_config){ .max_orders = dc->max_orders, .track_all = true };
	assert_int_equal(book_init(b, &bc), 0);
	m = dayshape_new(messages, dc->symbols, OPEN, CLOSE);
	assert_non_null(m);
	while ((len = daygen_next(g, buf))) {
		struct tape_print p;
		uint8_t type = buf[0];
		uint16_t loc = be16_load(buf + ITCH_OFF_LOCATE);
		uint64_t ts = be48_load(buf + ITCH_OFF_TIMESTAMP);

		assert_int_equal(len, itch_msg_len[type]);
		r->by_type[type]++;
		if (ts < last)
			r->ts_back++;
		last = ts;
		if (ts < PRE - SEC || ts > CLOSE + 2500000)
			r->ts_out++;
		if (type == 'S') {
			if (r->nsys < 8)
				r->sys[r->nsys] = (char)buf[ITCH_S_OFF_EVENT];
			if (buf[ITCH_S_OFF_EVENT] == 'Q')
				r->sys_q_ts = ts;
			r->nsys++;
		}
		if (type == 'R')
			dir[loc] = true;
		if (loc && strchr("AFECXDUPQI", type) && !dir[loc])
			r->before_dir++;
		if (type == 'I') {
			char cross = (char)buf[48];

			if (cross == 'O' ? ts >= OPEN || ts < PRE :
			    ts < CLOSE - DAYGEN_DURATION_NS / 39 || ts >= CLOSE)
				r->noii_out++;
		}
		if (type == 'Q') {
			char cross = (char)buf[ITCH_Q_OFF_CROSS_TYPE];
			uint64_t at = cross == 'O' ? OPEN : CLOSE;

			if (ts < at || ts > at + 2500000)
				r->cross_out++;
		}
		if (type == 'E' || type == 'C') {
			const struct book_order *o = book_find(b, be64_load(buf + ITCH_E_OFF_ORDER_REF));

			if (o) {
				const struct book_level *l = book_level_of(b, o);
				uint32_t px = type == 'C' ? be32_load(buf + ITCH_C_OFF_PRICE) : l->price;

				if (book_best(b, l->locate, l->side) != l)
					r->exec_not_best++;
				/* The resting order trades at its limit or better. */
				if (l->side == BOOK_BID ? px > l->price : px < l->price)
					r->exec_bad_price++;
			}
		}
		book_apply(b, buf, len, ++r->n, &p);
		dayshape_see(m, b, buf, len);
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
	assert_int_equal(st.impossible, 0);
	assert_int_equal(st.messages, r->n);
	dayshape_get(m, &r->shape);
	snprintf(r->shape.busiest, sizeof(r->shape.busiest), "%s",
		 daygen_symbol(g, r->shape.busiest_locate));
	print_message("%llu messages, %u symbols, %llu fallbacks\n", (unsigned long long)r->n,
		      dc->symbols, (unsigned long long)st.fallbacks);
	dayshape_free(m);
	daygen_free(g);
	book_destroy(b);
	free(b);
}

#define IN(what, v, lo, hi) do {						\
	double v_ = (v);							\
	if (v_ < (lo) || v_ > (hi))						\
		fail_msg("%s is %.4f, its range [%.4f, %.4f]", what, v_,	\
			 (double)(lo), (double)(hi));				\
} while (0)

/* The rank law written again: the share of symbol @i of @k. */
static double law_share(double i, double k)
{
	const double s = 1.3, c = 0.006;
	double g0 = pow(c, 1 - s) - pow(1 + c, 1 - s);

	return (pow((i - 1) / k + c, 1 - s) - pow(i / k + c, 1 - s)) / g0;
}

/* The ranges of book/README.md, for any N from 200,000 up with the
 * default symbols; the depth's at the test's 2 M. */
static void assert_ranges(const struct replay *r, bool deep)
{
	const struct dayshape *s = &r->shape;
	double n = (double)r->n, law1 = 100 * law_share(1, s->symbols);

	IN("top 1 share vs the law", s->top1_pct / law1, 0.9, 1.1);
	IN("top 10 % share", s->pct10_pct, 70, 77);
	IN("top half share", s->pct50_pct, 91, 96);
	IN("busiest's adds", s->mix[DS_ADD], 43, 47.5);
	IN("busiest's deletes", s->mix[DS_DELETE], 41.5, 46);
	IN("busiest's replaces", s->mix[DS_REPLACE], 6.5, 8.5);
	IN("busiest's executions", s->mix[DS_EXEC], 1.8, 3);
	IN("busiest's partial cancels", s->mix[DS_CANCEL], 1, 1.6);
	IN("peak live over messages (%)", 100 * s->peak_live / n, 0.55, 0.8);
	IN("peak time (h after the open)", ((double)s->peak_ns - OPEN) / 3600e9, 2.0, 4.0);
	IN("live at 10:00 over the peak", s->live[1], 0.25, 0.45);
	IN("live at 12:00 over the peak", s->live[5], 0.9, 1.0);
	IN("live at 16:00 over the peak", s->live[13], 0.4, 0.6);
	for (int i = 0; i < 5; i++)
		if (s->live[i] >= s->live[i + 1])
			fail_msg("live orders fall in the morning (part %d)", i);
	if (deep) {
		IN("levels per side p50", s->levels_p50, 80, 250);
		IN("levels per side max", s->levels_max, 250, 1500);
	}
	IN("first half hour over midday", s->rate[0], 3.7, 4.5);
	IN("last half hour over midday", s->rate[DAYSHAPE_PARTS - 1], 2.9, 3.5);
	IN("busiest ms over the mean", s->busiest_ms / s->mean_ms, 1000, 4000);
	IN("cancels within 1 ms (%)", s->cancel_1ms_pct, 38, 47);
	IN("cancels within 10 ms (%)", s->cancel_10ms_pct, 54, 63);
	IN("cancels within 1 s (%)", s->cancel_1s_pct, 76, 85);
	IN("orders resting over an hour (%)", s->rest_1h_pct, 1.5, 2.5);
	/* The day's mix (percent) about the real day's. */
	IN("A", 100 * r->by_type['A'] / n, 42.5, 45.5);
	IN("D", 100 * r->by_type['D'] / n, 41.5, 44.5);
	IN("U", 100 * r->by_type['U'] / n, 6.6, 7.8);
	IN("E", 100 * r->by_type['E'] / n, 2.0, 2.4);
	IN("X", 100 * r->by_type['X'] / n, 1.2, 1.4);
	IN("P", 100 * r->by_type['P'] / n, 0.32, 0.40);
	IN("C", 100 * r->by_type['C'] / n, 0.03, 0.05);
	IN("I", 100 * r->by_type['I'] / n, 0.5, 0.7);
}

static void assert_layout(const struct replay *r, uint64_t messages, uint32_t symbols)
{
	assert_int_equal(r->n, messages);
	for (const char *t = "SRHYVAFECXDUPQINLOJKhWB"; *t; t++)
		if (!r->by_type[(uint8_t)*t])
			fail_msg("no '%c' in the day", *t);
	assert_int_equal(r->by_type['R'], symbols);
	assert_int_equal(r->by_type['H'], symbols);
	assert_int_equal(r->by_type['Q'], 2 * symbols);
	assert_int_equal(r->nsys, 6);
	assert_memory_equal(r->sys, "OSQMEC", 6);
	assert_true(r->sys_q_ts == OPEN);
	assert_int_equal(r->crossed, 0);
	assert_int_equal(r->exec_not_best, 0);
	assert_int_equal(r->exec_bad_price, 0);
	assert_int_equal(r->ts_back, 0);
	assert_int_equal(r->ts_out, 0);
	assert_int_equal(r->before_dir, 0);
	assert_int_equal(r->noii_out, 0);
	assert_int_equal(r->cross_out, 0);
}

static void print_shape(const struct replay *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	dayshape_print(f, &r->shape);
	fclose(f);
	print_message("%s", text);
	free(text);
}

/* The day at 2 M and at 200,000: valid, laid out, in range, the same shape. */
static void test_valid_in_range_and_scales(void **state)
{
	struct replay *big = malloc(sizeof(*big)), *small = malloc(sizeof(*small));
	const struct dayshape *a = &big->shape, *b = &small->shape;

	(void)state;
	assert_non_null(big);
	assert_non_null(small);
	replay_day(2000000, 11, big);
	print_shape(big);
	assert_layout(big, 2000000, 53);
	assert_ranges(big, true);

	replay_day(200000, 11, small);
	print_shape(small);
	assert_layout(small, 200000, 10);
	assert_ranges(small, false);

	/* N and N / 10: the normalised shape within a tolerance. */
	IN("top 10 % share, N/10 - N", b->pct10_pct - a->pct10_pct, -3, 3);
	IN("top half share, N/10 - N", b->pct50_pct - a->pct50_pct, -2, 2);
	for (int i = 0; i < DS_NMIX; i++)
		IN("busiest's mix, N/10 - N", b->mix[i] - a->mix[i], -1.5, 1.5);
	IN("peak live over messages, N/10 over N",
	   ((double)b->peak_live / small->n) / ((double)a->peak_live / big->n), 0.85, 1.15);
	for (int i = 0; i <= DAYSHAPE_PARTS; i++)
		IN("live over the peak, N/10 - N", b->live[i] - a->live[i], -0.08, 0.08);
	for (int i = 0; i < DAYSHAPE_PARTS; i++)
		IN("rate over midday, N/10 over N", b->rate[i] / a->rate[i], 0.92, 1.08);
	IN("busiest ms over the mean, N/10 over N",
	   (b->busiest_ms / b->mean_ms) / (a->busiest_ms / a->mean_ms), 0.6, 1.6);
	IN("cancels within 1 ms, N/10 - N", b->cancel_1ms_pct - a->cancel_1ms_pct, -1.5, 1.5);
	IN("cancels within 10 ms, N/10 - N", b->cancel_10ms_pct - a->cancel_10ms_pct, -1.5, 1.5);
	IN("cancels within 1 s, N/10 - N", b->cancel_1s_pct - a->cancel_1s_pct, -1.5, 1.5);
	IN("resting over an hour, N/10 - N", b->rest_1h_pct - a->rest_1h_pct, -0.4, 0.4);
	free(big);
	free(small);
}

/* The defaults that scale with the day, and what is refused. */
static void test_config(void **state)
{
	struct daygen_config c = { .messages = 30000000, .shape = DAYGEN_SHAPE_REAL };
	const struct daygen_config *dc;
	struct daygen *g;
	char err[256];

	(void)state;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), 0);
	dc = daygen_config(g);
	assert_int_equal(dc->symbols, 800);
	assert_int_equal(dc->max_orders, 30000000 / 64 + 65536);
	assert_true(dc->start_ns == OPEN && dc->duration_ns == DAYGEN_DURATION_NS);
	assert_string_equal(daygen_symbol(g, 1), "AAPL    ");
	daygen_free(g);

	c.messages = 50000;
	c.symbols = 7;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), 0);
	assert_int_equal(daygen_config(g)->symbols, 7);
	daygen_free(g);

	c.messages = 1000;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "messages must be"));
	c.messages = 50000;
	c.duration_ns = 30 * SEC;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), -EINVAL);
	c.duration_ns = 0;
	c.shape = 2;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), -EINVAL);
}

/* A short session of its own: the crosses at its ends, the day in it. */
static void test_own_window(void **state)
{
	struct daygen_config c = { .messages = 100000, .seed = 4, .shape = DAYGEN_SHAPE_REAL,
				   .start_ns = 3600 * SEC, .duration_ns = 600 * SEC };
	uint64_t first = 0, last = 0, n = 0, q_open = 0, q_close = 0;
	struct daygen *g;
	uint8_t buf[DAYGEN_MSG_MAX];
	char err[256];
	uint16_t len;

	(void)state;
	assert_int_equal(daygen_new(&g, &c, err, sizeof(err)), 0);
	while ((len = daygen_next(g, buf))) {
		uint64_t ts = be48_load(buf + ITCH_OFF_TIMESTAMP);

		if (!n++)
			first = ts;
		assert_true(ts >= last);
		last = ts;
		if (buf[0] == 'Q' && buf[ITCH_Q_OFF_CROSS_TYPE] == 'O')
			q_open += ts >= c.start_ns && ts < c.start_ns + 2500000;
		if (buf[0] == 'Q' && buf[ITCH_Q_OFF_CROSS_TYPE] == 'C')
			q_close += ts >= c.start_ns + c.duration_ns;
	}
	assert_int_equal(n, c.messages);
	assert_true(first >= c.start_ns - c.duration_ns / 78 - SEC);
	assert_true(last <= c.start_ns + c.duration_ns + 2500000);
	assert_int_equal(q_open, 10);
	assert_int_equal(q_close, 10);
	assert_int_equal(daygen_book(g)->cnt.unknown_ref + daygen_book(g)->cnt.dup_ref, 0);
	daygen_free(g);
}

/* The meter on a stream made by hand: lifetimes, rests, the busiest ms. */
static void test_meter(void **state)
{
	struct book_config bc = { .max_orders = 1024, .track_all = true };
	struct dayshape_meter *m = dayshape_new(100, 2, OPEN, OPEN + 13 * 1800 * SEC);
	struct book *b = malloc(sizeof(*b));
	const uint64_t ms = 1000000, t0 = OPEN + 600000;
	struct {
		char type;
		uint64_t ref, ref2, ts;
	} ev[] = {
		{ 'A', 1, 0, t0 }, { 'A', 2, 0, t0 + 1 }, { 'A', 3, 0, t0 + 2 },
		{ 'A', 4, 0, t0 + 3 },
		{ 'D', 1, 0, t0 + ms / 2 },		/* within 1 ms */
		{ 'U', 2, 5, t0 + 5 * ms },		/* within 10 ms */
		{ 'D', 5, 0, t0 + 2 * SEC },		/* over 1 s after its U */
		{ 'E', 3, 0, t0 + 3 * SEC },		/* executed in full: no cancel */
		{ 'A', 6, 0, t0 + 4 * SEC },
		{ 'D', 6, 0, t0 + 4 * SEC + 2 * 3600 * SEC },	/* over an hour */
	};
	uint8_t buf[64];
	struct dayshape s;

	(void)state;
	assert_non_null(m);
	assert_non_null(b);
	assert_int_equal(book_init(b, &bc), 0);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		struct itch_msg msg = { .type = ev[i].type, .locate = (uint16_t)(1 + ev[i].ref % 2),
					.timestamp = ev[i].ts };
		struct tape_print p;
		int len;

		switch (ev[i].type) {
		case 'A':
			msg.a.order_ref = ev[i].ref;
			msg.a.side = 'B';
			msg.a.shares = 100;
			msg.a.price = 100000 - 100 * (uint32_t)ev[i].ref;
			memcpy(msg.a.stock, "AAPL    ", 8);
			break;
		case 'D':
			msg.d.order_ref = ev[i].ref;
			break;
		case 'U':
			msg.u.orig_ref = ev[i].ref;
			msg.u.new_ref = ev[i].ref2;
			msg.u.shares = 100;
			msg.u.price = 90000;
			break;
		case 'E':
			msg.e.order_ref = ev[i].ref;
			msg.e.shares = 100;
			msg.e.match = 1;
			break;
		}
		/* E, D and U take the locate of the order they name. */
		if (ev[i].type != 'A')
			msg.locate = book_level_of(b, book_find(b, ev[i].ref))->locate;
		len = itch_encode(buf, sizeof(buf), &msg);
		assert_true(len > 0);
		book_apply(b, buf, (uint16_t)len, i + 1, &p);
		dayshape_see(m, b, buf, (uint16_t)len);
	}
	dayshape_get(m, &s);
	assert_int_equal(s.messages, 10);
	assert_int_equal(s.orders, 6);		/* 5 A and a U's new order */
	assert_int_equal(s.cancels, 4);
	assert_float_equal(s.cancel_1ms_pct, 25, 1e-9);
	assert_float_equal(s.cancel_10ms_pct, 50, 1e-9);
	assert_float_equal(s.cancel_1s_pct, 50, 1e-9);
	assert_int_equal(s.rest_1h, 2);		/* 6, and 4 live to the end */
	assert_int_equal(s.peak_live, 4);
	assert_true(s.peak_ns == t0 + 3);
	assert_int_equal(s.end_live, 1);
	assert_int_equal(s.busiest_ms, 4);	/* the four adds */
	assert_int_equal(s.busiest_ms_ns, t0 / ms * ms);
	assert_int_equal(s.top10, 10);
	dayshape_free(m);
	book_destroy(b);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meter),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_same_seed_same_bytes),
		cmocka_unit_test(test_own_window),
		cmocka_unit_test(test_valid_in_range_and_scales),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
