// SPDX-License-Identifier: MIT
/* Hostile packets mixed into the feed (hostile.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "netns/exsim/hostile.h"
#include "proto/mold_check.h"
#include "proto/be.h"
#include "util/rng.h"

#define HOSTILE_SALT	UINT64_C(0x686f7374696c6504)
#define MAX_OLD_BLOCKS	8	/* old messages copied into one packet */
#define SEND_TRIES	1000
#define OTHER_PORT_LO	600
#define OTHER_PORT_N	400

static const char *const names[HC_NCLASSES] = {
	[HC_SHORT_PACKET] = "short_packet",
	[HC_BLOCK_OVERRUN] = "block_overrun",
	[HC_COUNT_TOO_HIGH] = "count_too_high",
	[HC_COUNT_TOO_LOW] = "count_too_low",
	[HC_ZERO_LENGTH_BLOCK] = "zero_length_block",
	[HC_BAD_LENGTH] = "bad_length",
	[HC_UNKNOWN_TYPE] = "unknown_type",
	[HC_RANDOM] = "random",
	[HC_TRUNCATED_FRAME] = "truncated_frame",
	[HC_BAD_CHECKSUM] = "bad_checksum",
	[HC_OTHER_PORT] = "other_port",
	[HC_OTHER_ADDRESS] = "other_address",
};

_Static_assert(HC_SHORT_PACKET == MOLD_SHORT_PACKET - 1 &&
	       HC_UNKNOWN_TYPE == MOLD_UNKNOWN_TYPE - 1,
	       "hostile classes follow mold_check's defects");

const char *hostile_class_name(unsigned int cls)
{
	return cls < HC_NCLASSES ? names[cls] : "?";
}

int hostile_parse_classes(const char *list, uint32_t *mask, const char **bad)
{
	static char tok[64];
	const char *p = list;

	*mask = 0;
	if (!strcmp(list, "all")) {
		*mask = HOSTILE_ALL;
		return 0;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		unsigned int c;

		for (c = 0; c < HC_NCLASSES; c++)
			if (strlen(names[c]) == n && !strncmp(names[c], p, n))
				break;
		if (c == HC_NCLASSES) {
			snprintf(tok, sizeof(tok), "%.*s", (int)(n < 40 ? n : 40), p);
			*bad = tok;
			return -1;
		}
		*mask |= 1u << c;
		if (!end)
			return 0;
		p = end + 1;
	}
}

static uint64_t rnd(struct hostile *h)
{
	return splitmix64(&h->rng);
}

/* Uniform in [lo, hi]. */
static unsigned int between(struct hostile *h, unsigned int lo, unsigned int hi)
{
	return lo + (unsigned int)(rnd(h) % (hi - lo + 1));
}

/* ---- where frames go ---- */

static void group_mac(uint8_t mac[6], uint32_t group)
{
	mac[0] = 0x01;
	mac[1] = 0x00;
	mac[2] = 0x5e;
	mac[3] = (group >> 16) & 0x7f;
	mac[4] = (group >> 8) & 0xff;
	mac[5] = group & 0xff;
}

/* The interface holding @addr: name, index, MAC. */
static int find_interface(struct hostile *h, struct in_addr addr, char *err, size_t errlen)
{
	struct ifaddrs *ifs, *i;
	struct ifreq ifr;
	int fd, found = 0;

	if (getifaddrs(&ifs)) {
		snprintf(err, errlen, "--hostile: getifaddrs: %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	for (i = ifs; i && !found; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == addr.s_addr) {
			snprintf(h->ifname, sizeof(h->ifname), "%s", i->ifa_name);
			found = 1;
		}
	freeifaddrs(ifs);
	if (!found) {
		snprintf(err, errlen, "--hostile: no interface holds the feed's source "
			 "address %s", inet_ntoa(addr));
		return -EINVAL;
	}
	h->ifindex = (int)if_nametoindex(h->ifname);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", h->ifname);
	if (fd < 0 || !h->ifindex || ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		snprintf(err, errlen, "--hostile: interface %s: %s", h->ifname, strerror(errno));
		if (fd >= 0)
			close(fd);
		return errno ? -errno : -EIO;
	}
	close(fd);
	memcpy(h->src.mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

/*
 * A complete neighbour on our interface from /proc/net/arp: the one for
 * @want (host order), or with want 0 the first one.  Returns 0 or -1.
 */
static int find_neighbour(const struct hostile *h, uint32_t want, uint32_t *ip, uint8_t mac[6])
{
	char line[256], addr[64], hw[64], dev[64];
	unsigned int type, flags, m[6];
	FILE *f = fopen("/proc/net/arp", "r");
	int rc = -1;

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f)) {
		struct in_addr a;
		int k;

		if (sscanf(line, "%63s %x %x %63s %*s %63s", addr, &type, &flags, hw, dev) != 5 ||
		    !(flags & 0x2) || strcmp(dev, h->ifname) || inet_pton(AF_INET, addr, &a) != 1 ||
		    sscanf(hw, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6)
			continue;
		if (want && ntohl(a.s_addr) != want)
			continue;
		for (k = 0; k < 6; k++)
			mac[k] = (uint8_t)m[k];
		*ip = ntohl(a.s_addr);
		rc = 0;
	}
	fclose(f);
	return rc;
}

/* An address of @near's /24 that is neither @near nor @self nor .0/.255. */
static uint32_t unused_neighbour_addr(uint32_t near, uint32_t self)
{
	static const uint8_t flips[] = { 0x80, 0x40, 0x20, 0x10 };
	unsigned int i;

	for (i = 0; i < sizeof(flips); i++) {
		uint32_t a = near ^ flips[i];
		uint8_t low = a & 0xff;

		if (a != near && a != self && low != 0 && low != 255)
			return a;
	}
	return near ^ 0x08;
}

static int open_frames(struct hostile *h, const struct exsim_cfg *c, char *err, size_t errlen)
{
	struct sockaddr_in local;
	socklen_t sl = sizeof(local);
	uint32_t feed_ip = ntohl(c->feed.sin_addr.s_addr), ip, group;
	uint8_t mac[6];
	int ret;

	if (getsockname(h->feed->fd, (struct sockaddr *)&local, &sl)) {
		snprintf(err, errlen, "--hostile: feed socket address: %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	ret = find_interface(h, local.sin_addr, err, errlen);
	if (ret)
		return ret;
	h->src.ip = ntohl(local.sin_addr.s_addr);
	h->src.port = ntohs(local.sin_port);

	h->feed_dst.ip = feed_ip;
	h->feed_dst.port = ntohs(c->feed.sin_port);
	if (c->feed_mcast) {
		group_mac(h->feed_dst.mac, feed_ip);
		group = (feed_ip & 0xff) == 0xff ? feed_ip - 1 : feed_ip + 1;
		if (!find_neighbour(h, 0, &ip, mac)) {
			h->have_unicast = true;
			memcpy(h->unicast_dst.mac, mac, 6);
			h->unicast_dst.ip = unused_neighbour_addr(ip, h->src.ip);
		}
	} else {
		if (find_neighbour(h, feed_ip, &ip, mac)) {
			snprintf(err, errlen, "--hostile: frame classes need a neighbour entry "
				 "for the unicast feed address on %s (the rig has static ones); "
				 "or leave them out with --hostile-classes", h->ifname);
			return -EINVAL;
		}
		memcpy(h->feed_dst.mac, mac, 6);
		h->have_unicast = true;
		memcpy(h->unicast_dst.mac, mac, 6);
		h->unicast_dst.ip = unused_neighbour_addr(feed_ip, h->src.ip);
		group = 0xeffe0001;	/* 239.254.0.1: nobody's group */
	}
	h->group_dst.ip = group;
	h->group_dst.port = h->feed_dst.port;
	group_mac(h->group_dst.mac, group);
	h->unicast_dst.port = h->feed_dst.port;

	h->pkt_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (h->pkt_fd < 0) {
		snprintf(err, errlen, "--hostile: AF_PACKET socket (frame classes need "
			 "root): %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	return 0;
}

int hostile_open(struct hostile *h, const struct exsim_cfg *c, struct feed *f,
		 char *err, size_t errlen)
{
	unsigned int k;

	memset(h, 0, sizeof(*h));
	h->pkt_fd = -1;
	h->feed = f;
	h->cfg = c;
	h->per_1000 = c->hostile_per_1000;
	h->rng = c->fault_seed ^ HOSTILE_SALT;
	h->opening = (uint16_t)(3 + c->nsym);
	for (k = 0; k < HC_NCLASSES; k++)
		if (c->hostile_mask & (1u << k))
			h->cls[h->ncls++] = k;
	for (k = 'z'; k > 0; k--)
		if (!itch_msg_len[k]) {
			h->unknown_type = (uint8_t)k;
			break;
		}
	if (h->per_1000 <= 0 || !h->ncls)
		return 0;
	if (!store_enabled(&f->store)) {
		snprintf(err, errlen, "--hostile needs the message store");
		return -EINVAL;
	}
	if (c->hostile_mask & HOSTILE_FRAMES)
		return open_frames(h, c, err, errlen);
	return 0;
}

void hostile_close(struct hostile *h)
{
	if (h->pkt_fd >= 0)
		close(h->pkt_fd);
	h->pkt_fd = -1;
}

/* ---- packets ---- */

static void header(struct hostile *h, uint8_t *p, uint64_t seq, uint16_t count)
{
	memcpy(p + MOLD_OFF_SESSION, h->feed->session, MOLD_SESSION_LEN);
	be64_store(p + MOLD_OFF_SEQ, seq);
	be16_store(p + MOLD_OFF_COUNT, count);
}

/* Blocks of old messages 1..k, block @odd (if < k) rewritten by @cls. */
static size_t old_blocks(struct hostile *h, uint8_t *p, unsigned int k,
			 unsigned int odd, unsigned int cls)
{
	size_t len = MOLD_HDR_LEN;
	unsigned int i;

	for (i = 0; i < k; i++) {
		uint16_t n = 0, bl;
		const uint8_t *m = store_get(&h->feed->store, i + 1, &n);
		uint8_t *blk = p + len;

		if (!m)
			break;
		memcpy(blk + MOLD_BLOCK_HDR_LEN, m, n);
		bl = n;
		if (i == odd) {
			switch (cls) {
			case HC_ZERO_LENGTH_BLOCK:
				bl = 0;
				break;
			case HC_BAD_LENGTH:
				if (rnd(h) & 1) {
					unsigned int extra = between(h, 1, 8);

					memset(blk + MOLD_BLOCK_HDR_LEN + n, 0, extra);
					bl = (uint16_t)(n + extra);
				} else {
					bl = (uint16_t)(n - between(h, 1, n > 8 ? 8 : n - 1));
				}
				break;
			case HC_UNKNOWN_TYPE:
				blk[MOLD_BLOCK_HDR_LEN + ITCH_OFF_TYPE] = h->unknown_type;
				break;
			}
		}
		be16_store(blk, bl);
		len += MOLD_BLOCK_HDR_LEN + bl;
	}
	return len;
}

static unsigned int max_old(const struct hostile *h)
{
	return h->opening < MAX_OLD_BLOCKS ? h->opening : MAX_OLD_BLOCKS;
}

/* One malformed MoldUDP64 packet of class @cls in h->buf; its length. */
static size_t malformed(struct hostile *h, unsigned int cls, uint16_t *count)
{
	uint8_t *p = h->buf;
	unsigned int top = max_old(h), k;
	size_t len;

	switch (cls) {
	case HC_SHORT_PACKET:
		header(h, p, 1, 1);
		*count = 1;
		return between(h, 1, MOLD_HDR_LEN - 1);
	case HC_BLOCK_OVERRUN:
		len = old_blocks(h, p, 1, 1, cls);
		/* the block claims 1-100 bytes more than the packet has */
		be16_store(p + MOLD_HDR_LEN, (uint16_t)(be16_load(p + MOLD_HDR_LEN) +
							between(h, 1, 100)));
		header(h, p, 1, 1);
		*count = 1;
		return len;
	case HC_COUNT_TOO_HIGH:
		k = between(h, 1, top - 1);
		*count = (uint16_t)between(h, k + 1, top);
		len = old_blocks(h, p, k, k, cls);
		header(h, p, 1, *count);
		return len;
	case HC_COUNT_TOO_LOW:
		k = between(h, 2, top);
		*count = (uint16_t)between(h, 1, k - 1);
		len = old_blocks(h, p, k, k, cls);
		header(h, p, 1, *count);
		return len;
	default:	/* one bad block among k */
		k = between(h, 1, top);
		*count = (uint16_t)k;
		len = old_blocks(h, p, k, between(h, 0, k - 1), cls);
		header(h, p, 1, *count);
		return len;
	}
}

/* Real session, seq 1, random count and bytes; never well formed. */
static size_t random_packet(struct hostile *h, uint16_t *count)
{
	uint8_t *p = h->buf;
	size_t len, i;

	do {
		*count = (uint16_t)between(h, 1, h->opening);
		header(h, p, 1, *count);
		len = MOLD_HDR_LEN + between(h, 0, MOLD_MTU_BUDGET - MOLD_HDR_LEN);
		for (i = MOLD_HDR_LEN; i < len; i += 8) {
			uint64_t r = rnd(h);
			size_t n = len - i < 8 ? len - i : 8;

			memcpy(p + i, &r, n);
		}
	} while (mold_check(p, len) == MOLD_WELL_FORMED);
	return len;
}

/* The poison payload at @p: the next sequence number, one false trade. */
static size_t poison(struct hostile *h, uint8_t *p, uint64_t *seq)
{
	struct itch_msg m = { .type = 'P', .locate = 1 };
	struct mold_builder b;

	m.timestamp = mono_ns();
	m.p.side = 'B';
	m.p.shares = 100;
	memcpy(m.p.stock, h->cfg->symbols[0], ITCH_SYMBOL_LEN);
	m.p.price = 1;
	*seq = feed_next_seq(h->feed);
	mold_builder_init(&b, p, MOLD_MTU_BUDGET, h->feed->session, *seq);
	mold_builder_append_itch(&b, &m);
	return mold_builder_finish(&b);
}

static uint16_t other_port(struct hostile *h)
{
	const struct exsim_cfg *c = h->cfg;

	for (;;) {
		uint16_t port = (uint16_t)(OTHER_PORT_LO + rnd(h) % OTHER_PORT_N);

		if (port != ntohs(c->feed.sin_port) && port != ntohs(c->order.sin_port) &&
		    port != c->rereq_port)
			return port;
	}
}

/* One frame of class @cls in h->buf; its length on the wire. */
static size_t frame(struct hostile *h, unsigned int cls, const uint8_t **dst_mac,
		    uint64_t *seq)
{
	struct frame_endpoint dst = h->feed_dst;
	struct frame_template t;
	size_t plen, len;
	uint16_t csum;

	if (cls == HC_OTHER_PORT) {
		dst.port = other_port(h);
	} else if (cls == HC_OTHER_ADDRESS) {
		if (h->have_unicast && (rnd(h) & 1)) {
			dst = h->unicast_dst;
			h->st.unicast_other++;
		} else {
			dst = h->group_dst;
		}
	}
	frame_template_init(&t, &h->src, &dst, IN_MULTICAST(dst.ip) ? 1 : 64, 0);
	t.next_id = (uint16_t)rnd(h);
	plen = poison(h, h->buf + FRAME_HDR_LEN, seq);
	len = frame_finish(&t, h->buf, plen);
	if (cls == HC_TRUNCATED_FRAME) {
		len = between(h, FRAME_ETH_LEN + 1, (unsigned int)len - 1);
	} else if (cls == HC_BAD_CHECKSUM) {
		csum = be16_load(h->buf + FRAME_OFF_UDP_CSUM) ^ 0x5555;
		be16_store(h->buf + FRAME_OFF_UDP_CSUM, csum ? csum : 0x1234);
	}
	*dst_mac = h->buf;	/* the frame's own destination MAC */
	return len;
}

static int send_udp(struct hostile *h, size_t len)
{
	int tries;

	for (tries = 0; tries < SEND_TRIES; tries++) {
		if (send(h->feed->fd, h->buf, len, 0) == (ssize_t)len)
			return 0;
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			break;
	}
	return -1;
}

static int send_frame(struct hostile *h, size_t len, const uint8_t *mac)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_IP),
		.sll_ifindex = h->ifindex,
		.sll_halen = 6,
	};
	int tries;

	memcpy(sll.sll_addr, mac, 6);
	for (tries = 0; tries < SEND_TRIES; tries++) {
		if (sendto(h->pkt_fd, h->buf, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) == (ssize_t)len)
			return 0;
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			break;
	}
	return -1;
}

static void send_one(struct hostile *h)
{
	unsigned int cls = h->cls[rnd(h) % h->ncls];
	uint16_t count = 1;
	uint64_t seq = 1;
	size_t len;
	int rc;

	if (cls >= HC_FIRST_FRAME) {
		const uint8_t *mac;

		len = frame(h, cls, &mac, &seq);
		rc = send_frame(h, len, mac);
	} else {
		len = cls == HC_RANDOM ? random_packet(h, &count) : malformed(h, cls, &count);
		rc = send_udp(h, len);
	}
	if (rc) {
		h->st.send_errors++;
		return;
	}
	h->st.sent++;
	h->st.by_class[cls]++;
	faults_log(&h->feed->fx, FAULT_EV_HOSTILE + cls, seq, count);
}

void hostile_after_packet(struct hostile *h)
{
	if (h->per_1000 <= 0 || !h->ncls)
		return;
	h->credit += h->per_1000;
	while (h->credit >= 1000) {
		h->credit -= 1000;
		send_one(h);
	}
}
