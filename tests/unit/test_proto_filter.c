// SPDX-License-Identifier: MIT
/*
 * The --symbols filter (proto/itch_filter.h) on a hand-made day: system
 * events always, the chosen symbols' directory entries and messages by
 * locate, nothing else (other symbols, V/W at locate 0, locates before
 * their R, malformed blocks), a locate listed again as another stock, the
 * contiguous numbering; with no symbol everything is kept as numbered in
 * the file.  And the symbol-list parser.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proto/itch_filter.h"

struct blk {
	uint8_t b[64];
	uint16_t len;
	bool keep;		/* expected with AAPL,IBM chosen */
};

static struct blk day[32];
static unsigned int nday;

static void add(const struct itch_msg *m, bool keep)
{
	struct blk *x = &day[nday++];
	int n = itch_encode(x->b, sizeof(x->b), m);

	assert_true(n > 0);
	x->len = (uint16_t)n;
	x->keep = keep;
}

static void add_raw(uint8_t type, uint16_t locate, uint16_t len, bool keep)
{
	struct blk *x = &day[nday++];

	memset(x->b, 0, sizeof(x->b));
	x->b[0] = type;
	be16_store(x->b + ITCH_OFF_LOCATE, locate);
	x->len = len;
	x->keep = keep;
}

static void sys(char ev)
{
	struct itch_msg m = { .type = 'S', .s.event = ev };

	add(&m, true);
}

static void dir(uint16_t loc, const char *sym, bool keep)
{
	struct itch_msg m = { .type = 'R', .locate = loc };

	memcpy(m.r.stock, sym, ITCH_SYMBOL_LEN);
	add(&m, keep);
}

static void order(char type, uint16_t loc, uint64_t ref, bool keep)
{
	struct itch_msg m = { .type = type, .locate = loc };

	if (type == 'A') {
		m.a.order_ref = ref;
		m.a.side = 'B';
		m.a.shares = 100;
		m.a.price = 1000000;
		memcpy(m.a.stock, "XXXX    ", ITCH_SYMBOL_LEN);
	} else {
		m.e.order_ref = ref;
		m.e.shares = 10;
	}
	add(&m, keep);
}

static int setup(void **state)
{
	(void)state;
	nday = 0;
	sys('O');
	add_raw('V', 0, 35, false);		/* market-wide, not a system event */
	order('A', 1, 1, false);		/* AAPL's locate before its R */
	dir(1, "AAPL    ", true);
	dir(2, "MSFT    ", false);
	dir(3, "IBM     ", true);
	sys('Q');
	order('A', 1, 2, true);
	order('A', 2, 3, false);
	order('E', 3, 9, true);			/* E carries no symbol: by locate */
	add_raw('A', 1, 20, false);		/* malformed: wrong length */
	add_raw('?', 1, 12, false);		/* malformed: not an ITCH type */
	add_raw('A', 1, 0, false);		/* malformed: empty */
	add_raw('W', 0, 12, false);
	order('D', 2, 3, false);
	dir(3, "ORCL    ", false);		/* locate 3 is now another stock */
	order('X', 3, 9, false);
	dir(2, "AAPL    ", true);		/* AAPL listed again, on locate 2 */
	order('X', 2, 3, true);
	sys('M');
	return 0;
}

static void test_chosen(void **state)
{
	static const char syms[][ITCH_SYMBOL_LEN] = { "IBM     ", "AAPL    ", "IBM     " };
	struct itch_filter f;
	uint64_t seq, want = 0, malformed = 0;

	(void)state;
	assert_int_equal(itch_filter_init(&f, syms, 3), 0);
	assert_int_equal(f.nsym, 2);			/* IBM once */
	for (unsigned int i = 0; i < nday; i++) {
		bool k = itch_filter_keep(&f, day[i].b, day[i].len, &seq);

		if (day[i].len == 0 || itch_msg_len[day[i].b[0]] != day[i].len)
			malformed++;
		assert_int_equal(k, day[i].keep);
		if (k)
			assert_int_equal(seq, ++want);	/* 1, 2, 3 ... no gap */
	}
	assert_int_equal(f.kept, want);
	assert_int_equal(want, 9);
	assert_int_equal(f.seen, nday);
	assert_int_equal(f.malformed, malformed);
	assert_null(itch_filter_missing(&f));
	itch_filter_free(&f);
}

static void test_missing_symbol(void **state)
{
	static const char syms[][ITCH_SYMBOL_LEN] = { "AAPL    ", "NFLX    " };
	struct itch_filter f;
	uint64_t seq;

	(void)state;
	assert_int_equal(itch_filter_init(&f, syms, 2), 0);
	for (unsigned int i = 0; i < nday; i++)
		itch_filter_keep(&f, day[i].b, day[i].len, &seq);
	assert_non_null(itch_filter_missing(&f));
	assert_memory_equal(itch_filter_missing(&f), "NFLX    ", ITCH_SYMBOL_LEN);
	itch_filter_free(&f);
}

static void test_no_symbols_keeps_all(void **state)
{
	struct itch_filter f;
	uint64_t seq;

	(void)state;
	assert_int_equal(itch_filter_init(&f, NULL, 0), 0);
	for (unsigned int i = 0; i < nday; i++) {
		assert_true(itch_filter_keep(&f, day[i].b, day[i].len, &seq));
		assert_int_equal(seq, i + 1);
	}
	assert_int_equal(f.malformed, 0);
	itch_filter_free(&f);
	assert_int_equal(itch_filter_init(&f, NULL, ITCH_FILTER_MAX + 1), -EINVAL);
}

static void test_parse(void **state)
{
	char out[4][ITCH_SYMBOL_LEN], why[128];

	(void)state;
	assert_int_equal(itch_parse_symbols("AAPL,BRK.B,X", out, 4, why, sizeof(why)), 3);
	assert_memory_equal(out[1], "BRK.B   ", ITCH_SYMBOL_LEN);
	assert_memory_equal(out[2], "X       ", ITCH_SYMBOL_LEN);
	assert_int_equal(itch_parse_symbols("aapl", out, 4, why, sizeof(why)), -1);
	assert_string_equal(why, "'aapl': only A-Z, 0-9 and '.'");
	assert_int_equal(itch_parse_symbols("AAPL,MSFT,AAPL", out, 4, why, sizeof(why)), -1);
	assert_string_equal(why, "'AAPL' is listed twice");
	assert_int_equal(itch_parse_symbols("AAPL,,MSFT", out, 4, why, sizeof(why)), -1);
	assert_int_equal(itch_parse_symbols("ABCDEFGHI", out, 4, why, sizeof(why)), -1);
	assert_int_equal(itch_parse_symbols("A,B,C,D,E", out, 4, why, sizeof(why)), -1);
	assert_string_equal(why, "lists more than 4 symbols");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_chosen, setup),
		cmocka_unit_test_setup(test_missing_symbol, setup),
		cmocka_unit_test_setup(test_no_symbols_keeps_all, setup),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
