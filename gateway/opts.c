// SPDX-License-Identifier: MIT
/* The gateway's command line: one table (util/opt.h), then the cross-checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/steer_loader.h"
#include "gateway/opts.h"
#include "gateway/warm.h"
#include "latency/capture.h"
#include "util/queue_list.h"
#include "strategy/inst_spec.h"
#include "util/opt.h"

#define G(field) OFF(struct gw_opts, field)

static const char *const modes[] = { "xdp", "udp", NULL };
static const char *const books[] = { "ours", "all", "off", NULL };
/* In the order of enum table_mem_pages. */
static const char *const book_pages[] = { "auto", "4k", "thp", NULL };
static const char *const clocks[] = { "tod", "mono", NULL };
static const char *const udp_recvs[] = { "spin", "block", NULL };


static int xdp_mode(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;

	if (xdp_steer_parse_mode(a, &o->xdp_generic))
		return snprintf(why, n, "is generic or drv"), -1;
	return 0;
}

static int queues(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;

	if (o->queues_given)
		return snprintf(why, n, "given twice (with --queue?)"), -1;
	if (queue_list_parse(a, &o->queues, why, n))
		return -1;
	o->queues_given = true;
	return 0;
}

static int exchange_mac(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;

	if (opt_parse_mac(a, o->exch_mac))
		return snprintf(why, n, "wants aa:bb:cc:dd:ee:ff"), -1;
	o->have_exch_mac = true;
	return 0;
}

static int rerequest(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;

	if (!strcmp(a, "off")) {
		o->rerequest_port = 0;
		return 0;
	}
	if (opt_parse_ip_port(a, &o->rerequest_ip, &o->rerequest_port))
		return snprintf(why, n, "wants IP:PORT or off"), -1;
	o->rerequest_given = true;
	return 0;
}

static int max_rate(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;
	uint64_t rate, burst = 1;
	char buf[64], *colon;

	snprintf(buf, sizeof(buf), "%s", a);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = '\0';
		if (opt_parse_u64(colon + 1, 1, 1000000, &burst))
			return snprintf(why, n, "wants a burst of 1..1000000"), -1;
	}
	if (opt_parse_u64(buf, 0, 1000000000, &rate))
		return snprintf(why, n, "wants orders per second[:burst]"), -1;
	o->eng.risk.max_rate = (uint32_t)rate;
	o->eng.risk.burst = (uint32_t)burst;
	return 0;
}

static int symbol(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;
	struct gw_cfg *c = &o->eng;

	if (!o->symbols_given) {
		c->n_inst = 0;
		o->symbols_given = true;
	}
	if (c->n_inst == GW_MAX_INST)
		return snprintf(why, n, "given more than %d times", GW_MAX_INST), -1;
	if (inst_spec_parse(a, &c->inst[c->n_inst], why, n))
		return -1;
	for (unsigned int i = 0; i < c->n_inst; i++)
		if (!strcmp(c->inst[i].symbol, c->inst[c->n_inst].symbol))
			return snprintf(why, n, "names a symbol given before"), -1;
	c->n_inst++;
	return 0;
}

static int firm(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;

	if (!a[0] || strlen(a) > 4)
		return snprintf(why, n, "wants 1 to 4 characters"), -1;
	strcpy(o->eng.orders.firm, a);
	return 0;
}

static int order_stack(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;

	if (!strcmp(a, "own"))
		o->session.stack = OC_STACK_OWN;
	else if (!strcmp(a, "kernel"))
		o->session.stack = OC_STACK_KERNEL;
	else
		return snprintf(why, n, "is own or kernel"), -1;
	o->stack_given = true;
	return 0;
}

static int reconnect(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;
	char buf[64], *colon;
	uint64_t lo, hi;

	snprintf(buf, sizeof(buf), "%s", a);
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if (opt_parse_u64(buf, 1, 600000, &lo))
		return snprintf(why, n, "wants MS[:MAX_MS], 1 to 600000"), -1;
	hi = lo;
	if (colon && (opt_parse_u64(colon + 1, lo, 600000, &hi)))
		return snprintf(why, n, "wants MS[:MAX_MS] with MAX_MS >= MS"), -1;
	o->session.backoff_min_ns = lo * 1000000;
	o->session.backoff_max_ns = hi * 1000000;
	return 0;
}

static int capture_note(void *cfg, const char *a, char *why, size_t n)
{
	struct gw_opts *o = cfg;

	return capture_note_add(o->capture_note, &o->n_capture_notes, GW_CAPTURE_NOTES, a,
				why, n);
}

static const struct opt opts[] = {
	OPT_SECTION("Path:"),
	OPT("mode", 0, OPT_ENUM, G(mode), "xdp|udp",
	  "AF_XDP busy-poll or kernel UDP sockets", .choices = modes),
	OPT("udp-recv", 0, OPT_ENUM, G(udp_recv), "spin|block",
	  "kernel UDP: non-blocking busy spin, or blocking receive", .choices = udp_recvs),
	OPT("iface", 'i', OPT_STR, G(ifname), "IF", "interface"),
	OPT("queues", 0, OPT_CALL, 0, "all|LIST",
	  "receive queues of each feed interface to serve, one AF_XDP socket each on one "
	  "UMEM (all: every queue, as RSS may put any flow on any of them; LIST such as "
	  "0 or 0,2-3 where ntuple rules steer the feed, the re-request answers and the "
	  "order connection there: --check-host prints the rules)", .call = queues,
	  .def = "all"),
	OPT("queue", 0, OPT_CALL, 0, "Q", "the same as --queues Q", .call = queues),
	OPT("ring", 0, OPT_POW2, G(ring_size), "N",
	  "AF_XDP ring size: 4096 holds 50 ms of the fastest tested feed; smaller rings "
	  "drop when the loop's core is taken away", .min = 64, .max = 16384),
	OPT("xdp-mode", 0, OPT_CALL, 0, "generic|drv",
	  "XDP attach mode (generic: on veth the faster, see make bench-latency)",
	  .call = xdp_mode, .def = "generic"),
	OPT("zero-copy", 0, OPT_FLAG, G(zero_copy), NULL, "ask for zero-copy AF_XDP (veth has none)"),
	OPT("no-need-wakeup", 0, OPT_FLAG, G(no_need_wakeup), NULL,
	  "bind without XDP_USE_NEED_WAKEUP: kick the TX ring after every batch and never "
	  "ask whether the fill ring needs a wakeup (copy mode asks for every kick anyway)"),
	OPT("replace-xdp", 0, OPT_FLAG, G(replace_xdp), NULL,
	  "replace another program attached to IF"),
	OPT("no-verify-csum", 0, OPT_FLAG, G(no_verify_csum), NULL,
	  "AF_XDP: do not check the feed's IPv4/UDP checksums in software (only where the "
	  "NIC verified them); the order connection's are always checked"),
	OPT("no-warm", 0, OPT_FLAG, G(no_warm), NULL,
	  "AF_XDP: no idle-time cache warming (dry ticks on a shadow engine while the "
	  "feed is quiet, their orders sent on a session that sends nowhere)"),
	OPT("no-huge-text", 0, OPT_FLAG, G(no_huge_text), NULL,
	  "leave the program's code on 4 KB pages (by default it moves onto a 2 MB "
	  "page, one instruction-TLB entry; perf then sees anonymous code)"),
	OPT("warm-every", 0, OPT_POW2, G(warm_every), "N",
	  "AF_XDP: idle spins on the empty RX ring between two warmings (and the idle "
	  "turn's housekeeping)", .min = 1, .max = 1 << 20),
	OPT("busy-poll", 0, OPT_U32, G(busy_poll.usec), "USEC",
	  "SO_BUSY_POLL on the path's sockets: receive calls run the interface's NAPI "
	  "poll on the hot core (0: off; needs a NAPI: XDP in driver mode, or GRO on for "
	  "kernel UDP; bench/floor/README.md)", .max = 1000000),
	OPT("busy-poll-budget", 0, OPT_U32, G(busy_poll.budget), "N",
	  "SO_BUSY_POLL_BUDGET: packets per busy poll (0: the kernel's)", .max = 65535),
	OPT("prefer-busy-poll", 0, OPT_FLAG, G(busy_poll.prefer), NULL,
	  "SO_PREFER_BUSY_POLL: the hot loop owns the NAPI (set the interface's "
	  "napi_defer_hard_irqs and gro_flush_timeout too)"),
	OPT_SECTION("Flows:"),
	OPT("feed", 0, OPT_IP_PORT, G(feed_group), "GROUP:PORT", "feed multicast group",
	  .off2 = G(feed_port)),
	OPT("feed-source", 0, OPT_IPV4, G(feed_source), "IP",
	  "accept feed packets only from IP; others are dropped and counted (in XDP on "
	  "the AF_XDP path)"),
	OPT("line-b", 0, OPT_STR, G(line_b_if), "IF",
	  "a second feed line (B) arrives on IF: the first copy of each message is kept "
	  "(in XDP on the AF_XDP path), the other dropped and counted", .max = 15),
	OPT("feed-b", 0, OPT_IP_PORT, G(feed_b_group), "GROUP:PORT",
	  "line B's group (with --line-b)", .off2 = G(feed_b_port), .def = "239.1.1.2, the feed's port"),
	OPT("feed-source-b", 0, OPT_IPV4, G(feed_b_source), "IP",
	  "accept line B's packets only from IP"),
	OPT("line-wait", 0, OPT_MS, G(eng.gap.line_wait_ns), "MS",
	  "with two lines, a hole is re-requested only after it stayed missing on both "
	  "this long (the other line usually fills it)", .max = 1000,
	  .def = "0.2 with --line-b, else 0"),
	OPT("session", 0, OPT_STR, G(eng.session), "ID",
	  "accept only this MoldUDP64 session id (default: the first that shows "
	  "well-formed packets)", .max = 10),
	OPT("feed-clock", 0, OPT_ENUM, G(feed_clock_mono), "tod|mono",
	    "what the feed's timestamps are: the exchange's time of day (a real "
	    "feed), or this host's CLOCK_MONOTONIC (the rig's simulator with --stamp "
	    "mono); only with mono are send->hook and send->ack measured",
	    .choices = clocks),
	OPT("exchange-mac", 0, OPT_CALL, 0, "MAC", "next-hop MAC (default: the neighbour "
	  "table's entry for the exchange)", .call = exchange_mac),
	OPT("books", 0, OPT_ENUM, G(eng.books), "ours|all|off",
	    "keep the order books of the traded symbols only (others skipped by locate), "
	    "of every symbol, or none (then only P messages are prints)", .choices = books),
	OPT("book-pages", 0, OPT_ENUM, G(eng.book.pages), "auto|4k|thp",
	    "the books' memory: 2 MB hugetlb pages when reserved, else 4 KB pages "
	    "(auto), 4 KB only, or 4 KB with transparent huge pages asked for (thp)",
	    .choices = book_pages),
	OPT("book-orders", 0, OPT_U32, G(eng.book.max_orders), "N",
	    "live orders the book holds (prefaulted at start; a real day peaks near "
	    "2 million)", .min = 1024, .max = 1u << 30, .def = "2097152"),
	OPT_SECTION("Order session (SoupBinTCP 3.0 over TCP; gateway/README.md):"),
	OPT("exchange", 0, OPT_IP_PORT, G(exch_ip), "IP:PORT",
	  "the exchange's SoupBinTCP server (order entry); on a rig other than the "
	  "default one, give it", .off2 = G(exch_port)),
	OPT("login", 0, OPT_CALL, G(session.soup), "USER:PASSWORD", "the session's login",
	  .call = soup_opt_login, .def = "T2TG:secret"),
	OPT("soup-session", 0, OPT_CALL, G(session.soup), "ID",
	  "the session to log in to (default blank: the current one)", .call = soup_opt_session),
	OPT("order-stack", 0, OPT_CALL, 0, "own|kernel",
	  "the session's TCP: the gateway's own on the AF_XDP socket, or a kernel TCP "
	  "socket (always with --mode udp)", .call = order_stack, .def = "own (kernel "
	  "with --mode udp)"),
	OPT("local-port", 0, OPT_CALL, G(session), "PORT[-LAST]",
	  "the order connection's local port (every connection takes it, and connects "
	  "again at once after a loss: docs/wire.md), or the range each connection takes "
	  "one of at random", .call = order_conn_opt_ports,
	  .def = OPT_STR_OF(OC_FIRST_PORT) "-26465 (own TCP), the kernel's choice (kernel TCP)"),
	OPT("soup-timeout", 0, OPT_MS, G(session.soup.timeout_ns), "MS",
	  "nothing heard from the exchange for MS: the connection is lost "
	  "(SoupBinTCP's 15 s)", .min = 10, .max = 3600000),
	OPT("soup-heartbeat", 0, OPT_MS, G(session.soup.hb_ns), "MS",
	  "a heartbeat after MS with nothing sent (SoupBinTCP's 1 s)", .min = 1,
	  .max = 3600000),
	OPT("reconnect", 0, OPT_CALL, 0, "MS[:MAX_MS]",
	  "a lost connection is made again after MS, doubling up to MAX_MS while it "
	  "fails", .call = reconnect, .def = "20:1000"),
	OPT("resend-after", 0, OPT_MS, G(eng.orders.resend_after_ns), "MS",
	  "after a new login, orders still without any reply go again (same token: "
	  "the exchange takes each once) after the replay had MS to arrive", .max = 60000),
	OPT("tcp-rto-min", 0, OPT_MS, G(session.rto_min_ns), "MS",
	  "the shortest retransmission timeout of what the exchange may ACK late (above "
	  "its delayed ACK, 40 ms on Linux; an order's follows its replies); kernel TCP: "
	  "TCP_RTO_MIN_US where the kernel has it", .min = 1, .max = 60000),
	OPT("tcp-rto-max", 0, OPT_MS, G(session.rto_max_ns), "MS",
	  "own TCP: the longest retransmission timeout", .min = 1, .max = 120000),
	OPT("tcp-rto-init", 0, OPT_MS, G(session.rto_init_ns), "MS",
	  "own TCP: the timeout before any round trip was measured (the SYN's; RFC 6298: "
	  "1 s)", .min = 1, .max = 120000),
	OPT("tcp-retries", 0, OPT_U32, G(session.retries), "N",
	  "retransmission timeouts in a row before the connection is lost (both stacks)",
	  .min = 1, .max = 30),
	OPT("tcp-ack-delay", 0, OPT_MS, G(session.ack_delay_ns), "MS",
	  "own TCP: the longest a pure ACK waits for an order to carry it", .max = 100),
	OPT("tcp-tlp-min", 0, OPT_MS, G(session.tlp_min_ns), "MS",
	  "own TCP: an order's segment still unacknowledged when the exchange's slowest "
	  "1 % of recent replies would have come is sent once more (a tail loss probe), "
	  "never sooner than MS; 0: no probe", .max = 60000),
	OPT("tcp-challenge-acks", 0, OPT_U32, G(session.ack_budget), "N",
	  "own TCP: at most N ACKs a second answer unacceptable segments (RFC 5961's "
	  "challenge ACKs included); the rest are counted", .min = 1, .max = 1000000),
	OPT_SECTION("Paper trading (no order port; README \"Paper trading\"):"),
	OPT("paper", 0, OPT_FLAG, G(eng.paper.on), NULL,
	  "send nothing: fill every order from the gateway's own book, as the feed says "
	  "it stood when the order reached the matching engine (docs/paper.md); no order "
	  "session, --exchange not needed"),
	OPT("paper-latency", 0, OPT_U64, G(eng.paper.latency_ns), "NS",
	  "the order's way to the matching engine, on the feed's clock: it is filled "
	  "against the book after every message stamped up to its print's time + NS",
	  .max = 60e9),
	OPT_SECTION("Gaps (gateway/README.md):"),
	OPT("rerequest", 0, OPT_CALL, 0, "IP:PORT|off",
	  "MoldUDP64 re-request server; off: no gap recovery", .call = rerequest,
	  .def = "the exchange's address, port 26403"),
	OPT("retrans-port", 0, OPT_PORT, G(retrans_port), "PORT",
	  "local port for the re-request answers"),
	OPT("gap-window", 0, OPT_U32, G(eng.gap.window), "N",
	  "re-requests outstanding at once", .min = 1, .max = GAP_WINDOW_MAX),
	OPT("gap-retry", 0, OPT_MS, G(eng.gap.retry_ns), "MS",
	  "a re-request without any answer is sent again after MS", .min = 1),
	OPT("gap-timeout", 0, OPT_MS, G(eng.gap.timeout_ns), "MS",
	  "no progress for MS while messages are missing: session stale, no more "
	  "orders", .min = 1),
	OPT("max-hole", 0, OPT_U64, G(eng.gap.max_hole), "N",
	  "a packet announcing more than N messages beyond everything seen: session "
	  "stale", .min = 1, .max = 1e12),
	OPT("hold", 0, OPT_U32, G(eng.gap.hold), "N", "packets held while messages are missing",
	  .min = 1, .max = 1 << 20),
	OPT("max-catchup", 0, OPT_MS, G(eng.gap.max_catchup_ns), "MS",
	  "ticks decoded MS or more after their packet should have arrived (gateway "
	  "clock) are followed by the strategy but not traded; 0 = trade them all"),
	OPT_SECTION("Risk (checked per order in the hot path; 0 = no limit):"),
	OPT("max-pos", 0, OPT_U32, G(eng.risk.max_pos), "SHARES",
	  "|position| per symbol, open orders included", .max = 1e9,
	  .def = "the symbol's unit, the strategy's largest"),
	OPT("max-order", 0, OPT_U32, G(eng.risk.max_order), "SHARES", "shares per order",
	  .max = 1e9),
	OPT("max-rate", 0, OPT_CALL, 0, "N[:BURST]", "orders per second, token bucket",
	  .call = max_rate, .def = "off"),
	OPT("collar-bp", 0, OPT_U32, G(eng.risk.collar_bp), "BP",
	  "limit within BP of the reference: the middle of the book's best bid and ask\n"
	  "when it has both (and they do not cross), else the median of the last three\n"
	  "prints", .max = 1e9),
	OPT("max-open", 0, OPT_U32, G(eng.risk.max_open), "N", "orders awaiting a final reply",
	  .max = 1e9, .def = "off"),
	OPT("order-timeout", 0, OPT_MS, G(eng.orders.timeout_ns), "MS",
	  "no final reply after MS: timed out, reported, still counted as possibly "
	  "filled", .min = 1),
	OPT("kill-file", 0, OPT_STR, G(kill_file), "PATH",
	  "kill switch: no new orders once PATH exists (also SIGUSR1)"),
	OPT_SECTION("Strategy:"),
	OPT("symbol", 's', OPT_CALL, 0, "SYM:LEN[:UNIT]",
	  "trade SYM with HMA length LEN, UNIT shares per unit of position (default "
	  "100); repeatable, up to 16", .call = symbol, .def = "AAPL:20 MSFT:32 NVDA:48"),
	OPT("limit-bp", 0, OPT_U32, G(eng.orders.limit_bp), "BP",
	  "IOC limit = trigger price +- BP basis points", .max = 10000),
	OPT("firm", 0, OPT_CALL, 0, "FIRM", "OUCH firm", .call = firm, .def = "T2TG"),
	OPT_SECTION("Run:"),
	OPT("cpu", 0, OPT_CPU, G(cpu), "N", "pin the hot loop to CPU N (-1: do not pin)"),
	OPT("fifo", 0, OPT_FLAG, G(fifo), NULL, "SCHED_FIFO for the hot loop (beware RT throttling)"),
	OPT("duration", 0, OPT_DOUBLE, G(duration), "S",
	  "stop after S seconds (default: run until a signal)", .max = 1e7),
	OPT("exit-on-end", 0, OPT_FLAG, G(exit_on_end), NULL,
	  "stop after the feed's end of session (+ --grace)"),
	OPT("grace", 0, OPT_DOUBLE, G(grace), "S", "keep taking replies S seconds after the end",
	  .max = 1e7),
	OPT("order-log", 0, OPT_POW2, G(eng.orders.log_size), "N",
	  "orders (and untraded changes) kept for the reports", .min = 1, .max = 1 << 26),
	OPT("json", 0, OPT_STR, G(json), "FILE", "write the final summary as JSON"),
	OPT("orders-out", 0, OPT_STR, G(orders_out), "FILE",
	  "write every order, then every untraded strategy change, as CSV at exit"),
	OPT("capture", 0, OPT_STR, G(capture), "FILE",
	  "write every order's timestamps at exit to a gzip capture log (read it with "
	  "t2t-capture)"),
	OPT("capture-note", 0, OPT_CALL, 0, "K=V",
	  "add K=V to the capture's header (rig, rate, ...); repeatable, up to 16",
	  .call = capture_note),
	OPT("quiet", 'q', OPT_FLAG, G(quiet), NULL, "no status line once a second"),
	OPT("verbose", 'v', OPT_FLAG, G(verbose), NULL,
	  "print every warn and bad host finding a second after start (by default one "
	  "line of counts and the bad ones' keys)"),
	OPT("monitor", 0, OPT_STR, G(monitor), "NAME|off",
	  "publish the live state in /dev/shm/t2t-NAME for t2t-top and t2t-monitor "
	  "(default: the interface's name)", .max = 47),
	OPT_SECTION("Host (read, never changed; README \"Tuning the host\"):"),
	OPT("check-host", 0, OPT_FLAG, G(check_host), NULL,
	  "report what decides the tail here for --cpu and -i (isolation, what ran on the "
	  "CPU, IRQs, THP, hugepages, RT throttling, ...), one line per finding, and exit: "
	  "0 when none is bad, 3 when one is; a run prints their count at start (-v: the "
	  "warn and bad ones)"),
	OPT("check-host-window", 0, OPT_MS, G(check_host_window_ns), "MS",
	  "how long the report watches what runs on the hot CPU (0: not at all)",
	  .max = 60000),
	OPT("host-root", 0, OPT_STR, G(host_root), "DIR",
	  "the report reads DIR/proc and DIR/sys instead of /proc and /sys"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-gateway",
	.usage = "[options]",
	.about =
"Tick-to-trade gateway: MoldUDP64/ITCH 5.0 in, HMA/HMA3 stop-and-reverse,\n"
"OUCH 4.2 orders out, over AF_XDP (default) or kernel UDP sockets.\n"
"Defaults match the default rig (netns/rig.sh up): run it in the gateway\n"
"namespace, e.g.  nsenter --net=/var/run/netns/t2t-gw build/t2t-gateway\n",
	.opts = opts,
};

static void set_defaults(struct gw_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = GW_MODE_XDP;
	o->udp_recv = GW_UDP_SPIN;
	o->ifname = "t2t-vgw";
	o->feed_group = 0xEF010101;	/* 239.1.1.1 */
	o->feed_port = 26400;
	o->feed_b_group = 0xEF010102;	/* 239.1.1.2 */
	o->exch_ip = 0x0AC90001;	/* 10.201.0.1 */
	o->exch_port = 26401;
	order_session_defaults(&o->session);
	o->rerequest_port = 26403;
	/* 50 ms at the fastest tested rate (about 32,000 packed packets/s) */
	o->ring_size = 4096;
	o->warm_every = WARM_EVERY_SPINS;
	o->xdp_generic = true;
	o->retrans_port = 26404;
	o->cpu = 1;
	o->grace = 0.3;
	o->check_host_window_ns = 1000 * 1000 * 1000;
	gw_cfg_defaults(&o->eng);
	o->eng.gap.line_wait_ns = UINT64_MAX;	/* not given: see opts_parse() */
}

int opts_parse(struct gw_opts *o, int argc, char **argv)
{
	int ret;

	set_defaults(o);
	ret = opt_parse(&prog, o, argc, argv, NULL);
	if (ret)
		return ret;
	if ((o->feed_group >> 28) != 0xE)
		fprintf(stderr, "t2t-gateway: note: feed address is unicast; no group is joined\n");
	if (o->mode == GW_MODE_UDP) {
		if (o->session.stack == OC_STACK_OWN && o->stack_given)
			return opt_error(&prog, "--order-stack own needs the AF_XDP path "
					 "(--mode xdp): the kernel path's orders go on kernel TCP");
		o->session.stack = OC_STACK_KERNEL;
	}
	if (o->session.rto_min_ns > o->session.rto_max_ns)
		return opt_error(&prog, "--tcp-rto-min must not be above --tcp-rto-max");
	if (!o->rerequest_given)
		o->rerequest_ip = o->exch_ip;
	if (!o->feed_b_port)
		o->feed_b_port = o->feed_port;
	if (o->queues_given && o->mode != GW_MODE_XDP)
		return opt_error(&prog, "--queues is for the AF_XDP path (--mode xdp): kernel "
				 "sockets take the feed from every queue");
	if (o->line_b_if && !strcmp(o->line_b_if, o->ifname))
		return opt_error(&prog, "--line-b must name another interface than -i");
	if (o->line_b_if && o->feed_b_group == o->feed_group && o->feed_b_port == o->feed_port)
		return opt_error(&prog, "--feed-b must differ from --feed");
	if (o->eng.gap.line_wait_ns == UINT64_MAX)
		o->eng.gap.line_wait_ns = o->line_b_if ? 200 * 1000 : 0;
	/* Nobody to ask again: a hole is given up (engine.h, books unsafe). */
	o->eng.gap.no_recovery = !o->rerequest_port;
	if (o->eng.paper.on && o->eng.books == GW_BOOKS_OFF)
		return opt_error(&prog, "--paper fills orders from the books of the traded "
				 "symbols: drop --books off");
	if (o->eng.paper.latency_ns && !o->eng.paper.on)
		return opt_error(&prog, "--paper-latency is for --paper");
	return 0;
}
