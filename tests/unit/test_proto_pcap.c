// SPDX-License-Identifier: MIT
/*
 * Classic pcap files (proto/pcap.h): round trips in both byte orders and
 * both precisions, the file header byte for byte as the format writes it,
 * a snaplen that cuts records (counted), a gzip'd capture, and files that
 * are not what they claim: too short, another magic, pcapng, another
 * version, a record longer than the snaplen or captured longer than it
 * was, a file cut at every byte (every whole record before the cut read,
 * the cut said), and garbage after a good header (read or refused, never
 * a byte out of bounds: this runs under ASan).
 */
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

#include "proto/pcap.h"

#define NREC 200

static char dir[] = "/tmp/test_pcap.XXXXXX";

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

static uint32_t rec_len(unsigned int i)
{
	return (i * 7919u) % 1601;	/* 0 included */
}

static uint8_t rec_byte(unsigned int i, unsigned int j)
{
	return (uint8_t)(i * 13u + j * 5u + 1);
}

/* 1.7e18 ns (2023), some nanoseconds that a microsecond file drops. */
static uint64_t rec_ts(unsigned int i)
{
	return 1700000000000000000ull + i * 1234567ull + i % 1000;
}

static void write_file(const char *path, const struct pcap_writer_cfg *cfg, unsigned int n)
{
	struct pcap_writer w;
	uint8_t pkt[1601];

	assert_int_equal(pcap_writer_open(&w, path, cfg), 0);
	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int j = 0; j < rec_len(i); j++)
			pkt[j] = rec_byte(i, j);
		assert_int_equal(pcap_write(&w, rec_ts(i), pkt, rec_len(i)), 0);
	}
	assert_int_equal(w.records, n);
	assert_int_equal(pcap_writer_close(&w), 0);
}

static void read_back(const char *path, const struct pcap_writer_cfg *cfg, unsigned int n)
{
	struct pcap_reader r;
	struct pcap_record rec;
	uint64_t off = PCAP_FILE_HDR_LEN;
	unsigned int i;

	assert_int_equal(pcap_open(&r, path), 0);
	assert_int_equal(r.nsec, cfg->nsec);
	/* this machine is little-endian: a big-endian file reads swapped */
	assert_int_equal(r.swapped, cfg->big_endian);
	assert_int_equal(r.linktype, PCAP_LINKTYPE_ETHERNET);
	assert_int_equal(r.major, 2);
	assert_int_equal(r.minor, 4);
	for (i = 0; i < n; i++) {
		uint32_t want = rec_len(i) < r.cap ? rec_len(i) : r.cap;
		uint64_t ts = cfg->nsec ? rec_ts(i) : rec_ts(i) / 1000 * 1000;

		assert_int_equal(pcap_next(&r, &rec), 1);
		assert_int_equal(rec.index, i + 1);
		assert_int_equal(rec.offset, off);
		assert_int_equal(rec.len, rec_len(i));
		assert_int_equal(rec.caplen, want);
		assert_int_equal(rec.ts_ns, ts);
		for (unsigned int j = 0; j < want; j++)
			assert_int_equal(rec.data[j], rec_byte(i, j));
		off += PCAP_REC_HDR_LEN + want;
	}
	assert_int_equal(pcap_next(&r, &rec), 0);
	assert_false(r.cut);
	assert_int_equal(r.records, n);
	pcap_close(&r);
}

static void test_round_trips(void **state)
{
	static const struct pcap_writer_cfg cfgs[] = {
		{ .nsec = false, .big_endian = false },
		{ .nsec = true, .big_endian = false },
		{ .nsec = false, .big_endian = true },
		{ .nsec = true, .big_endian = true },
	};
	char p[256];

	(void)state;
	path_of(p, sizeof(p), "rt.pcap");
	for (size_t k = 0; k < sizeof(cfgs) / sizeof(cfgs[0]); k++) {
		write_file(p, &cfgs[k], NREC);
		read_back(p, &cfgs[k], NREC);
	}
}

static size_t slurp(const char *path, uint8_t *buf, size_t cap)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static void spit(const char *path, const void *buf, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* The header as the format's description lays it out, both orders. */
static void test_header_bytes(void **state)
{
	static const uint8_t le_us[PCAP_FILE_HDR_LEN] = {
		0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xe8, 0x03, 0, 0, 1, 0, 0, 0,
	};
	static const uint8_t be_ns[PCAP_FILE_HDR_LEN] = {
		0xa1, 0xb2, 0x3c, 0x4d, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0x03, 0xe8, 0, 0, 0, 1,
	};
	struct pcap_writer_cfg a = { .snaplen = 1000 }, b = a;
	uint8_t buf[64];
	char p[256];

	(void)state;
	b.nsec = b.big_endian = true;
	path_of(p, sizeof(p), "hdr.pcap");
	write_file(p, &a, 0);
	assert_int_equal(slurp(p, buf, sizeof(buf)), PCAP_FILE_HDR_LEN);
	assert_memory_equal(buf, le_us, PCAP_FILE_HDR_LEN);
	write_file(p, &b, 0);
	assert_int_equal(slurp(p, buf, sizeof(buf)), PCAP_FILE_HDR_LEN);
	assert_memory_equal(buf, be_ns, PCAP_FILE_HDR_LEN);
}

static void test_snaplen_cuts_records(void **state)
{
	struct pcap_writer_cfg cfg = { .snaplen = 100, .nsec = true };
	struct pcap_reader r;
	struct pcap_record rec;
	uint64_t cut = 0;
	char p[256];

	(void)state;
	path_of(p, sizeof(p), "snap.pcap");
	write_file(p, &cfg, NREC);
	read_back(p, &cfg, NREC);
	assert_int_equal(pcap_open(&r, p), 0);
	assert_int_equal(r.snaplen, 100);
	while (pcap_next(&r, &rec) == 1)
		cut += rec.caplen < rec.len;
	assert_true(cut > NREC / 2);
	assert_int_equal(r.truncated, cut);
	pcap_close(&r);
}

static void test_gzip_capture(void **state)
{
	struct pcap_writer_cfg cfg = { .nsec = false };
	static uint8_t buf[1 << 20];
	char p[256], q[256];
	struct pcap_reader r;
	size_t n;
	gzFile gz;

	(void)state;
	path_of(p, sizeof(p), "plain.pcap");
	path_of(q, sizeof(q), "zipped.pcap.gz");
	write_file(p, &cfg, NREC);
	n = slurp(p, buf, sizeof(buf));
	gz = gzopen(q, "wb1");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, buf, (unsigned int)n), (int)n);
	assert_int_equal(gzclose(gz), Z_OK);
	read_back(q, &cfg, NREC);
	assert_int_equal(pcap_open(&r, q), 0);
	assert_true(r.gzip);
	pcap_close(&r);
}

static void expect_open_error(const char *path, const char *text)
{
	struct pcap_reader r;

	assert_int_equal(pcap_open(&r, path), -1);
	if (!strstr(r.err, text))
		fail_msg("error '%s' lacks '%s'", r.err, text);
	assert_null(r.buf);
	assert_null(r.gz);
}

static void test_not_a_pcap(void **state)
{
	uint8_t h[PCAP_FILE_HDR_LEN];
	struct pcap_writer_cfg cfg = { 0 };
	char p[256];

	(void)state;
	path_of(p, sizeof(p), "none.pcap");
	expect_open_error(p, "No such file");
	spit(p, "", 0);
	expect_open_error(p, "0 bytes, shorter than the 24-byte file header");
	write_file(p, &cfg, 0);
	slurp(p, h, sizeof(h));
	spit(p, h, 23);
	expect_open_error(p, "23 bytes, shorter");
	memcpy(h, "\x0a\x0d\x0d\x0a", 4);
	spit(p, h, sizeof(h));
	expect_open_error(p, "a pcapng file");
	memcpy(h, "GIF8", 4);
	spit(p, h, sizeof(h));
	expect_open_error(p, "not a pcap file (magic 0x38464947)");
	write_file(p, &cfg, 0);
	slurp(p, h, sizeof(h));
	h[4] = 3;
	spit(p, h, sizeof(h));
	expect_open_error(p, "pcap version 3.4");
}

/* A file header of @snaplen, then one record header claiming @caplen/@len. */
static void one_record(const char *p, uint32_t snaplen, uint32_t caplen, uint32_t len)
{
	uint8_t f[PCAP_FILE_HDR_LEN + PCAP_REC_HDR_LEN + 8] = { 0 };
	uint32_t v[6] = { PCAP_MAGIC_US, 0x00040002, 0, 0, snaplen, 1 };

	memcpy(f, v, sizeof(v));
	v[0] = 1;
	v[1] = 0;
	v[2] = caplen;
	v[3] = len;
	memcpy(f + PCAP_FILE_HDR_LEN, v, 16);
	spit(p, f, sizeof(f));
}

static void test_record_lengths_checked(void **state)
{
	struct pcap_reader r;
	struct pcap_record rec;
	char p[256];

	(void)state;
	path_of(p, sizeof(p), "len.pcap");
	one_record(p, 64, 65, 65);
	assert_int_equal(pcap_open(&r, p), 0);
	assert_int_equal(pcap_next(&r, &rec), -1);
	assert_non_null(strstr(r.err, "record 1 at byte offset 24: 65 bytes captured, more than the snaplen (64)"));
	pcap_close(&r);

	one_record(p, 64, 8, 7);
	assert_int_equal(pcap_open(&r, p), 0);
	assert_int_equal(pcap_next(&r, &rec), -1);
	assert_non_null(strstr(r.err, "8 bytes captured of a 7-byte packet"));
	pcap_close(&r);

	/* snaplen 0 means the largest, as libpcap reads it */
	one_record(p, 0, 8, 9);
	assert_int_equal(pcap_open(&r, p), 0);
	assert_int_equal(r.cap, PCAP_SNAPLEN_MAX);
	assert_int_equal(pcap_next(&r, &rec), 1);
	assert_int_equal(rec.caplen, 8);
	assert_int_equal(r.truncated, 1);
	assert_int_equal(pcap_next(&r, &rec), 0);
	pcap_close(&r);

	/* a snaplen beyond the largest is bounded, not allocated */
	one_record(p, 0xffffffffu, PCAP_SNAPLEN_MAX + 1, PCAP_SNAPLEN_MAX + 1);
	assert_int_equal(pcap_open(&r, p), 0);
	assert_int_equal(r.cap, PCAP_SNAPLEN_MAX);
	assert_int_equal(pcap_next(&r, &rec), -1);
	pcap_close(&r);
}

/* Cut after every byte: the whole records before the cut, then the end. */
static void test_cut_at_every_byte(void **state)
{
	struct pcap_writer_cfg cfg = { .nsec = true };
	static uint8_t buf[1 << 16];
	uint64_t ends[40];
	struct pcap_reader r;
	struct pcap_record rec;
	char p[256], q[256];
	size_t n, cutat;
	unsigned int whole, i;

	(void)state;
	path_of(p, sizeof(p), "full.pcap");
	path_of(q, sizeof(q), "cut.pcap");
	write_file(p, &cfg, 40);
	n = slurp(p, buf, sizeof(buf));
	ends[0] = PCAP_FILE_HDR_LEN + PCAP_REC_HDR_LEN + rec_len(0);
	for (i = 1; i < 40; i++)
		ends[i] = ends[i - 1] + PCAP_REC_HDR_LEN + rec_len(i);
	assert_int_equal(ends[39], n);
	for (cutat = PCAP_FILE_HDR_LEN; cutat <= n; cutat += cutat < 400 ? 1 : 37) {
		spit(q, buf, cutat);
		assert_int_equal(pcap_open(&r, q), 0);
		for (whole = 0; whole < 40 && ends[whole] <= cutat; whole++)
			;
		for (i = 0; i < whole; i++) {
			assert_int_equal(pcap_next(&r, &rec), 1);
			assert_int_equal(rec.caplen, rec_len(i));
		}
		assert_int_equal(pcap_next(&r, &rec), 0);
		assert_int_equal(pcap_next(&r, &rec), 0);
		/* cut exactly after a record (or the header) is a clean end */
		assert_int_equal(r.cut, cutat != (whole ? ends[whole - 1] : PCAP_FILE_HDR_LEN));
		if (r.cut)
			assert_non_null(strstr(r.err, "cut short: record"));
		pcap_close(&r);
	}
}

/* Garbage behind a good header, either magic, either order: whatever it says. */
static void test_garbage(void **state)
{
	static const uint32_t magics[] = {
		PCAP_MAGIC_US, PCAP_MAGIC_NS, 0xd4c3b2a1u, 0x4d3cb2a1u,
	};
	static uint8_t buf[8192];
	struct pcap_reader r;
	struct pcap_record rec;
	uint64_t whole = 0, refused = 0, cut = 0;
	unsigned int seed = 7;
	char p[256];

	(void)state;
	path_of(p, sizeof(p), "junk.pcap");
	for (int k = 0; k < 400; k++) {
		size_t n = PCAP_FILE_HDR_LEN + (size_t)(rand_r(&seed) % (sizeof(buf) - PCAP_FILE_HDR_LEN));
		uint64_t got = 0;
		int ret;

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t)rand_r(&seed);
		memcpy(buf, &magics[k % 4], 4);
		buf[k % 4 >= 2 ? 5 : 4] = 2;	/* version 2, in the file's order */
		buf[k % 4 >= 2 ? 4 : 5] = 0;
		/* small lengths now and then, so that some records read whole */
		if (k % 3 == 0)
			for (size_t i = PCAP_FILE_HDR_LEN + 8; i + 8 <= n; i += 97)
				memset(buf + i, 0, 3);
		spit(p, buf, n);
		assert_int_equal(pcap_open(&r, p), 0);
		while ((ret = pcap_next(&r, &rec)) == 1) {
			assert_true(rec.caplen <= r.cap && rec.caplen <= rec.len);
			/* every byte handed out is readable (ASan checks) */
			for (uint32_t i = 0; i < rec.caplen; i++)
				got += rec.data[i];
		}
		assert_true(ret == 0 || ret == -1);
		assert_true(r.offset <= n);
		whole += r.records;
		refused += ret < 0;
		cut += r.cut;
		pcap_close(&r);
		(void)got;
	}
	/* the three ends all happened: records read, lengths refused, files cut */
	print_message("garbage: %llu records read, %llu files refused, %llu cut\n",
		      (unsigned long long)whole, (unsigned long long)refused,
		      (unsigned long long)cut);
	assert_true(whole > 0 && refused > 0 && cut > 0);
}

static void test_writer_errors(void **state)
{
	struct pcap_writer_cfg cfg = { 0 };
	struct pcap_writer w;
	uint8_t pkt[4] = { 0 };
	char p[256];

	(void)state;
	assert_int_equal(pcap_writer_open(&w, "/nonexistent/dir/x.pcap", &cfg), -1);
	assert_non_null(strstr(w.err, "No such file"));
	path_of(p, sizeof(p), "w.pcap");
	assert_int_equal(pcap_writer_open(&w, p, &cfg), 0);
	assert_int_equal(pcap_write(&w, (UINT32_MAX + 1ull) * 1000000000ull, pkt, 4), -1);
	assert_non_null(strstr(w.err, "past what a pcap holds"));
	assert_int_equal(pcap_writer_close(&w), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_header_bytes),
		cmocka_unit_test(test_snaplen_cuts_records),
		cmocka_unit_test(test_gzip_capture),
		cmocka_unit_test(test_not_a_pcap),
		cmocka_unit_test(test_record_lengths_checked),
		cmocka_unit_test(test_cut_at_every_byte),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_writer_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
