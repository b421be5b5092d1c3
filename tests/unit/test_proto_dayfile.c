// SPDX-License-Identifier: MIT
/*
 * Day files (BinaryFILE): plain and gzip round trips through the streaming
 * reader (frames across buffer refills, empty blocks, the largest frame),
 * and a clear error naming the file and the byte offset for a frame cut by
 * the end of the file, a length prefix that runs past the end, half a
 * length prefix, a gzip stream cut short and corrupt gzip data.
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

#include "proto/be.h"
#include "proto/dayfile.h"

#define NMSG 5000

static char dir[] = "/tmp/test_dayfile.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *p, size_t n, const char *name)
{
	snprintf(p, n, "%s/%s", dir, name);
}

/* Message i: a length that varies (0 included) and bytes derived from i. */
static uint16_t msg_len(unsigned int i)
{
	if (i % 997 == 5)
		return 65535;
	return (uint16_t)((i * 7919u) % 61);
}

static uint8_t msg_byte(unsigned int i, unsigned int j)
{
	return (uint8_t)(i * 31u + j * 7u);
}

static uint64_t write_day(const char *path, int level, unsigned int n)
{
	struct dayfile_writer w;

	assert_int_equal(dayfile_writer_open(&w, path, level), 0);
	for (unsigned int i = 0; i < n; i++) {
		uint16_t len = msg_len(i);
		uint8_t *p = dayfile_reserve(&w, len);

		assert_non_null(p);
		for (unsigned int j = 0; j < len; j++)
			p[j] = msg_byte(i, j);
	}
	assert_int_equal(w.msgs, n);
	uint64_t bytes = w.bytes;
	assert_int_equal(dayfile_writer_close(&w), 0);
	return bytes;
}

static void read_back(const char *path, bool gzip, size_t bufsize)
{
	struct dayfile_reader r;
	const uint8_t *m;
	uint16_t len;
	uint64_t seq;
	unsigned int i = 0;
	int ret;

	assert_int_equal(dayfile_open(&r, path, bufsize), 0);
	assert_int_equal(r.gzip, gzip);
	while ((ret = dayfile_next(&r, &m, &len, &seq)) == 1) {
		assert_int_equal(seq, i + 1);
		assert_int_equal(len, msg_len(i));
		for (unsigned int j = 0; j < len; j++)
			if (m[j] != msg_byte(i, j))
				fail_msg("message %u byte %u differs", i, j);
		i++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(i, NMSG);
	dayfile_close(&r);
}

static void test_round_trip_plain_and_gzip(void **state)
{
	char plain[256], gz[256];
	FILE *f;
	uint8_t magic[2];

	(void)state;
	path_of(plain, sizeof(plain), "day.bin");
	path_of(gz, sizeof(gz), "day.bin.gz");
	write_day(plain, 0, NMSG);
	write_day(gz, 1, NMSG);

	f = fopen(gz, "rb");
	assert_non_null(f);
	assert_int_equal(fread(magic, 1, 2, f), 2);
	fclose(f);
	assert_int_equal(magic[0], 0x1f);
	assert_int_equal(magic[1], 0x8b);
	f = fopen(plain, "rb");
	assert_non_null(f);
	assert_int_equal(fread(magic, 1, 2, f), 2);
	fclose(f);
	assert_int_equal(be16_load(magic), msg_len(0));

	read_back(plain, false, 0);
	read_back(gz, true, 0);
	/* The smallest buffer: frames straddle nearly every refill. */
	read_back(plain, false, DAYFILE_BUF_MIN);
	read_back(gz, true, DAYFILE_BUF_MIN);
}

/* Spans hold whole frames, numbered on from the previous span. */
static void test_spans(void **state)
{
	char plain[256];
	struct dayfile_reader r;
	struct dayfile_span s;
	uint64_t next = 1, off = 0;
	int ret;

	(void)state;
	path_of(plain, sizeof(plain), "spans.bin");
	uint64_t bytes = write_day(plain, 0, NMSG);

	assert_int_equal(dayfile_open(&r, plain, DAYFILE_BUF_MIN), 0);
	while ((ret = dayfile_span(&r, &s)) == 1) {
		const uint8_t *p = s.p, *end = s.p + s.len;
		uint64_t n = 0;

		assert_int_equal(s.first_seq, next);
		assert_int_equal(s.offset, off);
		while (p < end) {
			assert_true(p + 2 <= end);
			assert_int_equal(be16_load(p), msg_len((unsigned int)(s.first_seq + n - 1)));
			p += 2 + be16_load(p);
			n++;
		}
		assert_ptr_equal(p, end);
		assert_int_equal(n, s.count);
		next += n;
		off += s.len;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(next, NMSG + 1);
	assert_int_equal(off, bytes);
	dayfile_close(&r);
}

static void write_raw(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static uint8_t *read_raw(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long sz;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)sz);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	*n = (size_t)sz;
	return p;
}

/* Read to the end; must fail with every piece of @want in the message. */
static void expect_error(const char *path, const char *const *want, uint64_t *msgs)
{
	struct dayfile_reader r;
	const uint8_t *m;
	uint16_t len;
	uint64_t seq;
	int ret;

	assert_int_equal(dayfile_open(&r, path, DAYFILE_BUF_MIN), 0);
	while ((ret = dayfile_next(&r, &m, &len, &seq)) == 1)
		;
	assert_int_equal(ret, -1);
	print_message("%s\n", r.err);
	for (; *want; want++)
		if (!strstr(r.err, *want))
			fail_msg("error '%s' lacks '%s'", r.err, *want);
	if (msgs)
		*msgs = r.msgs;
	dayfile_close(&r);
}

/* Three whole messages (12 bytes each) then the start of a fourth. */
static size_t three_and_a_bit(uint8_t *b)
{
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		be16_store(b + n, 12);
		memset(b + n + 2, 'S', 12);
		n += 14;
	}
	return n;
}

static void test_truncated_plain(void **state)
{
	char p[256], where[64];
	uint8_t b[128];
	size_t n;
	uint64_t msgs;

	(void)state;
	path_of(p, sizeof(p), "cut.bin");
	n = three_and_a_bit(b);
	be16_store(b + n, 36);		/* an A, cut after 5 of its 36 bytes */
	memset(b + n + 2, 'A', 5);
	write_raw(p, b, n + 7);
	snprintf(where, sizeof(where), "byte offset %zu ", n);
	const char *want[] = { p, "truncated", "message 4", where,
			       "length 36", "ends 5 bytes later", NULL };
	expect_error(p, want, &msgs);
	assert_int_equal(msgs, 3);	/* the whole ones were read */
}

static void test_length_past_end(void **state)
{
	char p[256], where[64];
	uint8_t b[128];
	size_t n;

	(void)state;
	path_of(p, sizeof(p), "past.bin");
	n = three_and_a_bit(b);
	be16_store(b + n, 60000);	/* a length nothing like the bytes left */
	memset(b + n + 2, 'D', 19);
	write_raw(p, b, n + 21);
	snprintf(where, sizeof(where), "byte offset %zu ", n);
	const char *want[] = { p, "message 4", where, "length 60000", NULL };
	expect_error(p, want, NULL);

	/* Half a length prefix. */
	path_of(p, sizeof(p), "half.bin");
	write_raw(p, b, n + 1);
	const char *want2[] = { p, "message 4", where, "1 byte of its 2-byte length", NULL };
	expect_error(p, want2, NULL);
}

static void test_gzip_cut_short(void **state)
{
	char gz[256], cut[256];
	uint8_t *b;
	size_t n;

	(void)state;
	path_of(gz, sizeof(gz), "whole.gz");
	path_of(cut, sizeof(cut), "cut.gz");
	uint64_t bytes = write_day(gz, 6, NMSG);
	b = read_raw(gz, &n);
	write_raw(cut, b, n / 2);
	free(b);

	struct dayfile_reader r;
	const uint8_t *m;
	uint16_t len;
	uint64_t seq;
	int ret;
	unsigned long long off;
	const char *at;

	assert_int_equal(dayfile_open(&r, cut, DAYFILE_BUF_MIN), 0);
	while ((ret = dayfile_next(&r, &m, &len, &seq)) == 1)
		;
	assert_int_equal(ret, -1);
	print_message("%s\n", r.err);
	assert_non_null(strstr(r.err, cut));
	assert_non_null(strstr(r.err, "gzip stream cut short"));
	at = strstr(r.err, "uncompressed byte offset ");
	assert_non_null(at);
	off = strtoull(at + strlen("uncompressed byte offset "), NULL, 10);
	/* Somewhere inside the day, past what was handed out. */
	assert_true(off > 0 && off < bytes);
	assert_true(r.msgs > 0 && r.msgs < NMSG);
	dayfile_close(&r);
}

static void test_gzip_corrupt(void **state)
{
	char gz[256], bad[256];
	uint8_t *b;
	size_t n;

	(void)state;
	path_of(gz, sizeof(gz), "good.gz");
	path_of(bad, sizeof(bad), "bad.gz");
	write_day(gz, 6, NMSG);
	b = read_raw(gz, &n);
	/* Garble a run of compressed bytes in the middle. */
	for (size_t i = n / 2; i < n / 2 + 64; i++)
		b[i] ^= 0x5a;
	write_raw(bad, b, n);
	free(b);
	const char *want[] = { bad, "corrupt gzip stream near uncompressed byte offset", NULL };
	expect_error(bad, want, NULL);
}

static void test_open_errors_and_empty(void **state)
{
	char p[256];
	struct dayfile_reader r;
	const uint8_t *m;
	uint16_t len;
	uint64_t seq;

	(void)state;
	path_of(p, sizeof(p), "nope.bin");
	assert_int_equal(dayfile_open(&r, p, 0), -1);
	assert_non_null(strstr(r.err, p));
	assert_non_null(strstr(r.err, "No such file"));

	path_of(p, sizeof(p), "empty.bin");
	write_raw(p, (const uint8_t *)"", 0);
	assert_int_equal(dayfile_open(&r, p, 0), 0);
	assert_int_equal(dayfile_next(&r, &m, &len, &seq), 0);
	dayfile_close(&r);

	struct dayfile_writer w;

	assert_int_equal(dayfile_writer_open(&w, "/nonexistent-dir/x.gz", 1), -1);
	assert_non_null(strstr(w.err, "/nonexistent-dir/x.gz"));
	assert_int_equal(dayfile_writer_open(&w, p, 10), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_plain_and_gzip),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_truncated_plain),
		cmocka_unit_test(test_length_past_end),
		cmocka_unit_test(test_gzip_cut_short),
		cmocka_unit_test(test_gzip_corrupt),
		cmocka_unit_test(test_open_errors_and_empty),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
