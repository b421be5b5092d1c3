// SPDX-License-Identifier: MIT
/*
 * exsim's day and replay sources (netns/exsim/daysrc.h, replay.h), under
 * ASan: the generated day in its three parts (the opening ends with S Q,
 * the body stops before S M, the close is the rest; a cut body closes with
 * S M E C alone), paced at --rate; a day file replayed with its bytes, due
 * at (ts - ts1) / speed, through --symbols; a block too long for a packet
 * and a file cut short stop it with the file and the byte offset.
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

#include "book/daygen.h"
#include "netns/exsim/daysrc.h"
#include "netns/exsim/replay.h"
#include "proto/be.h"

static char dir[] = "/tmp/test_exsim_sources.XXXXXX";
static char path[256];
static struct exsim_cfg cfg;
static struct feed_unit u;

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/day.bin", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	rmdir(dir);
	return 0;
}

static int next(feed_next_fn fn, void *src)
{
	memset(&u, 0, sizeof(u));
	return fn(src, &u);
}

static bool is_event(char ev)
{
	return u.n == 1 && u.len[0] == ITCH_LEN_S && u.buf[0] == 'S' &&
	       u.buf[ITCH_S_OFF_EVENT] == ev;
}

static void test_day_parts(void **state)
{
	struct daysrc d;
	struct daygen *g;
	struct daygen_config dc = { .messages = 5000, .symbols = 3, .seed = 9 };
	uint8_t want[DAYGEN_MSG_MAX];
	uint64_t n = 0, body = 0;
	bool last_q = false;
	char err[256];

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.nsym = 3;
	cfg.seed = 9;
	cfg.rate = 1000;
	cfg.burst = 1;
	assert_int_equal(daysrc_open(&d, &cfg, 5000, err, sizeof(err)), 0);
	assert_int_equal(daygen_new(&g, &dc, err, sizeof(err)), 0);

	/* The opening, through S Q. */
	while (next(daysrc_next, &d) == 1) {
		assert_int_equal(daygen_next(g, want), u.len[0]);
		assert_memory_equal(u.buf, want, u.len[0]);
		last_q = is_event('Q');
		n++;
	}
	assert_true(last_q);
	assert_int_equal(n, 4 + 3 * 3);	/* S O, S S, R H Y x 3, V, S Q */
	daysrc_next_part(&d);
	/* The body, one message per unit, 1 ms apart. */
	while (next(daysrc_next, &d) == 1) {
		assert_int_equal(u.n, 1);
		assert_int_equal(u.offset_ns, body * 1000000);
		assert_int_equal(daygen_next(g, want), u.len[0]);
		assert_memory_equal(u.buf, want, u.len[0]);
		body++;
	}
	assert_int_equal(n + body, 5000 - 3);
	daysrc_next_part(&d);
	/* The close: S M, S E, S C, then nothing. */
	assert_int_equal(next(daysrc_next, &d), 1);
	assert_true(is_event('M'));
	assert_int_equal(next(daysrc_next, &d), 1);
	assert_true(is_event('E'));
	assert_int_equal(next(daysrc_next, &d), 1);
	assert_true(is_event('C'));
	assert_int_equal(next(daysrc_next, &d), 0);
	daygen_free(g);
	daysrc_close(&d);
}

static void test_day_cut(void **state)
{
	struct daysrc d;
	char err[256];
	int i;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.nsym = 2;
	cfg.seed = 1;
	assert_int_equal(daysrc_open(&d, &cfg, 3000, err, sizeof(err)), 0);
	while (next(daysrc_next, &d) == 1)
		;
	daysrc_next_part(&d);
	for (i = 0; i < 100; i++)
		assert_int_equal(next(daysrc_next, &d), 1);
	daysrc_cut(&d);
	daysrc_next_part(&d);
	assert_int_equal(next(daysrc_next, &d), 1);
	assert_true(is_event('M'));
	assert_int_equal(next(daysrc_next, &d), 1);
	assert_true(is_event('E'));
	assert_int_equal(next(daysrc_next, &d), 1);
	assert_true(is_event('C'));
	assert_int_equal(next(daysrc_next, &d), 0);
	daysrc_close(&d);

	cfg.nsym = 10;		/* fewer messages than the opening and close need */
	assert_int_equal(daysrc_open(&d, &cfg, 20, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "messages must be"));
}

static void test_replay_pace_and_filter(void **state)
{
	struct daygen_config dc = { .messages = 20000, .symbols = 4, .seed = 2,
				    .duration_ns = 10ull * 1000000000ull };
	struct dayfile_reader rd;
	struct replay r;
	const uint8_t *m;
	uint64_t seq, ts1 = 0, n = 0;
	uint16_t len;
	char err[512];

	(void)state;
	assert_int_equal(daygen_write(path, &dc, 0, NULL, err, sizeof(err)), 0);
	memset(&cfg, 0, sizeof(cfg));
	cfg.replay_path = path;
	cfg.speed = 4;
	assert_int_equal(replay_open(&r, &cfg, err, sizeof(err)), 0);
	assert_int_equal(dayfile_open(&rd, path, 0), 0);
	while (next(replay_next, &r) == 1) {
		uint64_t ts;

		assert_int_equal(dayfile_next(&rd, &m, &len, &seq), 1);
		assert_int_equal(u.n, 1);
		assert_int_equal(u.len[0], len);
		assert_memory_equal(u.buf, m, len);	/* the bytes, timestamps included */
		ts = be48_load(m + ITCH_OFF_TIMESTAMP);
		if (!n++)
			ts1 = ts;
		assert_int_equal(u.offset_ns, (uint64_t)((double)(ts - ts1) / 4));
	}
	assert_int_equal(n, 20000);
	assert_false(r.failed);
	dayfile_close(&rd);
	replay_close(&r);

	/* --symbols: the filter's count, numbered by the feed. */
	memcpy(cfg.symbols[0], "MSFT    ", ITCH_SYMBOL_LEN);
	cfg.nsym = 1;
	cfg.symbols_named = true;
	cfg.speed = 0;
	assert_int_equal(replay_open(&r, &cfg, err, sizeof(err)), 0);
	n = 0;
	while (next(replay_next, &r) == 1) {
		assert_int_equal(u.offset_ns, 0);	/* --speed max */
		n++;
	}
	assert_int_equal(n, r.filt.kept);
	assert_true(n > 1000 && n < 20000);
	replay_close(&r);
}

static void test_replay_errors(void **state)
{
	static uint8_t big[2000];
	struct dayfile_writer w;
	struct replay r;
	uint8_t s[ITCH_LEN_S] = { 'S' };
	char err[512];
	FILE *f;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.replay_path = path;
	cfg.speed = 1;

	/* A block no MoldUDP64 packet carries, after one good message. */
	assert_int_equal(dayfile_writer_open(&w, path, 0), 0);
	assert_int_equal(dayfile_write(&w, s, sizeof(s)), 0);
	assert_int_equal(dayfile_write(&w, big, sizeof(big)), 0);
	assert_int_equal(dayfile_writer_close(&w), 0);
	assert_int_equal(replay_open(&r, &cfg, err, sizeof(err)), 0);
	assert_int_equal(next(replay_next, &r), 1);
	assert_int_equal(next(replay_next, &r), -1);
	assert_non_null(strstr(r.err, path));
	assert_non_null(strstr(r.err, "message 2 at byte offset 14 is 2000 bytes long"));
	assert_int_equal(next(replay_next, &r), -1);	/* stays stopped */
	replay_close(&r);

	/* A frame cut by the end of the file. */
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite("\0\x0c" "Sxxxxxxxxxxx" "\0\x24" "A", 1, 17, f);
	fclose(f);
	assert_int_equal(replay_open(&r, &cfg, err, sizeof(err)), 0);
	assert_int_equal(next(replay_next, &r), 1);
	assert_int_equal(next(replay_next, &r), -1);
	assert_non_null(strstr(r.err, "truncated: message 2 at byte offset 14"));
	replay_close(&r);

	cfg.replay_path = "/nonexistent/day.gz";
	assert_true(replay_open(&r, &cfg, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "/nonexistent/day.gz"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_day_parts),
		cmocka_unit_test(test_day_cut),
		cmocka_unit_test(test_replay_pace_and_filter),
		cmocka_unit_test(test_replay_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
