/* SPDX-License-Identifier: MIT */
/*
 * Busy polling on a socket (SO_BUSY_POLL, SO_PREFER_BUSY_POLL,
 * SO_BUSY_POLL_BUDGET): a receive call on the socket runs the device's NAPI
 * poll itself, on the calling core, instead of waiting for the softirq to
 * run it wherever the interrupt (on veth: the sender's transmit) raised it.
 *
 * It only works when the socket has a NAPI to poll: on veth that means XDP
 * attached in driver mode (for AF_XDP) or GRO on (for kernel sockets).  With
 * SO_PREFER_BUSY_POLL the poller owns the NAPI, provided the interface
 * defers its "interrupts" (napi_defer_hard_irqs and gro_flush_timeout in
 * sysfs, the operator's settings): then the sender only queues the packet
 * and the XDP program, the copy and the stack all run on the poller's core.
 */
#ifndef NET_BUSY_POLL_H
#define NET_BUSY_POLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct busy_poll_cfg {
	uint32_t usec;		/* SO_BUSY_POLL: how long one call may poll; 0 = off */
	uint32_t budget;	/* SO_BUSY_POLL_BUDGET: packets per poll; 0 = the kernel's */
	bool prefer;		/* SO_PREFER_BUSY_POLL */
};

static inline bool busy_poll_on(const struct busy_poll_cfg *c)
{
	return c && (c->usec || c->prefer);
}

/* Apply @c to @fd (nothing when it is all off).  0, or -errno with err set. */
int busy_poll_set(int fd, const struct busy_poll_cfg *c, char *err, size_t errlen);

/* The NAPI id the kernel last saw the socket's packets come from; 0: none yet. */
unsigned int busy_poll_napi_id(int fd);

#endif /* NET_BUSY_POLL_H */
