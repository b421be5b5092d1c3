// SPDX-License-Identifier: MIT
/* exsim's command line: one table (util/opt.h), then the cross-checks. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netns/exsim/cpu_pick.h"
#include "netns/exsim/exsim.h"
#include "book/daygen.h"
#include "netns/exsim/hostile.h"
#include "netns/exsim/soup_store.h"
#include "proto/itch_filter.h"
#include "proto/soup_client.h"
#include "util/opt.h"

#define X(field) OFF(struct exsim_cfg, field)

static const char *const answers[] = { "one", "all", NULL };
static const char *const stamps[] = { "tod", "mono", NULL };

static int session(void *cfg, const char *s, char *why, size_t n)
{
	struct exsim_cfg *c = cfg;
	size_t len = strlen(s);

	if (len < 1 || len > MOLD_SESSION_LEN)
		return snprintf(why, n, "must be 1-10 characters"), -1;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return snprintf(why, n, "takes only letters and digits"), -1;
	mold_session_set(c->session, s);
	return 0;
}

static int source(void *cfg, const char *a, char *why, size_t n)
{
	struct exsim_cfg *c = cfg;

	if (!strcmp(a, "day"))
		c->source = EXSIM_SRC_DAY;
	else if (!strcmp(a, "gbm"))
		c->source = EXSIM_SRC_GBM;
	else
		return snprintf(why, n, "is day or gbm (a day file: --replay FILE)"), -1;
	c->source_set = true;
	return 0;
}

static int speed(void *cfg, const char *a, char *why, size_t n)
{
	struct exsim_cfg *c = cfg;
	char *end;
	double v;

	if (!strcmp(a, "max")) {
		c->speed = 0;
		return 0;
	}
	v = strtod(a, &end);
	if (end == a || *end || !(v >= 0.001 && v <= 1e6))
		return snprintf(why, n, "wants a factor 0.001..1000000 or 'max'"), -1;
	c->speed = v;
	return 0;
}

static int count(void *cfg, const char *a, char *why, size_t n)
{
	struct exsim_cfg *c = cfg;

	if (opt_parse_u64(a, 1, EXSIM_MAX_TICKS, &c->count))
		return snprintf(why, n, "wants 1..%llu ticks", (unsigned long long)EXSIM_MAX_TICKS), -1;
	c->count_set = true;
	return 0;
}

static int spin_us(void *cfg, const char *a, char *why, size_t n)
{
	uint64_t us;

	if (opt_parse_u64(a, 0, 1000000, &us))
		return snprintf(why, n, "wants microseconds, 0..1000000"), -1;
	((struct exsim_cfg *)cfg)->spin_ns = (uint32_t)(us * 1000);
	return 0;
}

static int rereq_port(void *cfg, const char *a, char *why, size_t n)
{
	uint64_t v;

	if (opt_parse_u64(a, 0, 65535, &v))
		return snprintf(why, n, "wants a port, 0..65535 (0 = off)"), -1;
	((struct exsim_cfg *)cfg)->rereq_port = (uint16_t)v;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One decimal number at *p (advanced); 0 on success. */
static int number(const char **p, uint64_t *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	*v = strtoull(*p, &end, 10);
	*p = end;
	return 0;
}

/* A list of sequence numbers: N or A-B, comma-separated; sorted and made unique. */
static int seq_list(struct fault_cfg *c, const char *list, char *why, size_t n)
{
	const char *p = list;
	uint64_t *v, cnt = 0, i, k;

	free(c->drop_seqs);
	c->drop_seqs = NULL;
	c->ndrop_seqs = 0;
	v = malloc(EXSIM_MAX_DROP_SEQS * sizeof(*v));
	if (!v)
		return snprintf(why, n, "out of memory"), -1;
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
		if (b - a >= EXSIM_MAX_DROP_SEQS - cnt) {
			free(v);
			return snprintf(why, n, "holds more than %d sequence numbers",
					EXSIM_MAX_DROP_SEQS), -1;
		}
		for (i = a; i <= b; i++)
			v[cnt++] = i;
		if (!*p)
			break;
		if (*p++ != ',')
			goto bad_list;
	}
	qsort(v, cnt, sizeof(*v), cmp_u64);
	for (i = k = 0; i < cnt; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	c->drop_seqs = v;
	c->ndrop_seqs = k;
	return 0;
bad_list:
	free(v);
	return snprintf(why, n, "wants sequence numbers (from 1) N or A-B, comma-separated"), -1;
}

static int drop_seqs(void *cfg, const char *list, char *why, size_t n)
{
	return seq_list(&((struct exsim_cfg *)cfg)->fa, list, why, n);
}

static int b_drop_seqs(void *cfg, const char *list, char *why, size_t n)
{
	return seq_list(&((struct exsim_cfg *)cfg)->fb, list, why, n);
}

/* --line-b GROUP:PORT */
static int line_b(void *cfg, const char *a, char *why, size_t n)
{
	struct exsim_cfg *c = cfg;
	uint32_t ip;
	uint16_t port;

	if (opt_parse_ip_port(a, &ip, &port))
		return snprintf(why, n, "wants GROUP:PORT"), -1;
	c->line_b.sin_family = AF_INET;
	c->line_b.sin_addr.s_addr = htonl(ip);
	c->line_b.sin_port = htons(port);
	return 0;
}

static int hostile_classes(void *cfg, const char *a, char *why, size_t n)
{
	const char *which = NULL;

	if (hostile_parse_classes(a, &((struct exsim_cfg *)cfg)->hostile_mask, &which))
		return snprintf(why, n, "has an unknown class '%s' (see --help)", which), -1;
	return 0;
}

/* --login USER:PASSWORD, repeatable: the first one given replaces the default. */
static int login(void *cfg, const char *a, char *why, size_t n)
{
	struct exsim_cfg *c = cfg;
	struct soup_account *acct;

	if (c->nlogins == SOUP_SRV_USERS)
		return snprintf(why, n, "names more than %d accounts", SOUP_SRV_USERS), -1;
	acct = &c->logins[c->nlogins];
	if (soup_parse_login(a, acct->user, acct->password))
		return snprintf(why, n, "wants USER:PASSWORD, 1-6 and 0-10 printable "
				"characters, no spaces"), -1;
	for (unsigned int i = 0; i < c->nlogins; i++)
		if (!memcmp(c->logins[i].user, acct->user, SOUP_USER_LEN))
			return snprintf(why, n, "names that user twice"), -1;
	c->nlogins++;
	return 0;
}

static int soup_session(void *cfg, const char *a, char *why, size_t n)
{
	struct exsim_cfg *c = cfg;

	if (!*a || soup_parse_session(a, c->soup_session))
		return snprintf(why, n, "wants 1-10 printable characters, no spaces"), -1;
	c->soup_session_set = true;
	return 0;
}

static int drop_after(void *cfg, const char *a, char *why, size_t n)
{
	return soup_fault_parse_after(&((struct exsim_cfg *)cfg)->soup_fault, a, why, n);
}

static int late_replies(void *cfg, const char *a, char *why, size_t n)
{
	return soup_fault_parse_late(&((struct exsim_cfg *)cfg)->soup_fault, a, why, n);
}

static int drop_at(void *cfg, const char *a, char *why, size_t n)
{
	return soup_fault_parse_at(&((struct exsim_cfg *)cfg)->soup_fault, a, why, n);
}

void exsim_cfg_free(struct exsim_cfg *c)
{
	free(c->fa.drop_seqs);
	free(c->fb.drop_seqs);
	c->fa.drop_seqs = c->fb.drop_seqs = NULL;
	c->fa.ndrop_seqs = c->fb.ndrop_seqs = 0;
}

static int cpu_opt(void *cfg, const char *a, char *why, size_t n)
{
	struct exsim_cfg *c = cfg;
	char *end;
	long v;

	if (!strcmp(a, "auto")) {
		c->cpu = EXSIM_CPU_AUTO;
		return 0;
	}
	if (!strcmp(a, "any")) {
		c->cpu = EXSIM_CPU_ANY;
		return 0;
	}
	v = strtol(a, &end, 10);
	if (end == a || *end || v < 0 || v > 4095)
		return snprintf(why, n, "wants a CPU number, auto or any"), -1;
	c->cpu = (int)v;
	return 0;
}

static const struct opt opts[] = {
	OPT_SECTION("Feed:"),
	OPT("feed", 0, OPT_INADDR, X(feed.sin_addr), "ADDR",
	    "destination: a multicast group or a unicast IPv4 address"),
	OPT("feed-port", 0, OPT_NPORT, X(feed.sin_port), "PORT", "destination UDP port"),
	OPT("mcast-if", 0, OPT_INADDR, X(mcast_if), "ADDR",
	    "source interface address for multicast (default: the route to the group)"),
	OPT("ttl", 0, OPT_INT, X(ttl), "N", "multicast TTL", .min = 1, .max = 255),
	OPT("session", 0, OPT_CALL, 0, "ID", "MoldUDP64 session, 1-10 letters/digits",
	    .call = session, .def = EXSIM_DEFAULT_SESSION),
	OPT("source", 0, OPT_CALL, 0, "day|gbm",
	    "day: a generated day (book/daygen) at --rate messages/s, fills against its "
	    "book; gbm: trade prints of GBM prices at --rate ticks/s, fills at the last "
	    "print (README, \"Sources\")", .call = source, .def = "day"),
	OPT("symbols", 0, OPT_STR, X(symbols_arg), "LIST|K",
	    "comma-separated symbols, 1-8 of [A-Z0-9.] each; locates 1..n in that order "
	    "(gbm: ticks go round-robin); or, for the day and --gen-day, a count K "
	    "(AAPL, MSFT, NVDA, ... as the generator names them); with --replay: only "
	    "these symbols' session, renumbered", .def = "AAPL; all with --replay"),
	OPT("seed", 0, OPT_U64, X(seed), "S",
	    "seed of the generated day; GBM: symbol i (0-based) uses seed + i"),
	OPT("prices", 0, OPT_STR, X(prices_path), "FILE",
	    "trade prices from FILE (one Price(4) integer per line, as 't2t-backtest --gen' "
	    "writes) instead of GBM; one symbol"),
	OPT("stamp", 0, OPT_ENUM, X(stamp_mono), "tod|mono",
	    "the ITCH and OUCH timestamps: nanoseconds since midnight (UTC), as a real "
	    "exchange stamps them, or this host's CLOCK_MONOTONIC send time (low 48 "
	    "bits) for wire-to-wire on the rig; a gateway must be told the same "
	    "(t2t-gateway --feed-clock)", .choices = stamps),
	OPT("noise", 0, OPT_DOUBLE, X(noise), "F",
	    "gbm: mean non-trade messages (A F C X D U, none of them a print) per trade, "
	    "fractions allowed",
	    .max = EXSIM_MAX_NOISE, .def = "0"),
	OPT_SECTION("Replay (a Nasdaq BinaryFILE day, gzip or plain):"),
	OPT("replay", 0, OPT_STR, X(replay_path), "FILE",
	    "publish FILE's messages with their bytes and timestamps: message n at start + "
	    "(ts[n] - ts[1]) / --speed"),
	OPT("speed", 0, OPT_CALL, 0, "X|max", "pace times X, or as fast as it goes",
	    .call = speed, .def = "1"),
	OPT("replay-until", 0, OPT_U64, X(replay_until_s), "SECONDS",
	    "a slice from the file's start: the first message stamped after this time of "
	    "day (seconds after midnight; 36000 = 10:00) ends the session there",
	    .min = 1, .max = 86400),
	OPT("window", 0, OPT_U64, X(window), "N",
	    "sequence numbers whose messages (re-requests) and send times (order tokens) "
	    "are kept; older ones are forgotten", .min = 1024, .max = UINT64_C(1) << 31,
	    .def = "4194304"),
	OPT("book-orders", 0, OPT_U32, X(book_orders), "N",
	    "live orders the book of the published day holds; adds beyond are dropped "
	    "and counted", .min = 1, .max = BOOK_MAX_ORDERS,
	    .def = "2097152; the day source: its messages, up to that"),
	OPT_SECTION("Generation (write a day file and exit):"),
	OPT("gen-day", 0, OPT_STR, X(gen_day_path), "FILE",
	    "write a synthetic day (book/daygen) of --messages messages, --symbols K (or a "
	    "list), --seed, to FILE (gzip when it ends in .gz), print a summary, exit"),
	OPT("messages", 0, OPT_U64, X(gen_messages), "N", "messages of the day --gen-day writes",
	    .min = 1, .max = UINT32_MAX - 1),
	OPT("day-seconds", 0, OPT_DOUBLE, X(day_seconds), "S",
	    "length of the day --gen-day writes, from 09:30", .min = 0.001, .max = 52200,
	    .def = "23400"),
	OPT_SECTION("Rate:"),
	OPT("rate", 0, OPT_DOUBLE, X(rate), "R",
	    "the day's messages (gbm: ticks) per second, fractions allowed; 0 = as fast "
	    "as possible", .max = 1e9, .def = "1000"),
	OPT("burst", 0, OPT_U32, X(burst), "N",
	    "N units (messages, gbm: ticks) due at once, then a pause that keeps the "
	    "average at --rate",
	    .min = 1, .max = 1000000),
	OPT("count", 0, OPT_CALL, 0, "N", "messages in the day (gbm: ticks) to publish "
	    "(default 10000, or from --duration)", .call = count),
	OPT("duration", 0, OPT_DOUBLE, X(duration_s), "S",
	    "publish for S seconds (rate x S ticks; with --rate 0 at most --count, "
	    "default 20000000)", .min = 0.001, .max = 86400),
	OPT("max-per-packet", 0, OPT_U32, X(max_per_packet), "N",
	    "at most N ticks per packet (default: as many as the 1472-byte MTU budget "
	    "holds); a packet carries the ticks due at its send time", .min = 1, .max = 1000),
	OPT("spin-us", 0, OPT_CALL, 0, "US",
	    "busy-wait (still serving orders) this long before a send, sleep before that "
	    "(a VM's sleeps overshoot by milliseconds; 0 = always sleep)", .call = spin_us,
	    .def = "20000"),
	OPT("wait-login", 0, OPT_U32, X(wait_login_ms), "MS",
	  "start the session (its first message, then --warmup) only once a client has "
	  "logged in to the order port and acknowledged its Login Accepted, or MS later: "
	  "a rig's harness starts the gateway first", .max = 600000),
	OPT("warmup", 0, OPT_U32, X(warmup_ms), "MS",
	    "pause between the directory and the first tick"),
	OPT("linger", 0, OPT_U32, X(linger_ms), "MS", "keep serving orders after the last tick"),
	OPT("grace", 0, OPT_U32, X(grace_ms), "MS",
	    "keep serving orders after the feed's end of session; then the order session's "
	    "End of Session"),
	OPT("after-end", 0, OPT_U32, X(after_end_ms), "MS",
	    "keep the order port open after its End of Session: a login is answered with the "
	    "replies it asks for, then End of Session; an order is ignored and counted",
	    .max = 600000),
	OPT("heartbeat", 0, OPT_U32, X(heartbeat_ms), "MS", "heartbeat after this much idle time",
	    .min = 1),
	OPT_SECTION("Orders (OUCH 4.2 in a SoupBinTCP 3.0 session over TCP):"),
	OPT("order-addr", 0, OPT_INADDR, X(order.sin_addr), "ADDR",
	    "address the order port binds to", .def = "0.0.0.0"),
	OPT("order-port", 0, OPT_NPORT, X(order.sin_port), "PORT",
	    "TCP port of the order session: OUCH 4.2 in SoupBinTCP 3.0"),
	OPT("max-shares", 0, OPT_U32, X(max_shares), "N", "larger orders are rejected 'Z'",
	    .min = 1),
	OPT("login", 0, OPT_CALL, 0, "USER:PASSWORD",
	    "an account of the session (at most 6 and 10 characters); repeat it for "
	    "up to 4, each with a session (numbering, store, tokens) of its own",
	    .call = login, .def = EXSIM_DEFAULT_LOGIN),
	OPT("soup-session", 0, OPT_CALL, 0, "ID",
	    "the SoupBinTCP session a login may name (blank names it too)",
	    .call = soup_session, .def = "--session, left padded"),
	OPT("soup-heartbeat", 0, OPT_MS, X(soup_hb_ns), "MS",
	    "Server Heartbeat after this long with nothing sent on a connection",
	    .min = 1, .max = 600000),
	OPT("soup-timeout", 0, OPT_MS, X(soup_timeout_ns), "MS",
	    "close a connection with nothing received for this long (the contract's 15 s)",
	    .min = 1, .max = 3600000),
	OPT("soup-keep", 0, OPT_U64, X(soup_keep), "N",
	    "sequenced messages each session keeps for replays after a login; older ones "
	    "fall out (counted)", .min = 16, .max = UINT64_C(1) << 28),
	OPT_SECTION("Faults on the order session (SoupBinTCP connections; counted in "
		    "soup.faults):"),
	OPT("drop-after", 0, OPT_CALL, 0, "N[:fin|rst]",
	    "drop every order connection after the Nth sequenced message sent on it "
	    "(replays count), by FIN (default) or RST (once the peer acknowledged all)",
	    .call = drop_after),
	OPT("drop-at", 0, OPT_CALL, 0, "LIST[:fin|rst]",
	    "drop the order connection right after it sends message number S of the "
	    "session, for each S of LIST (comma-separated), once each",
	    .call = drop_at),
	OPT("silent-after", 0, OPT_U64, X(soup_fault.silent_after), "N",
	    "after the Nth sequenced message sent on an order connection send nothing "
	    "more (heartbeats neither) and read nothing; the connection stays open",
	    .min = 1),
	OPT("refuse-login", 0, OPT_FLAG, X(soup_fault.refuse_login), NULL,
	    "reject every login: Login Rejected 'A', then close"),
	OPT("rcvbuf", 0, OPT_U32, X(soup_fault.rcvbuf), "BYTES",
	    "SO_RCVBUF of the order connections (set on the listener: the handshake "
	    "already offers the small window)", .min = 1, .max = 1 << 30),
	OPT("read-pause", 0, OPT_MS, X(soup_fault.read_pause_ns), "MS",
	    "after each read of an order connection, read it again only MS later "
	    "(with --rcvbuf the client's window reaches zero)", .max = 60000),
	OPT("late-replies", 0, OPT_CALL, 0, "PCT:MS",
	    "PCT % of the orders hold their connection's replies (theirs and those after) "
	    "for MS: a matching engine that sometimes answers late (--fault-seed)",
	    .call = late_replies),
	OPT_SECTION("Re-requests (MoldUDP64, unicast answers from the published messages):"),
	OPT("rerequest-port", 0, OPT_CALL, 0, "P",
	    "UDP port of the re-request server, at --order-addr (0 = off)", .call = rereq_port,
	    .def = "26403"),
	OPT("rerequest-answer", 0, OPT_ENUM, X(rereq_all), "one|all",
	    "one packet per request, as real servers answer, or every message asked for, "
	    "in as many packets as it takes", .choices = answers),
	OPT("rerequest-max", 0, OPT_U32, X(rereq_max), "N", "messages served per request at most",
	    .min = 1, .max = MOLD_COUNT_MAX),
	OPT("rerequest-rate", 0, OPT_DOUBLE, X(rereq_rate), "R",
	    "token bucket: messages per second (0 = unlimited); a request the bucket "
	    "cannot cover is refused whole", .max = 1e9),
	OPT("rerequest-burst", 0, OPT_U32, X(rereq_burst), "N", "bucket size in messages",
	    .min = 1, .max = 100000000),
	OPT_SECTION("Faults on the feed (tick packets; sequence numbers, store and record as usual):"),
	OPT("drop-rate", 0, OPT_DOUBLE, X(fa.drop_rate), "P", "drop this fraction of tick packets",
	    .max = 1),
	OPT("drop-burst", 0, OPT_U32, X(fa.drop_burst), "N",
	    "losses come N tick packets in a row, the fraction lost staying --drop-rate",
	    .min = 1, .max = 100000),
	OPT("dup-rate", 0, OPT_DOUBLE, X(fa.dup_rate), "P", "send this fraction twice", .max = 1),
	OPT("reorder-rate", 0, OPT_DOUBLE, X(fa.reorder_rate), "P",
	    "hold this fraction and send it after the next packet", .max = 1),
	OPT("drop-seqs", 0, OPT_CALL, 0, "LIST",
	    "drop every data packet holding one of these sequence numbers: N or A-B, "
	    "comma-separated (any data packet)", .call = drop_seqs),
	OPT("fault-seed", 0, OPT_U64, X(fault_seed), "S", "seed of the fault and hostile streams"),
	OPT("fault-log", 0, OPT_STR, X(fault_log_path), "FILE",
	    "every fault and hostile packet: event,seq,count"),
	OPT("delay-us", 0, OPT_U64, X(a_delay_ns), "US",
	    "line A's path: every feed packet leaves this long after it is published "
	    "(its stamp is the publishing time)", .max = 1000000),
	OPT("jitter-us", 0, OPT_U64, X(a_jitter_ns), "US",
	    "... plus a uniform random delay up to this (never overtaking)", .max = 1000000),
	OPT_SECTION("A second feed line (B): every feed packet also goes to another group, "
		    "with faults of its own:"),
	OPT("line-b", 0, OPT_CALL, 0, "GROUP:PORT",
	    "publish line B to GROUP:PORT (routed by the rig over its second veth)",
	    .call = line_b),
	OPT("b-drop-rate", 0, OPT_DOUBLE, X(fb.drop_rate), "P", "line B: drop this fraction",
	    .max = 1),
	OPT("b-drop-burst", 0, OPT_U32, X(fb.drop_burst), "N",
	    "line B: losses come N packets in a row (same fraction)", .min = 1, .max = 100000),
	OPT("b-dup-rate", 0, OPT_DOUBLE, X(fb.dup_rate), "P", "line B: send this fraction twice",
	    .max = 1),
	OPT("b-reorder-rate", 0, OPT_DOUBLE, X(fb.reorder_rate), "P",
	    "line B: send this fraction after the next packet", .max = 1),
	OPT("b-drop-seqs", 0, OPT_CALL, 0, "LIST",
	    "line B: drop every data packet holding one of these sequence numbers",
	    .call = b_drop_seqs),
	OPT("b-delay-us", 0, OPT_U64, X(b_delay_ns), "US",
	    "line B's copy leaves this long after line A's", .max = 1000000),
	OPT("b-jitter-us", 0, OPT_U64, X(b_jitter_ns), "US",
	    "... plus a uniform random delay up to this", .max = 1000000),
	OPT("hostile", 0, OPT_DOUBLE, X(hostile_per_1000), "F",
	    "F hostile packets per 1000 tick packets", .max = 1000),
	OPT("hostile-classes", 0, OPT_CALL, 0, "L",
	    "'all' or a comma-separated list of short_packet, block_overrun, "
	    "count_too_high, count_too_low, zero_length_block, bad_length, unknown_type, "
	    "random, truncated_frame, bad_checksum, other_port, other_address (README)",
	    .call = hostile_classes, .def = "all"),
	OPT("junk-first", 0, OPT_U32, X(junk_first), "N",
	    "before the session's first packet, N junk packets: random bytes and "
	    "well-formed packets of another session", .max = 10000),
	OPT("spoof-from", 0, OPT_INADDR, X(spoof_from), "ADDR",
	    "before the session, a packet of it at sequence 1 with a false directory, "
	    "sent from ADDR (an address here)"),
	OPT("stale-end-at", 0, OPT_U64, X(stale_end_at), "K",
	    "after tick packet K, an end of session 100 messages behind (an old one); "
	    "the session goes on", .min = 1),
	OPT("far-heartbeat-at", 0, OPT_U64, X(far_heartbeat_at), "K",
	    "after tick packet K, a heartbeat announcing a number a million messages ahead",
	    .min = 1),
	OPT_SECTION("Output:"),
	OPT("record", 0, OPT_STR, X(record_path), "FILE",
	    "every published tick: seq,symbol,locate,price,shares,send_ns"),
	OPT("orders-log", 0, OPT_STR, X(orders_log_path), "FILE",
	    "every order received, CSV (see README)"),
	OPT("json", 0, OPT_STR, X(json_path), "FILE", "the summary as JSON"),
	OPT("cpu", 0, OPT_CALL, 0, "N|auto|any",
	    "pin to CPU N; auto: the lowest CPU no running gateway's (or floor's) hot "
	    "loop spins on, said at start; any: not pinned", .call = cpu_opt, .def = "auto"),
	OPT("host-netns", 0, OPT_FLAG, X(host_netns), NULL,
	    "allow a multicast feed outside a named network namespace (refused by "
	    "default: it would leave on the host's own network, not the rig's veth)"),
	OPT("quiet", 'q', OPT_FLAG, X(quiet), NULL, "no progress line on a terminal"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-exsim",
	.usage = "[options]",
	.about =
"Exchange simulator for the test rig: publishes a MoldUDP64 / ITCH 5.0 feed\n"
"(a generated day, GBM trade prints, or a day file replayed) and serves\n"
"OUCH 4.2 orders in a SoupBinTCP 3.0 session over TCP with paper fills.  Run\n"
"it inside the exchange namespace:\n"
"  ip netns exec <prefix>-ex build/t2t-exsim --count 10000 --rate 1000\n"
"  ip netns exec <prefix>-ex build/t2t-exsim --replay DAY.gz --speed 10 --symbols AAPL\n"
"  build/t2t-exsim --gen-day day.gz --messages 1000000 --symbols 20 --seed 1\n",
	.more =
"The ITCH timestamp of every live message is taken just before its packet is\n"
"sent (--stamp: time of day, or CLOCK_MONOTONIC on the rig); a replay keeps\n"
"the file's timestamps.\n"
"SIGINT/SIGTERM end the run early: end of session is sent, the summary printed.\n"
"Exit status: 0 ok, 1 runtime error, 2 bad usage.\n",
	.opts = opts,
};

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
	c->speed = 1;
	c->seed = 42;
	c->rate = -1;		/* 1000, unless a replay (which has none) */
	c->burst = 1;
	c->count = EXSIM_DEFAULT_COUNT;
	c->warmup_ms = 100;
	c->linger_ms = 300;
	c->grace_ms = 100;
	c->heartbeat_ms = 1000;
	c->spin_ns = 20000000;
	c->max_shares = 1000000;
	c->soup_hb_ns = SOUP_HEARTBEAT_NS;
	c->soup_timeout_ns = SOUP_TIMEOUT_NS;
	c->soup_keep = SOUP_STORE_DEFAULT;
	c->cpu = EXSIM_CPU_AUTO;
	c->rereq_port = EXSIM_DEFAULT_REREQ_PORT;
	c->rereq_max = EXSIM_REREQ_MAX_COUNT;
	c->rereq_rate = EXSIM_REREQ_RATE;
	c->rereq_burst = EXSIM_REREQ_BURST;
	c->fault_seed = 1;
	c->hostile_mask = HOSTILE_ALL;
}

/* --symbols for the source: a list, or a count K of generated names. */
static int parse_symbols(struct exsim_cfg *c)
{
	const char *a = c->symbols_arg;
	unsigned int cap = c->source == EXSIM_SRC_GBM ? EXSIM_MAX_SYMBOLS : EXSIM_MAX_LIST;
	char why[128];
	uint64_t k;
	int n;

	if (!a) {
		if (c->source == EXSIM_SRC_REPLAY)
			return 0;	/* the whole day */
		a = "AAPL";
	}
	if (a[0] >= '0' && a[0] <= '9' && !opt_parse_u64(a, 0, UINT64_MAX, &k)) {
		if (c->source != EXSIM_SRC_DAY && !c->gen_day_path)
			return opt_error(&prog, "--symbols %s: a count goes with the day source "
					 "and --gen-day; name the symbols", a), -1;
		if (k < 1 || k > DAYGEN_MAX_SYMBOLS)
			return opt_error(&prog, "--symbols %s: 1 to %d symbols", a,
					 DAYGEN_MAX_SYMBOLS), -1;
		c->nsym = (unsigned int)k;
		return 0;
	}
	n = itch_parse_symbols(a, c->symbols, cap, why, sizeof(why));
	if (n < 0)
		return opt_error(&prog, "--symbols %s", why), -1;
	c->nsym = (unsigned int)n;
	c->symbols_named = true;
	return 0;
}

/* What a replay cannot take: its messages and pace are the file's. */
static int replay_checks(struct exsim_cfg *c)
{
	const char *bad = c->source_set ? "--source" : c->prices_path ? "--prices" :
			  c->rate >= 0 ? "--rate" : c->burst > 1 ? "--burst" :
			  c->count_set ? "--count" : c->duration_s > 0 ? "--duration" :
			  c->noise > 0 ? "--noise" : NULL;

	if (bad)
		return opt_error(&prog, "%s does not go with --replay (the file sets the "
				 "messages and their pace: --speed)", bad), -1;
	c->source = EXSIM_SRC_REPLAY;
	c->rate = 0;		/* the pace is the file's */
	if (!c->window)
		c->window = EXSIM_REPLAY_WINDOW;
	return 0;
}

/* The session attacks and hostile packets reuse the GBM session's opening. */
static int gbm_only_checks(const struct exsim_cfg *c)
{
	const char *bad = c->hostile_per_1000 > 0 ? "--hostile" :
			  c->junk_first ? "--junk-first" :
			  c->spoof_from.s_addr ? "--spoof-from" :
			  c->stale_end_at ? "--stale-end-at" :
			  c->far_heartbeat_at ? "--far-heartbeat-at" : NULL;

	if (bad && c->source != EXSIM_SRC_GBM)
		return opt_error(&prog, "%s goes with --source gbm (it reuses that session's "
				 "opening and symbols)", bad), -1;
	return 0;
}

/* --gen-day writes a day file and publishes nothing. */
static int gen_day_checks(struct exsim_cfg *c)
{
	if (c->replay_path)
		return opt_error(&prog, "--gen-day writes a day; --replay publishes one: "
				 "one at a time"), -1;
	if (!c->gen_messages)
		return opt_error(&prog, "--gen-day needs --messages N"), -1;
	return parse_symbols(c);
}

/* A live source (day or gbm): the replay's options are not for it. */
static int live_checks(struct exsim_cfg *c)
{
	if (c->window)
		return opt_error(&prog, "--window goes with --replay (a live run keeps "
				 "every message)"), -1;
	if (c->speed != 1)
		return opt_error(&prog, "--speed goes with --replay (live: --rate)"), -1;
	if (c->replay_until_s)
		return opt_error(&prog, "--replay-until goes with --replay"), -1;
	if (c->prices_path) {
		if (c->source_set && c->source != EXSIM_SRC_GBM)
			return opt_error(&prog, "--prices goes with --source gbm"), -1;
		c->source = EXSIM_SRC_GBM;
	}
	if (c->rate < 0)
		c->rate = 1000;
	return 0;
}

/* The options only one source takes, then the symbols. */
static int source_checks(struct exsim_cfg *c)
{
	if (c->noise > 0 && c->source != EXSIM_SRC_GBM)
		return opt_error(&prog, "--noise goes with --source gbm (a day has its own "
				 "mix)"), -1;
	if (c->book_orders && c->source == EXSIM_SRC_GBM)
		return opt_error(&prog, "--book-orders: the gbm source keeps no book"), -1;
	if (gbm_only_checks(c) || parse_symbols(c))
		return -1;
	return 0;
}

/* The feed's address, --prices' one symbol, the pace. */
static int feed_checks(struct exsim_cfg *c)
{
	c->feed_mcast = IN_MULTICAST(ntohl(c->feed.sin_addr.s_addr));
	if (!c->feed_mcast && (c->feed.sin_addr.s_addr == htonl(INADDR_ANY) ||
			       c->feed.sin_addr.s_addr == htonl(INADDR_BROADCAST)))
		return opt_error(&prog, "--feed: give a multicast group or a unicast host address"), -1;
	if (c->mcast_if.s_addr != htonl(INADDR_ANY) && !c->feed_mcast)
		return opt_error(&prog, "--mcast-if: only meaningful with a multicast --feed"), -1;
	if (c->prices_path && c->nsym != 1)
		return opt_error(&prog, "--prices: the file holds one series; give one symbol "
				 "(--symbols)"), -1;
	if (c->burst > 1 && c->rate == 0)
		return opt_error(&prog, "--burst: needs a --rate (bursts keep an average rate)"), -1;
	if (c->rate > 0 && c->rate < 0.01)
		return opt_error(&prog, "--rate: below 0.01 ticks per second"), -1;
	return 0;
}

/* The re-request server, and what --hostile needs of --drop-seqs. */
static int rereq_checks(const struct exsim_cfg *c)
{
	if (c->rereq_port && c->rereq_rate > 0 && c->rereq_burst < c->rereq_max)
		return opt_error(&prog, "--rerequest-burst %u is below --rerequest-max %u: a full "
				 "request could never be served", c->rereq_burst, c->rereq_max), -1;
	if (c->rereq_port && (c->rereq_port == ntohs(c->order.sin_port)))
		return opt_error(&prog, "--rerequest-port %u is the order port", c->rereq_port), -1;
	if (c->hostile_per_1000 > 0 && c->fa.ndrop_seqs &&
	    c->fa.drop_seqs[0] <= 3 + c->nsym)
		return opt_error(&prog, "--drop-seqs %llu with --hostile: the hostile packets "
				 "reuse the session's opening (sequence numbers 1..%u), which must "
				 "not be lost", (unsigned long long)c->fa.drop_seqs[0], 3 + c->nsym), -1;
	return 0;
}

/* Line B: its faults need it, its address is not the feed's; units, seeds. */
static int line_b_checks(struct exsim_cfg *c)
{
	if (!c->line_b.sin_port && (c->fb.drop_rate > 0 || c->fb.dup_rate > 0 ||
				     c->fb.reorder_rate > 0 || c->fb.ndrop_seqs || c->b_delay_ns ||
				     c->b_jitter_ns))
		return opt_error(&prog, "the --b-... faults need --line-b GROUP:PORT"), -1;
	if (c->line_b.sin_port && c->line_b.sin_addr.s_addr == c->feed.sin_addr.s_addr &&
	    c->line_b.sin_port == c->feed.sin_port)
		return opt_error(&prog, "--line-b must differ from the feed's address"), -1;
	/* Microseconds on the command line, nanoseconds inside. */
	c->a_delay_ns *= 1000;
	c->a_jitter_ns *= 1000;
	c->b_delay_ns *= 1000;
	c->b_jitter_ns *= 1000;
	/* Line B's streams are its own: same --fault-seed, other numbers. */
	c->fa.seed = c->fault_seed;
	c->fb.seed = c->fault_seed ^ UINT64_C(0x6c696e652d62);
	return 0;
}

/* The default account, and the feed's session id as the order session's. */
static void order_session_checks(struct exsim_cfg *c)
{
	char id[MOLD_SESSION_LEN + 1];
	int n = MOLD_SESSION_LEN;

	if (!c->nlogins) {
		soup_parse_login(EXSIM_DEFAULT_LOGIN, c->logins[0].user, c->logins[0].password);
		c->nlogins = 1;
	}
	if (c->soup_session_set)
		return;
	while (n > 0 && c->session[n - 1] == ' ')
		n--;
	memcpy(id, c->session, (size_t)n);
	id[n] = '\0';
	soup_pad_left(c->soup_session, SOUP_SESSION_LEN, id);
}

int exsim_parse_args(struct exsim_cfg *c, int argc, char **argv)
{
	int ret;

	defaults(c);
	ret = opt_parse(&prog, c, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 1 : -1;
	if (c->gen_day_path)
		return gen_day_checks(c);
	order_session_checks(c);
	if (c->gen_messages || c->day_seconds > 0)
		return opt_error(&prog, "--messages and --day-seconds go with --gen-day "
				 "(the live day: --count, --rate)"), -1;
	if (c->replay_path ? replay_checks(c) : live_checks(c))
		return -1;
	if (source_checks(c) || feed_checks(c) || rereq_checks(c))
		return -1;
	if (!c->count_set && c->duration_s > 0)
		c->count = c->rate > 0 ? 0 : EXSIM_RATE0_TICK_CAP;
	return line_b_checks(c);
}
