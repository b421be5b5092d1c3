// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * XDP steering: the configured UDP flows (feed groups, the order-reply port)
 * go to the AF_XDP socket of the receive queue, stamped with their arrival
 * time; every other packet goes to the kernel untouched.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "bpf/steer.h"

#define ETH_P_IP	0x0800
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
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, STEER_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

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

static __always_inline int pass(__u32 why)
{
	if (why != STEER_PASSED)
		count(why);
	count(STEER_PASSED);
	return XDP_PASS;
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
	struct steer_meta *meta;
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
	if (ip->protocol != IPPROTO_UDP)
		return pass(STEER_PASSED);
	/* Fragments are for the kernel to reassemble. */
	if (ip->frag_off & bpf_htons(IP_MF | IP_OFFSET))
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

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(*meta)) == 0) {
		/* adjust_meta moved the pointers: re-derive and re-check them. */
		meta = (void *)(long)ctx->data_meta;
		data = (void *)(long)ctx->data;
		if ((void *)(meta + 1) <= data)
			meta->hook_ns = now;
	} else {
		count(STEER_NO_META);
	}

	count(STEER_STEERED);
	return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
