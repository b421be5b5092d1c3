// SPDX-License-Identifier: MIT
/* The floor responder's command line: one util/opt table, then the cross-checks. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/floor/floor.h"
#include "bpf/steer_loader.h"
#include "latency/capture.h"
#include "proto/soup_client.h"
#include "util/opt.h"

#define F(field) OFF(struct floor_opts, field)

static const char *const modes[] = { "xdp", "udp", NULL };

static int xdp_mode(void *cfg, const char *a, char *why, size_t n)
{
	struct floor_opts *o = cfg;

	if (xdp_steer_parse_mode(a, &o->xdp_generic))
		return snprintf(why, n, "is generic or drv"), -1;
	o->xdp_mode_given = true;
	return 0;
}

static int capture_note(void *cfg, const char *a, char *why, size_t n)
{
	struct floor_opts *o = cfg;

	return capture_note_add(o->capture_note, &o->n_capture_notes, FLOOR_CAPTURE_NOTES, a,
				why, n);
}

static const struct opt opts[] = {
	OPT_SECTION("Path:"),
	OPT("mode", 0, OPT_ENUM, F(mode), "xdp|udp",
	  "bare AF_XDP (the gateway's XDP program, socket code and TCP) or kernel UDP\n"
	  "busy spin with the orders on kernel TCP",
	  .choices = modes),
	OPT("iface", 'i', OPT_STR, F(ifname), "IF", "interface"),
	OPT("queue", 0, OPT_U32, F(queue), "Q", "receive queue for the AF_XDP socket",
	  .max = 63, .def = "0"),
	OPT("ring", 0, OPT_POW2, F(ring_size), "N", "AF_XDP ring size (fill, RX, TX, completion)",
	  .min = 64, .max = 16384),
	OPT("batch", 0, OPT_U32, F(batch), "N", "AF_XDP: RX descriptors taken per look at the ring",
	  .min = 1, .max = 256),
	OPT("xdp-mode", 0, OPT_CALL, 0, "generic|drv", "XDP attach mode", .call = xdp_mode,
	  .def = "generic"),
	OPT("spin-frame", 0, OPT_FLAG, F(spin_frame), NULL,
	  "AF_XDP: while the RX ring is empty, also watch the frame the next packet will\n"
	  "land in and pull its lines in as soon as the copy begins (acted on only once\n"
	  "its descriptor is published)"),
	OPT("busy-poll", 0, OPT_U32, F(busy_poll.usec), "USEC",
	  "SO_BUSY_POLL on the sockets: receive calls run the interface's NAPI poll on\n"
	  "this core (0: off; needs a NAPI: XDP in driver mode, or GRO on for UDP)",
	  .max = 1000000),
	OPT("busy-poll-budget", 0, OPT_U32, F(busy_poll.budget), "N",
	  "SO_BUSY_POLL_BUDGET: packets per busy poll (0: the kernel's)", .max = 65535),
	OPT("prefer-busy-poll", 0, OPT_FLAG, F(busy_poll.prefer), NULL,
	  "SO_PREFER_BUSY_POLL: the poller owns the NAPI (with the interface's\n"
	  "napi_defer_hard_irqs and gro_flush_timeout set)"),
	OPT_SECTION("Flows:"),
	OPT("feed", 0, OPT_IP_PORT, F(feed_group), "GROUP:PORT", "feed multicast group",
	  .off2 = F(feed_port)),
	OPT("feed-source", 0, OPT_IPV4, F(feed_source), "IP",
	  "accept feed packets only from IP"),
	OPT("exchange", 0, OPT_IP_PORT, F(exch_ip), "IP:PORT",
	  "the exchange's SoupBinTCP server (order entry)", .off2 = F(exch_port)),
	OPT("login", 0, OPT_CALL, F(session.soup), "USER:PASSWORD", "the session's login",
	  .call = soup_opt_login, .def = "T2TG:secret"),
	OPT("local-port", 0, OPT_CALL, F(session), "PORT[-LAST]",
	  "the order connection's local port, or the range each connection takes one\n"
	  "of at random", .call = order_conn_opt_ports,
	  .def = OPT_STR_OF(OC_FIRST_PORT) "-26465 (AF_XDP), any (kernel TCP)"),
	OPT("soup-timeout", 0, OPT_MS, F(session.soup.timeout_ns), "MS",
	  "nothing heard from the exchange for MS: the connection is lost", .min = 10,
	  .max = 3600000),
	OPT("shares", 0, OPT_U32, F(shares), "N", "shares per order", .min = 1, .max = 1000000),
	OPT("answer-every", 0, OPT_U32, F(answer_every), "N",
	  "answer the first tick, then one in N (the gateway orders on about one tick\n"
	  "in 13 with its default strategy)", .min = 1, .max = 1000000),
	OPT("answer-seqs", 0, OPT_STR, F(answer_seqs), "FILE",
	  "answer only the prints of FILE (t2t-backtest's orders: md_seq,symbol,side,\n"
	  "shares), each with that order: a replayed day, where the gateway's strategy\n"
	  "trades its tape (P, E, C or Q); the feed's timestamps are then the day's"),
	OPT_SECTION("Run:"),
	OPT("cpu", 0, OPT_CPU, F(cpu), "N", "pin the loop to CPU N (-1: do not pin)"),
	OPT("duration", 0, OPT_DOUBLE, F(duration), "S",
	  "stop after S seconds (default: until a signal)", .max = 1e7),
	OPT("exit-on-end", 0, OPT_FLAG, F(exit_on_end), NULL,
	  "stop after the feed's end of session (+ --grace)"),
	OPT("grace", 0, OPT_DOUBLE, F(grace), "S", "keep taking replies S seconds after the end",
	  .max = 1e7),
	OPT("max-orders", 0, OPT_POW2, F(max_orders), "N",
	  "orders kept for the capture log (allocated at start)", .min = 1024, .max = 1 << 26),
	OPT("capture", 0, OPT_STR, F(capture), "FILE",
	  "write every order's timestamps at exit (t2t-capture reads it)"),
	OPT("capture-note", 0, OPT_CALL, 0, "K=V", "add K=V to the capture's header; repeatable",
	  .call = capture_note),
	OPT("json", 0, OPT_STR, F(json), "FILE", "write the summary as JSON at exit"),
	OPT("quiet", 'q', OPT_FLAG, F(quiet), NULL, "no summary line on stderr"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-floor",
	.usage = "[options]",
	.about =
"The rig's floor: a bare responder that answers each feed packet's first\n"
"trade print with an OUCH Enter Order (token = the print's sequence number),\n"
"with no decoder, book, strategy or risk, and records the same stamps as\n"
"the gateway (XDP hook or kernel receive, seen, decided, queued, sent, and\n"
"the exchange's arrival from its first reply).  Defaults match the default\n"
"rig; run it in the gateway's namespace (bench/floor/README.md).\n",
	.opts = opts,
};

static void set_defaults(struct floor_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = FLOOR_XDP;
	o->ifname = "t2t-vgw";
	o->ring_size = 4096;
	o->batch = 64;
	o->xdp_generic = true;
	o->feed_group = 0xEF010101;	/* 239.1.1.1 */
	o->feed_port = 26400;
	o->exch_ip = 0x0AC90001;	/* 10.201.0.1 */
	o->exch_port = 26401;
	order_session_defaults(&o->session);
	o->shares = 100;
	o->answer_every = 1;
	o->cpu = 1;
	o->grace = 0.3;
	o->max_orders = 1 << 18;
}

int floor_opts_parse(struct floor_opts *o, int argc, char **argv)
{
	int ret;

	set_defaults(o);
	ret = opt_parse(&prog, o, argc, argv, NULL);
	if (ret)
		return ret;
	o->session.stack = o->mode == FLOOR_XDP ? OC_STACK_OWN : OC_STACK_KERNEL;
	if (o->answer_seqs && o->answer_every != 1)
		return opt_error(&prog, "--answer-seqs names the prints to answer: no --answer-every");
	if (o->mode == FLOOR_UDP && (o->spin_frame || o->xdp_mode_given))
		return opt_error(&prog, "--spin-frame and --xdp-mode are for --mode xdp");
	return 0;
}
