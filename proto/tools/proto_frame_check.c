// SPDX-License-Identifier: MIT
/*
 * proto-frame-check: do real kernel UDP sockets accept libproto's frames?
 * (tests/integration/proto_kernel_accept.sh runs it across a veth pair.)
 *
 *   proto-frame-check send IFNAME DST_MAC SRC_IP DST_IP PORT
 *	Sends five frames through an AF_PACKET socket, so nothing in the
 *	kernel fixes them up: a MoldUDP64 packet of 3 trades, an Enter Order
 *	with a broken UDP checksum, one with a broken IPv4 header checksum, a
 *	good Enter Order (token: seq 3, order 1), a MoldUDP64 heartbeat.
 *   proto-frame-check recv PORT TIMEOUT_MS
 *	Receives on a UDP socket until TIMEOUT_MS passes with nothing new and
 *	succeeds only on exactly the three good datagrams, decoded intact.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "book/feed_decoder.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/order_token.h"
#include "proto/ouch.h"

#define SESSION "KERNEL0001"

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

static int parse_ip(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*ip = ntohl(a.s_addr);
	return 0;
}

static void fill_order(struct ouch_enter_order *o)
{
	memset(o, 0, sizeof(*o));
	order_token_encode(o->token, 3, 1);
	o->side = 'B';
	o->shares = 100;
	memcpy(o->stock, "AAPL    ", 8);
	o->price = 1500000;
	memcpy(o->firm, "GWAY", 4);
	o->display = 'Y';
	o->capacity = 'P';
	o->iso = 'N';
	o->cross_type = 'N';
	o->customer_type = 'R';
}

static int do_send(char **argv)
{
	struct frame_endpoint src = { .port = 40001 }, dst = { 0 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	char session[MOLD_SESSION_LEN];
	struct ouch_enter_order o;
	struct frame_template t;
	struct mold_builder b;
	uint8_t f[5][256];
	size_t len[5];
	struct ifreq ifr;
	int fd, i, rc = 1;

	if (parse_mac(argv[3], dst.mac) || parse_ip(argv[4], &src.ip) ||
	    parse_ip(argv[5], &dst.ip)) {
		fprintf(stderr, "proto-frame-check: bad address\n");
		return 2;
	}
	dst.port = (uint16_t)atoi(argv[6]);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[2]);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("SIOCGIFHWADDR");
		goto out;
	}
	memcpy(src.mac, ifr.ifr_hwaddr.sa_data, 6);
	sll.sll_ifindex = (int)if_nametoindex(argv[2]);
	memcpy(sll.sll_addr, dst.mac, 6);

	frame_template_init(&t, &src, &dst, 64, 0);
	mold_session_set(session, SESSION);
	fill_order(&o);

	mold_builder_init(&b, f[0] + FRAME_HDR_LEN, 200, session, 1);
	for (i = 0; i < 3; i++) {
		struct itch_msg m = {
			.type = 'P', .locate = 5, .timestamp = 1000 + (uint64_t)i,
			.p = { .side = 'B', .shares = 100, .stock = "AAPL    ",
			       .price = 1500000 + (uint32_t)i, .match = 1 },
		};
		mold_builder_append_itch(&b, &m);
	}
	len[0] = frame_finish(&t, f[0], mold_builder_finish(&b));

	for (i = 1; i <= 3; i++) {
		ouch_encode_enter_order(f[i] + FRAME_HDR_LEN, 64, &o);
		len[i] = frame_finish(&t, f[i], OUCH_ENTER_DGRAM_LEN);
	}
	f[1][FRAME_OFF_UDP_CSUM] ^= 0x40;
	f[2][FRAME_OFF_IP_CSUM] ^= 0x40;

	len[4] = frame_finish(&t, f[4],
			      (size_t)mold_encode_heartbeat(f[4] + FRAME_HDR_LEN,
							    64, session, 4));

	for (i = 0; i < 5; i++) {
		if (sendto(fd, f[i], len[i], 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != (ssize_t)len[i]) {
			perror("sendto");
			goto out;
		}
	}
	printf("proto-frame-check: sent 5 frames on %s (2 with bad checksums)\n",
	       argv[2]);
	rc = 0;
out:
	close(fd);
	return rc;
}

/* What the good datagrams must decode to; returns which one, or -1. */
static int check_datagram(struct feed_decoder *d, const uint8_t *p, size_t n)
{
	struct ouch_enter_order o;
	uint64_t seq;
	uint32_t num;

	if (ouch_decode_enter_order(p, n, &o) == (int)n)
		return order_token_decode(o.token, &seq, &num) == 0 &&
		       seq == 3 && num == 1 && o.shares == 100 &&
		       o.price == 1500000 ? 1 : -1;
	if (feed_decode(d, p, n, 0) == 3 &&
	    feed_last(d)->kind == FEED_SEQ_IN_ORDER && !feed_last(d)->malformed &&
	    d->ring.price[tick_ring_slot(&d->ring, 2)] == 1500002)
		return 0;
	if (feed_last(d)->kind == FEED_SEQ_HEARTBEAT && feed_next_seq(d) == 4)
		return 2;
	return -1;
}

static int do_recv(char **argv)
{
	struct feed_decoder_config cfg = { .ring_capacity = 64 };
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv;
	struct feed_decoder d;
	uint8_t buf[2048];
	int seen[3] = { 0 }, total = 0, bad = 0, fd, ms, i;

	a.sin_port = htons((uint16_t)atoi(argv[2]));
	ms = atoi(argv[3]);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	if (feed_decoder_init(&d, &cfg))
		return 1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		perror("proto-frame-check: socket");
		return 1;
	}
	printf("proto-frame-check: listening on %s\n", argv[2]);
	fflush(stdout);
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		int which;

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			perror("recv");
			return 1;
		}
		total++;
		which = check_datagram(&d, buf, (size_t)n);
		if (which < 0)
			bad++;
		else
			seen[which]++;
		printf("proto-frame-check: got %zd bytes: %s\n", n,
		       which == 0 ? "MoldUDP64, 3 trades" :
		       which == 1 ? "Enter Order, token seq 3 order 1" :
		       which == 2 ? "MoldUDP64 heartbeat" : "UNEXPECTED");
	}
	close(fd);
	feed_decoder_destroy(&d);
	for (i = 0; i < 3; i++)
		bad += seen[i] != 1;
	printf("proto-frame-check: %d datagrams received, %s\n", total,
	       bad ? "NOT the three good ones" : "exactly the three good ones");
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 7 && !strcmp(argv[1], "send"))
		return do_send(argv);
	if (argc == 4 && !strcmp(argv[1], "recv"))
		return do_recv(argv);
	fprintf(stderr, "usage: %s send IFNAME DST_MAC SRC_IP DST_IP PORT\n"
		"       %s recv PORT TIMEOUT_MS\n", argv[0], argv[0]);
	return 2;
}
