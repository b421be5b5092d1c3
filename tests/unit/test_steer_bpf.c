// SPDX-License-Identifier: MIT
/*
 * The XDP steering program, run by the kernel on crafted frames
 * (BPF_PROG_TEST_RUN): configured flows are steered (IPv4 options or not)
 * and, with no socket on their queue (none is bound here), dropped and
 * counted for that queue and interface, never passed; everything else
 * passes untouched (other ports and addresses, other hosts' fragments, ARP,
 * IPv6), a steered flow's fragments are dropped and counted, truncated
 * headers pass and are counted, a configured flow from the wrong source is
 * dropped and counted; the A/B arbitration keeps the first copy of each
 * message and drops the other, lets gaps, other sessions, heartbeats and
 * implausible counts through without moving on, and under two CPUs racing
 * with the same packets takes each exactly once; the order connection's
 * TCP segments are steered by their 4-tuple and interface, every flag
 * combination alike, the same 4-tuple on another interface is dropped and
 * counted, and other TCP passes.  Needs root.
 */
#include <pthread.h>
#include <sched.h>
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
#define GROUP_B	0xEF010102u	/* line B */
#define FEED	26400
#define SRC	0x0A000001u	/* 10.0.0.1 */
#define GW	0x0A000002u
#define EXCH_PORT 26401
#define GW_PORT	40001
/* BPF_PROG_TEST_RUN's frames arrive on the loopback device, queue 0. */
#define LO_IFINDEX 1

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
	s.arb = &s.skel->bss->arb;
	s.ifindex[0] = LO_IFINDEX;
	if (xdp_steer_add_flow(&s, htonl(GROUP), htons(FEED), STEER_FLOW_FEED, htonl(SRC), 0))
		return -1;
	if (xdp_steer_add_flow(&s, htonl(GROUP_B), htons(FEED), STEER_FLOW_FEED, 0, 1))
		return -1;
	return xdp_steer_add_tcp(&s, htonl(SRC), htons(EXCH_PORT), htonl(GW), htons(GW_PORT));
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
	/* No socket on the queue here: dropped as unserved, never passed. */
	assert_int_equal(run(f, len, d), XDP_DROP);
	assert_int_equal(d[STEER_SEEN], 1);
	assert_int_equal(d[STEER_UNSERVED], 1);
	assert_int_equal(d[STEER_STEERED], 0);
	assert_int_equal(d[STEER_PASSED], 0);
	assert_int_equal(d[STEER_NO_META], 0);

	len = udp_frame(f, SRC, GROUP, FEED, 15, 0);	/* 40 bytes of options */
	assert_int_equal(run(f, len, d), XDP_DROP);
	assert_int_equal(d[STEER_UNSERVED], 1);
}

/* The queue counts' delta for (slot, queue 0, class) across one frame. */
static void queue_delta(const uint8_t *f, size_t len, unsigned int slot, unsigned int class,
			uint64_t *steered, uint64_t *unserved)
{
	static struct steer_queue_stats a, b;
	uint64_t d[STEER_NR_COUNTERS];

	assert_int_equal(xdp_steer_queue_stats(&s, &a), 0);
	run(f, len, d);
	assert_int_equal(xdp_steer_queue_stats(&s, &b), 0);
	*steered = b.steered[slot][0][class] - a.steered[slot][0][class];
	*unserved = b.unserved[slot][0][class] - a.unserved[slot][0][class];
}

/*
 * Each class is counted against the queue and interface it arrived on:
 * what tells the user which flow lands where, and which queue to serve.
 */
static void test_unserved_counted_per_queue(void **state)
{
	uint32_t lo = LO_IFINDEX, slot = 1;
	uint64_t st, un;
	uint8_t f[128];
	size_t len;

	(void)state;
	len = udp_frame(f, SRC, GROUP, FEED, 5, 0);
	queue_delta(f, len, 0, STEER_CLASS_FEED, &st, &un);
	assert_int_equal(st, 0);
	assert_int_equal(un, 1);
	assert_int_equal(xdp_steer_add_flow(&s, htonl(GW), htons(FEED + 4), STEER_FLOW_RETRANS,
					    htonl(SRC), 0), 0);
	len = udp_frame(f, SRC, GW, FEED + 4, 5, 0);
	queue_delta(f, len, 0, STEER_CLASS_RETRANS, &st, &un);
	assert_int_equal(un, 1);
	/* The same device as line B's interface: counted under slot 1. */
	assert_int_equal(bpf_map__update_elem(s.skel->maps.ifslots, &lo, sizeof(lo), &slot,
					      sizeof(slot), BPF_ANY), 0);
	len = udp_frame(f, SRC, GROUP, FEED, 5, 0);
	queue_delta(f, len, 1, STEER_CLASS_FEED, &st, &un);
	assert_int_equal(un, 1);
	queue_delta(f, len, 0, STEER_CLASS_FEED, &st, &un);
	assert_int_equal(un, 0);
	assert_int_equal(bpf_map__delete_elem(s.skel->maps.ifslots, &lo, sizeof(lo), 0), 0);
	{
		struct steer_flow_key k = { .daddr = htonl(GW), .dport = htons(FEED + 4) };

		assert_int_equal(bpf_map__delete_elem(s.skel->maps.flows, &k, sizeof(k), 0), 0);
	}
}

/* A TCP segment of 20 header bytes (@flags) and 8 bytes of data. */
static size_t tcp_frame(uint8_t *f, uint32_t saddr, uint16_t sport, uint32_t daddr,
			uint16_t dport, uint8_t flags)
{
	size_t len = udp_frame(f, saddr, daddr, dport, 5, 0) + 12;
	uint8_t *ip = f + 14, *tcp = ip + 20;

	memset(tcp, 0, 28);
	ip[2] = 0;
	ip[3] = 48;
	ip[9] = 6;
	be16_store(tcp + 0, sport);
	be16_store(tcp + 2, dport);
	tcp[12] = 5 << 4;
	tcp[13] = flags;
	return len;
}

static void test_order_connection_steered(void **state)
{
	static const uint8_t flags[] = { 0x12, 0x10, 0x18, 0x11, 0x04, 0x14, 0x02, 0x00 };
	uint8_t f[128];
	uint64_t d[STEER_NR_COUNTERS];
	size_t len;

	(void)state;
	/* SYN-ACK, ACK, data, FIN, RST, RST-ACK, even a stray SYN: all ours. */
	for (unsigned int i = 0; i < sizeof(flags); i++) {
		len = tcp_frame(f, SRC, EXCH_PORT, GW, GW_PORT, flags[i]);
		assert_int_equal(run(f, len, d), XDP_DROP);
		assert_int_equal(d[STEER_UNSERVED], 1);
		assert_int_equal(d[STEER_TCP], 1);
		assert_int_equal(d[STEER_PASSED], 0);
	}
	/* Any other 4-tuple is the kernel's: another port either side, another peer. */
	len = tcp_frame(f, SRC, EXCH_PORT, GW, GW_PORT + 1, 0x10);
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	len = tcp_frame(f, SRC, EXCH_PORT + 1, GW, GW_PORT, 0x10);
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	len = tcp_frame(f, SRC + 5, EXCH_PORT, GW, GW_PORT, 0x10);
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	/* A header cut short: passed and counted. */
	len = tcp_frame(f, SRC, EXCH_PORT, GW, GW_PORT, 0x10);
	assert_int_equal(run(f, 14 + 20 + 10, d), XDP_PASS);
	assert_int_equal(d[STEER_SHORT], 1);
	/* A fragment between the connection's hosts: dropped, never reassembled. */
	f[14 + 6] = 0x20;
	assert_int_equal(run(f, len, d), XDP_DROP);
	assert_int_equal(d[STEER_FRAGMENT], 1);
	assert_int_equal(d[STEER_PASSED], 0);
	/* The connection's 4-tuple arriving on another interface: dropped. */
	s.ifindex[0] = LO_IFINDEX + 1000;
	assert_int_equal(xdp_steer_add_tcp(&s, htonl(SRC), htons(EXCH_PORT), htonl(GW),
					   htons(GW_PORT)), 0);
	len = tcp_frame(f, SRC, EXCH_PORT, GW, GW_PORT, 0x10);
	assert_int_equal(run(f, len, d), XDP_DROP);
	assert_int_equal(d[STEER_TCP_WRONG_IF], 1);
	assert_int_equal(d[STEER_TCP], 0);
	assert_int_equal(d[STEER_PASSED], 0);
	s.ifindex[0] = LO_IFINDEX;
	assert_int_equal(xdp_steer_add_tcp(&s, htonl(SRC), htons(EXCH_PORT), htonl(GW),
					   htons(GW_PORT)), 0);
	/* Removed: the kernel's again. */
	assert_int_equal(xdp_steer_del_tcp(&s, htonl(SRC), htons(EXCH_PORT), htonl(GW),
					   htons(GW_PORT)), 0);
	len = tcp_frame(f, SRC, EXCH_PORT, GW, GW_PORT, 0x10);
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	assert_int_equal(xdp_steer_del_tcp(&s, htonl(SRC), htons(EXCH_PORT), htonl(GW),
					   htons(GW_PORT)), 0);
	assert_int_equal(xdp_steer_add_tcp(&s, htonl(SRC), htons(EXCH_PORT), htonl(GW),
					   htons(GW_PORT)), 0);
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

	/* Fragments of other hosts' datagrams are the kernel's to reassemble. */
	len = udp_frame(f, SRC + 7, GW, FEED, 5, 0x2000);	/* more fragments */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	len = udp_frame(f, SRC + 7, GW, FEED, 5, 0x0010);		/* offset != 0 */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	/* A feed's fragments (first or later, any source for line B) are dropped. */
	len = udp_frame(f, SRC, GROUP, FEED, 5, 0x2000);
	assert_int_equal(run(f, len, d), XDP_DROP);
	assert_int_equal(d[STEER_FRAGMENT], 1);
	len = udp_frame(f, SRC + 9, GROUP_B, FEED, 5, 0x0010);
	assert_int_equal(run(f, len, d), XDP_DROP);
	assert_int_equal(d[STEER_FRAGMENT], 1);
	assert_int_equal(d[STEER_PASSED], 0);

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
	f[14 + 9] = 6;						/* TCP to the feed */
	assert_int_equal(run(f, len, d), XDP_PASS);
	assert_int_equal(d[STEER_PASSED], 1);
	f[14 + 9] = 1;						/* ICMP */
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

/*
 * A feed frame to @group carrying a MoldUDP64 header (@session, @seq,
 * @count) and @blocks one-byte message blocks (3 bytes each).
 */
static size_t mold_frame(uint8_t *f, uint32_t group, const char *session,
			 uint64_t seq, uint16_t count, unsigned int blocks)
{
	size_t plen = 20 + 3 * blocks, len = 14 + 20 + 8 + plen;
	uint8_t *ip = f + 14, *udp = ip + 20, *m = udp + 8;

	memset(f, 0, len);
	f[12] = 0x08;
	ip[0] = 0x45;
	be16_store(ip + 2, (uint16_t)(20 + 8 + plen));
	ip[8] = 64;
	ip[9] = 17;
	be32_store(ip + 12, SRC);
	be32_store(ip + 16, group);
	be16_store(udp + 0, 5000);
	be16_store(udp + 2, FEED);
	be16_store(udp + 4, (uint16_t)(8 + plen));
	memcpy(m, session, 10);
	be64_store(m + 10, seq);
	be16_store(m + 18, count);
	for (unsigned int i = 0; i < blocks; i++) {
		be16_store(m + 20 + 3 * i, 1);
		m[22 + 3 * i] = 'P';
	}
	return len;
}

static void line_counts(uint64_t out[STEER_LINES][STEER_LINE_NR])
{
	assert_int_equal(xdp_steer_line_counters(&s, out), 0);
}

/*
 * Run a mold frame: whether it went on to its queue's socket (1; with no
 * socket bound here it is then dropped as unserved) or was dropped by the
 * arbitration (0), and the line counters' deltas.
 */
static int run_line(uint32_t group, const char *session, uint64_t seq, uint16_t count,
		    unsigned int blocks, uint64_t d[STEER_LINES][STEER_LINE_NR])
{
	uint64_t a[STEER_LINES][STEER_LINE_NR], b[STEER_LINES][STEER_LINE_NR];
	uint64_t dc[STEER_NR_COUNTERS];
	uint8_t f[256];
	size_t len = mold_frame(f, group, session, seq, count, blocks);

	line_counts(a);
	run(f, len, dc);
	line_counts(b);
	for (int l = 0; l < STEER_LINES; l++)
		for (int k = 0; k < STEER_LINE_NR; k++)
			d[l][k] = b[l][k] - a[l][k];
	return dc[STEER_STEERED] + dc[STEER_UNSERVED] == 1;
}

#define SESSION "SESSION001"

static void test_arb_first_copy_kept(void **state)
{
	uint64_t d[STEER_LINES][STEER_LINE_NR];

	(void)state;
	/* Not armed: both copies go on, counted as not arbitrated. */
	s.arb->armed = 0;
	assert_true(run_line(GROUP, SESSION, 1, 3, 3, d));
	assert_int_equal(d[0][STEER_LINE_OTHER], 1);
	assert_true(run_line(GROUP_B, SESSION, 1, 3, 3, d));
	assert_int_equal(d[1][STEER_LINE_OTHER], 1);

	xdp_steer_arm(&s, (const uint8_t *)SESSION, 1);
	assert_true(run_line(GROUP, SESSION, 1, 3, 3, d));
	assert_int_equal(d[0][STEER_LINE_TAKEN], 1);
	assert_int_equal(s.arb->next, 4);
	/* B's copy of the same messages: dropped in the hook. */
	assert_false(run_line(GROUP_B, SESSION, 1, 3, 3, d));
	assert_int_equal(d[1][STEER_LINE_DUP], 1);
	/* B first this time: B takes, A's copy is dropped. */
	assert_true(run_line(GROUP_B, SESSION, 4, 2, 2, d));
	assert_int_equal(d[1][STEER_LINE_TAKEN], 1);
	assert_false(run_line(GROUP, SESSION, 4, 2, 2, d));
	assert_int_equal(d[0][STEER_LINE_DUP], 1);
	assert_int_equal(s.arb->next, 6);
	/* Overlapping the next number: it carries something new, taken. */
	assert_true(run_line(GROUP, SESSION, 5, 3, 3, d));
	assert_int_equal(d[0][STEER_LINE_TAKEN], 1);
	assert_int_equal(s.arb->next, 8);
	/* A gap: beyond next, on to the gap logic, next does not move. */
	assert_true(run_line(GROUP, SESSION, 20, 2, 2, d));
	assert_int_equal(d[0][STEER_LINE_AHEAD], 1);
	assert_int_equal(s.arb->next, 8);
	/* The other line fills it. */
	assert_true(run_line(GROUP_B, SESSION, 8, 12, 12, d));
	assert_int_equal(d[1][STEER_LINE_TAKEN], 1);
	assert_int_equal(s.arb->next, 20);
	/* User space, having decoded further, brings next up; never down. */
	xdp_steer_advance(&s, 22);
	assert_int_equal(s.arb->next, 22);
	xdp_steer_advance(&s, 10);
	assert_int_equal(s.arb->next, 22);
	assert_false(run_line(GROUP_B, SESSION, 20, 2, 2, d));
	assert_int_equal(d[1][STEER_LINE_DUP], 1);
}

static void test_arb_leaves_alone(void **state)
{
	uint64_t d[STEER_LINES][STEER_LINE_NR];

	(void)state;
	xdp_steer_arm(&s, (const uint8_t *)SESSION, 100);
	/* Heartbeat and end of session: no messages, never arbitrated. */
	assert_true(run_line(GROUP, SESSION, 50, 0, 0, d));
	assert_int_equal(d[0][STEER_LINE_OTHER], 1);
	assert_true(run_line(GROUP_B, SESSION, 100, 0xFFFF, 0, d));
	assert_int_equal(d[1][STEER_LINE_OTHER], 1);
	/* Another session (junk before the session starts, say). */
	assert_true(run_line(GROUP, "JUNK000000", 1, 1, 1, d));
	assert_int_equal(d[0][STEER_LINE_OTHER], 1);
	/* A count the packet cannot hold must not move next. */
	assert_true(run_line(GROUP, SESSION, 100, 5000, 2, d));
	assert_int_equal(d[0][STEER_LINE_OTHER], 1);
	assert_int_equal(s.arb->next, 100);
}

enum { RACE_N = 20000 };

struct racer {
	uint32_t group;
	int cpu;
	int failed;
};

/* One line's copy of messages 1..RACE_N, one per packet, in order. */
static void *race(void *arg)
{
	struct racer *r = arg;
	uint8_t f[256], out[256];
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (uint64_t seq = 1; seq <= RACE_N; seq++) {
		size_t len = mold_frame(f, r->group, SESSION, seq, 1, 1);
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f, .data_size_in = (uint32_t)len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

		if (bpf_prog_test_run_opts(bpf_program__fd(s.skel->progs.steer), &o))
			r->failed = 1;
	}
	return NULL;
}

/*
 * Both lines at once on two CPUs: every message taken exactly once, the
 * other copy dropped; none ahead (each line runs in order).
 */
static void test_arb_race_two_cpus(void **state)
{
	uint64_t a[STEER_LINES][STEER_LINE_NR], b[STEER_LINES][STEER_LINE_NR];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct racer ra = { .group = GROUP, .cpu = 0 };
	struct racer rb = { .group = GROUP_B, .cpu = ncpu > 1 ? 1 : 0 };
	pthread_t ta, tb;

	(void)state;
	xdp_steer_arm(&s, (const uint8_t *)SESSION, 1);
	line_counts(a);
	assert_int_equal(pthread_create(&ta, NULL, race, &ra), 0);
	assert_int_equal(pthread_create(&tb, NULL, race, &rb), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	line_counts(b);
	assert_false(ra.failed || rb.failed);
	assert_int_equal(s.arb->next, RACE_N + 1);
	assert_int_equal((b[0][STEER_LINE_TAKEN] - a[0][STEER_LINE_TAKEN]) +
			 (b[1][STEER_LINE_TAKEN] - a[1][STEER_LINE_TAKEN]), RACE_N);
	assert_int_equal((b[0][STEER_LINE_DUP] - a[0][STEER_LINE_DUP]) +
			 (b[1][STEER_LINE_DUP] - a[1][STEER_LINE_DUP]), RACE_N);
	assert_int_equal(b[0][STEER_LINE_AHEAD] - a[0][STEER_LINE_AHEAD], 0);
	assert_int_equal(b[1][STEER_LINE_AHEAD] - a[1][STEER_LINE_AHEAD], 0);
	fprintf(stderr, "  race: line A took %llu, line B %llu of %d\n",
		(unsigned long long)(b[0][STEER_LINE_TAKEN] - a[0][STEER_LINE_TAKEN]),
		(unsigned long long)(b[1][STEER_LINE_TAKEN] - a[1][STEER_LINE_TAKEN]), RACE_N);
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
		cmocka_unit_test(test_unserved_counted_per_queue),
		cmocka_unit_test(test_order_connection_steered),
		cmocka_unit_test(test_others_pass),
		cmocka_unit_test(test_short_and_bad_headers),
		cmocka_unit_test(test_spoofed_source_dropped),
		cmocka_unit_test(test_arb_first_copy_kept),
		cmocka_unit_test(test_arb_leaves_alone),
		cmocka_unit_test(test_arb_race_two_cpus),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
