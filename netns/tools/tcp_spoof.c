// SPDX-License-Identifier: MIT
/*
 * tcp_spoof: forged segments of a live order connection, with the
 * exchange's addresses, for the tests of the gateway's TCP (RFC 5961's
 * blind attacks and their neighbours).  It runs in the exchange's
 * namespace, learns the connection by watching the exchange's interface
 * (AF_PACKET: the gateway's port, the next sequence number the gateway
 * expects, what it has acknowledged), and sends, round robin, one forged
 * frame of each class asked for every --interval-ms, for --duration-ms:
 *
 *   old_ack      window 0, SEQ near the top of the receive window, an ACK
 *                2^30 below SND.UNA (the frame that once froze the window)
 *   stale_ack    the same with an ACK 2,000 below SND.UNA: in RFC 5961's
 *                range, so taken, but its window must not be
 *   rst          a RST in the window, never at RCV.NXT (20,000 and more beyond)
 *   syn          a SYN in the window
 *   data_out     three bytes beyond the window
 *   data_bad_ack three bytes at RCV.NXT with an ACK 2^30 below SND.UNA
 *
 * The frames leave on --iface (by default the watched one; line B's
 * interface to test that the hook drops the connection's 4-tuple there),
 * to --dst-mac (by default the gateway's, as watched).  They carry TTL 33,
 * by which the watcher knows its own frames.  A receiver that takes one of
 * them into its state is what the tests look for; this tool only counts
 * what it sent: key=value lines at the end (sent_CLASS=N, the
 * connection's port).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/tcp_seg.h"
#include "util/clock.h"
#include "util/opt.h"
#include "util/rng.h"

#define SPOOF_TTL	33
#define FAR_BELOW	(1u << 30)

enum cls { OLD_ACK, STALE_ACK, RST, SYN, DATA_OUT, DATA_BAD_ACK, CLS_NR };

static const char *const cls_names[CLS_NR] = {
	[OLD_ACK] = "old_ack", [STALE_ACK] = "stale_ack", [RST] = "rst", [SYN] = "syn",
	[DATA_OUT] = "data_out", [DATA_BAD_ACK] = "data_bad_ack",
};

struct cfg {
	const char *sniff, *iface, *classes, *dst_mac;
	uint16_t port;
	uint64_t duration_ns, interval_ns, wait_ns, seed;
	bool want[CLS_NR];
	uint8_t mac[6];
	bool have_mac;
};

/* What the watcher knows of the connection. */
struct conn {
	bool from_ex, from_gw;		/* a segment of each side seen */
	uint8_t mac_ex[6], mac_gw[6];
	uint32_t ip_ex, ip_gw;
	uint16_t gw_port;
	uint32_t rcv_nxt;		/* the next byte the gateway expects */
	uint32_t gw_una;		/* what the exchange acknowledged */
	uint64_t changes;		/* connections seen */
};

#define C(f) OFF(struct cfg, f)

static int classes(void *cfg, const char *a, char *why, size_t n)
{
	struct cfg *c = cfg;
	char buf[256], *tok, *save;

	if (strlen(a) >= sizeof(buf))
		return snprintf(why, n, "too long"), -1;
	strcpy(buf, a);
	memset(c->want, 0, sizeof(c->want));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(tok, "all")) {
			for (k = 0; k < CLS_NR; k++)
				c->want[k] = true;
			continue;
		}
		for (k = 0; k < CLS_NR && strcmp(tok, cls_names[k]); k++)
			;
		if (k == CLS_NR)
			return snprintf(why, n, "unknown class '%s' (old_ack, stale_ack, rst, syn, "
					"data_out, data_bad_ack, all)", tok), -1;
		c->want[k] = true;
	}
	c->classes = a;
	return 0;
}

static int dst_mac(void *cfg, const char *a, char *why, size_t n)
{
	struct cfg *c = cfg;

	if (opt_parse_mac(a, c->mac))
		return snprintf(why, n, "wants aa:bb:cc:dd:ee:ff"), -1;
	c->have_mac = true;
	c->dst_mac = a;
	return 0;
}

static const struct opt opts[] = {
	OPT("sniff", 0, OPT_STR, C(sniff), "IF", "watch the connection on IF (required)"),
	OPT("iface", 0, OPT_STR, C(iface), "IF", "send the forged frames on IF",
	    .def = "the --sniff interface"),
	OPT("port", 0, OPT_PORT, C(port), "PORT", "the exchange's order port", .def = "26401"),
	OPT("classes", 0, OPT_CALL, 0, "LIST",
	    "old_ack, stale_ack, rst, syn, data_out, data_bad_ack, or all", .call = classes,
	    .def = "all"),
	OPT("dst-mac", 0, OPT_CALL, 0, "MAC", "the frames' destination", .call = dst_mac,
	    .def = "the gateway's, as watched"),
	OPT("interval-ms", 0, OPT_MS, C(interval_ns), "MS", "one forged frame every MS",
	    .min = 0.01, .max = 10000),
	OPT("duration-ms", 0, OPT_MS, C(duration_ns), "MS", "send for MS once the connection "
	    "is known", .min = 1, .max = 600000),
	OPT("wait-ms", 0, OPT_MS, C(wait_ns), "MS", "give up when no connection is seen in MS",
	    .min = 1, .max = 600000),
	OPT("seed", 0, OPT_U64, C(seed), "S", "where in the window the forged numbers fall"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "tcp_spoof",
	.usage = "--sniff IF [options]",
	.about =
"Forged TCP segments of a live order connection, with the exchange's\n"
"addresses: RFC 5961's blind attacks and their neighbours.  Run it in the\n"
"exchange's namespace while a session is up; it learns the connection by\n"
"watching IF, then sends one frame of each class in turn.\n",
	.more = "Prints sent_CLASS=N and the connection's port.  Exit status: 0 sent, 1 no\n"
		"connection seen, 2 bad usage or a socket error.\n",
	.opts = opts,
};

/* A raw socket on @ifname: ETH_P_ALL to watch, or to send. */
static int packet_socket(const char *ifname, int *ifindex)
{
	struct sockaddr_ll a = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd;

	a.sll_ifindex = (int)if_nametoindex(ifname);
	if (!a.sll_ifindex) {
		fprintf(stderr, "tcp_spoof: no interface '%s' here\n", ifname);
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "tcp_spoof: AF_PACKET on %s: %s\n", ifname, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*ifindex = a.sll_ifindex;
	return fd;
}

/* One watched frame: the connection's state, as either side shows it. */
static void learn(struct conn *k, uint16_t port, const uint8_t *f, size_t len)
{
	struct tcp_seg s;
	uint32_t seg_len;

	if (frame_parse_tcp(f, len, &s) || f[FRAME_OFF_IP_TTL] == SPOOF_TTL)
		return;
	seg_len = s.len + !!(s.flags & TCP_SYN) + !!(s.flags & TCP_FIN);
	if (s.src_port == port) {
		if (s.dst_port != k->gw_port) {
			k->gw_port = s.dst_port;
			k->from_ex = k->from_gw = false;
			k->changes++;
		}
		memcpy(k->mac_gw, f, 6);
		memcpy(k->mac_ex, f + 6, 6);
		k->ip_ex = s.src_ip;
		k->ip_gw = s.dst_ip;
		if (!k->from_ex || tcp_seq_gt(s.seq + seg_len, k->rcv_nxt))
			k->rcv_nxt = s.seq + seg_len;
		if ((s.flags & TCP_ACK) && (!k->from_ex || tcp_seq_gt(s.ack, k->gw_una)))
			k->gw_una = s.ack;
		k->from_ex = !(s.flags & TCP_RST);
	} else if (s.dst_port == port && s.src_port == k->gw_port && !(s.flags & TCP_SYN)) {
		k->from_gw = !(s.flags & TCP_RST);
	}
}

static void watch(int fd, struct conn *k, uint16_t port)
{
	uint8_t f[2048];
	ssize_t n;

	while ((n = recv(fd, f, sizeof(f), 0)) > 0)
		learn(k, port, f, (size_t)n);
}

/* The forged frame of class @c into @f; its length. */
static size_t forge(const struct conn *k, const struct cfg *cfg, enum cls c, uint64_t *rng,
		    uint8_t *f)
{
	struct frame_endpoint ex = { .ip = k->ip_ex, .port = cfg->port };
	struct frame_endpoint gw = { .ip = k->ip_gw, .port = k->gw_port };
	struct tcp_template t;
	uint32_t r = (uint32_t)(splitmix64(rng) % 20000), seq = k->rcv_nxt, ack = k->gw_una;
	uint32_t len = 0;
	uint16_t win = 65535;
	uint8_t flags = TCP_ACK;

	memcpy(ex.mac, k->mac_ex, 6);
	memcpy(gw.mac, cfg->have_mac ? cfg->mac : k->mac_gw, 6);
	tcp_template_init(&t, &ex, &gw, SPOOF_TTL);
	switch (c) {
	case OLD_ACK:
		seq += 60000 + r % 4000;
		ack -= FAR_BELOW;
		win = 0;
		break;
	case STALE_ACK:
		seq += 60000 + r % 4000;
		ack -= 2000;
		win = 0;
		break;
	case RST:
		/* Never at RCV.NXT: far enough beyond that no real byte reaches it. */
		seq += 20000 + r;
		flags = TCP_RST;
		ack = 0;
		break;
	case SYN:
		seq += 20000 + r;
		flags = TCP_SYN;
		ack = 0;
		break;
	case DATA_OUT:
		seq += 70000 + r;
		flags = TCP_ACK | TCP_PSH;
		len = 3;
		break;
	case DATA_BAD_ACK:
		ack -= FAR_BELOW;
		flags = TCP_ACK | TCP_PSH;
		len = 3;
		break;
	default:
		break;
	}
	memcpy(f + FRAME_TCP_HDR_LEN, "\x00\x02X", len);
	return tcp_frame_finish(&t, f, seq, ack, flags, win, 0, len,
				csum_partial(f + FRAME_TCP_HDR_LEN, len, 0));
}

int main(int argc, char **argv)
{
	struct cfg c = {
		.port = 26401, .interval_ns = 2000000, .duration_ns = 1000000000ull,
		.wait_ns = 5000000000ull, .seed = 1,
	};
	struct conn k = { 0 };
	uint64_t sent[CLS_NR] = { 0 }, errors = 0, t0, until, next;
	int first, ret, sniff_fd, send_fd, ifindex;
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
	unsigned int turn = 0;
	uint8_t f[256];

	classes(&c, "all", (char[64]){ 0 }, 64);
	ret = opt_parse(&prog, &c, argc, argv, &first);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (!c.sniff || first != argc)
		return opt_error(&prog, "wants --sniff IF and no other argument"), 2;
	sniff_fd = packet_socket(c.sniff, &ifindex);
	if (sniff_fd < 0)
		return 2;
	send_fd = packet_socket(c.iface ? c.iface : c.sniff, &ifindex);
	if (send_fd < 0)
		return 2;
	to.sll_ifindex = ifindex;

	/* The connection: a segment of each side. */
	t0 = mono_ns();
	while (!(k.from_ex && k.from_gw)) {
		struct pollfd p = { .fd = sniff_fd, .events = POLLIN };

		if (mono_ns() - t0 > c.wait_ns) {
			fprintf(stderr, "tcp_spoof: no connection to port %u seen on %s\n", c.port,
				c.sniff);
			return 1;
		}
		poll(&p, 1, 10);
		watch(sniff_fd, &k, c.port);
	}
	until = mono_ns() + c.duration_ns;
	next = mono_ns();
	while (mono_ns() < until) {
		enum cls cl;

		watch(sniff_fd, &k, c.port);
		if (mono_ns() < next || !(k.from_ex && k.from_gw))
			continue;
		next += c.interval_ns;
		for (unsigned int i = 0; i < CLS_NR; i++) {
			cl = (enum cls)((turn + i) % CLS_NR);
			if (c.want[cl])
				break;
		}
		turn = (unsigned int)cl + 1;
		memcpy(to.sll_addr, c.have_mac ? c.mac : k.mac_gw, 6);
		{
			size_t len = forge(&k, &c, cl, &c.seed, f);

			if (sendto(send_fd, f, len, 0, (struct sockaddr *)&to, sizeof(to)) ==
			    (ssize_t)len)
				sent[cl]++;
			else
				errors++;
		}
	}
	for (int i = 0; i < CLS_NR; i++)
		printf("sent_%s=%" PRIu64 "\n", cls_names[i], sent[i]);
	printf("send_errors=%" PRIu64 "\ngw_port=%u\nconnections=%" PRIu64 "\n", errors,
	       k.gw_port, k.changes);
	close(sniff_fd);
	close(send_fd);
	return 0;
}
