// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * XDP steering: the configured UDP flows (feed groups, re-request answers)
 * and the order connection's TCP segments (by 4-tuple) go to the AF_XDP
 * socket of the interface's receive queue, stamped with their arrival
 * time; every other packet goes to the kernel untouched.
 * With two feed lines (A and B, one interface each), the first copy of each
 * message is kept and the other dropped here (struct steer_arb).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "bpf/steer.h"

#define ETH_P_IP	0x0800
#define IPPROTO_TCP	6
#define IPPROTO_UDP	17
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STEER_MAX_FLOWS);
	__type(key, struct steer_flow_key);
	__type(value, struct steer_flow_val);
} flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STEER_MAX_TCP);
	__type(key, struct steer_tcp_key);
	__type(value, __u32);
} tcp_flows SEC(".maps");

/* Socket of (interface slot, queue): key slot * STEER_MAX_QUEUES + queue. */
struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, STEER_MAX_IFS * STEER_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

/* ifindex -> interface slot; an interface not in it is slot 0. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STEER_MAX_IFS);
	__type(key, __u32);
	__type(value, __u32);
} ifslots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STEER_LINES * STEER_LINE_NR);
	__type(key, __u32);
	__type(value, __u64);
} line_counters SEC(".maps");

/* In .bss: the loader reads and writes it through the skeleton's mapping. */
struct steer_arb arb;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STEER_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		*c += 1;
}

static __always_inline void count_line(__u32 line, __u32 which)
{
	__u32 k = line * STEER_LINE_NR + which;
	__u64 *c = bpf_map_lookup_elem(&line_counters, &k);

	if (c)
		*c += 1;
}

/*
 * The A/B rule for one feed packet: 1 to steer it, 0 to drop it (the other
 * line delivered all of it).  Compare-and-swap, because the two lines can
 * reach the hook on two CPUs at once: of two copies, exactly one moves next.
 */
static __always_inline int arbitrate(const __u8 *mold, void *end, __u32 line)
{
	__u64 seq, cur, stop;
	__u16 count;
	__u32 len;
	int i;

	if (line >= STEER_LINES)
		return 1;
	if ((void *)(mold + STEER_MOLD_HDR) > end || !arb.armed) {
		count_line(line, STEER_LINE_OTHER);
		return 1;
	}
	for (i = 0; i < STEER_SESSION_LEN; i++)
		if (mold[i] != arb.session[i]) {
			count_line(line, STEER_LINE_OTHER);
			return 1;
		}
	seq = bpf_be64_to_cpu(*(__u64 *)(mold + STEER_SESSION_LEN));
	count = bpf_ntohs(*(__u16 *)(mold + STEER_SESSION_LEN + 8));
	len = (__u32)((long)end - (long)(mold + STEER_MOLD_HDR));
	/*
	 * Heartbeats and the end of session carry no messages; a count the
	 * packet cannot hold (two bytes of length at least per message) is
	 * the decoder's to reject, and must not move next.
	 */
	if (count == 0 || count == 0xFFFF || (__u32)count * 2 > len) {
		count_line(line, STEER_LINE_OTHER);
		return 1;
	}
	stop = seq + count;
	for (i = 0; i < 8; i++) {
		cur = *(volatile __u64 *)&arb.next;
		if (stop <= cur) {
			count_line(line, STEER_LINE_DUP);
			return 0;
		}
		if (seq > cur) {
			count_line(line, STEER_LINE_AHEAD);
			return 1;
		}
		if (__sync_val_compare_and_swap(&arb.next, cur, stop) == cur) {
			count_line(line, STEER_LINE_TAKEN);
			return 1;
		}
	}
	/* Lost the race every time: let the decoder drop any duplicate. */
	count_line(line, STEER_LINE_OTHER);
	return 1;
}

static __always_inline int pass(__u32 why)
{
	if (why != STEER_PASSED)
		count(why);
	count(STEER_PASSED);
	return XDP_PASS;
}

/* The stamp in the metadata, then the socket of the packet's queue. */
static __always_inline int to_socket(struct xdp_md *ctx, __u64 now)
{
	__u32 ifindex = ctx->ingress_ifindex, *slot, key_q;
	struct steer_meta *meta;
	void *data;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*meta)) == 0) {
		/* adjust_meta moved the pointers: re-derive and re-check them. */
		meta = (void *)(long)ctx->data_meta;
		data = (void *)(long)ctx->data;
		if ((void *)(meta + 1) <= data)
			meta->hook_ns = now;
	} else {
		count(STEER_NO_META);
	}

	slot = bpf_map_lookup_elem(&ifslots, &ifindex);
	key_q = (slot && *slot < STEER_MAX_IFS ? *slot : 0) * STEER_MAX_QUEUES +
		(ctx->rx_queue_index & (STEER_MAX_QUEUES - 1));
	count(STEER_STEERED);
	return bpf_redirect_map(&xsks, key_q, XDP_PASS);
}

/* A segment of the order connection: every one of them, whatever its flags. */
static __always_inline int tcp(struct xdp_md *ctx, __u64 now, struct iphdr *ip, __u32 ihl,
			       void *end)
{
	struct tcphdr *th = (void *)ip + ihl;
	struct steer_tcp_key key = {};

	if ((void *)(th + 1) > end)
		return pass(STEER_SHORT);
	key.saddr = ip->saddr;
	key.daddr = ip->daddr;
	key.sport = th->source;
	key.dport = th->dest;
	if (!bpf_map_lookup_elem(&tcp_flows, &key))
		return pass(STEER_PASSED);
	count(STEER_TCP);
	return to_socket(ctx, now);
}

SEC("xdp")
int steer(struct xdp_md *ctx)
{
	/* Stamp first: everything below is part of the measured path. */
	__u64 now = bpf_ktime_get_ns();
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct steer_flow_key key = {};
	struct steer_flow_val *flow;
	struct ethhdr *eth = data;
	struct udphdr *udp;
	struct iphdr *ip;
	__u32 ihl;

	count(STEER_SEEN);
	if ((void *)(eth + 1) > end)
		return pass(STEER_SHORT);
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return pass(STEER_PASSED);
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end)
		return pass(STEER_SHORT);
	ihl = ip->ihl * 4;
	if (ip->version != 4 || ihl < sizeof(*ip))
		return pass(STEER_SHORT);
	/* Fragments are for the kernel to reassemble. */
	if (ip->frag_off & bpf_htons(IP_MF | IP_OFFSET))
		return pass(STEER_PASSED);
	if (ip->protocol == IPPROTO_TCP)
		return tcp(ctx, now, ip, ihl, end);
	if (ip->protocol != IPPROTO_UDP)
		return pass(STEER_PASSED);
	udp = (void *)ip + ihl;
	if ((void *)(udp + 1) > end)
		return pass(STEER_SHORT);

	key.daddr = ip->daddr;
	key.dport = udp->dest;
	flow = bpf_map_lookup_elem(&flows, &key);
	if (!flow)
		return pass(STEER_PASSED);
	if (flow->saddr && flow->saddr != ip->saddr) {
		count(STEER_SPOOFED);
		return XDP_DROP;
	}
	if (flow->kind == STEER_FLOW_FEED && !arbitrate((const __u8 *)(udp + 1), end, flow->line))
		return XDP_DROP;

	return to_socket(ctx, now);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
