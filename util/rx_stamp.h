/* SPDX-License-Identifier: MIT */
/*
 * A datagram's kernel receive stamp (SO_TIMESTAMPNS, CLOCK_REALTIME) on the
 * rig's one clock, CLOCK_MONOTONIC: the kernel paths' hook, for the gateway
 * and the floor alike.
 */
#ifndef UTIL_RX_STAMP_H
#define UTIL_RX_STAMP_H

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "util/clock.h"

/*
 * The SCM_TIMESTAMPNS of @m (received with a control buffer) less
 * @rt_offset (realtime_offset()); 0 when the message has none.
 */
static inline uint64_t rx_stamp_mono(struct msghdr *m, int64_t rt_offset)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return (uint64_t)((int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec -
					  rt_offset);
		}
	}
	return 0;
}

#endif /* UTIL_RX_STAMP_H */
