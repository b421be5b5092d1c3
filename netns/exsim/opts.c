// SPDX-License-Identifier: MIT
/* exsim command line: every flag checked, every error names the flag. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netns/exsim/exsim.h"
#include "netns/exsim/hostile.h"

static const char usage[] =
"Usage: exsim [options]\n"
"\n"
"Exchange simulator for the test rig: publishes a MoldUDP64 / ITCH 5.0 feed\n"
"(system events, stock directory, trades 'P') and serves an OUCH 4.2 order\n"
"port over UDP with paper fills.  Run it inside the exchange namespace:\n"
"  ip netns exec <prefix>-ex build/exsim --count 10000 --rate 1000\n"
"\n"
"Feed:\n"
"  --feed ADDR          destination: multicast group (default " EXSIM_DEFAULT_GROUP ")\n"
"                       or a unicast IPv4 address\n"
"  --feed-port PORT     destination UDP port (default 26400)\n"
"  --mcast-if ADDR      source interface address for multicast (default: the\n"
"                       route to the group)\n"
"  --ttl N              multicast TTL (default 1)\n"
"  --session ID         MoldUDP64 session, 1-10 letters/digits (default " EXSIM_DEFAULT_SESSION ")\n"
"  --symbols LIST       comma-separated symbols, 1-8 of [A-Z0-9.] each; locates\n"
"                       1..n in that order; ticks go round-robin (default AAPL)\n"
"  --seed S             GBM seed: symbol i (0-based) uses seed + i (default 42)\n"
"  --prices FILE        trade prices from FILE (one Price(4) integer per line,\n"
"                       as 'backtest --gen' writes) instead of GBM; one symbol\n"
"  --noise F            mean non-trade messages (A F E C X D U) per trade,\n"
"                       0..20, fractions allowed (default 0)\n"
"\n"
"Rate:\n"
"  --rate TPS           ticks per second, fractions allowed; 0 = as fast as\n"
"                       possible (default 1000)\n"
"  --burst N            N ticks due at once, then a pause that keeps the\n"
"                       average at --rate (default 1)\n"
"  --count N            ticks to publish (default 10000, or from --duration)\n"
"  --duration S         publish for S seconds (rate x S ticks; with --rate 0\n"
"                       at most --count, default 20000000)\n"
"  --max-per-packet N   at most N ticks per packet (default: as many as the\n"
"                       1472-byte MTU budget holds); a packet carries the\n"
"                       ticks due at its send time\n"
"  --spin-us US         busy-wait (still serving orders) this long before a\n"
"                       send, sleep before that (default 20000: a VM's sleeps\n"
"                       overshoot by up to ~4 ms; 0 = always sleep)\n"
"  --warmup MS          pause between the directory and the first tick (default 100)\n"
"  --linger MS          keep serving orders after the last tick (default 300)\n"
"  --grace MS           keep serving orders after end of session (default 100)\n"
"  --heartbeat MS       heartbeat after this much idle time (default 1000)\n"
"\n"
"Orders:\n"
"  --order-addr ADDR    address the order port binds to (default 0.0.0.0)\n"
"  --order-port PORT    OUCH order port (default 26401)\n"
"  --max-shares N       larger orders are rejected 'Z' (default 1000000)\n"
"  --reply-numbers on|off  number the replies per client ('s') and answer\n"
"                       resend requests ('r'), docs/wire.md (default on);\n"
"                       off: plain 'S' replies, as the spec's exchange\n"
"  --reply-drop-rate P  do not send this fraction of replies (kept for\n"
"                       resends): replies lost on the way\n"
"\n"
"Re-requests (MoldUDP64, unicast answers from the published messages):\n"
"  --rerequest-port P   UDP port of the re-request server, at --order-addr\n"
"                       (default 26403; 0 = off)\n"
"  --rerequest-max N    messages served per request at most (default 2000)\n"
"  --rerequest-rate R   token bucket: messages per second (default 100000;\n"
"                       0 = unlimited); a request the bucket cannot cover is\n"
"                       refused whole\n"
"  --rerequest-burst N  bucket size in messages (default 10000)\n"
"  --rerequest-answer one|all  one packet per request, as real servers answer\n"
"                       (default), or every message asked for, in as many\n"
"                       packets as it takes\n"
"\n"
"Faults on the feed (tick packets; sequence numbers, store and record as usual):\n"
"  --drop-rate P        drop this fraction of tick packets (0..1)\n"
"  --dup-rate P         send this fraction twice\n"
"  --reorder-rate P     hold this fraction and send it after the next packet\n"
"  --drop-seqs LIST     drop every data packet holding one of these sequence\n"
"                       numbers: N or A-B, comma-separated (any data packet)\n"
"  --fault-seed S       seed of the fault and hostile streams (default 1)\n"
"  --fault-log FILE     every fault and hostile packet: event,seq,count\n"
"  --hostile F          F hostile packets per 1000 tick packets (0..1000)\n"
"  --junk-first N       before the session's first packet, N junk packets:\n"
"                       random bytes and well-formed packets of another session\n"
"  --stale-end-at K     after tick packet K, an end of session 100 messages\n"
"                       behind (an old one); the session goes on\n"
"  --far-heartbeat-at K after tick packet K, a heartbeat announcing a number a\n"
"                       million messages ahead\n"
"  --spoof-from ADDR    before the session, a packet of it at sequence 1 with a\n"
"                       false directory, sent from ADDR (an address here)\n"
"  --hostile-classes L  'all' (default) or a comma-separated list of\n"
"                       short_packet, block_overrun, count_too_high,\n"
"                       count_too_low, zero_length_block, bad_length,\n"
"                       unknown_type, random, truncated_frame, bad_checksum,\n"
"                       other_port, other_address (see README)\n"
"\n"
"Output:\n"
"  --record FILE        every published tick: seq,symbol,locate,price,shares,send_ns\n"
"  --orders-log FILE    every order received, CSV (see README)\n"
"  --json FILE          the summary as JSON\n"
"  --cpu N              pin to CPU N\n"
"  --host-netns         allow a multicast feed outside a named network\n"
"                       namespace (refused by default: it would leave on the\n"
"                       host's own network, not the rig's veth)\n"
"  -q, --quiet          no progress line on a terminal\n"
"  -h, --help           this text\n"
"\n"
"The ITCH timestamp of every message is the CLOCK_MONOTONIC time (ns, low\n"
"48 bits) just before its packet was sent, not time since midnight.\n"
"SIGINT/SIGTERM end the run early: end of session is sent, the summary printed.\n"
"Exit status: 0 ok, 1 runtime error, 2 bad usage.\n";

enum {
	OPT_FEED = 256, OPT_FEED_PORT, OPT_MCAST_IF, OPT_TTL, OPT_SESSION,
	OPT_SYMBOLS, OPT_SEED, OPT_PRICES, OPT_NOISE, OPT_RATE, OPT_BURST,
	OPT_COUNT, OPT_DURATION, OPT_MAX_PER_PACKET, OPT_SPIN_US, OPT_WARMUP,
	OPT_LINGER, OPT_GRACE, OPT_HEARTBEAT, OPT_ORDER_ADDR, OPT_ORDER_PORT,
	OPT_MAX_SHARES, OPT_RECORD, OPT_ORDERS_LOG, OPT_JSON, OPT_CPU,
	OPT_HOST_NETNS, OPT_REREQ_PORT, OPT_REREQ_MAX, OPT_REREQ_RATE,
	OPT_REREQ_BURST, OPT_DROP_RATE, OPT_DUP_RATE, OPT_REORDER_RATE,
	OPT_DROP_SEQS, OPT_FAULT_SEED, OPT_FAULT_LOG, OPT_HOSTILE,
	OPT_HOSTILE_CLASSES, OPT_REREQ_ANSWER, OPT_REPLY_NUMBERS, OPT_REPLY_DROP,
	OPT_JUNK_FIRST, OPT_STALE_END_AT, OPT_FAR_HB_AT, OPT_SPOOF_FROM,
};

static const struct option longopts[] = {
	{ "feed", required_argument, NULL, OPT_FEED },
	{ "feed-port", required_argument, NULL, OPT_FEED_PORT },
	{ "mcast-if", required_argument, NULL, OPT_MCAST_IF },
	{ "ttl", required_argument, NULL, OPT_TTL },
	{ "session", required_argument, NULL, OPT_SESSION },
	{ "symbols", required_argument, NULL, OPT_SYMBOLS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "prices", required_argument, NULL, OPT_PRICES },
	{ "noise", required_argument, NULL, OPT_NOISE },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "max-per-packet", required_argument, NULL, OPT_MAX_PER_PACKET },
	{ "spin-us", required_argument, NULL, OPT_SPIN_US },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "linger", required_argument, NULL, OPT_LINGER },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "heartbeat", required_argument, NULL, OPT_HEARTBEAT },
	{ "order-addr", required_argument, NULL, OPT_ORDER_ADDR },
	{ "order-port", required_argument, NULL, OPT_ORDER_PORT },
	{ "max-shares", required_argument, NULL, OPT_MAX_SHARES },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "orders-log", required_argument, NULL, OPT_ORDERS_LOG },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "host-netns", no_argument, NULL, OPT_HOST_NETNS },
	{ "rerequest-port", required_argument, NULL, OPT_REREQ_PORT },
	{ "rerequest-max", required_argument, NULL, OPT_REREQ_MAX },
	{ "rerequest-rate", required_argument, NULL, OPT_REREQ_RATE },
	{ "rerequest-burst", required_argument, NULL, OPT_REREQ_BURST },
	{ "drop-rate", required_argument, NULL, OPT_DROP_RATE },
	{ "dup-rate", required_argument, NULL, OPT_DUP_RATE },
	{ "reorder-rate", required_argument, NULL, OPT_REORDER_RATE },
	{ "drop-seqs", required_argument, NULL, OPT_DROP_SEQS },
	{ "fault-seed", required_argument, NULL, OPT_FAULT_SEED },
	{ "fault-log", required_argument, NULL, OPT_FAULT_LOG },
	{ "hostile", required_argument, NULL, OPT_HOSTILE },
	{ "hostile-classes", required_argument, NULL, OPT_HOSTILE_CLASSES },
	{ "rerequest-answer", required_argument, NULL, OPT_REREQ_ANSWER },
	{ "reply-numbers", required_argument, NULL, OPT_REPLY_NUMBERS },
	{ "reply-drop-rate", required_argument, NULL, OPT_REPLY_DROP },
	{ "junk-first", required_argument, NULL, OPT_JUNK_FIRST },
	{ "stale-end-at", required_argument, NULL, OPT_STALE_END_AT },
	{ "far-heartbeat-at", required_argument, NULL, OPT_FAR_HB_AT },
	{ "spoof-from", required_argument, NULL, OPT_SPOOF_FROM },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int bad(const char *fmt, ...)
{
	va_list ap;

	fputs("exsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'exsim --help'.\n", stderr);
	return -1;
}

/* Decimal unsigned integer in [min, max]. */
static int parse_u64(const char *flag, const char *s, uint64_t min,
		     uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t v;

	if (*s < '0' || *s > '9')
		return bad("%s: '%s' is not a non-negative integer", flag, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return bad("%s: '%s' is not a non-negative integer", flag, s);
	if (v < min || v > max)
		return bad("%s: %s is out of range [%llu, %llu]", flag, s,
			   (unsigned long long)min, (unsigned long long)max);
	*out = v;
	return 0;
}

static int parse_u32(const char *flag, const char *s, uint32_t min,
		     uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (parse_u64(flag, s, min, max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Finite decimal number in [min, max]. */
static int parse_double(const char *flag, const char *s, double min,
			double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		return bad("%s: '%s' is not a number", flag, s);
	if (v < min || v > max)
		return bad("%s: %s is out of range [%g, %g]", flag, s, min, max);
	*out = v;
	return 0;
}

static int parse_addr(const char *flag, const char *s, struct in_addr *a)
{
	if (inet_pton(AF_INET, s, a) != 1)
		return bad("%s: '%s' is not an IPv4 address (dotted quad)", flag, s);
	return 0;
}

static int parse_session(struct exsim_cfg *c, const char *s)
{
	size_t n = strlen(s), i;

	if (n < 1 || n > MOLD_SESSION_LEN)
		return bad("--session: '%s' must be 1-10 characters", s);
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return bad("--session: '%s': only letters and digits", s);
	mold_session_set(c->session, s);
	return 0;
}

static bool symbol_char(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.';
}

static int parse_symbols(struct exsim_cfg *c, const char *list)
{
	const char *p = list;
	unsigned int i;

	c->nsym = 0;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p), k;
		char sym[ITCH_SYMBOL_LEN];

		if (n < 1 || n > ITCH_SYMBOL_LEN)
			return bad("--symbols: '%.*s' must be 1-8 characters", (int)n, p);
		for (k = 0; k < n; k++)
			if (!symbol_char(p[k]))
				return bad("--symbols: '%.*s': only A-Z, 0-9 and '.'",
					   (int)n, p);
		memcpy(sym, p, n);
		memset(sym + n, ' ', ITCH_SYMBOL_LEN - n);
		for (i = 0; i < c->nsym; i++)
			if (!memcmp(c->symbols[i], sym, ITCH_SYMBOL_LEN))
				return bad("--symbols: '%.*s' is listed twice", (int)n, p);
		if (c->nsym == EXSIM_MAX_SYMBOLS)
			return bad("--symbols: more than %d symbols", EXSIM_MAX_SYMBOLS);
		memcpy(c->symbols[c->nsym++], sym, ITCH_SYMBOL_LEN);
		if (!end)
			return 0;
		p = end + 1;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Parse one decimal number at *p (advanced); 0 on success. */
static int number(const char **p, uint64_t *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*v = strtoull(*p, &end, 10);
	if (errno)
		return -1;
	*p = end;
	return 0;
}

/* --drop-seqs: N or A-B, comma-separated; sorted and made unique. */
static int parse_drop_seqs(struct exsim_cfg *c, const char *list)
{
	const char *p = list;
	uint64_t *v, n = 0, i, k;

	free(c->drop_seqs);
	c->drop_seqs = NULL;
	c->ndrop_seqs = 0;
	v = malloc(EXSIM_MAX_DROP_SEQS * sizeof(*v));
	if (!v)
		return bad("--drop-seqs: out of memory");
	for (;;) {
		uint64_t a, b;

		if (number(&p, &a) || a == 0)
			goto bad_list;
		b = a;
		if (*p == '-') {
			p++;
			if (number(&p, &b) || b < a)
				goto bad_list;
		}
		if (b - a >= EXSIM_MAX_DROP_SEQS - n) {
			free(v);
			return bad("--drop-seqs: more than %d sequence numbers", EXSIM_MAX_DROP_SEQS);
		}
		for (i = a; i <= b; i++)
			v[n++] = i;
		if (!*p)
			break;
		if (*p++ != ',')
			goto bad_list;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = k = 0; i < n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	c->drop_seqs = v;
	c->ndrop_seqs = k;
	return 0;
bad_list:
	free(v);
	return bad("--drop-seqs: '%s': give sequence numbers (from 1) N or A-B, "
		   "comma-separated", list);
}

void exsim_cfg_free(struct exsim_cfg *c)
{
	free(c->drop_seqs);
	c->drop_seqs = NULL;
	c->ndrop_seqs = 0;
}

static void defaults(struct exsim_cfg *c)
{
	memset(c, 0, sizeof(*c));
	mold_session_set(c->session, EXSIM_DEFAULT_SESSION);
	c->feed.sin_family = AF_INET;
	inet_pton(AF_INET, EXSIM_DEFAULT_GROUP, &c->feed.sin_addr);
	c->feed.sin_port = htons(EXSIM_DEFAULT_FEED_PORT);
	c->mcast_if.s_addr = htonl(INADDR_ANY);
	c->ttl = 1;
	c->order.sin_family = AF_INET;
	c->order.sin_addr.s_addr = htonl(INADDR_ANY);
	c->order.sin_port = htons(EXSIM_DEFAULT_ORDER_PORT);
	memcpy(c->symbols[0], "AAPL    ", ITCH_SYMBOL_LEN);
	c->nsym = 1;
	c->seed = 42;
	c->rate = 1000;
	c->burst = 1;
	c->count = EXSIM_DEFAULT_COUNT;
	c->warmup_ms = 100;
	c->linger_ms = 300;
	c->grace_ms = 100;
	c->heartbeat_ms = 1000;
	c->spin_ns = 20000000;
	c->max_shares = 1000000;
	c->cpu = -1;
	c->rereq_port = EXSIM_DEFAULT_REREQ_PORT;
	c->rereq_max = EXSIM_REREQ_MAX_COUNT;
	c->rereq_rate = EXSIM_REREQ_RATE;
	c->rereq_burst = EXSIM_REREQ_BURST;
	c->fault_seed = 1;
	c->hostile_mask = HOSTILE_ALL;
}

int exsim_parse_args(struct exsim_cfg *c, int argc, char **argv)
{
	bool burst_set = false;
	uint64_t u;
	uint32_t port = 0;
	int opt;

	defaults(c);
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		const char *a = optarg;
		int rc = 0;

		switch (opt) {
		case OPT_FEED:
			rc = parse_addr("--feed", a, &c->feed.sin_addr);
			break;
		case OPT_FEED_PORT:
			rc = parse_u32("--feed-port", a, 1, 65535, &port);
			c->feed.sin_port = htons((uint16_t)port);
			break;
		case OPT_MCAST_IF:
			rc = parse_addr("--mcast-if", a, &c->mcast_if);
			break;
		case OPT_TTL:
			rc = parse_u64("--ttl", a, 1, 255, &u);
			c->ttl = (int)u;
			break;
		case OPT_SESSION:
			rc = parse_session(c, a);
			break;
		case OPT_SYMBOLS:
			rc = parse_symbols(c, a);
			break;
		case OPT_SEED:
			rc = parse_u64("--seed", a, 0, UINT64_MAX, &c->seed);
			break;
		case OPT_PRICES:
			c->prices_path = a;
			break;
		case OPT_NOISE:
			rc = parse_double("--noise", a, 0, EXSIM_MAX_NOISE, &c->noise);
			break;
		case OPT_RATE:
			rc = parse_double("--rate", a, 0, 1e9, &c->rate);
			break;
		case OPT_BURST:
			rc = parse_u32("--burst", a, 1, 1000000, &c->burst);
			burst_set = true;
			break;
		case OPT_COUNT:
			rc = parse_u64("--count", a, 1, EXSIM_MAX_TICKS, &c->count);
			c->count_set = true;
			break;
		case OPT_DURATION:
			rc = parse_double("--duration", a, 0.001, 86400, &c->duration_s);
			break;
		case OPT_MAX_PER_PACKET:
			rc = parse_u32("--max-per-packet", a, 1, 1000, &c->max_per_packet);
			break;
		case OPT_SPIN_US:
			rc = parse_u64("--spin-us", a, 0, 1000000, &u);
			c->spin_ns = (uint32_t)(u * 1000);
			break;
		case OPT_WARMUP:
			rc = parse_u32("--warmup", a, 0, 600000, &c->warmup_ms);
			break;
		case OPT_LINGER:
			rc = parse_u32("--linger", a, 0, 600000, &c->linger_ms);
			break;
		case OPT_GRACE:
			rc = parse_u32("--grace", a, 0, 600000, &c->grace_ms);
			break;
		case OPT_HEARTBEAT:
			rc = parse_u32("--heartbeat", a, 10, 600000, &c->heartbeat_ms);
			break;
		case OPT_ORDER_ADDR:
			rc = parse_addr("--order-addr", a, &c->order.sin_addr);
			break;
		case OPT_ORDER_PORT:
			rc = parse_u32("--order-port", a, 1, 65535, &port);
			c->order.sin_port = htons((uint16_t)port);
			break;
		case OPT_MAX_SHARES:
			rc = parse_u32("--max-shares", a, 1, 1000000000, &c->max_shares);
			break;
		case OPT_RECORD:
			c->record_path = a;
			break;
		case OPT_ORDERS_LOG:
			c->orders_log_path = a;
			break;
		case OPT_JSON:
			c->json_path = a;
			break;
		case OPT_CPU:
			rc = parse_u64("--cpu", a, 0, 4095, &u);
			c->cpu = (int)u;
			break;
		case OPT_HOST_NETNS:
			c->host_netns = true;
			break;
		case OPT_REREQ_PORT:
			rc = parse_u32("--rerequest-port", a, 0, 65535, &port);
			c->rereq_port = (uint16_t)port;
			break;
		case OPT_REREQ_MAX:
			rc = parse_u32("--rerequest-max", a, 1, MOLD_COUNT_MAX, &c->rereq_max);
			break;
		case OPT_REREQ_RATE:
			rc = parse_double("--rerequest-rate", a, 0, 1e9, &c->rereq_rate);
			break;
		case OPT_REREQ_BURST:
			rc = parse_u32("--rerequest-burst", a, 1, 100000000, &c->rereq_burst);
			break;
		case OPT_REREQ_ANSWER:
			if (!strcmp(a, "one") || !strcmp(a, "all"))
				c->rereq_all = !strcmp(a, "all");
			else
				rc = bad("--rerequest-answer: 'one' or 'all', not '%s'", a);
			break;
		case OPT_REPLY_NUMBERS:
			if (!strcmp(a, "on") || !strcmp(a, "off"))
				c->reply_plain = !strcmp(a, "off");
			else
				rc = bad("--reply-numbers: 'on' or 'off', not '%s'", a);
			break;
		case OPT_REPLY_DROP:
			rc = parse_double("--reply-drop-rate", a, 0, 1, &c->reply_drop_rate);
			break;
		case OPT_JUNK_FIRST:
			rc = parse_u32("--junk-first", a, 0, 10000, &c->junk_first);
			break;
		case OPT_STALE_END_AT:
			rc = parse_u64("--stale-end-at", a, 1, UINT64_MAX, &c->stale_end_at);
			break;
		case OPT_FAR_HB_AT:
			rc = parse_u64("--far-heartbeat-at", a, 1, UINT64_MAX, &c->far_heartbeat_at);
			break;
		case OPT_SPOOF_FROM:
			if (inet_pton(AF_INET, a, &c->spoof_from) != 1 || !c->spoof_from.s_addr)
				rc = bad("--spoof-from: not an IPv4 address: '%s'", a);
			break;
		case OPT_DROP_RATE:
			rc = parse_double("--drop-rate", a, 0, 1, &c->drop_rate);
			break;
		case OPT_DUP_RATE:
			rc = parse_double("--dup-rate", a, 0, 1, &c->dup_rate);
			break;
		case OPT_REORDER_RATE:
			rc = parse_double("--reorder-rate", a, 0, 1, &c->reorder_rate);
			break;
		case OPT_DROP_SEQS:
			rc = parse_drop_seqs(c, a);
			break;
		case OPT_FAULT_SEED:
			rc = parse_u64("--fault-seed", a, 0, UINT64_MAX, &c->fault_seed);
			break;
		case OPT_FAULT_LOG:
			c->fault_log_path = a;
			break;
		case OPT_HOSTILE:
			rc = parse_double("--hostile", a, 0, 1000, &c->hostile_per_1000);
			break;
		case OPT_HOSTILE_CLASSES: {
			const char *which = NULL;

			if (hostile_parse_classes(a, &c->hostile_mask, &which))
				rc = bad("--hostile-classes: unknown class '%s' (see --help)",
					 which);
			break;
		}
		case 'q':
			c->quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		case ':':
			return bad("%s needs a value", argv[optind - 1]);
		default:
			return bad("unknown option '%s'", argv[optind - 1]);
		}
		if (rc)
			return -1;
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);

	c->feed_mcast = IN_MULTICAST(ntohl(c->feed.sin_addr.s_addr));
	if (!c->feed_mcast && (c->feed.sin_addr.s_addr == htonl(INADDR_ANY) ||
			       c->feed.sin_addr.s_addr == htonl(INADDR_BROADCAST)))
		return bad("--feed: give a multicast group or a unicast host address");
	if (c->mcast_if.s_addr != htonl(INADDR_ANY) && !c->feed_mcast)
		return bad("--mcast-if: only meaningful with a multicast --feed");
	if (c->prices_path && c->nsym != 1)
		return bad("--prices: the file holds one series; give one symbol (--symbols)");
	if (burst_set && c->burst > 1 && c->rate == 0)
		return bad("--burst: needs a --rate (bursts keep an average rate)");
	if (c->rate > 0 && c->rate < 0.01)
		return bad("--rate: below 0.01 ticks per second");
	if (c->rereq_port && c->rereq_rate > 0 && c->rereq_burst < c->rereq_max)
		return bad("--rerequest-burst %u is below --rerequest-max %u: a full "
			   "request could never be served", c->rereq_burst, c->rereq_max);
	if (c->rereq_port && (c->rereq_port == ntohs(c->order.sin_port)))
		return bad("--rerequest-port %u is the order port", c->rereq_port);
	if (c->hostile_per_1000 > 0 && c->ndrop_seqs &&
	    c->drop_seqs[0] <= 3 + c->nsym)
		return bad("--drop-seqs %llu with --hostile: the hostile packets reuse the "
			   "session's opening (sequence numbers 1..%u), which must not be lost",
			   (unsigned long long)c->drop_seqs[0], 3 + c->nsym);
	if (!c->count_set && c->duration_s > 0)
		c->count = c->rate > 0 ? 0 : EXSIM_RATE0_TICK_CAP;
	return 0;
}
