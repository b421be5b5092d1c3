/* SPDX-License-Identifier: MIT */
/*
 * The flows the gateway steers into its AF_XDP sockets, and the ntuple
 * rule that puts each on a chosen receive queue of a multi-queue NIC.
 *
 * RSS hashes each flow onto a queue of its own: the feed, the re-request
 * answers and the order connection are three flows with three hashes.  A
 * gateway that serves one queue needs every one of them steered there
 * (ethtool -N), or the NIC cut to one queue (ethtool -L IF combined 1).
 */
#ifndef HOST_FLOWS_H
#define HOST_FLOWS_H

#include <stddef.h>
#include <stdint.h>

enum hc_flow_kind {
	HC_FLOW_FEED,		/* line A's multicast group */
	HC_FLOW_FEED_B,		/* line B's */
	HC_FLOW_RETRANS,	/* the re-request server's answers */
	HC_FLOW_ORDERS,		/* the order connection's segments */
	HC_FLOW_NR,
};

#define HC_MAX_FLOWS HC_FLOW_NR

/* One flow as it arrives: addresses host order; 0 for any. */
struct hc_flow {
	enum hc_flow_kind kind;
	const char *ifname;	/* the interface it arrives on */
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint16_t dport_last;	/* the order connection: local ports dport..dport_last */
};

/* "feed 239.1.1.1:26400", "order connection 10.201.0.1:26401 -> 10.201.0.2:26402-26465". */
void hc_flow_describe(const struct hc_flow *f, char *buf, size_t len);
/*
 * The rule that steers the flow to @queue of its interface, e.g.
 * "ethtool -N eth0 flow-type udp4 dst-ip 239.1.1.1 dst-port 26400 action 0".
 * The order connection's rule names the exchange's address and port, not
 * ours: each reconnection takes another local port.
 */
void hc_flow_rule(const struct hc_flow *f, unsigned int queue, char *buf, size_t len);

extern const char *const hc_flow_names[HC_FLOW_NR];	/* "feed", "feed_b", ... */

#endif /* HOST_FLOWS_H */
