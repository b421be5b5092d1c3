// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "host/flows.h"

const char *const hc_flow_names[HC_FLOW_NR] = { "feed", "feed_b", "rerequest", "orders" };

/* "A.B.C.D" of a host-order address. */
static const char *ip(uint32_t a, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", a >> 24, a >> 16 & 255, a >> 8 & 255, a & 255);
	return buf;
}

void hc_flow_describe(const struct hc_flow *f, char *buf, size_t len)
{
	char s[16], d[16];

	switch (f->kind) {
	case HC_FLOW_FEED:
	case HC_FLOW_FEED_B:
		snprintf(buf, len, "%s %s:%u", f->kind == HC_FLOW_FEED ? "feed" : "line B's feed",
			 ip(f->daddr, d, sizeof(d)), f->dport);
		return;
	case HC_FLOW_RETRANS:
		snprintf(buf, len, "re-request answers %s -> %s:%u", ip(f->saddr, s, sizeof(s)),
			 ip(f->daddr, d, sizeof(d)), f->dport);
		return;
	default:
		if (f->dport_last > f->dport)
			snprintf(buf, len, "order connection %s:%u -> %s:%u-%u",
				 ip(f->saddr, s, sizeof(s)), f->sport, ip(f->daddr, d, sizeof(d)),
				 f->dport, f->dport_last);
		else
			snprintf(buf, len, "order connection %s:%u -> %s:%u",
				 ip(f->saddr, s, sizeof(s)), f->sport, ip(f->daddr, d, sizeof(d)),
				 f->dport);
		return;
	}
}

void hc_flow_rule(const struct hc_flow *f, unsigned int queue, char *buf, size_t len)
{
	char s[16], d[16];

	switch (f->kind) {
	case HC_FLOW_FEED:
	case HC_FLOW_FEED_B:
		snprintf(buf, len, "ethtool -N %s flow-type udp4 dst-ip %s dst-port %u action %u",
			 f->ifname, ip(f->daddr, d, sizeof(d)), f->dport, queue);
		return;
	case HC_FLOW_RETRANS:
		snprintf(buf, len, "ethtool -N %s flow-type udp4 src-ip %s dst-ip %s dst-port %u "
			 "action %u", f->ifname, ip(f->saddr, s, sizeof(s)),
			 ip(f->daddr, d, sizeof(d)), f->dport, queue);
		return;
	default:
		snprintf(buf, len, "ethtool -N %s flow-type tcp4 src-ip %s src-port %u dst-ip %s "
			 "action %u", f->ifname, ip(f->saddr, s, sizeof(s)), f->sport,
			 ip(f->daddr, d, sizeof(d)), queue);
		return;
	}
}
