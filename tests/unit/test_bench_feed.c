// SPDX-License-Identifier: MIT
/*
 * bench_engine's day feed (gateway/bench_feed.h): the messages of one
 * timestamp share a packet and a new timestamp opens the next, a packet
 * stops at the MTU (the rest of its instant in the next), sequence numbers
 * run from 1 across packets, every frame's checksums hold, each pause is
 * the time since the packet before capped, --day-frames stops at a
 * packet's end, and a missing file or a block no packet carries is an
 * error, not a feed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gateway/bench_feed.h"
#include "proto/be.h"
#include "proto/dayfile.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

static char path[] = "/tmp/test_bench_feed.XXXXXX";

/* A 'P' message (44 bytes) stamped @ts. */
static void put_trade(struct dayfile_writer *w, uint64_t ts, uint32_t price)
{
	uint8_t m[44] = { 'P' };

	be16_store(m + ITCH_OFF_LOCATE, 1);
	be48_store(m + ITCH_OFF_TIMESTAMP, ts);
	be32_store(m + ITCH_P_OFF_PRICE, price);
	assert_int_equal(dayfile_write(w, m, sizeof(m)), 0);
}

static void write_day(const uint64_t *ts, unsigned int n)
{
	struct dayfile_writer w;

	assert_int_equal(dayfile_writer_open(&w, path, 0), 0);
	for (unsigned int i = 0; i < n; i++)
		put_trade(&w, ts[i], 1000 + i);
	assert_int_equal(dayfile_writer_close(&w), 0);
}

static uint64_t seq_of(const struct bench_feed *f, size_t k)
{
	return be64_load(bench_feed_frame(f, k) + FRAME_HDR_LEN + MOLD_OFF_SEQ);
}

static uint16_t count_of(const struct bench_feed *f, size_t k)
{
	return be16_load(bench_feed_frame(f, k) + FRAME_HDR_LEN + MOLD_OFF_COUNT);
}

static void test_one_packet_per_timestamp_with_its_pause(void **state)
{
	static const uint64_t ts[] = { 1000, 1000, 1000, 3000, 500000, 500000 };
	struct bench_feed f;
	char err[256];

	(void)state;
	write_day(ts, 6);
	assert_int_equal(bench_feed_day(&f, path, 0, 100000, err, sizeof(err)), 0);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.messages, 6);
	assert_int_equal(count_of(&f, 0), 3);
	assert_int_equal(count_of(&f, 1), 1);
	assert_int_equal(count_of(&f, 2), 2);
	assert_int_equal(seq_of(&f, 0), 1);
	assert_int_equal(seq_of(&f, 1), 4);
	assert_int_equal(seq_of(&f, 2), 5);
	/* None before the first; 2 us; 497 us cut to the 100 us cap. */
	assert_int_equal(f.gap_ns[0], 0);
	assert_int_equal(f.gap_ns[1], 2000);
	assert_int_equal(f.gap_ns[2], 100000);
	assert_int_equal(f.paced_ns, 102000);
	for (size_t k = 0; k < f.n; k++) {
		struct frame_udp u;

		assert_int_equal(frame_parse_udp(bench_feed_frame(&f, k), f.len[k], &u), 0);
		assert_int_equal(frame_verify_checksums(&u), 0);
		assert_int_equal(u.payload_len, MOLD_HDR_LEN + count_of(&f, k) * (2 + 44));
	}
	bench_feed_free(&f);
}

static void test_a_full_packet_carries_the_instant_on(void **state)
{
	uint64_t ts[40];
	/* 46 bytes a block: 31 fit the 1472-byte payload after its header. */
	const unsigned int fit = (BENCH_FEED_PAYLOAD - MOLD_HDR_LEN) / (2 + 44);
	struct bench_feed f;
	char err[256];

	(void)state;
	for (unsigned int i = 0; i < 40; i++)
		ts[i] = 7;
	write_day(ts, 40);
	assert_int_equal(bench_feed_day(&f, path, 0, 100000, err, sizeof(err)), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(count_of(&f, 0), fit);
	assert_int_equal(count_of(&f, 1), 40 - fit);
	assert_int_equal(seq_of(&f, 1), 1 + fit);
	assert_int_equal(f.gap_ns[1], 0);
	assert_true(f.len[0] <= BENCH_FEED_FRAME_MAX);
	bench_feed_free(&f);
}

static void test_max_frames_stops_at_a_packet_end(void **state)
{
	static const uint64_t ts[] = { 1, 1, 2, 2, 3, 3, 4 };
	struct bench_feed f;
	char err[256];

	(void)state;
	write_day(ts, 7);
	assert_int_equal(bench_feed_day(&f, path, 2, 100000, err, sizeof(err)), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.messages, 4);
	assert_int_equal(count_of(&f, 1), 2);
	bench_feed_free(&f);
}

static void test_bad_days_are_errors(void **state)
{
	struct dayfile_writer w;
	struct bench_feed f;
	uint8_t big[1500] = { 'P' };
	char err[256];

	(void)state;
	assert_int_equal(bench_feed_day(&f, "/nonexistent/day.bin", 0, 1000, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/day.bin"));

	assert_int_equal(dayfile_writer_open(&w, path, 0), 0);
	assert_int_equal(dayfile_writer_close(&w), 0);
	assert_int_equal(bench_feed_day(&f, path, 0, 1000, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no messages"));

	assert_int_equal(dayfile_writer_open(&w, path, 0), 0);
	put_trade(&w, 1, 1);
	assert_int_equal(dayfile_write(&w, big, sizeof(big)), 0);
	assert_int_equal(dayfile_writer_close(&w), 0);
	assert_int_equal(bench_feed_day(&f, path, 0, 1000, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "message 2"));
	assert_null(f.buf);
}

static int setup(void **state)
{
	int fd = mkstemp(path);

	(void)state;
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_packet_per_timestamp_with_its_pause),
		cmocka_unit_test(test_a_full_packet_carries_the_instant_on),
		cmocka_unit_test(test_max_frames_stops_at_a_packet_end),
		cmocka_unit_test(test_bad_days_are_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
