// SPDX-License-Identifier: MIT
/*
 * bench-steer: what the XDP hook costs per packet, run by the kernel on one
 * crafted frame repeated (BPF_PROG_TEST_RUN, repeat N, the kernel's own
 * average): a packet passed to the kernel, a feed packet steered with no
 * arbitration (one line), and with the A/B arbitration armed: a copy
 * dropped as a duplicate, a packet ahead of the next number (steered, next
 * unchanged), and one that moves next (the compare-and-swap; next is put
 * back between runs, so this one is timed from user space per run and
 * includes the syscall, and the others' costs are quoted beside it).
 * Median of 5 runs of 1,000,000 repeats each.  Needs root.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "bpf/steer_loader.h"
#include "bpf/steer.skel.h"
#include "proto/be.h"
#include "util/clock.h"

#define GROUP	0xEF010101u
#define GROUP_B	0xEF010102u
#define PORT	26400
#define SRC	0x0A000001u
#define REPEAT	1000000
#define RUNS	5

static size_t frame(uint8_t *f, uint32_t daddr, uint64_t seq, uint16_t count)
{
	size_t plen = 20 + 3 * count, len = 14 + 20 + 8 + plen;
	uint8_t *ip = f + 14, *udp = ip + 20, *m = udp + 8;

	memset(f, 0, len);
	f[12] = 0x08;
	ip[0] = 0x45;
	be16_store(ip + 2, (uint16_t)(28 + plen));
	ip[8] = 64;
	ip[9] = 17;
	be32_store(ip + 12, SRC);
	be32_store(ip + 16, daddr);
	be16_store(udp + 2, PORT);
	be16_store(udp + 4, (uint16_t)(8 + plen));
	memcpy(m, "BENCH00001", 10);
	be64_store(m + 10, seq);
	be16_store(m + 18, count);
	for (unsigned int i = 0; i < count; i++) {
		be16_store(m + 20 + 3 * i, 1);
		m[22 + 3 * i] = 'P';
	}
	return len;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The kernel's average ns per run of @f, median of RUNS. */
static uint32_t kernel_ns(int prog, const uint8_t *f, size_t len)
{
	uint32_t d[RUNS];

	for (int r = 0; r < RUNS; r++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = f, .data_size_in = (uint32_t)len,
			    .repeat = REPEAT);

		if (bpf_prog_test_run_opts(prog, &o)) {
			perror("bench-steer: BPF_PROG_TEST_RUN");
			exit(1);
		}
		d[r] = o.duration;
	}
	qsort(d, RUNS, sizeof(d[0]), cmp_u32);
	return d[RUNS / 2];
}

int main(void)
{
	struct xdp_steer s = { 0 };
	uint8_t f[256];
	size_t len;
	int prog;

	if (geteuid()) {
		fprintf(stderr, "bench-steer: needs root (BPF_PROG_TEST_RUN)\n");
		return 1;
	}
	s.skel = steer_bpf__open_and_load();
	if (!s.skel) {
		perror("bench-steer: loading the program");
		return 1;
	}
	s.arb = &s.skel->bss->arb;
	prog = bpf_program__fd(s.skel->progs.steer);
	if (xdp_steer_add_flow(&s, htonl(GROUP), htons(PORT), STEER_FLOW_FEED, 0, 0) ||
	    xdp_steer_add_flow(&s, htonl(GROUP_B), htons(PORT), STEER_FLOW_FEED, 0, 1)) {
		perror("bench-steer: flows");
		return 1;
	}
	printf("bench-steer: ns per packet in the XDP hook (kernel's average over %d runs, "
	       "median of %d)\n\n", REPEAT, RUNS);
	printf("| packet | ns |\n|---|---:|\n");
	len = frame(f, 0xEF0101FFu, 1, 1);
	printf("| not a steered flow: passed to the kernel | %u |\n", kernel_ns(prog, f, len));
	len = frame(f, GROUP, 1, 1);
	printf("| feed, one line (not armed): steered | %u |\n", kernel_ns(prog, f, len));
	xdp_steer_arm(&s, (const uint8_t *)"BENCH00001", 1000);
	len = frame(f, GROUP_B, 10, 1);
	printf("| feed, armed: the other line's copy, dropped | %u |\n", kernel_ns(prog, f, len));
	len = frame(f, GROUP, 5000, 1);
	printf("| feed, armed: ahead of next (a gap), steered | %u |\n", kernel_ns(prog, f, len));
	/* The taking path: each run moves next, so next goes back between runs. */
	{
		enum { N = 200000 };
		uint64_t t0, t1, base;
		LIBBPF_OPTS(bpf_test_run_opts, o, .repeat = 1);

		len = frame(f, GROUP, 1000, 1);
		o.data_in = f;
		o.data_size_in = (uint32_t)len;
		t0 = mono_ns();
		for (int i = 0; i < N; i++) {
			s.arb->next = 1000;
			bpf_prog_test_run_opts(prog, &o);
		}
		t1 = mono_ns();
		len = frame(f, GROUP, 5000, 1);
		o.data_in = f;
		o.data_size_in = (uint32_t)len;
		base = mono_ns();
		for (int i = 0; i < N; i++) {
			s.arb->next = 1000;
			bpf_prog_test_run_opts(prog, &o);
		}
		base = mono_ns() - base;
		printf("| feed, armed: first copy, moves next (CAS), minus the ahead path, "
		       "syscall loop of %d | %+.1f |\n", N,
		       ((double)(t1 - t0) - (double)base) / N);
	}
	xdp_steer_close(&s);
	return 0;
}
