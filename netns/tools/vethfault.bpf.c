// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Network faults on a device's egress, for kernels without sch_netem: a tc
 * (clsact, direct action) program that drops a fraction of the frames,
 * sends a fraction twice (a clone, marked so that it passes this program
 * untouched), and puts a fraction into a slow HTB class of the device's
 * root qdisc (skb->priority = that class), where it waits while later
 * frames overtake it: reordering by delay.
 *
 * A drop is TC_ACT_STOLEN, not TC_ACT_SHOT: on a sender's own egress, SHOT
 * reaches its TCP as a local drop (NET_XMIT_DROP) and the segment is sent
 * again at once, so nothing is lost on the wire; STOLEN tells the sender the
 * frame left.  (On an ifb's egress either would be a real loss.)
 *
 * The clone goes back to this device's egress (dup_flags 0), or, on an ifb
 * that a mirred action feeds from a device's ingress, into that device's
 * ingress (dup_ifindex = that device, dup_flags BPF_F_INGRESS): the ifb
 * re-injects into the ingress only what mirred took there, and would send a
 * clone made on its own egress out of that device instead.  The marked clone
 * comes back through the mirred action and this program, as it is.
 *
 * Probabilities are thresholds on bpf_get_prandom_u32() set by the loader
 * (netns/tools/vethfault.c) before the program is loaded.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "netns/tools/vethfault.h"

const volatile __u32 loss_thr;		/* P x 2^32, 0 = never */
const volatile __u32 dup_thr;
const volatile __u32 delay_thr;
const volatile __u32 dup_ifindex;	/* where a clone goes */
const volatile __u64 dup_flags;		/* 0 (egress) or BPF_F_INGRESS */
const volatile __u32 slow_class;	/* TC_H_MAKE(major, minor) of the slow class */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VF_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		*c += 1;
}

static __always_inline int hit(__u32 thr)
{
	return thr && bpf_get_prandom_u32() < thr;
}

SEC("tc")
int vethfault(struct __sk_buff *skb)
{
	if (skb->mark == VF_CLONE_MARK) {
		/* Our own duplicate: on its way, as it is. */
		skb->mark = 0;
		return TC_ACT_OK;
	}
	count(VF_SEEN);
	if (hit(loss_thr)) {
		count(VF_DROPPED);
		return TC_ACT_STOLEN;	/* freed; the sender thinks it left */
	}
	if (hit(dup_thr)) {
		skb->mark = VF_CLONE_MARK;
		if (bpf_clone_redirect(skb, dup_ifindex, dup_flags) == 0)
			count(VF_DUPLICATED);
		skb->mark = 0;
	}
	if (slow_class && hit(delay_thr)) {
		skb->priority = slow_class;
		count(VF_DELAYED);
	}
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
