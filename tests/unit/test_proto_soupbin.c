// SPDX-License-Identifier: MIT
/*
 * SoupBinTCP 3.0 (proto/soupbin.h): every packet type against its byte
 * layout in docs/wire.md (written out as numbers), field padding, sequence
 * number fields, every error, soup_check(); then the reassembler on one
 * stream cut in every way: each must yield the packets of the whole
 * stream, in place when a packet lies inside its chunk, joined otherwise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/proto_err.h"
#include "proto/soupbin.h"

#define SP 0x20	/* a space */

/* 64 KiB of buffer: static, off the stack. */
static struct soup_rx rx;

/*
 * The stream tests free a heap chunk of up to 70 KiB some 10^5 times:
 * ASan's default quarantine of 256 MiB turns that into page faults (11 s
 * against 2 s).  16 MiB still holds the last few hundred chunks, and a
 * pointer kept into a freed one would be kept into the last.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=16";
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Push one packet whole and return it. */
static void parse_one(const uint8_t *b, size_t n, struct soup_pkt *p)
{
	soup_rx_init(&rx, 0);
	soup_rx_push(&rx, b, n);
	assert_int_equal(soup_rx_next(&rx, p), 1);
	assert_ptr_equal(p->payload, b + SOUP_HDR_LEN);
	assert_int_equal(soup_rx_next(&rx, p), 0);
}

static void test_login_request(void **state)
{
	/* User "T2TG", password "secret", the current session, from 1. */
	static const uint8_t want[49] = {
		0x00, 0x2f, 0x4c,				/* 47, 'L' */
		0x54, 0x32, 0x54, 0x47, SP, SP,			/* "T2TG  " */
		0x73, 0x65, 0x63, 0x72, 0x65, 0x74, SP, SP, SP, SP, /* "secret" */
		SP, SP, SP, SP, SP, SP, SP, SP, SP, SP,		/* session */
		SP, SP, SP, SP, SP, SP, SP, SP, SP, SP,
		SP, SP, SP, SP, SP, SP, SP, SP, SP, 0x31,	/* 1 */
	};
	struct soup_login_request l, back;
	struct soup_pkt p;
	uint8_t b[64];

	(void)state;
	soup_pad_right(l.user, SOUP_USER_LEN, "T2TG");
	soup_pad_right(l.password, SOUP_PASSWORD_LEN, "secret");
	soup_pad_left(l.session, SOUP_SESSION_LEN, "");
	l.seq = 1;
	memset(b, 0xee, sizeof(b));
	assert_int_equal(soup_encode_login_request(b, sizeof(b), &l), 49);
	assert_memory_equal(b, want, sizeof(want));
	assert_int_equal(b[49], 0xee);

	parse_one(b, 49, &p);
	assert_int_equal(p.type, 'L');
	assert_int_equal(p.len, 46);
	memset(&back, 0x55, sizeof(back));
	assert_int_equal(soup_decode_login_request(p.payload, p.len, &back), 0);
	assert_memory_equal(back.user, "T2TG  ", 6);
	assert_memory_equal(back.password, "secret    ", 10);
	assert_memory_equal(back.session, "          ", 10);
	assert_int_equal(back.seq, 1);

	/* A named session, and the largest number. */
	soup_pad_left(l.session, SOUP_SESSION_LEN, "S0000042");
	l.seq = UINT64_MAX;
	assert_int_equal(soup_encode_login_request(b, 49, &l), 49);
	assert_memory_equal(b + 19, "  S0000042", 10);
	assert_memory_equal(b + 29, "18446744073709551615", 20);
	assert_int_equal(soup_decode_login_request(b + 3, 46, &back), 0);
	assert_memory_equal(back.session, "  S0000042", 10);
	assert_true(back.seq == UINT64_MAX);

	assert_int_equal(soup_encode_login_request(b, 48, &l), PROTO_E_NOSPACE);
}

static void test_login_accepted(void **state)
{
	/* Session "42", next message 1234. */
	static const uint8_t want[33] = {
		0x00, 0x1f, 0x41,				/* 31, 'A' */
		SP, SP, SP, SP, SP, SP, SP, SP, 0x34, 0x32,	/* "42" */
		SP, SP, SP, SP, SP, SP, SP, SP, SP, SP,
		SP, SP, SP, SP, SP, SP, 0x31, 0x32, 0x33, 0x34,	/* 1234 */
	};
	struct soup_login_accepted a, back;
	struct soup_pkt p;
	uint8_t b[40];

	(void)state;
	soup_pad_left(a.session, SOUP_SESSION_LEN, "42");
	a.seq = 1234;
	memset(b, 0xee, sizeof(b));
	assert_int_equal(soup_encode_login_accepted(b, sizeof(b), &a), 33);
	assert_memory_equal(b, want, sizeof(want));
	assert_int_equal(b[33], 0xee);

	parse_one(b, 33, &p);
	assert_int_equal(p.type, 'A');
	assert_int_equal(p.len, 30);
	assert_int_equal(soup_decode_login_accepted(p.payload, p.len, &back), 0);
	assert_memory_equal(back.session, "        42", 10);
	assert_int_equal(back.seq, 1234);

	assert_int_equal(soup_encode_login_accepted(b, 32, &a), PROTO_E_NOSPACE);
}

static void test_login_rejected(void **state)
{
	static const uint8_t want_a[4] = { 0x00, 0x02, 0x4a, 0x41 };
	static const uint8_t want_s[4] = { 0x00, 0x02, 0x4a, 0x53 };
	struct soup_pkt p;
	uint8_t b[4];
	char r = 0;

	(void)state;
	assert_int_equal(soup_encode_login_rejected(b, 4, SOUP_REJECT_NOT_AUTHORIZED), 4);
	assert_memory_equal(b, want_a, 4);
	parse_one(b, 4, &p);
	assert_int_equal(p.type, 'J');
	assert_int_equal(soup_decode_login_rejected(p.payload, p.len, &r), 0);
	assert_int_equal(r, 'A');

	assert_int_equal(soup_encode_login_rejected(b, 4, SOUP_REJECT_NO_SESSION), 4);
	assert_memory_equal(b, want_s, 4);
	assert_int_equal(soup_decode_login_rejected(b + 3, 1, &r), 0);
	assert_int_equal(r, 'S');

	assert_int_equal(soup_encode_login_rejected(b, 3, 'A'), PROTO_E_NOSPACE);
}

static void test_empty(void **state)
{
	static const char types[] = "HRZO";
	static const char not_empty[] = "+LAJSUhrzoX";
	struct soup_pkt p;
	uint8_t b[4];

	(void)state;
	for (const char *t = types; *t; t++) {
		memset(b, 0xee, sizeof(b));
		assert_int_equal(soup_encode_empty(b, 3, *t), 3);
		assert_int_equal(b[0], 0x00);
		assert_int_equal(b[1], 0x01);
		assert_int_equal(b[2], *t);
		assert_int_equal(b[3], 0xee);
		parse_one(b, 3, &p);
		assert_int_equal(p.type, *t);
		assert_int_equal(p.len, 0);
		assert_int_equal(soup_encode_empty(b, 2, *t), PROTO_E_NOSPACE);
	}
	for (const char *t = not_empty; *t; t++)
		assert_int_equal(soup_encode_empty(b, 3, *t), PROTO_E_PKT_TYPE);
	assert_int_equal(soup_encode_empty(b, 3, 0), PROTO_E_PKT_TYPE);
}

static void test_debug(void **state)
{
	static const uint8_t want[8] = { 0x00, 0x06, 0x2b, 0x68, 0x65, 0x6c, 0x6c, 0x6f };
	static uint8_t b[SOUP_PKT_MAX + 1], text[SOUP_PAYLOAD_MAX + 1];
	struct soup_pkt p;

	(void)state;
	assert_int_equal(soup_encode_debug(b, 8, "hello", 5), 8);
	assert_memory_equal(b, want, 8);
	parse_one(b, 8, &p);
	assert_int_equal(p.type, '+');
	assert_memory_equal(p.payload, "hello", 5);
	assert_int_equal(soup_encode_debug(b, 7, "hello", 5), PROTO_E_NOSPACE);

	/* Empty, with no text at all. */
	assert_int_equal(soup_encode_debug(b, 3, NULL, 0), 3);
	assert_int_equal(b[0], 0x00);
	assert_int_equal(b[1], 0x01);
	assert_int_equal(b[2], 0x2b);

	/* The longest: Packet Length 0xffff. */
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (uint8_t)(' ' + i % 95);
	assert_int_equal(soup_encode_debug(b, sizeof(b), (char *)text, SOUP_PAYLOAD_MAX),
			 65537);
	assert_int_equal(b[0], 0xff);
	assert_int_equal(b[1], 0xff);
	assert_int_equal(b[2], 0x2b);
	assert_memory_equal(b + 3, text, SOUP_PAYLOAD_MAX);
	parse_one(b, 65537, &p);
	assert_int_equal(p.len, 0xfffe);
	assert_int_equal(soup_encode_debug(b, sizeof(b), (char *)text, SOUP_PAYLOAD_MAX + 1),
			 PROTO_E_RANGE);
	assert_int_equal(soup_encode_debug(b, 65536, (char *)text, SOUP_PAYLOAD_MAX),
			 PROTO_E_NOSPACE);
}

static void test_header(void **state)
{
	uint8_t b[80], c[3];

	(void)state;
	/* An OUCH Accepted (66) as Sequenced Data, an Enter Order (49) as Unsequenced. */
	assert_int_equal(soup_encode_header(b, 69, 'S', 66), 3);
	assert_int_equal(b[0], 0x00);
	assert_int_equal(b[1], 0x43);
	assert_int_equal(b[2], 0x53);
	soup_put_header(c, 'S', 66);
	assert_memory_equal(c, b, 3);

	assert_int_equal(soup_encode_header(b, 52, 'U', 49), 3);
	assert_int_equal(b[0], 0x00);
	assert_int_equal(b[1], 0x32);
	assert_int_equal(b[2], 0x55);
	soup_put_header(c, 'U', 49);
	assert_memory_equal(c, b, 3);

	/* Room for the header and the payload behind it, not the header alone. */
	assert_int_equal(soup_encode_header(b, 51, 'U', 49), PROTO_E_NOSPACE);
	assert_int_equal(soup_encode_header(b, 2, 'H', 0), PROTO_E_NOSPACE);
	assert_int_equal(soup_encode_header(b, 3, 'H', 0), 3);

	assert_int_equal(soup_encode_header(b, SOUP_PKT_MAX, 'S', SOUP_PAYLOAD_MAX), 3);
	assert_int_equal(b[0], 0xff);
	assert_int_equal(b[1], 0xff);
	assert_int_equal(soup_encode_header(b, SIZE_MAX, 'S', SOUP_PAYLOAD_MAX + 1),
			 PROTO_E_RANGE);
	assert_int_equal(soup_encode_header(b, 3, 'S', SIZE_MAX), PROTO_E_RANGE);
}

static void test_pad(void **state)
{
	char b[12];

	(void)state;
	memset(b, '#', sizeof(b));
	soup_pad_right(b + 1, 6, "AB");
	assert_memory_equal(b, "#AB    #", 8);
	soup_pad_right(b + 1, 6, "ABCDEF");
	assert_memory_equal(b, "#ABCDEF#", 8);
	soup_pad_right(b + 1, 6, "ABCDEFGH");
	assert_memory_equal(b, "#ABCDEF#", 8);
	soup_pad_right(b + 1, 6, "");
	assert_memory_equal(b, "#      #", 8);

	memset(b, '#', sizeof(b));
	soup_pad_left(b + 1, 10, "42");
	assert_memory_equal(b, "#        42#", 12);
	soup_pad_left(b + 1, 10, "ABCDEFGHIJ");
	assert_memory_equal(b, "#ABCDEFGHIJ#", 12);
	soup_pad_left(b + 1, 10, "ABCDEFGHIJKL");
	assert_memory_equal(b, "#ABCDEFGHIJ#", 12);
	soup_pad_left(b + 1, 10, "");
	assert_memory_equal(b, "#          #", 12);

	soup_pad_right(b + 1, 0, "X");
	soup_pad_left(b + 1, 0, "X");
	assert_memory_equal(b, "#          #", 12);
}

static void test_seqnum_write(void **state)
{
	static const struct {
		uint64_t v;
		const char *s;
	} cases[] = {
		{ 0,				"                   0" },
		{ 1,				"                   1" },
		{ 10,				"                  10" },
		{ 9999999999999999999ull,	" 9999999999999999999" },
		{ 10000000000000000000ull,	"10000000000000000000" },
		{ UINT64_MAX,			"18446744073709551615" },
	};
	char b[SOUP_SEQNUM_LEN + 2];
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(b, '#', sizeof(b));
		soup_seqnum_write(b + 1, cases[i].v);
		assert_int_equal(b[0], '#');
		assert_memory_equal(b + 1, cases[i].s, SOUP_SEQNUM_LEN);
		assert_int_equal(b[SOUP_SEQNUM_LEN + 1], '#');
		assert_int_equal(soup_seqnum_read(b + 1, &v), 0);
		assert_true(v == cases[i].v);
	}
	/* Every power of ten and its neighbours round trip, and values of every width. */
	for (uint64_t e = 0, p = 1; e < 20; e++, p *= 10) {
		for (uint64_t x = p - 1; x <= p + 1; x++) {
			soup_seqnum_write(b, x);
			assert_int_equal(soup_seqnum_read(b, &v), 0);
			assert_true(v == x);
		}
	}
	for (uint64_t i = 0, r = 42; i < 10000; i++) {
		uint64_t x = xorshift(&r) >> (i % 64);

		soup_seqnum_write(b, x);
		assert_int_equal(soup_seqnum_read(b, &v), 0);
		assert_true(v == x);
	}
}

static void test_seqnum_read(void **state)
{
	static const struct {
		const char *s;
		uint64_t v;
	} good[] = {
		{ "                   0", 0 },
		{ "00000000000000000000", 0 },
		{ "00000000000000000001", 1 },
		{ "   00000000000000042", 42 },
		{ "18446744073709551615", UINT64_MAX },
		{ "01844674407370955161", 1844674407370955161ull },
	};
	static const struct {
		const char *s;
		int err;
	} bad[] = {
		{ "                    ", PROTO_E_CHAR },	/* no digit */
		{ "1                   ", PROTO_E_CHAR },	/* space after a digit */
		{ "                 1 2", PROTO_E_CHAR },
		{ "                  1 ", PROTO_E_CHAR },
		{ "                  +1", PROTO_E_CHAR },
		{ "                  -1", PROTO_E_CHAR },
		{ "                  1a", PROTO_E_CHAR },
		{ "                 1/0", PROTO_E_CHAR },	/* '0' - 1 */
		{ "                 1:0", PROTO_E_CHAR },	/* '9' + 1 */
		{ "\t                  1", PROTO_E_CHAR },
		{ "                 \x80" "12", PROTO_E_CHAR },
		{ "18446744073709551616", PROTO_E_RANGE },	/* UINT64_MAX + 1 */
		{ "18446744073709551620", PROTO_E_RANGE },
		{ "20000000000000000000", PROTO_E_RANGE },
		{ "99999999999999999999", PROTO_E_RANGE },
	};
	char nul[SOUP_SEQNUM_LEN];
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(strlen(good[i].s), SOUP_SEQNUM_LEN);
		assert_int_equal(soup_seqnum_read(good[i].s, &v), 0);
		assert_true(v == good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(strlen(bad[i].s), SOUP_SEQNUM_LEN);
		v = 77;
		assert_int_equal(soup_seqnum_read(bad[i].s, &v), bad[i].err);
		assert_int_equal(v, 77);
	}
	memset(nul, ' ', sizeof(nul));
	nul[10] = '\0';
	nul[19] = '1';
	assert_int_equal(soup_seqnum_read(nul, &v), PROTO_E_CHAR);
}

/* A bad payload leaves the struct as it was (all 0x55 here). */
static void test_decode_errors(void **state)
{
	struct soup_login_request l, lk, l55;
	struct soup_login_accepted a, ak, a55;
	uint8_t b[64], *seq = b + 3 + 26;
	char r = 'x';

	(void)state;
	soup_pad_right(l.user, SOUP_USER_LEN, "T2TG");
	soup_pad_right(l.password, SOUP_PASSWORD_LEN, "secret");
	soup_pad_left(l.session, SOUP_SESSION_LEN, "");
	l.seq = 7;
	assert_int_equal(soup_encode_login_request(b, sizeof(b), &l), 49);
	memset(&lk, 0x55, sizeof(lk));
	memset(&l55, 0x55, sizeof(l55));
	assert_int_equal(soup_decode_login_request(b + 3, 45, &lk), PROTO_E_LENGTH);
	assert_int_equal(soup_decode_login_request(b + 3, 47, &lk), PROTO_E_LENGTH);
	assert_int_equal(soup_decode_login_request(b + 3, 0, &lk), PROTO_E_LENGTH);
	seq[10] = 'x';
	assert_int_equal(soup_decode_login_request(b + 3, 46, &lk), PROTO_E_CHAR);
	memcpy(seq, "99999999999999999999", 20);
	assert_int_equal(soup_decode_login_request(b + 3, 46, &lk), PROTO_E_RANGE);
	memset(seq, ' ', 20);
	assert_int_equal(soup_decode_login_request(b + 3, 46, &lk), PROTO_E_CHAR);
	assert_memory_equal(&lk, &l55, sizeof(lk));

	seq = b + 3 + 10;
	soup_pad_left(a.session, SOUP_SESSION_LEN, "1");
	a.seq = 1;
	assert_int_equal(soup_encode_login_accepted(b, sizeof(b), &a), 33);
	memset(&ak, 0x55, sizeof(ak));
	memset(&a55, 0x55, sizeof(a55));
	assert_int_equal(soup_decode_login_accepted(b + 3, 29, &ak), PROTO_E_LENGTH);
	assert_int_equal(soup_decode_login_accepted(b + 3, 31, &ak), PROTO_E_LENGTH);
	seq[0] = '1';			/* "1", spaces, "1" */
	assert_int_equal(soup_decode_login_accepted(b + 3, 30, &ak), PROTO_E_CHAR);
	memcpy(seq, "18446744073709551616", 20);
	assert_int_equal(soup_decode_login_accepted(b + 3, 30, &ak), PROTO_E_RANGE);
	assert_memory_equal(&ak, &a55, sizeof(ak));

	assert_int_equal(soup_decode_login_rejected(b, 0, &r), PROTO_E_LENGTH);
	assert_int_equal(soup_decode_login_rejected(b, 2, &r), PROTO_E_LENGTH);
	assert_int_equal(r, 'x');
}

static void test_check(void **state)
{
	static const struct {
		char type;
		size_t ok_min, ok_max;
	} known[] = {
		{ '+', 0, 0xfffe },
		{ 'L', 46, 46 },
		{ 'A', 30, 30 },
		{ 'J', 1, 1 },
		{ 'S', 1, 0xfffe },
		{ 'U', 1, 0xfffe },
		{ 'H', 0, 0 },
		{ 'R', 0, 0 },
		{ 'Z', 0, 0 },
		{ 'O', 0, 0 },
	};
	size_t i;
	int c;

	(void)state;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		char t = known[i].type;
		size_t lo = known[i].ok_min, hi = known[i].ok_max;

		assert_int_equal(soup_check(t, lo), 0);
		assert_int_equal(soup_check(t, hi), 0);
		assert_int_equal(soup_check(t, (lo + hi) / 2), 0);
		if (lo)
			assert_int_equal(soup_check(t, lo - 1), PROTO_E_LENGTH);
		assert_int_equal(soup_check(t, hi + 1), PROTO_E_LENGTH);
		assert_int_equal(soup_check(t, SIZE_MAX), PROTO_E_LENGTH);
	}
	/* Every other byte is no type of the contract, whatever the length. */
	for (c = 0; c < 256; c++) {
		if (memchr("+LAJSUHRZO", c, 10))
			continue;
		assert_int_equal(soup_check((char)c, 0), PROTO_E_PKT_TYPE);
		assert_int_equal(soup_check((char)c, 46), PROTO_E_PKT_TYPE);
	}
}

static void test_type_name(void **state)
{
	(void)state;
	assert_string_equal(soup_type_name('+'), "debug");
	assert_string_equal(soup_type_name('L'), "login request");
	assert_string_equal(soup_type_name('A'), "login accepted");
	assert_string_equal(soup_type_name('J'), "login rejected");
	assert_string_equal(soup_type_name('S'), "sequenced data");
	assert_string_equal(soup_type_name('U'), "unsequenced data");
	assert_string_equal(soup_type_name('H'), "server heartbeat");
	assert_string_equal(soup_type_name('R'), "client heartbeat");
	assert_string_equal(soup_type_name('Z'), "end of session");
	assert_string_equal(soup_type_name('O'), "logout request");
	assert_string_equal(soup_type_name('s'), "unknown");
	assert_string_equal(soup_type_name(0), "unknown");
}

/* ---- the reassembler ---- */

#define MAX_PKTS	64

/* A packet of a test stream: what every cut of the stream must give. */
struct ref_pkt {
	char type;
	uint16_t len;
	size_t off;		/* of its Packet Length in the stream */
};

struct stream {
	size_t len;
	struct ref_pkt pk[MAX_PKTS];
	int n;
	uint32_t max;		/* soup_rx_init()'s */
	bool bad;		/* a bad length follows packet n */
	uint8_t b[SOUP_PKT_MAX + 4096];		/* last: stream_reset() keeps it */
};

static struct stream full, shrt, brk;

static void stream_reset(struct stream *s, uint32_t max)
{
	memset(s, 0, offsetof(struct stream, b));
	s->max = max;
}

/* The packet of @n bytes written at the stream's end is one to expect. */
static void note(struct stream *s, size_t n)
{
	const uint8_t *pkt = s->b + s->len;

	assert_true(s->n < MAX_PKTS);
	assert_false(s->bad);
	s->pk[s->n++] = (struct ref_pkt){ .type = (char)pkt[SOUP_OFF_TYPE],
					  .len = (uint16_t)(n - SOUP_HDR_LEN),
					  .off = s->len };
	s->len += n;
}

/* A whole packet, as an encoder returned it (@n: its return value). */
static void add_ref(struct stream *s, const uint8_t *pkt, int n)
{
	assert_true(n >= SOUP_HDR_LEN && s->len + (size_t)n <= sizeof(s->b));
	memcpy(s->b + s->len, pkt, (size_t)n);
	note(s, (size_t)n);
}

/* A packet of @type with @len bytes of a pattern of its own. */
static void add(struct stream *s, char type, size_t len)
{
	uint8_t *b = s->b + s->len;

	assert_int_equal(soup_encode_header(b, sizeof(s->b) - s->len, type, len), 3);
	for (size_t i = 0; i < len; i++)
		b[SOUP_HDR_LEN + i] = (uint8_t)(s->n * 37 + i * 11 + (i >> 8));
	note(s, SOUP_HDR_LEN + len);
}

/* Bytes after a bad length: never returned. */
static void add_raw(struct stream *s, const void *b, size_t n)
{
	assert_true(s->len + n <= sizeof(s->b));
	memcpy(s->b + s->len, b, n);
	s->len += n;
}

/* Every type; @big: the longest debug packet too (Packet Length 0xffff). */
static void build(struct stream *s, bool big)
{
	struct soup_login_request l = { .seq = 0 };
	struct soup_login_accepted a = { .seq = 12345678901234567890ull };
	uint8_t b[64];

	stream_reset(s, 0);
	soup_pad_right(l.user, SOUP_USER_LEN, "T2TG");
	soup_pad_right(l.password, SOUP_PASSWORD_LEN, "secret");
	soup_pad_left(l.session, SOUP_SESSION_LEN, "");
	soup_pad_left(a.session, SOUP_SESSION_LEN, "SESS1");

	add_ref(s, b, soup_encode_login_request(b, sizeof(b), &l));
	add_ref(s, b, soup_encode_login_accepted(b, sizeof(b), &a));
	add_ref(s, b, soup_encode_login_rejected(b, sizeof(b), 'A'));
	add_ref(s, b, soup_encode_login_rejected(b, sizeof(b), 'S'));
	add_ref(s, b, soup_encode_empty(b, sizeof(b), 'H'));
	add_ref(s, b, soup_encode_debug(b, sizeof(b), "", 0));
	add(s, 'U', 49);		/* an OUCH Enter Order */
	add(s, 'S', 66);		/* Accepted */
	add(s, 'S', 40);		/* Executed */
	add_ref(s, b, soup_encode_empty(b, sizeof(b), 'R'));
	add(s, 'S', 1);
	add(s, 'U', 1);
	if (big)
		add(s, '+', SOUP_PAYLOAD_MAX);
	add(s, 'S', 28);
	add(s, 'S', 255);		/* Packet Length 0x0100: a zero low byte */
	add(s, 'Q', 7);			/* no type of the contract: passed up */
	add_ref(s, b, soup_encode_debug(b, sizeof(b), "hello, world", 12));
	add(s, 'S', 24);
	add_ref(s, b, soup_encode_empty(b, sizeof(b), 'O'));
	add_ref(s, b, soup_encode_empty(b, sizeof(b), 'Z'));
}

/* 1 if @p came joined: not wholly inside the chunk [from, to) at @c. */
static int check_pkt(const struct stream *s, const struct ref_pkt *r,
		     const struct soup_pkt *p, const uint8_t *c, size_t from, size_t to)
{
	assert_int_equal(p->type, r->type);
	assert_int_equal(p->len, r->len);
	if (r->off >= from && r->off + SOUP_HDR_LEN + r->len <= to) {
		/* In place: the chunk holds the stream's bytes, so the pointer says all. */
		assert_ptr_equal(p->payload, c + (r->off - from) + SOUP_HDR_LEN);
		return 0;
	}
	assert_ptr_equal(p->payload, rx.buf + SOUP_HDR_LEN);
	assert_true(!memcmp(p->payload, s->b + r->off + SOUP_HDR_LEN, r->len));
	return 1;
}

/*
 * Push @s cut at the @ncuts ascending offsets @cuts and check it gives
 * the reference packets, then the break if there is one.  Each chunk is a
 * heap buffer of exactly its size, freed once read: ASan catches a read
 * past it, or through a pointer kept into it.
 */
static void feed(const struct stream *s, const size_t *cuts, size_t ncuts)
{
	uint64_t joined = 0;
	bool broke = false;
	size_t from = 0;
	int k = 0;

	soup_rx_init(&rx, s->max);
	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : s->len;
		uint8_t *c = malloc(to - from);
		struct soup_pkt p;
		int ret;

		assert_non_null(c);	/* malloc(0) is not NULL in glibc nor ASan */
		memcpy(c, s->b + from, to - from);
		soup_rx_push(&rx, c, to - from);
		while ((ret = soup_rx_next(&rx, &p)) == 1) {
			assert_true(k < s->n);
			joined += check_pkt(s, &s->pk[k], &p, c, from, to);
			k++;
		}
		free(c);
		/* Once broken, always broken. */
		if (broke || ret)
			assert_int_equal(ret, PROTO_E_LENGTH);
		broke = ret < 0;
		from = to;
	}
	assert_int_equal(k, s->n);
	assert_int_equal(broke, s->bad);
	assert_int_equal(rx.broken, s->bad);
	assert_int_equal(rx.st.bad_length, s->bad);
	if (!s->bad)
		assert_int_equal(rx.have, 0);
	assert_int_equal(rx.st.packets, s->n);
	assert_int_equal(rx.st.joined, joined);
	assert_int_equal(rx.st.bytes, s->len);
}

static void feed_every_cut(const struct stream *s)
{
	for (size_t c = 0; c <= s->len; c++)
		feed(s, &c, 1);
}

static void feed_bytewise(const struct stream *s)
{
	size_t *cuts = malloc(s->len * sizeof(*cuts));

	assert_non_null(cuts);
	for (size_t i = 0; i < s->len; i++)
		cuts[i] = i;
	feed(s, cuts, s->len);
	/* Every packet spans pushes (the first, empty chunk included). */
	assert_int_equal(rx.st.joined, s->n);
	free(cuts);
}

static int setup(void **state)
{
	(void)state;
	build(&full, true);
	build(&shrt, false);
	return 0;
}

static void test_rx_init(void **state)
{
	(void)state;
	memset(&rx.st, 0xaa, sizeof(rx.st));
	rx.have = 5;
	rx.broken = true;
	soup_rx_init(&rx, 0);
	assert_int_equal(rx.max, 0xffff);
	assert_int_equal(rx.have, 0);
	assert_false(rx.broken);
	assert_int_equal(rx.in_len, 0);
	assert_int_equal(rx.st.packets + rx.st.bytes + rx.st.joined + rx.st.bad_length, 0);
	soup_rx_init(&rx, 0x10000);
	assert_int_equal(rx.max, 0xffff);
	soup_rx_init(&rx, 100);
	assert_int_equal(rx.max, 100);
}

/* The uncut stream: every packet in place. */
static void test_rx_whole(void **state)
{
	(void)state;
	assert_true(full.len > 65537);
	feed(&full, NULL, 0);
	assert_int_equal(rx.st.joined, 0);
	feed(&shrt, NULL, 0);
	assert_int_equal(rx.st.joined, 0);
}

static void test_rx_every_cut(void **state)
{
	(void)state;
	feed_every_cut(&full);
}

static void test_rx_every_pair(void **state)
{
	size_t c[2];

	(void)state;
	assert_true(shrt.len > 250);
	for (c[0] = 0; c[0] <= shrt.len; c[0]++)
		for (c[1] = c[0]; c[1] <= shrt.len; c[1]++)
			feed(&shrt, c, 2);
}

static void test_rx_bytewise(void **state)
{
	(void)state;
	feed_bytewise(&full);
}

/* Chunks of up to 8 bytes, 600 or 70000 (the whole stream at once). */
static void test_rx_random(void **state)
{
	static const size_t scale[] = { 8, 600, 70000 };
	static size_t cuts[sizeof(full.b)];
	uint64_t x = 0x5eed50b;

	(void)state;
	for (int round = 0; round < 300; round++) {
		size_t span = scale[round % 3] + 1, n = 0, at = 0;

		for (;;) {
			at += xorshift(&x) % span;
			if (at > full.len)
				break;
			assert_true(n < sizeof(cuts) / sizeof(cuts[0]));
			cuts[n++] = at;
		}
		feed(&full, cuts, n);
	}
}

/* Packets, then a Packet Length of 0: nothing after it ever comes out. */
static void test_rx_zero_length(void **state)
{
	static const uint8_t zero[2] = { 0x00, 0x00 };
	uint8_t b[8];

	(void)state;
	stream_reset(&brk, 0);
	add(&brk, 'S', 5);
	add(&brk, 'H', 0);
	add_raw(&brk, zero, 2);
	add_raw(&brk, b, (size_t)soup_encode_empty(b, sizeof(b), 'R'));
	brk.bad = true;
	feed(&brk, NULL, 0);
	feed_every_cut(&brk);
	feed_bytewise(&brk);
}

/* A Packet Length above max breaks the stream; max itself does not. */
static void test_rx_above_max(void **state)
{
	uint8_t b[70];

	(void)state;
	stream_reset(&brk, 60);
	add(&brk, 'S', 59);		/* Packet Length 60 */
	add(&brk, 'R', 0);
	memset(b, 'x', sizeof(b));
	soup_put_header(b, 'S', 60);	/* 61 */
	add_raw(&brk, b, 63);
	brk.bad = true;
	feed(&brk, NULL, 0);
	feed_every_cut(&brk);
	feed_bytewise(&brk);

	/* 0xffff with a max of 0xfffe. */
	stream_reset(&brk, 0xfffe);
	add(&brk, 'U', 0xfffd);
	soup_put_header(b, 'S', 0xfffe);
	add_raw(&brk, b, 3);
	brk.bad = true;
	feed(&brk, NULL, 0);
	feed_every_cut(&brk);
}

/* The edge cases by name, with their counters. */
static void test_rx_edges(void **state)
{
	static const uint8_t s4[] = { 0x00, 0x05, 'S', 1, 2, 3, 4 };
	static const uint8_t hrz[] = { 0, 1, 'H', 0, 1, 'R', 0, 1, 'Z' };
	struct soup_pkt p;

	(void)state;
	/* The two length bytes split 1 + 1, then the rest. */
	soup_rx_init(&rx, 0);
	soup_rx_push(&rx, s4, 1);
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	soup_rx_push(&rx, s4 + 1, 1);
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	soup_rx_push(&rx, NULL, 0);		/* a zero-length chunk meanwhile */
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	assert_int_equal(rx.have, 2);
	soup_rx_push(&rx, s4 + 2, 5);
	assert_int_equal(soup_rx_next(&rx, &p), 1);
	assert_int_equal(p.type, 'S');
	assert_int_equal(p.len, 4);
	assert_memory_equal(p.payload, s4 + 3, 4);
	assert_ptr_equal(p.payload, rx.buf + 3);
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	assert_int_equal(rx.st.packets, 1);
	assert_int_equal(rx.st.joined, 1);
	assert_int_equal(rx.st.bytes, 7);

	/* A packet that fills its chunk exactly: in place, nothing left. */
	soup_rx_push(&rx, s4, sizeof(s4));
	assert_int_equal(soup_rx_next(&rx, &p), 1);
	assert_ptr_equal(p.payload, s4 + 3);
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	assert_int_equal(rx.have, 0);
	assert_int_equal(rx.st.joined, 1);

	/* H + 1 byte of R, nothing, the rest of R + Z. */
	soup_rx_init(&rx, 0);
	soup_rx_push(&rx, hrz, 4);
	assert_int_equal(soup_rx_next(&rx, &p), 1);
	assert_int_equal(p.type, 'H');
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	soup_rx_push(&rx, hrz + 4, 0);
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	soup_rx_push(&rx, hrz + 4, 5);
	assert_int_equal(soup_rx_next(&rx, &p), 1);
	assert_int_equal(p.type, 'R');
	assert_int_equal(soup_rx_next(&rx, &p), 1);
	assert_int_equal(p.type, 'Z');
	assert_ptr_equal(p.payload, hrz + 9);
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	assert_int_equal(rx.st.packets, 3);
	assert_int_equal(rx.st.joined, 1);
	assert_int_equal(rx.st.bytes, 9);
	assert_int_equal(rx.st.bad_length, 0);
}

/* A new connection drops half a packet, or a break; counters stay. */
static void test_rx_reset(void **state)
{
	static const uint8_t bad[] = { 0x00, 0x00, 'H' };
	struct soup_pkt p;

	(void)state;
	soup_rx_init(&rx, 0);
	soup_rx_push(&rx, shrt.b, shrt.pk[1].off + 20);	/* into the login accepted */
	assert_int_equal(soup_rx_next(&rx, &p), 1);
	assert_int_equal(p.type, 'L');
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	assert_int_equal(rx.have, 20);
	soup_rx_reset(&rx);
	assert_int_equal(rx.have, 0);
	assert_int_equal(rx.st.packets, 1);
	assert_int_equal(rx.st.bytes, shrt.pk[1].off + 20);

	/* The next stream from its start: its packets alone. */
	soup_rx_push(&rx, shrt.b + shrt.pk[4].off, 3);
	assert_int_equal(soup_rx_next(&rx, &p), 1);
	assert_int_equal(p.type, 'H');
	assert_int_equal(soup_rx_next(&rx, &p), 0);

	soup_rx_push(&rx, bad, sizeof(bad));
	assert_int_equal(soup_rx_next(&rx, &p), PROTO_E_LENGTH);
	assert_int_equal(soup_rx_next(&rx, &p), PROTO_E_LENGTH);
	soup_rx_push(&rx, shrt.b, shrt.len);
	assert_int_equal(soup_rx_next(&rx, &p), PROTO_E_LENGTH);
	soup_rx_reset(&rx);
	assert_false(rx.broken);
	assert_int_equal(rx.st.bad_length, 1);
	soup_rx_push(&rx, shrt.b, shrt.len);
	for (int k = 0; k < shrt.n; k++) {
		assert_int_equal(soup_rx_next(&rx, &p), 1);
		assert_int_equal(p.type, shrt.pk[k].type);
	}
	assert_int_equal(soup_rx_next(&rx, &p), 0);
	assert_int_equal(rx.st.packets, 2 + shrt.n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_login_request),
		cmocka_unit_test(test_login_accepted),
		cmocka_unit_test(test_login_rejected),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_debug),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_pad),
		cmocka_unit_test(test_seqnum_write),
		cmocka_unit_test(test_seqnum_read),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_type_name),
		cmocka_unit_test(test_rx_init),
		cmocka_unit_test(test_rx_whole),
		cmocka_unit_test(test_rx_every_cut),
		cmocka_unit_test(test_rx_every_pair),
		cmocka_unit_test(test_rx_bytewise),
		cmocka_unit_test(test_rx_random),
		cmocka_unit_test(test_rx_zero_length),
		cmocka_unit_test(test_rx_above_max),
		cmocka_unit_test(test_rx_edges),
		cmocka_unit_test(test_rx_reset),
	};

	return cmocka_run_group_tests_name("proto_soupbin", tests, setup, NULL);
}
