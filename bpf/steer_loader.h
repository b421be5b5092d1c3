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
	int ifindex;
	uint32_t xdp_flags;
	bool attached;
};

/*
 * Load the program and attach it to ifname in driver mode (or generic mode).
 * A steering program left attached by a killed run is replaced, with a
 * message on stderr; any other program is left alone and refused unless
 * replace_foreign.  Returns 0 or a negative errno with one line in err.
 */
int xdp_steer_open(struct xdp_steer *s, const char *ifname, bool generic,
		   bool replace_foreign, char *err, size_t errlen);
/* Steer UDP to daddr:dport (network order); saddr != 0 drops other sources. */
int xdp_steer_add_flow(struct xdp_steer *s, uint32_t daddr, uint16_t dport,
		       enum steer_flow_kind kind, uint32_t saddr);
int xdp_steer_xskmap_fd(const struct xdp_steer *s);
/* Sum of the per-CPU counters. */
int xdp_steer_counters(const struct xdp_steer *s, uint64_t out[STEER_NR_COUNTERS]);
/* Detach (only our own program) and unload. */
void xdp_steer_close(struct xdp_steer *s);

/* Is any XDP program attached to ifindex?  Its id, or 0. */
uint32_t xdp_attached_id(int ifindex);

extern const char *const steer_counter_names[STEER_NR_COUNTERS];

#endif /* BPF_STEER_LOADER_H */
