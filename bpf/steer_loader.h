/* SPDX-License-Identifier: MIT */
/*
 * Loading, configuring and attaching the XDP steering program (steer.bpf.c)
 * from its bpftool skeleton.  Attached directly with bpf_xdp_attach(): the
 * libxdp dispatcher is refused on this kernel (see docs/platform.md).
 */
#ifndef BPF_STEER_LOADER_H
#define BPF_STEER_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/steer.h"

struct steer_bpf;

struct xdp_steer {
	struct steer_bpf *skel;
	int ifindex[STEER_MAX_IFS];	/* slot 0: line A (and orders), 1: line B */
	bool attached[STEER_MAX_IFS];
	uint32_t xdp_flags;
	struct steer_arb *arb;		/* the program's, mapped */
};

/*
 * Load the program and attach it to ifname in driver mode (or generic mode).
 * A steering program left attached by a killed run is replaced, with a
 * message on stderr; any other program is left alone and refused unless
 * replace_foreign.  Returns 0 or a negative errno with one line in err.
 */
int xdp_steer_open(struct xdp_steer *s, const char *ifname, bool generic,
		   bool replace_foreign, char *err, size_t errlen);
/*
 * The --xdp-mode argument: "generic" (or "skb") or "drv" (or "native").
 * Generic is the programs' default: on veth it is the faster of the two
 * (make bench-latency, docs/platform.md).  Returns 0, or -1 for another word.
 */
int xdp_steer_parse_mode(const char *arg, bool *generic);
/*
 * Attach the same program (same maps) to a second interface, line B's: its
 * packets go to the sockets of interface slot 1.
 */
int xdp_steer_add_if(struct xdp_steer *s, const char *ifname, bool replace_foreign,
		     char *err, size_t errlen);
/*
 * Steer UDP to daddr:dport (network order); saddr != 0 drops other sources;
 * a feed flow belongs to @line (0 = A, 1 = B).  Fragments from saddr (any
 * source when 0) to daddr are dropped from then on.
 */
int xdp_steer_add_flow(struct xdp_steer *s, uint32_t daddr, uint16_t dport,
		       enum steer_flow_kind kind, uint32_t saddr, uint32_t line);
/*
 * Steer the TCP segments from saddr:sport to daddr:dport (network order)
 * that arrive on line A's interface: an order connection of ours (the same
 * 4-tuple on another interface is dropped).  TCP fragments between the two
 * hosts are dropped from then on.  _del_ stops it (0 also when it was not).
 */
int xdp_steer_add_tcp(struct xdp_steer *s, uint32_t saddr, uint16_t sport, uint32_t daddr,
		      uint16_t dport);
int xdp_steer_del_tcp(struct xdp_steer *s, uint32_t saddr, uint16_t sport, uint32_t daddr,
		      uint16_t dport);
int xdp_steer_xskmap_fd(const struct xdp_steer *s);
/* The XSKMAP key of interface slot @slot's queue @queue. */
static inline unsigned int xdp_steer_xskmap_key(unsigned int slot, unsigned int queue)
{
	return slot * STEER_MAX_QUEUES + queue;
}
/* Sum of the per-CPU counters. */
int xdp_steer_counters(const struct xdp_steer *s, uint64_t out[STEER_NR_COUNTERS]);
/* Where steered packets arrived, per interface slot, queue and class (summed). */
int xdp_steer_queue_stats(const struct xdp_steer *s, struct steer_queue_stats *out);
int xdp_steer_line_counters(const struct xdp_steer *s,
			    uint64_t out[STEER_LINES][STEER_LINE_NR]);

/*
 * Arbitrate @session from @next on: the hook drops feed packets wholly
 * below the next undelivered number.  Called when the decoder adopts a
 * session; @next is the decoder's next expected number, never more.
 */
void xdp_steer_arm(struct xdp_steer *s, const uint8_t session[STEER_SESSION_LEN],
		   uint64_t next);

/*
 * Decoding has reached @next: the hook's number moves up to it if behind
 * (it lags after a gap was filled from the other line or by re-requests,
 * since the hook moves it only past packets that start at or below it).
 */
static inline void xdp_steer_advance(struct xdp_steer *s, uint64_t next)
{
	uint64_t cur;

	if (!s->arb)
		return;
	cur = __atomic_load_n(&s->arb->next, __ATOMIC_RELAXED);
	while (cur < next && !__atomic_compare_exchange_n(&s->arb->next, &cur, next, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}
/* Detach (only our own program) and unload. */
void xdp_steer_close(struct xdp_steer *s);

/* Is any XDP program attached to ifindex?  Its id, or 0. */
uint32_t xdp_attached_id(int ifindex);

extern const char *const steer_counter_names[STEER_NR_COUNTERS];
extern const char *const steer_line_counter_names[STEER_LINE_NR];

#endif /* BPF_STEER_LOADER_H */
