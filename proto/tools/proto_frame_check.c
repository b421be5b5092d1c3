// SPDX-License-Identifier: MIT
/*
 * proto-frame-check: do real kernel UDP sockets accept libproto's frames?
 * (tests/integration/proto_kernel_accept.sh runs it across a veth pair.)
 *
 *   proto-frame-check --send --ifname IF --dst-mac MAC --src-ip IP \
 *	--dst-ip IP --port PORT
 *	Sends five frames through an AF_PACKET socket, so nothing in the
 *	kernel fixes them up: a MoldUDP64 packet of 3 trades, a MoldUDP64
 *	re-request with a broken UDP checksum, one with a broken IPv4 header
 *	checksum, a good re-request (sequence 3, count 1), a MoldUDP64
 *	heartbeat.  (The gateway's order frames are TCP: the rig's tests
 *	have the exchange's kernel TCP take them.)
 *   proto-frame-check --recv --port PORT [--timeout-ms MS]
 *	Receives on a UDP socket until MS milliseconds pass with nothing
 *	new and succeeds only on exactly the three good datagrams, decoded
 *	intact.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "book/feed_decoder.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "util/opt.h"

#define SESSION "KERNEL0001"

struct cfg {
	bool send, recv;
	const char *ifname;
	uint8_t dst_mac[6];
	bool have_mac;
	uint32_t src_ip, dst_ip;	/* host order */
	uint16_t port;
	uint32_t timeout_ms;
	bool have_timeout;
};

#define C(f) OFF(struct cfg, f)

static int dst_mac(void *cfg, const char *a, char *why, size_t n)
{
	struct cfg *c = cfg;

	if (opt_parse_mac(a, c->dst_mac))
		return snprintf(why, n, "wants aa:bb:cc:dd:ee:ff"), -1;
	c->have_mac = true;
	return 0;
}

/* Only to tell a --timeout-ms given with --send from the default. */
static int timeout_ms(void *cfg, const char *a, char *why, size_t n)
{
	struct cfg *c = cfg;
	uint64_t v;

	if (opt_parse_u64(a, 1, 600000, &v))
		return snprintf(why, n, "wants 1..600000"), -1;
	c->timeout_ms = (uint32_t)v;
	c->have_timeout = true;
	return 0;
}

static const struct opt opts[] = {
	OPT_SECTION("Mode (one of them):"),
	OPT("send", 0, OPT_FLAG, C(send), NULL,
	    "send the five frames raw through AF_PACKET"),
	OPT("recv", 0, OPT_FLAG, C(recv), NULL,
	    "receive on a UDP socket and check what arrives"),
	OPT_SECTION("Both:"),
	OPT("port", 'p', OPT_PORT, C(port), "PORT",
	    "UDP port the frames go to / the socket binds (required)"),
	OPT_SECTION("--send (all required):"),
	OPT("ifname", 'i', OPT_STR, C(ifname), "IF", "interface to send on",
	    .max = IFNAMSIZ - 1),
	OPT("dst-mac", 0, OPT_CALL, 0, "MAC", "destination MAC, aa:bb:cc:dd:ee:ff",
	    .call = dst_mac),
	OPT("src-ip", 0, OPT_IPV4, C(src_ip), "IP", "IPv4 source"),
	OPT("dst-ip", 0, OPT_IPV4, C(dst_ip), "IP", "IPv4 destination"),
	OPT_SECTION("--recv:"),
	OPT("timeout-ms", 0, OPT_CALL, 0, "MS",
	    "stop after MS milliseconds with nothing new, 1..600000", .call = timeout_ms,
	    .def = "1500"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "proto-frame-check",
	.usage = "--send --ifname IF --dst-mac MAC\n"
		 "                         --src-ip IP --dst-ip IP --port PORT\n"
		 "       proto-frame-check --recv --port PORT [--timeout-ms MS]",
	.about =
"Do real kernel UDP sockets accept libproto's frames?\n"
"(tests/integration/proto_kernel_accept.sh runs it across a veth pair.)\n\n"
"--send sends five frames from IF's own MAC through an AF_PACKET socket, so\n"
"nothing in the kernel fixes them up: a MoldUDP64 packet of 3 trades, a\n"
"MoldUDP64 re-request with a broken UDP checksum, one with a broken IPv4\n"
"header checksum, a good re-request (sequence 3, count 1), a MoldUDP64\n"
"heartbeat.  --recv receives until --timeout-ms passes with nothing new and\n"
"succeeds only on exactly the three good datagrams, decoded intact.\n",
	.more = "Exit status: 0 sent / the three good datagrams received, 1 not (or a\n"
		"socket error), 2 bad usage.\n",
	.opts = opts,
};

static int do_send(const struct cfg *c)
{
	struct frame_endpoint src = { .port = 40001 }, dst = { 0 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	char session[MOLD_SESSION_LEN];
	struct mold_rerequest rq = { .seq = 3, .count = 1 };
	struct frame_template t;
	struct mold_builder b;
	uint8_t f[5][256];
	size_t len[5];
	struct ifreq ifr;
	int fd, i, rc = 1;

	memcpy(dst.mac, c->dst_mac, 6);
	src.ip = c->src_ip;
	dst.ip = c->dst_ip;
	dst.port = c->port;
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("socket(AF_PACKET)");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("SIOCGIFHWADDR");
		goto out;
	}
	memcpy(src.mac, ifr.ifr_hwaddr.sa_data, 6);
	sll.sll_ifindex = (int)if_nametoindex(c->ifname);
	memcpy(sll.sll_addr, dst.mac, 6);

	frame_template_init(&t, &src, &dst, 64, 0);
	mold_session_set(session, SESSION);
	memcpy(rq.session, session, MOLD_SESSION_LEN);

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
		mold_encode_rerequest(f[i] + FRAME_HDR_LEN, 64, &rq);
		len[i] = frame_finish(&t, f[i], MOLD_REREQ_LEN);
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
	       c->ifname);
	rc = 0;
out:
	close(fd);
	return rc;
}

/* What the good datagrams must decode to; returns which one, or -1. */
static int check_datagram(struct feed_decoder *d, const uint8_t *p, size_t n)
{
	struct mold_rerequest rq;

	/* A heartbeat has the same 20 bytes, with a count of 0. */
	if (mold_decode_rerequest(p, n, &rq) == MOLD_REREQ_LEN && rq.count)
		return rq.seq == 3 && rq.count == 1 &&
		       !memcmp(rq.session, SESSION, MOLD_SESSION_LEN) ? 1 : -1;
	if (feed_decode(d, p, n, 0) == 3 &&
	    feed_last(d)->kind == FEED_SEQ_IN_ORDER && !feed_last(d)->malformed &&
	    d->ring.price[tick_ring_slot(&d->ring, 2)] == 1500002)
		return 0;
	if (feed_last(d)->kind == FEED_SEQ_HEARTBEAT && feed_next_seq(d) == 4)
		return 2;
	return -1;
}

static int do_recv(const struct cfg *c)
{
	struct feed_decoder_config cfg = { .ring_capacity = 64 };
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct timeval tv;
	struct feed_decoder d;
	uint8_t buf[2048];
	int seen[3] = { 0 }, total = 0, bad = 0, fd, i;

	a.sin_port = htons(c->port);
	tv.tv_sec = c->timeout_ms / 1000;
	tv.tv_usec = (c->timeout_ms % 1000) * 1000;
	if (feed_decoder_init(&d, &cfg))
		return 1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		perror("proto-frame-check: socket");
		return 1;
	}
	printf("proto-frame-check: listening on %u\n", c->port);
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
		       which == 1 ? "re-request, sequence 3 count 1" :
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

/* What the mode needs, and nothing of the other mode's: 0, or 2 after the error. */
static int check_mode(const struct cfg *c)
{
	if (c->send == c->recv)
		return opt_error(&prog, "--send or --recv, one of them");
	if (!c->port)
		return opt_error(&prog, "--%s needs --port", c->send ? "send" : "recv");
	if (c->recv) {
		if (c->ifname || c->have_mac || c->src_ip || c->dst_ip)
			return opt_error(&prog, "--ifname, --dst-mac, --src-ip and --dst-ip "
					 "are for --send");
		return 0;
	}
	if (c->have_timeout)
		return opt_error(&prog, "--timeout-ms is for --recv");
	if (!c->ifname)
		return opt_error(&prog, "--send needs --ifname");
	if (!c->have_mac)
		return opt_error(&prog, "--send needs --dst-mac");
	/* 0.0.0.0 reads as not given: no frame of ours is sent from or to it. */
	if (!c->src_ip)
		return opt_error(&prog, "--send needs --src-ip (not 0.0.0.0)");
	if (!c->dst_ip)
		return opt_error(&prog, "--send needs --dst-ip (not 0.0.0.0)");
	return 0;
}

int main(int argc, char **argv)
{
	struct cfg c = { .timeout_ms = 1500 };
	int ret;

	ret = opt_parse(&prog, &c, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	ret = check_mode(&c);
	if (ret)
		return ret;
	return c.send ? do_send(&c) : do_recv(&c);
}
