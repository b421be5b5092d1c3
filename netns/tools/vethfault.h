/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* Shared by the veth fault program and its loader (vethfault.bpf.c). */
#ifndef NETNS_TOOLS_VETHFAULT_H
#define NETNS_TOOLS_VETHFAULT_H

#define VF_CLONE_MARK	0x76664450	/* "vfDP": a duplicate we made */
#define VF_TC_HANDLE	0x7666		/* the filter's handle and priority */
#define VF_TC_PRIO	1

enum vf_counter {
	VF_SEEN,
	VF_DROPPED,
	VF_DUPLICATED,
	VF_DELAYED,
	VF_NR_COUNTERS,
};

#endif /* NETNS_TOOLS_VETHFAULT_H */
