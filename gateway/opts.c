// SPDX-License-Identifier: MIT
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gateway/opts.h"
#include "latency/capture.h"
#include "strategy/inst_spec.h"

static const char usage[] =
"Usage: t2t-gateway [options]\n"
"\n"
"Tick-to-trade gateway: MoldUDP64/ITCH 5.0 in, HMA/HMA3 stop-and-reverse,\n"
"OUCH 4.2 orders out, over AF_XDP (default) or kernel UDP sockets.\n"
"Defaults match the default rig (netns/rig.sh up): run it in the gateway\n"
"namespace, e.g.  nsenter --net=/var/run/netns/t2t-gw build/gateway\n"
"\n"
"Path:\n"
"  --mode xdp|udp         AF_XDP busy-poll (default) or kernel UDP sockets\n"
"  --udp-recv spin|block  kernel UDP: non-blocking busy spin (default) or\n"
"                         blocking receive\n"
"  -i, --iface IF         interface (default t2t-vgw)\n"
"  --queue Q              receive queue for the AF_XDP socket (default 0)\n"
"  --ring N               AF_XDP ring size, power of 2, 64..16384 (default\n"
"                         4096: 50 ms of the fastest tested feed; smaller\n"
"                         rings drop when the loop's core is taken away)\n"
"  --xdp-mode drv|generic XDP attach mode (default drv)\n"
"  --zero-copy            ask for zero-copy AF_XDP (veth has none)\n"
"  --replace-xdp          replace another program attached to IF\n"
"  --no-verify-csum       AF_XDP: do not check IPv4/UDP checksums in software\n"
"                         (only where the NIC verified them)\n"
"  --no-warm              AF_XDP: no idle-time cache warming (dry ticks on\n"
"                         a shadow engine while the feed is quiet)\n"
"Flows:\n"
"  --feed GROUP:PORT      feed multicast group (default 239.1.1.1:26400)\n"
"  --feed-source IP       accept feed packets only from IP (AF_XDP: others\n"
"                         are dropped and counted in XDP)\n"
"  --exchange IP:PORT     order entry (default 10.201.0.1:26401)\n"
"  --exchange-mac MAC     next-hop MAC (default: the neighbour table entry)\n"
"  --local-port PORT      UDP port orders leave from and replies arrive on\n"
"                         (default 26402)\n"
"  --session ID           accept only this MoldUDP64 session id (default: the\n"
"                         first session that shows well-formed packets)\n"
"Gaps (see gateway/gap.h for the policy):\n"
"  --rerequest IP:PORT    MoldUDP64 re-request server (default the exchange's\n"
"                         address, port 26403); 'off' = no gap recovery\n"
"  --retrans-port PORT    local port for its answers (default 26404)\n"
"  --gap-retry MS         ask again after MS without an answer (default 50)\n"
"  --gap-window N         re-requests outstanding at once, 1..32 (default 8)\n"
"  --max-hole N           a packet announcing more than N messages beyond\n"
"                         everything seen: session stale (default 500000)\n"
"  --gap-timeout MS       no progress for MS while messages are missing:\n"
"                         session stale, no more orders (default 2000)\n"
"  --hold N               packets held while messages are missing (default\n"
"                         8192)\n"
"  --max-catchup MS       ticks decoded MS or more after their packet should\n"
"                         have arrived (gateway clock) are followed by the\n"
"                         strategy but not traded (default 50; 0 = trade all)\n"
"Risk (checked per order in the hot path; 0 = no limit):\n"
"  --max-pos SHARES       |position| per symbol, open orders included\n"
"                         (default: the symbol's unit, the strategy's largest)\n"
"  --max-order SHARES     shares per order (default 100000)\n"
"  --max-rate N[:BURST]   orders per second, token bucket (0)\n"
"  --collar-bp BP         limit within BP of the last trade (default 500)\n"
"  --max-open N           orders awaiting a final reply (0)\n"
"  --order-timeout MS     no final reply after MS: timed out, reported, not\n"
"                         resent, still counted as possibly filled (default\n"
"                         1000)\n"
"  --reply-probe MS       an order open MS asks the exchange for the replies\n"
"                         after the last one seen (default 2)\n"
"  --reply-retry MS       a missing reply is asked for again after MS\n"
"                         (default 5)\n"
"  --kill-file PATH       kill switch: no new orders once PATH exists (also\n"
"                         SIGUSR1)\n"
"Strategy:\n"
"  -s, --symbol SYM:LEN[:UNIT]  trade SYM with HMA length LEN, UNIT shares\n"
"                         per unit of position (default 100); repeatable, up\n"
"                         to 16 (default AAPL:20 MSFT:32 NVDA:48)\n"
"  --limit-bp BP          IOC limit = trigger price +- BP basis points\n"
"                         (default 10)\n"
"  --firm FIRM            OUCH firm (default T2TG)\n"
"Run:\n"
"  --cpu N                pin the hot loop to CPU N (default 1; -1 = no pin)\n"
"  --fifo                 SCHED_FIFO for the hot loop (beware RT throttling)\n"
"  --duration S           stop after S seconds (default: run until a signal)\n"
"  --exit-on-end          stop after the feed's end of session (+ --grace)\n"
"  --grace S              keep taking replies S seconds after the end\n"
"                         (default 0.3)\n"
"  --order-log N          orders kept for the capture (power of 2, 2^18)\n"
"  --json FILE            write the final summary as JSON\n"
"  --orders-out FILE      write every order (CSV) at exit\n"
"  --capture FILE         write every order's timestamps at exit to a gzip\n"
"                         capture log (read it with t2t-capture)\n"
"  --capture-note K=V     add K=V to the capture's header (rig, rate, ...);\n"
"                         repeatable, up to 16\n"
"  -q, --quiet            no status line once a second\n"
"  -h, --help             this text\n";

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "gateway: %s: '%s'\nTry 'gateway --help'.\n", what, arg);
	return 2;
}

static int parse_ip(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip = ntohl(a.s_addr);
	return 0;
}

static int parse_port(const char *s, uint16_t *port)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static int parse_ip_port(const char *s, uint32_t *ip, uint16_t *port)
{
	char buf[64], *colon;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	colon = strrchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (parse_ip(buf, ip) || parse_port(colon + 1, port))
		return -EINVAL;
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5], &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -EINVAL;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

static int parse_long(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || end == s || *v < lo || *v > hi ? -EINVAL : 0;
}

static int parse_seconds(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || *end || end == s || !(*v >= 0 && *v < 1e7) ? -EINVAL : 0;
}

static void set_defaults(struct gw_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = GW_MODE_XDP;
	o->udp_recv = GW_UDP_SPIN;
	o->ifname = "t2t-vgw";
	o->feed_group = 0xEF010101;	/* 239.1.1.1 */
	o->feed_port = 26400;
	o->exch_ip = 0x0AC90001;	/* 10.201.0.1 */
	o->exch_port = 26401;
	o->local_port = 26402;
	o->rerequest_port = 26403;
	/* 50 ms at the fastest tested rate (about 32,000 packed packets/s) */
	o->ring_size = 4096;
	o->retrans_port = 26404;
	o->cpu = 1;
	o->grace = 0.3;
	gw_cfg_defaults(&o->eng);
}

int opts_parse(struct gw_opts *o, int argc, char **argv)
{
	enum {
		O_MODE = 256, O_UDP_RECV, O_QUEUE, O_XDP_MODE, O_ZC, O_REPLACE,
		O_NO_WARM, O_NO_CSUM, O_RING, O_FEED, O_FEED_SRC, O_REREQ, O_RETRANS_PORT, O_GAP_RETRY,
		O_GAP_TIMEOUT, O_HOLD, O_MAX_CATCHUP, O_MAX_POS, O_MAX_ORDER, O_MAX_RATE, O_COLLAR,
		O_MAX_OPEN, O_ORDER_TIMEOUT, O_KILL_FILE, O_EXCH, O_EXCH_MAC, O_LOCAL_PORT, O_LIMIT,
		O_FIRM, O_CPU, O_FIFO, O_DURATION, O_EXIT_END, O_GRACE, O_SESSION,
		O_GAP_WINDOW, O_MAX_HOLE, O_REPLY_PROBE, O_REPLY_RETRY,
		O_ORDER_LOG, O_JSON, O_ORDERS_OUT, O_CAPTURE, O_CAPTURE_NOTE,
	};
	static const struct option lopts[] = {
		{ "mode", required_argument, NULL, O_MODE },
		{ "udp-recv", required_argument, NULL, O_UDP_RECV },
		{ "iface", required_argument, NULL, 'i' },
		{ "queue", required_argument, NULL, O_QUEUE },
		{ "xdp-mode", required_argument, NULL, O_XDP_MODE },
		{ "zero-copy", no_argument, NULL, O_ZC },
		{ "replace-xdp", no_argument, NULL, O_REPLACE },
		{ "no-warm", no_argument, NULL, O_NO_WARM },
		{ "no-verify-csum", no_argument, NULL, O_NO_CSUM },
		{ "ring", required_argument, NULL, O_RING },
		{ "feed", required_argument, NULL, O_FEED },
		{ "feed-source", required_argument, NULL, O_FEED_SRC },
		{ "exchange", required_argument, NULL, O_EXCH },
		{ "exchange-mac", required_argument, NULL, O_EXCH_MAC },
		{ "local-port", required_argument, NULL, O_LOCAL_PORT },
		{ "rerequest", required_argument, NULL, O_REREQ },
		{ "retrans-port", required_argument, NULL, O_RETRANS_PORT },
		{ "gap-retry", required_argument, NULL, O_GAP_RETRY },
		{ "gap-window", required_argument, NULL, O_GAP_WINDOW },
		{ "max-hole", required_argument, NULL, O_MAX_HOLE },
		{ "session", required_argument, NULL, O_SESSION },
		{ "gap-timeout", required_argument, NULL, O_GAP_TIMEOUT },
		{ "hold", required_argument, NULL, O_HOLD },
		{ "max-catchup", required_argument, NULL, O_MAX_CATCHUP },
		{ "max-pos", required_argument, NULL, O_MAX_POS },
		{ "max-order", required_argument, NULL, O_MAX_ORDER },
		{ "max-rate", required_argument, NULL, O_MAX_RATE },
		{ "collar-bp", required_argument, NULL, O_COLLAR },
		{ "max-open", required_argument, NULL, O_MAX_OPEN },
		{ "order-timeout", required_argument, NULL, O_ORDER_TIMEOUT },
		{ "reply-probe", required_argument, NULL, O_REPLY_PROBE },
		{ "reply-retry", required_argument, NULL, O_REPLY_RETRY },
		{ "kill-file", required_argument, NULL, O_KILL_FILE },
		{ "symbol", required_argument, NULL, 's' },
		{ "limit-bp", required_argument, NULL, O_LIMIT },
		{ "firm", required_argument, NULL, O_FIRM },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "fifo", no_argument, NULL, O_FIFO },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "exit-on-end", no_argument, NULL, O_EXIT_END },
		{ "grace", required_argument, NULL, O_GRACE },
		{ "order-log", required_argument, NULL, O_ORDER_LOG },
		{ "json", required_argument, NULL, O_JSON },
		{ "orders-out", required_argument, NULL, O_ORDERS_OUT },
		{ "capture", required_argument, NULL, O_CAPTURE },
		{ "capture-note", required_argument, NULL, O_CAPTURE_NOTE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool symbols_given = false, rereq_given = false;
	char why[128];
	long v;
	int c;

	set_defaults(o);
	while ((c = getopt_long(argc, argv, "i:s:qh", lopts, NULL)) != -1) {
		switch (c) {
		case O_MODE:
			if (!strcmp(optarg, "xdp"))
				o->mode = GW_MODE_XDP;
			else if (!strcmp(optarg, "udp"))
				o->mode = GW_MODE_UDP;
			else
				return bad("--mode is xdp or udp", optarg);
			break;
		case O_UDP_RECV:
			if (!strcmp(optarg, "spin"))
				o->udp_recv = GW_UDP_SPIN;
			else if (!strcmp(optarg, "block"))
				o->udp_recv = GW_UDP_BLOCK;
			else
				return bad("--udp-recv is spin or block", optarg);
			break;
		case 'i':
			o->ifname = optarg;
			break;
		case O_QUEUE:
			if (parse_long(optarg, 0, 63, &v))
				return bad("--queue wants 0..63", optarg);
			o->queue = (unsigned int)v;
			break;
		case O_XDP_MODE:
			if (!strcmp(optarg, "drv") || !strcmp(optarg, "native"))
				o->xdp_generic = false;
			else if (!strcmp(optarg, "generic") || !strcmp(optarg, "skb"))
				o->xdp_generic = true;
			else
				return bad("--xdp-mode is drv or generic", optarg);
			break;
		case O_ZC:
			o->zero_copy = true;
			break;
		case O_REPLACE:
			o->replace_xdp = true;
			break;
		case O_NO_WARM:
			o->no_warm = true;
			break;
		case O_NO_CSUM:
			o->no_verify_csum = true;
			break;
		case O_RING:
			if (parse_long(optarg, 64, 16384, &v) || (v & (v - 1)))
				return bad("--ring wants a power of 2, 64..16384", optarg);
			o->ring_size = (unsigned int)v;
			break;
		case O_FEED:
			if (parse_ip_port(optarg, &o->feed_group, &o->feed_port))
				return bad("--feed wants GROUP:PORT", optarg);
			break;
		case O_FEED_SRC:
			if (parse_ip(optarg, &o->feed_source))
				return bad("--feed-source wants an IPv4 address", optarg);
			break;
		case O_EXCH:
			if (parse_ip_port(optarg, &o->exch_ip, &o->exch_port))
				return bad("--exchange wants IP:PORT", optarg);
			break;
		case O_EXCH_MAC:
			if (parse_mac(optarg, o->exch_mac))
				return bad("--exchange-mac wants aa:bb:cc:dd:ee:ff", optarg);
			o->have_exch_mac = true;
			break;
		case O_LOCAL_PORT:
			if (parse_port(optarg, &o->local_port))
				return bad("--local-port wants 1..65535", optarg);
			break;
		case O_REREQ:
			if (!strcmp(optarg, "off"))
				o->rerequest_port = 0;
			else if (parse_ip_port(optarg, &o->rerequest_ip, &o->rerequest_port))
				return bad("--rerequest wants IP:PORT or off", optarg);
			else
				rereq_given = true;
			break;
		case O_RETRANS_PORT:
			if (parse_port(optarg, &o->retrans_port))
				return bad("--retrans-port wants 1..65535", optarg);
			break;
		case O_GAP_RETRY:
		case O_GAP_TIMEOUT:
		case O_ORDER_TIMEOUT:
		case O_REPLY_PROBE:
		case O_REPLY_RETRY:
			if (parse_long(optarg, 1, 3600000, &v))
				return bad("wants milliseconds, 1..3600000", optarg);
			*(c == O_GAP_RETRY ? &o->eng.gap.retry_ns : c == O_GAP_TIMEOUT ?
			  &o->eng.gap.timeout_ns : c == O_ORDER_TIMEOUT ? &o->eng.orders.timeout_ns :
			  c == O_REPLY_PROBE ? &o->eng.orders.probe_ns : &o->eng.orders.retry_ns) =
				(uint64_t)v * 1000000ull;
			break;
		case O_MAX_CATCHUP:
			if (parse_long(optarg, 0, 3600000, &v))
				return bad("--max-catchup wants milliseconds, 0..3600000", optarg);
			o->eng.gap.max_catchup_ns = (uint64_t)v * 1000000ull;
			break;
		case O_GAP_WINDOW:
			if (parse_long(optarg, 1, GAP_WINDOW_MAX, &v))
				return bad("--gap-window wants 1..32", optarg);
			o->eng.gap.window = (uint32_t)v;
			break;
		case O_MAX_HOLE:
			if (parse_long(optarg, 1, 1L << 40, &v))
				return bad("--max-hole wants a number of messages, 1..2^40", optarg);
			o->eng.gap.max_hole = (uint64_t)v;
			break;
		case O_SESSION:
			if (!optarg[0] || strlen(optarg) > MOLD_SESSION_LEN)
				return bad("--session wants 1 to 10 characters", optarg);
			o->eng.session = optarg;
			break;
		case O_HOLD:
			if (parse_long(optarg, 1, 1 << 20, &v))
				return bad("--hold wants 1..1048576 packets", optarg);
			o->eng.gap.hold = (uint32_t)v;
			break;
		case O_MAX_POS:
		case O_MAX_ORDER:
		case O_COLLAR:
		case O_MAX_OPEN:
			if (parse_long(optarg, 0, 1000000000, &v))
				return bad("wants a number, 0 (no limit) to 1000000000", optarg);
			*(c == O_MAX_POS ? &o->eng.risk.max_pos : c == O_MAX_ORDER ?
			  &o->eng.risk.max_order : c == O_COLLAR ? &o->eng.risk.collar_bp :
			  &o->eng.risk.max_open) = (uint32_t)v;
			break;
		case O_MAX_RATE: {
			char *colon = strchr(optarg, ':');
			long burst = 1;

			if (colon) {
				*colon = '\0';
				if (parse_long(colon + 1, 1, 1000000, &burst))
					return bad("--max-rate burst wants 1..1000000", colon + 1);
			}
			if (parse_long(optarg, 0, 1000000000, &v))
				return bad("--max-rate wants orders per second[:burst]", optarg);
			o->eng.risk.max_rate = (uint32_t)v;
			o->eng.risk.burst = (uint32_t)burst;
			break;
		}
		case O_KILL_FILE:
			o->kill_file = optarg;
			break;
		case 's':
			if (!symbols_given) {
				o->eng.n_inst = 0;
				symbols_given = true;
			}
			if (o->eng.n_inst == GW_MAX_INST)
				return bad("too many --symbol (at most 16)", optarg);
			if (inst_spec_parse(optarg, &o->eng.inst[o->eng.n_inst], why, sizeof(why)))
				return bad(why, optarg);
			for (unsigned int i = 0; i < o->eng.n_inst; i++)
				if (!strcmp(o->eng.inst[i].symbol, o->eng.inst[o->eng.n_inst].symbol))
					return bad("symbol given twice", optarg);
			o->eng.n_inst++;
			break;
		case O_LIMIT:
			if (parse_long(optarg, 0, 10000, &v))
				return bad("--limit-bp wants 0..10000", optarg);
			o->eng.orders.limit_bp = (uint32_t)v;
			break;
		case O_FIRM:
			if (!optarg[0] || strlen(optarg) > 4)
				return bad("--firm wants 1 to 4 characters", optarg);
			strcpy(o->eng.orders.firm, optarg);
			break;
		case O_CPU: {
			long ncpu = sysconf(_SC_NPROCESSORS_CONF);

			if (parse_long(optarg, -1, 4095, &v) || v >= ncpu) {
				fprintf(stderr, "gateway: --cpu %s: this machine has CPUs 0..%ld "
					"(or -1 to not pin)\n", optarg, ncpu - 1);
				return 2;
			}
			o->cpu = (int)v;
			break;
		}
		case O_FIFO:
			o->fifo = true;
			break;
		case O_DURATION:
			if (parse_seconds(optarg, &o->duration))
				return bad("--duration wants seconds", optarg);
			break;
		case O_EXIT_END:
			o->exit_on_end = true;
			break;
		case O_GRACE:
			if (parse_seconds(optarg, &o->grace))
				return bad("--grace wants seconds", optarg);
			break;
		case O_ORDER_LOG:
			if (parse_long(optarg, 1, 1L << 26, &v) || (v & (v - 1)))
				return bad("--order-log wants a power of two up to 2^26", optarg);
			o->eng.orders.log_size = (uint32_t)v;
			break;
		case O_JSON:
			o->json = optarg;
			break;
		case O_ORDERS_OUT:
			o->orders_out = optarg;
			break;
		case O_CAPTURE:
			o->capture = optarg;
			break;
		case O_CAPTURE_NOTE: {
			const char *eq = strchr(optarg, '=');

			if (!eq || !capture_key_ok(optarg, (size_t)(eq - optarg)))
				return bad("--capture-note wants KEY=VALUE, KEY of [a-z0-9_.-]",
					   optarg);
			if (o->n_capture_notes == GW_CAPTURE_NOTES)
				return bad("too many --capture-note (at most 16)", optarg);
			o->capture_note[o->n_capture_notes++] = optarg;
			break;
		}
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			fprintf(stderr, "Try 'gateway --help'.\n");
			return 2;
		}
	}
	if (optind < argc)
		return bad("unexpected argument", argv[optind]);
	if ((o->feed_group >> 28) != 0xE)
		fprintf(stderr, "gateway: note: feed address is unicast; no group is joined\n");
	if (o->local_port == o->feed_port)
		return bad("--local-port must differ from the feed port", "");
	if (o->rerequest_port && o->retrans_port == o->local_port)
		return bad("--retrans-port must differ from --local-port", "");
	if (!rereq_given)
		o->rerequest_ip = o->exch_ip;
	return 0;
}
