// SPDX-License-Identifier: MIT
/*
 * Checksums against a plain RFC 1071 implementation written here, the
 * Ethernet/IPv4/UDP template and its per-frame patch, and the RX parser's
 * acceptance and rejection of every malformed class.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/be.h"
#include "proto/csum.h"
#include "proto/frame.h"
#include "proto/proto_err.h"

/* RFC 1071 as written: big-endian 16-bit words, carries folded, inverted. */
static uint16_t ref_csum(const uint8_t *b, size_t n)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Library checksum as the two bytes it would store, read big-endian. */
static uint16_t lib_csum(const uint8_t *b, size_t n)
{
	uint16_t c = inet_csum(b, n);

	return be16_load(&c);
}

/* UDP checksum by the reference over pseudo-header + datagram (csum 0). */
static uint16_t ref_udp_csum(const uint8_t *ip, const uint8_t *udp)
{
	uint8_t buf[12 + 2048];
	uint16_t udp_len = be16_load(udp + 4);
	uint16_t c;

	memcpy(buf, ip + 12, 8);
	buf[8] = 0;
	buf[9] = 17;
	be16_store(buf + 10, udp_len);
	memcpy(buf + 12, udp, udp_len);
	buf[12 + 6] = 0;
	buf[12 + 7] = 0;
	c = ref_csum(buf, 12 + (size_t)udp_len);
	return c ? c : 0xffff;
}

static const struct frame_endpoint src = {
	.mac = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 },
	.ip = 0x0a4d0001, .port = 40001,
};
static const struct frame_endpoint dst = {
	.mac = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee },
	.ip = 0x0a4d0002, .port = 9001,
};

static void test_csum_rfc1071_example(void **state)
{
	/* RFC 1071 section 3: these words sum to 0xddf2. */
	const uint8_t b[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	(void)state;
	assert_int_equal(ref_csum(b, 8), (uint16_t)~0xddf2);
	assert_int_equal(lib_csum(b, 8), (uint16_t)~0xddf2);
}

static void test_csum_matches_reference(void **state)
{
	uint8_t buf[1600];
	size_t len, i;
	int round;

	(void)state;
	srand(1071);
	for (round = 0; round < 4; round++) {
		for (i = 0; i < sizeof(buf); i++)
			buf[i] = round == 3 ? 0xff : (uint8_t)rand();
		for (len = 0; len <= 1500; len++) {
			/* Also from an odd address: loads are unaligned-safe. */
			assert_int_equal(lib_csum(buf, len), ref_csum(buf, len));
			assert_int_equal(lib_csum(buf + 1, len),
					 ref_csum(buf + 1, len));
		}
	}
	/* Pieces at even offsets add up to the whole. */
	assert_int_equal(csum_finish(csum_partial(buf + 10, 91,
				     csum_partial(buf, 10, 0))),
			 inet_csum(buf, 101));
}

static void test_csum_incremental(void **state)
{
	uint8_t hdr[20];
	uint16_t check, old, new;
	int i;

	(void)state;
	srand(1624);
	for (i = 0; i < 1000; i++) {
		size_t w = (size_t)(rand() % 10) * 2;
		int j;

		for (j = 0; j < 20; j++)
			hdr[j] = (uint8_t)rand();
		if (i == 0)
			memset(hdr, 0, sizeof(hdr));	/* all-zero corner */
		check = inet_csum(hdr, sizeof(hdr));
		memcpy(&old, hdr + w, 2);
		new = (uint16_t)rand();
		memcpy(hdr + w, &new, 2);
		assert_int_equal(csum_replace16(check, old, new),
				 inet_csum(hdr, sizeof(hdr)));
	}
}

/* Check every header field of a finished frame against the reference. */
static void check_frame(const uint8_t *f, size_t payload_len, uint16_t id)
{
	const uint8_t *ip = f + 14, *udp = f + 34;
	const uint8_t sip[4] = { 10, 77, 0, 1 }, dip[4] = { 10, 77, 0, 2 };

	assert_memory_equal(f, dst.mac, 6);
	assert_memory_equal(f + 6, src.mac, 6);
	assert_int_equal(be16_load(f + 12), 0x0800);
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[1], 0x10);
	assert_int_equal(be16_load(ip + 2), 28 + payload_len);
	assert_int_equal(be16_load(ip + 4), id);
	assert_int_equal(be16_load(ip + 6), 0x4000);	/* DF, offset 0 */
	assert_int_equal(ip[8], 17);			/* TTL given */
	assert_int_equal(ip[9], 17);			/* UDP */
	assert_memory_equal(ip + 12, sip, 4);
	assert_memory_equal(ip + 16, dip, 4);
	assert_int_equal(ref_csum(ip, 20), 0);		/* header verifies */
	assert_int_equal(be16_load(udp), 40001);
	assert_int_equal(be16_load(udp + 2), 9001);
	assert_int_equal(be16_load(udp + 4), 8 + payload_len);
	assert_int_equal(be16_load(udp + 6), ref_udp_csum(ip, udp));
}

static void test_template_frames(void **state)
{
	struct frame_template t;
	uint8_t f[2048];
	size_t n;
	uint16_t id = 0;

	(void)state;
	frame_template_init(&t, &src, &dst, 17, 0x10);
	srand(768);
	for (n = 0; n <= 1472; n += (n < 70 ? 1 : 97)) {
		size_t i;

		memset(f, 0xee, FRAME_HDR_LEN);	/* stale bytes to overwrite */
		for (i = 0; i < n; i++)
			f[FRAME_HDR_LEN + i] = (uint8_t)rand();
		assert_int_equal(frame_finish(&t, f, n), FRAME_HDR_LEN + n);
		check_frame(f, n, id++);
		/* Patch in place, as for a recycled frame. */
		f[FRAME_HDR_LEN] ^= 0x5a;
		assert_int_equal(frame_patch(&t, f, n), FRAME_HDR_LEN + n);
		check_frame(f, n, id++);
	}
	assert_int_equal(frame_finish(&t, f, FRAME_MAX_PAYLOAD + 1), 0);
}

static void test_udp_zero_checksum_sent_as_ffff(void **state)
{
	struct frame_template t;
	uint8_t f[128];
	uint16_t c;

	(void)state;
	frame_template_init(&t, &src, &dst, 64, 0);
	memset(f + FRAME_HDR_LEN, 0x33, 10);
	f[FRAME_HDR_LEN + 8] = f[FRAME_HDR_LEN + 9] = 0;
	frame_finish(&t, f, 10);
	t.next_id--;
	/* Putting the checksum itself into the payload makes the sum 0xffff. */
	c = be16_load(f + FRAME_OFF_UDP_CSUM);
	be16_store(f + FRAME_HDR_LEN + 8, c);
	frame_finish(&t, f, 10);
	assert_int_equal(be16_load(f + FRAME_OFF_UDP_CSUM), 0xffff);
	assert_int_equal(ref_udp_csum(f + 14, f + 34), 0xffff);
}

static size_t good_frame(uint8_t *f, size_t payload_len)
{
	struct frame_template t;

	frame_template_init(&t, &src, &dst, 64, 0);
	memset(f + FRAME_HDR_LEN, 'x', payload_len);
	return frame_finish(&t, f, payload_len);
}

static void test_parse_good(void **state)
{
	struct frame_udp u;
	uint8_t f[128];
	size_t len = good_frame(f, 52);

	(void)state;
	assert_int_equal(frame_parse_udp(f, len, &u), 0);
	assert_ptr_equal(u.payload, f + 42);
	assert_int_equal(u.payload_len, 52);
	assert_int_equal(u.src_ip, src.ip);
	assert_int_equal(u.dst_ip, dst.ip);
	assert_int_equal(u.src_port, 40001);
	assert_int_equal(u.dst_port, 9001);
	assert_int_equal(frame_verify_checksums(&u), 0);

	f[42 + 7] ^= 1;
	assert_int_equal(frame_verify_checksums(&u), PROTO_E_CHECKSUM);
	f[42 + 7] ^= 1;
	f[14 + 8] ^= 1;					/* TTL */
	assert_int_equal(frame_verify_checksums(&u), PROTO_E_CHECKSUM);
	f[14 + 8] ^= 1;
	memset(f + FRAME_OFF_UDP_CSUM, 0, 2);		/* "no checksum" */
	assert_int_equal(frame_verify_checksums(&u), 0);
}

static void test_parse_padding_and_options(void **state)
{
	struct frame_udp u;
	uint8_t f[128], g[128];
	size_t len = good_frame(f, 4);			/* 46 bytes */
	uint16_t c;

	(void)state;
	/* Ethernet minimum 60 bytes: padding after the IPv4 datagram. */
	memset(f + len, 0, 60 - len);
	assert_int_equal(frame_parse_udp(f, 60, &u), 0);
	assert_int_equal(u.payload_len, 4);
	assert_int_equal(frame_verify_checksums(&u), 0);

	/* Same datagram with 4 bytes of IPv4 options (NOPs), IHL 6. */
	memcpy(g, f, 34);
	memset(g + 34, 1, 4);
	memcpy(g + 38, f + 34, 12);
	g[14] = 0x46;
	be16_store(g + 16, 20 + 4 + 12);
	memset(g + 24, 0, 2);
	c = ref_csum(g + 14, 24);
	be16_store(g + 24, c);
	assert_int_equal(frame_parse_udp(g, 50, &u), 0);
	assert_int_equal(u.ip_hdr_len, 24);
	assert_ptr_equal(u.payload, g + 46);
	assert_int_equal(u.payload_len, 4);
	assert_int_equal(u.dst_port, 9001);
	assert_int_equal(frame_verify_checksums(&u), 0);
}

static void test_parse_rejects(void **state)
{
	struct frame_udp u;
	uint8_t f[128], g[128];
	size_t len = good_frame(f, 20);			/* 62 bytes */

	(void)state;
#define REJECT(buf, n, err) assert_int_equal(frame_parse_udp(buf, n, &u), err)
#define RESET() memcpy(g, f, len)
	REJECT(f, 0, PROTO_E_SHORT);
	REJECT(f, 13, PROTO_E_SHORT);
	REJECT(f, 33, PROTO_E_SHORT);			/* inside IPv4 header */
	REJECT(f, 61, PROTO_E_LENGTH);			/* total length > frame */

	RESET(); be16_store(g + 12, 0x0806);		/* ARP */
	REJECT(g, len, PROTO_E_ETHERTYPE);
	RESET(); be16_store(g + 12, 0x8100);		/* VLAN tag */
	REJECT(g, len, PROTO_E_ETHERTYPE);
	RESET(); g[14] = 0x65;				/* version 6 */
	REJECT(g, len, PROTO_E_IP_HDR);
	RESET(); g[14] = 0x44;				/* IHL 4 */
	REJECT(g, len, PROTO_E_IP_HDR);
	RESET(); g[14] = 0x4f;				/* IHL 15 = 60 > 48 left */
	REJECT(g, len, PROTO_E_SHORT);
	RESET(); be16_store(g + 16, 19);		/* total < header */
	REJECT(g, len, PROTO_E_IP_HDR);
	RESET(); be16_store(g + 16, 24);		/* no room for UDP */
	REJECT(g, len, PROTO_E_SHORT);
	RESET(); be16_store(g + 20, 0x6000);		/* DF + MF */
	REJECT(g, len, PROTO_E_FRAGMENT);
	RESET(); be16_store(g + 20, 0x0001);		/* offset 8 bytes */
	REJECT(g, len, PROTO_E_FRAGMENT);
	RESET(); g[23] = 6;				/* TCP */
	REJECT(g, len, PROTO_E_NOT_UDP);
	RESET(); be16_store(g + 38, 7);			/* UDP length < 8 */
	REJECT(g, len, PROTO_E_LENGTH);
	RESET(); be16_store(g + 38, 29);		/* beyond IPv4 payload */
	REJECT(g, len, PROTO_E_LENGTH);
	RESET();
	REJECT(g, len, 0);
#undef REJECT
#undef RESET
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum_rfc1071_example),
		cmocka_unit_test(test_csum_matches_reference),
		cmocka_unit_test(test_csum_incremental),
		cmocka_unit_test(test_template_frames),
		cmocka_unit_test(test_udp_zero_checksum_sent_as_ffff),
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_padding_and_options),
		cmocka_unit_test(test_parse_rejects),
	};

	return cmocka_run_group_tests_name("proto_frame", tests, NULL, NULL);
}
