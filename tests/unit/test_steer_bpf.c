// SPDX-License-Identifier: MIT
/*
 * The XDP steering program, run by the kernel on crafted frames
 * (BPF_PROG_TEST_RUN): configured flows are steered (IPv4 options or not),
 * everything else passes untouched (other ports and addresses, fragments,
 * ARP, IPv6), truncated headers pass and are counted, a configured flow
 * from the wrong source is dropped and counted.  Needs root.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "bpf/steer_loader.h"
#include "proto/be.h"
#include "bpf/steer.skel.h"

#define GROUP	0xEF010101u	/* 239.1.1.1 */
#define FEED	26400
#define SRC	0x0A000001u	/* 10.0.0.1 */
#define GW	0x0A000002u

static struct xdp_steer s;

static int setup(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test_steer_bpf: needs root (BPF_PROG_TEST_RUN)\n");
		return -1;
	}
	memset(&s, 0, sizeof(s));
	s.skel = steer_bpf__open_and_load();
	if (!s.skel)
		return -1;
	if (xdp_steer_add_flow(&s, htonl(GROUP), htons(FEED), STEER_FLOW_FEED, htonl(SRC)))
		return -1;
	return xdp_steer_add_flow(&s, htonl(GW), htons(26402), STEER_FLOW_REPLY, 0);
}

static int teardown(void **state)
{
	(void)state;
	xdp_steer_close(&s);
	return 0;
}

/* A UDP frame with ihl_words * 4 bytes of IPv4 header. */
static size_t udp_frame(uint8_t *f, uint32_t saddr, uint32_t daddr,
			uint16_t dport, unsigned int ihl_words, uint16_t frag)
{
	size_t iphl = ihl_words * 4, len = 14 + iphl + 8 + 16;
	uint8_t *ip = f + 14, *udp = ip + iphl;

	memset(f, 0, len);
	f[12] = 0x08;
	f[13] = 0x00;
	ip[0] = (uint8_t)(0x40 | ihl_words);
	ip[2] = (uint8_t)((iphl + 24) >> 8);
	ip[3] = (uint8_t)(iphl + 24);
	ip[6] = (uint8_t)(frag >> 8);
	ip[7] = (uint8_t)frag;
	ip[8] = 64;
	ip[9] = 17;
	for (size_t i = 20; i < iphl; i++)
		ip[i] = 1;	/* NOP options */
	be32_store(ip + 12, saddr);
	be32_store(ip + 16, daddr);
	be16_store(udp + 0, 5000);
	be16_store(udp + 2, dport);
	be16_store(udp + 4, 24);
	return len;
}

static uint64_t before[STEER_NR_COUNTERS];

/* Run one frame; return the verdict and the counter deltas in d. */
static int run(const uint8_t *f, size_t len, uint64_t d[STEER_NR_COUNTERS])
{
	uint8_t out[256];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f, .data_size_in = (uint32_t)len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
	uint64_t now[STEER_NR_COUNTERS];

	assert_int_equal(xdp_steer_counters(&s, before), 0);
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(s.skel->progs.steer), &o), 0);
	assert_int_equal(xdp_steer_counters(&s, now), 0);
	for (int i = 0; i < STEER_NR_COUNTERS; i++)
		d[i] = now[i] - before[i];
	/* "Untouched": a passed frame comes out byte for byte as it went in. */
	if (o.retval == XDP_PASS && d[STEER_PASSED]) {
		assert_int_equal(o.data_size_out, len);
		assert_memory_equal(out, f, len);
	}
	return (int)o.retval;
}

static void test_feed_steered(void **state)
{
	uint8_t f[128];
	uint64_t d[STEER_NR_COUNTERS];
	size_t len;

	(void)state;
	len = udp_frame(f, SRC, GROUP, FEED, 5, 0);
	/* No socket in the XSKMAP here: redirect falls back to PASS, but counted steered. */
	run(f, len, d);
	assert_int_equal(d[STEER_SEEN], 1);
	assert_int_equal(d[STEER_STEERED], 1);
	assert_int_equal(d[STEER_PASSED], 0);
	assert_int_equal(d[STEER_NO_META], 0);

	len = udp_frame(f, SRC, GROUP, FEED, 15, 0);	/* 40 bytes of options */
	run(f, len, d);
	assert_int_equal(d[STEER_STEERED], 1);

	len = udp_frame(f, 0x0A0000FE, GW, 26402, 5, 0);	/* replies: any source */
	run(f, len, d);
	assert_int_equal(d[STEER_STEERED], 1);
}

static void test_others_pass(void **state)
{
	uint8_t f[128];
	uint64_t d[STEER_NR_COUNTERS];
	size_t len;

	(void)state;
	len = udp_frame(f, SRC, GROUP, FEED + 1, 5, 0);		/* other port */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	assert_int_equal(d[STEER_STEERED], 0);

	len = udp_frame(f, SRC, GW, FEED, 5, 0);		/* other address */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);

	len = udp_frame(f, SRC, GROUP, FEED, 5, 0x2000);	/* more fragments */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_STEERED], 0);
	len = udp_frame(f, SRC, GROUP, FEED, 5, 0x0010);	/* offset != 0 */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_STEERED], 0);

	len = udp_frame(f, SRC, GROUP, FEED, 5, 0);
	f[12] = 0x08;
	f[13] = 0x06;						/* ARP */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	f[12] = 0x86;
	f[13] = 0xdd;						/* IPv6 */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);

	len = udp_frame(f, SRC, GROUP, FEED, 5, 0);
	f[14 + 9] = 6;						/* TCP */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
}

static void test_short_and_bad_headers(void **state)
{
	uint8_t f[128];
	uint64_t d[STEER_NR_COUNTERS];
	size_t len;

	(void)state;
	len = udp_frame(f, SRC, GROUP, FEED, 5, 0);
	assert_int_equal(run(f, 14 + 10, d), XDP_PASS);		/* IPv4 cut short */
	assert_int_equal(d[STEER_SHORT], 1);
	assert_int_equal(d[STEER_PASSED], 1);
	assert_int_equal(run(f, 14 + 20 + 4, d), XDP_PASS);	/* UDP cut short */
	assert_int_equal(d[STEER_SHORT], 1);
	len = udp_frame(f, SRC, GROUP, FEED, 15, 0);
	assert_int_equal(run(f, 14 + 40, d), XDP_PASS);		/* options past the end */
	assert_int_equal(d[STEER_SHORT], 1);
	len = udp_frame(f, SRC, GROUP, FEED, 5, 0);
	f[14] = 0x44;						/* IHL 4 */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_SHORT], 1);
	assert_int_equal(d[STEER_STEERED], 0);
}

static void test_spoofed_source_dropped(void **state)
{
	uint8_t f[128];
	uint64_t d[STEER_NR_COUNTERS];
	size_t len;

	(void)state;
	len = udp_frame(f, 0x0A000063, GROUP, FEED, 5, 0);
	assert_int_equal(run(f, len, d), XDP_DROP);
	assert_int_equal(d[STEER_SPOOFED], 1);
	assert_int_equal(d[STEER_STEERED], 0);
	assert_int_equal(d[STEER_PASSED], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feed_steered),
		cmocka_unit_test(test_others_pass),
		cmocka_unit_test(test_short_and_bad_headers),
		cmocka_unit_test(test_spoofed_source_dropped),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
