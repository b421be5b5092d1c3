// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * XDP steering: the configured UDP flows (feed groups, re-request answers)
 * and the order connection's TCP segments (by 4-tuple) go to the AF_XDP
 * socket of the receive queue they arrived on, stamped with their arrival
 * time; every other packet goes to the kernel untouched.
 *
 * A steered flow never reaches the kernel: a packet of one on a queue with
 * no socket is dropped and counted for that queue, and so is a fragment of
 * one.  The kernel has no socket for these flows, and for the order
 * connection it would answer with a reset.
 *
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
	__type(value, struct steer_tcp_val);
} tcp_flows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, STEER_MAX_FRAGS);
	__type(key, struct steer_frag_key);
	__type(value, __u32);
} frag_flows SEC(".maps");

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

/* One entry: the per-queue counts are read in one lookup. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct steer_queue_stats);
} queue_stats SEC(".maps");

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

/* Count a steered packet against its queue: at its socket, or unserved. */
static __always_inline void count_queue(__u32 slot, __u32 queue, __u32 class, int served)
{
	struct steer_queue_stats *q;
	__u32 zero = 0;

	q = bpf_map_lookup_elem(&queue_stats, &zero);
	if (!q || slot >= STEER_MAX_IFS || queue >= STEER_MAX_QUEUES || class >= STEER_CLASS_NR)
		return;
	if (served)
		q->steered[slot][queue][class] += 1;
	else
		q->unserved[slot][queue][class] += 1;
}

/*
 * The stamp in front of the packet, then the socket of the packet's queue.
 * No socket there: dropped, never passed (the kernel knows none of these
 * flows).
 */
static __always_inline int to_socket(struct xdp_md *ctx, __u64 now, __u32 class)
{
	__u32 ifindex = ctx->ingress_ifindex, queue = ctx->rx_queue_index, *slotp, slot;
	struct steer_stamp *stamp;
	void *end;
	int act;

	/*
	 * The headroom is at least XDP_PACKET_HEADROOM in both modes; without
	 * room the socket would take the frame's first bytes for a stamp.
	 */
	if (bpf_xdp_adjust_head(ctx, -(int)sizeof(*stamp))) {
		count(STEER_NO_META);
		return XDP_DROP;
	}
	/* adjust_head moved the pointers: re-derive and re-check them. */
	stamp = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if ((void *)(stamp + 1) > end) {
		count(STEER_NO_META);
		return XDP_DROP;
	}
	stamp->hook_ns = now;

	slotp = bpf_map_lookup_elem(&ifslots, &ifindex);
	slot = slotp && *slotp < STEER_MAX_IFS ? *slotp : 0;
	/* A queue beyond the map's range has no socket (its key would alias). */
	if (queue >= STEER_MAX_QUEUES)
		act = XDP_DROP;
	else
		act = bpf_redirect_map(&xsks, slot * STEER_MAX_QUEUES + queue, XDP_DROP);
	count_queue(slot, queue, class, act == XDP_REDIRECT);
	count(act == XDP_REDIRECT ? STEER_STEERED : STEER_UNSERVED);
	return act;
}

/* A segment of the order connection: every one of them, whatever its flags. */
static __always_inline int tcp(struct xdp_md *ctx, __u64 now, struct iphdr *ip, __u32 ihl,
			       void *end)
{
	struct tcphdr *th = (void *)ip + ihl;
	struct steer_tcp_key key = {};
	struct steer_tcp_val *v;

	if ((void *)(th + 1) > end)
		return pass(STEER_SHORT);
	key.saddr = ip->saddr;
	key.daddr = ip->daddr;
	key.sport = th->source;
	key.dport = th->dest;
	v = bpf_map_lookup_elem(&tcp_flows, &key);
	if (!v)
		return pass(STEER_PASSED);
	/*
	 * The right addresses on the wrong interface are someone else's
	 * segment; the kernel must not see it either (it would answer with a
	 * reset the exchange could take as ours).
	 */
	if (v->ifindex != ctx->ingress_ifindex) {
		count(STEER_TCP_WRONG_IF);
		return XDP_DROP;
	}
	count(STEER_TCP);
	return to_socket(ctx, now, STEER_CLASS_TCP);
}

/* Is this fragment one of a steered flow's (by its hosts and protocol)? */
static __always_inline int steered_fragment(const struct iphdr *ip)
{
	struct steer_frag_key key = {};

	key.saddr = ip->saddr;
	key.daddr = ip->daddr;
	key.proto = ip->protocol;
	if (bpf_map_lookup_elem(&frag_flows, &key))
		return 1;
	key.saddr = 0;
	return bpf_map_lookup_elem(&frag_flows, &key) != NULL;
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
	/*
	 * Fragments are the kernel's to reassemble, but not a steered flow's:
	 * a reassembled feed datagram or order segment would reach a kernel
	 * that has no socket for it.
	 */
	if (ip->frag_off & bpf_htons(IP_MF | IP_OFFSET)) {
		if (steered_fragment(ip)) {
			count(STEER_FRAGMENT);
			return XDP_DROP;
		}
		return pass(STEER_PASSED);
	}
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

	return to_socket(ctx, now, flow->kind == STEER_FLOW_FEED ? STEER_CLASS_FEED :
							     STEER_CLASS_RETRANS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
