// SPDX-License-Identifier: MIT
/*
 * t2t-pcap: a day file to a pcap of its MoldUDP64 feed (--from-day), or a
 * pcap of a feed to the day file of its messages (--from-pcap); see
 * pcap_tool.h.  The defaults are the default rig's (netns/rig.sh): the
 * exchange's address and MAC, the feed's group and port, the simulator's
 * session, so that a capture made here plays onto the rig as its own
 * simulator's feed.
 */
#include <stdio.h>
#include <string.h>

#include "proto/mold_merge.h"
#include "proto/tools/pcap/pcap_tool.h"
#include "util/opt.h"

static int session(void *cfg, const char *a, char *why, size_t n)
{
	struct pt_cfg *c = cfg;
	size_t len = strlen(a);

	if (!len || len > MOLD_SESSION_LEN)
		return snprintf(why, n, "wants 1 to %d characters", MOLD_SESSION_LEN), -1;
	for (size_t i = 0; i < len; i++)
		if (a[i] < '!' || a[i] > '~')
			return snprintf(why, n, "wants printable ASCII, no spaces"), -1;
	mold_session_set(c->session, a);
	c->session_given = true;
	return 0;
}

static int mac(uint8_t *dst, const char *a, char *why, size_t n)
{
	if (opt_parse_mac(a, dst))
		return snprintf(why, n, "wants aa:bb:cc:dd:ee:ff"), -1;
	return 0;
}

static int src_mac(void *cfg, const char *a, char *why, size_t n)
{
	return mac(((struct pt_cfg *)cfg)->src_mac, a, why, n);
}

static int dst_mac(void *cfg, const char *a, char *why, size_t n)
{
	struct pt_cfg *c = cfg;

	c->dst_mac_given = true;
	return mac(c->dst_mac, a, why, n);
}

#define C(f) OFF(struct pt_cfg, f)

static const struct opt opts[] = {
	OPT_SECTION("What to do (one of the two):"),
	OPT("from-day", 0, OPT_STR, C(from_day), "DAY",
	    "write a pcap (-o) of DAY's messages (a BinaryFILE day, gzip or plain) as "
	    "MoldUDP64 packets"),
	OPT("from-pcap", 0, OPT_STR, C(from_pcap), "CAP",
	    "write the day file (-o, gzip'd when it ends in .gz) of the feed's messages in "
	    "the capture CAP (classic pcap, Ethernet; plain or gzip'd)"),
	OPT("output", 'o', OPT_STR, C(out), "FILE", "the file to write"),
	OPT_SECTION("The feed (both):"),
	OPT("feed", 0, OPT_IP_PORT, C(group), "GROUP:PORT",
	    "the feed's destination: written to (--from-day), the datagrams taken "
	    "(--from-pcap)", .off2 = C(port)),
	OPT("session", 0, OPT_CALL, 0, "ID",
	    "the MoldUDP64 session: written (--from-day; default EXSIM00001, the "
	    "simulator's), the only one taken (--from-pcap; default the first whose "
	    "data packet is well formed, as the gateway adopts one)", .call = session),
	OPT_SECTION("Day to pcap (--from-day):"),
	OPT("src-ip", 0, OPT_IPV4, C(src_ip), "IP", "the sender's address"),
	OPT("src-port", 0, OPT_PORT, C(src_port), "PORT", "the sender's UDP port"),
	OPT("src-mac", 0, OPT_CALL, 0, "MAC", "the sender's MAC",
	    .call = src_mac, .def = "02:74:32:c9:00:01"),
	OPT("dst-mac", 0, OPT_CALL, 0, "MAC", "the destination MAC",
	    .call = dst_mac, .def = "the group's, 01:00:5e + its low 23 bits"),
	OPT("ttl", 0, OPT_INT, C(ttl), "N", "the IPv4 TTL", .min = 1, .max = 255),
	OPT("per-packet", 0, OPT_U32, C(per_packet), "N",
	    "at most N messages per packet", .min = 1, .max = MOLD_COUNT_MAX,
	    .def = "as many as fit the MTU"),
	OPT("mtu", 0, OPT_U32, C(mtu), "BYTES",
	    "the largest IPv4 packet: a packet carries at most BYTES - 28 of MoldUDP64",
	    .min = 128, .max = 9000),
	OPT("pack-ns", 0, OPT_U64, C(pack_ns), "NS",
	    "a packet carries only messages stamped within NS of its first (what a feed "
	    "packs is what is due)", .def = "no limit"),
	OPT("rate", 0, OPT_DOUBLE, C(rate), "PPS",
	    "stamp PPS packets a second", .min = 0.001, .max = 1e9,
	    .def = "at the messages' ITCH timestamps"),
	OPT("speed", 0, OPT_DOUBLE, C(speed), "X",
	    "with the ITCH timestamps: X times the day's pace", .min = 1e-6, .max = 1e9),
	OPT("start", 0, OPT_DOUBLE, C(start), "SECONDS",
	    "the first packet's time, seconds since the epoch", .min = 0, .max = 4294967295.0,
	    .def = "2026-01-01 plus the first message's time of day"),
	OPT("nsec", 0, OPT_FLAG, C(nsec), NULL,
	    "nanosecond timestamps (magic 0xa1b23c4d), else microseconds"),
	OPT("ends", 0, OPT_U32, C(ends), "N",
	    "End of Session packets after the last message, 1 ms apart (0: none, the "
	    "capture stops mid-session)", .max = 100, .def = "3, as the simulator"),
	OPT_SECTION("Pcap to day (--from-pcap):"),
	OPT("feed-source", 0, OPT_IPV4, C(feed_source), "IP",
	    "take only datagrams from IP", .def = "any"),
	OPT("retrans-port", 0, OPT_PORT, C(retrans_port), "PORT",
	    "take also the session's datagrams to this UDP port at any address: the "
	    "re-request answers a gateway was sent (its --retrans-port)", .def = "none"),
	OPT("hold-mb", 0, OPT_U64, C(hold_mb), "MB",
	    "packets held ahead of a hole, at most (a hole still open past it is an error)",
	    .min = 1, .max = 1 << 20),
	OPT_SECTION("Report:"),
	OPT("json", 0, OPT_STR, C(json), "FILE", "write the counts as JSON"),
	OPT("quiet", 'q', OPT_FLAG, C(quiet), NULL, "no summary on standard error"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = PT_NAME,
	.usage = "--from-day DAY -o CAP.pcap [options] | --from-pcap CAP -o DAY [options]",
	.about =
"A feed that is not ours, and ours as others see it.  --from-day writes a\n"
"day file's messages as the MoldUDP64 packets of its feed (Ethernet, IPv4,\n"
"UDP to the group, checksums done), stamped at the messages' ITCH pace or\n"
"at a packet rate: a capture tcpreplay plays onto a wire.  --from-pcap\n"
"reads a capture of a feed (tcpdump -w: copies, re-sent packets, other\n"
"traffic welcome) and writes the session's messages in sequence order,\n"
"each once, as a day file whose message n is sequence number n, so that\n"
"t2t-backtest --itch runs on exactly the messages that were on the wire;\n"
"a hole (a number no packet of the capture carries) is an error, never\n"
"filled in.  The defaults are the default rig's (netns/rig.sh).\n",
	.more =
"Exit status: 0 written, 1 the input could not be read or holds a hole (no\n"
"file is left), 2 bad usage.\n",
	.opts = opts,
};

/* The options one direction takes and the other refuses. */
static int check_mode(const struct pt_cfg *c, const struct pt_cfg *def)
{
#define GIVEN(f) (memcmp(&c->f, &def->f, sizeof(c->f)) != 0)
	static const char *const day_only = "go with --from-day";
	static const char *const pcap_only = "go with --from-pcap";

	if (!!c->from_day == !!c->from_pcap)
		return opt_error(&prog, "give one of --from-day DAY and --from-pcap CAP");
	if (!c->out)
		return opt_error(&prog, "-o FILE is needed");
	if (c->from_pcap) {
		if (GIVEN(src_ip) || GIVEN(src_port) || GIVEN(src_mac) || c->dst_mac_given ||
		    GIVEN(ttl))
			return opt_error(&prog, "--src-ip, --src-port, --src-mac, --dst-mac and "
					 "--ttl %s", day_only);
		if (GIVEN(per_packet) || GIVEN(mtu) || GIVEN(pack_ns))
			return opt_error(&prog, "--per-packet, --mtu and --pack-ns %s", day_only);
		if (GIVEN(rate) || GIVEN(speed) || GIVEN(start) || GIVEN(nsec) || GIVEN(ends))
			return opt_error(&prog, "--rate, --speed, --start, --nsec and --ends %s",
					 day_only);
	} else {
		if (GIVEN(feed_source) || GIVEN(retrans_port) || GIVEN(hold_mb))
			return opt_error(&prog, "--feed-source, --retrans-port and --hold-mb %s",
					 pcap_only);
		if (c->rate && GIVEN(speed))
			return opt_error(&prog, "--speed paces by the ITCH timestamps: not with "
					 "--rate");
	}
	if ((c->group >> 28) != 0xe)
		return opt_error(&prog, "--feed %u.%u.%u.%u:%u is not a multicast group",
				 c->group >> 24, (c->group >> 16) & 255, (c->group >> 8) & 255,
				 c->group & 255, c->port);
	return 0;
#undef GIVEN
}

int main(int argc, char **argv)
{
	/* the default rig's (netns/rig.sh up, 10.201.0.0/24) */
	static const struct pt_cfg def = {
		.group = 0xef010101, .port = 26400,
		.src_ip = 0x0ac90001, .src_port = 26400,
		.src_mac = { 0x02, 0x74, 0x32, 0xc9, 0x00, 0x01 },
		.ttl = 1, .mtu = 1500, .speed = 1, .ends = 3,
		.hold_mb = MOLD_MERGE_HOLD_DEFAULT >> 20,
	};
	struct pt_cfg c = def;
	int ret;

	ret = opt_parse(&prog, &c, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	ret = check_mode(&c, &def);
	if (ret)
		return ret;
	if (!c.session_given)
		mold_session_set(c.session, "EXSIM00001");
	if (!c.dst_mac_given) {
		/* RFC 1112: the group's low 23 bits under 01:00:5e */
		static const uint8_t pre[3] = { 0x01, 0x00, 0x5e };

		memcpy(c.dst_mac, pre, 3);
		c.dst_mac[3] = (c.group >> 16) & 0x7f;
		c.dst_mac[4] = (c.group >> 8) & 0xff;
		c.dst_mac[5] = c.group & 0xff;
	}
	return c.from_day ? pt_day_to_pcap(&c) : pt_pcap_to_day(&c);
}
