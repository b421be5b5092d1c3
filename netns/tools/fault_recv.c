// SPDX-License-Identifier: MIT
/*
 * fault_recv: a tolerant MoldUDP64 / ITCH 5.0 receiver for the fault tests.
 *
 *   fault_recv [options] ADDR PORT [IFADDR]
 *
 * Where feed_recv fails at the first anomaly, this one counts them and goes
 * on, and can fill gaps from the simulator's re-request server:
 *  - every packet is checked for structure first (mold_check.h), old ones
 *    included, and a malformed one is counted by class and discarded whole;
 *  - a packet of another session than the first one (or --session) is
 *    counted foreign and discarded;
 *  - well-formed data packets are sequenced against what was received:
 *    in_order, gap (starts beyond the highest number seen: gap_msgs skipped),
 *    late (fills a hole below it: reordered or delayed), dup (nothing new);
 *    a message seen twice must have the same bytes (else mismatch);
 *  - with --rerequest, a hole older than --fill-after-ms is asked for (the
 *    spec's 20-byte request, at most --request-max messages each) from a
 *    socket of its own, and asked again after the same time while missing;
 *    answers are counted apart (fill_*).
 * It reads to the first end of session, then with --rerequest goes on until
 * every message before it is there or --linger-ms passed.  It prints
 * key=value lines and result=ok (exit 0) or result=FAIL (exit 1): FAIL on
 * timeout, no end of session, a mismatch, a message beyond --max-seq, with
 * --expect-complete any message missing, with --expect-trades N another
 * count.  Exit 2: usage or socket error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/mold_check.h"
#include "netns/tools/tool_util.h"
#include "proto/be.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

#define DGRAM_MAX	2048
#define RCVBUF		(64 << 20)
#define MAX_REQ_PER_SCAN 256

static const char usage[] =
"Usage: fault_recv [options] ADDR PORT [IFADDR]\n"
"  --timeout-ms T      fail after T ms without a datagram (default 3000)\n"
"  --max-ms T          fail after T ms in all (default 120000)\n"
"  --session ID        the session (default: the first seen); others are foreign\n"
"  --max-seq N         highest sequence number kept (default 4194304)\n"
"  --rerequest A:P     fill gaps from the re-request server at A:P\n"
"  --fill-after-ms T   ask for a hole this old, again after as long (default 20)\n"
"  --request-max N     messages per request (default 2000)\n"
"  --linger-ms T       after end of session, fill for at most T ms (default 3000)\n"
"  --expect-complete   fail unless every message before end of session is there\n"
"  --expect-trades N   fail unless exactly N distinct trades arrived\n"
"  --trades FILE       trades in sequence order, exsim's --record format\n"
"  --dump FILE         every message in sequence order: seq,hex\n"
"  --arrivals FILE     every message the feed brought, in sequence order:\n"
"                      seq,arrival_ns,itch_ts (CLOCK_MONOTONIC when read; the\n"
"                      message's 48-bit timestamp), for pacing checks\n";

enum { SRC_FEED, SRC_FILL };

struct state {
	char session[MOLD_SESSION_LEN];
	bool have_session;
	uint64_t max_seq;
	uint8_t *have;		/* [seq]: 0 missing, 1 from the feed, 2 by fill */
	uint64_t *off;		/* [seq]: offset in arena */
	uint16_t *len;
	uint32_t *noticed;	/* [seq]: ms (+1) a hole was first seen */
	uint32_t *asked;	/* [seq]: ms (+1) it was last asked for */
	uint64_t *arrive;	/* [seq]: when the feed brought it (--arrivals) */
	uint64_t now;		/* the datagram being read arrived */
	uint8_t *arena;
	size_t arena_len, arena_cap;
	uint64_t hi;		/* 1 + highest sequence number known to exist */
	uint64_t lo;		/* lowest not yet had */
	uint64_t end_seq;
	bool ended, overflow;

	uint64_t datagrams, foreign, defects[MOLD_NDEFECTS];
	uint64_t data_packets, heartbeats, end_of_session;
	uint64_t in_order, gap_events, gap_msgs, late_packets, late_msgs;
	uint64_t dup_packets, dup_msgs, mismatch;
	uint64_t feed_msgs, trades;
	uint64_t max_datagram, max_count;	/* the largest data packet: bytes, messages */
	uint64_t requests, fill_datagrams, fill_packets, fill_msgs, fill_dup_msgs;
};

static int parse_hostport(const char *s, struct sockaddr_in *a)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	uint16_t port;

	if (!colon || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &a->sin_addr) != 1 ||
	    tool_parse_port(colon + 1, &port))
		return -1;
	a->sin_port = htons(port);
	return 0;
}

static int open_fill(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0) {
		perror("fault_recv: socket");
		return -1;
	}
	tool_set_rcvbuf(fd, RCVBUF);
	return fd;
}

static int alloc_state(struct state *st)
{
	uint64_t n = st->max_seq + 2;

	st->have = calloc(n, 1);
	st->off = calloc(n, sizeof(*st->off));
	st->len = calloc(n, sizeof(*st->len));
	st->noticed = calloc(n, sizeof(*st->noticed));
	st->asked = calloc(n, sizeof(*st->asked));
	st->arena_cap = 1 << 20;
	st->arena = malloc(st->arena_cap);
	st->hi = st->lo = 1;
	return st->have && st->off && st->len && st->noticed && st->asked && st->arena ? 0 : -1;
}

static int keep(struct state *st, uint64_t seq, const uint8_t *m, uint16_t n)
{
	if (st->arena_cap - st->arena_len < n) {
		size_t cap = st->arena_cap * 2;
		uint8_t *a = realloc(st->arena, cap);

		if (!a)
			return -1;
		st->arena = a;
		st->arena_cap = cap;
	}
	memcpy(st->arena + st->arena_len, m, n);
	st->off[seq] = st->arena_len;
	st->len[seq] = n;
	st->arena_len += n;
	return 0;
}

/* One datagram from the feed or the fill socket. */
static void packet(struct state *st, const uint8_t *pkt, size_t len, int src)
{
	enum mold_defect d;
	uint64_t seq, s, news = 0, hi0 = st->hi;
	struct mold_iter it;
	const uint8_t *m;
	uint16_t count, n;

	if (src == SRC_FEED)
		st->datagrams++;
	else
		st->fill_datagrams++;
	d = mold_check(pkt, len);
	if (d == MOLD_SHORT_PACKET) {
		st->defects[d]++;
		return;
	}
	if (!st->have_session && src == SRC_FEED) {
		memcpy(st->session, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN);
		st->have_session = true;
	}
	if (!st->have_session || memcmp(st->session, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN)) {
		st->foreign++;
		return;
	}
	if (d != MOLD_WELL_FORMED) {
		st->defects[d]++;
		return;
	}
	seq = be64_load(pkt + MOLD_OFF_SEQ);
	count = be16_load(pkt + MOLD_OFF_COUNT);
	if (count == MOLD_COUNT_HEARTBEAT || count == MOLD_COUNT_END) {
		if (count == MOLD_COUNT_HEARTBEAT) {
			st->heartbeats++;
		} else {
			st->end_of_session++;
			if (!st->ended) {
				st->ended = true;
				st->end_seq = seq;
			}
		}
		if (seq > st->max_seq + 1)
			st->overflow = true;
		else if (seq > st->hi)
			st->hi = seq;
		return;
	}
	if (seq == 0 || seq + count - 1 > st->max_seq) {
		st->overflow = true;
		return;
	}
	/* Well formed: exactly count blocks, the last one ending the packet. */
	mold_iter_init(&it, pkt, len);
	for (s = seq; mold_iter_next(&it, &m, &n) == 1; s++) {
		if (st->have[s]) {
			if (st->len[s] != n || memcmp(st->arena + st->off[s], m, n))
				st->mismatch++;
			continue;
		}
		if (keep(st, s, m, n)) {
			st->overflow = true;
			return;
		}
		st->have[s] = src == SRC_FEED ? 1 : 2;
		if (st->arrive && src == SRC_FEED)
			st->arrive[s] = st->now;
		news++;
		if (m[ITCH_OFF_TYPE] == 'P')
			st->trades++;
	}
	if (seq + count > st->hi)
		st->hi = seq + count;
	if (src == SRC_FILL) {
		st->fill_packets++;
		st->fill_msgs += news;
		st->fill_dup_msgs += count - news;
		return;
	}
	st->data_packets++;
	st->feed_msgs += news;
	if (len > st->max_datagram)
		st->max_datagram = len;
	if (count > st->max_count)
		st->max_count = count;
	if (!news) {
		st->dup_packets++;
		st->dup_msgs += count;
	} else if (seq > hi0) {
		st->gap_events++;
		st->gap_msgs += seq - hi0;
	} else if (seq < hi0) {
		st->late_packets++;
		st->late_msgs += news;
	} else {
		st->in_order++;
	}
}

static void request(struct state *st, int fd, const struct sockaddr_in *srv,
		    uint64_t seq, uint64_t n, uint32_t now_ms)
{
	struct mold_rerequest r = { .seq = seq, .count = (uint16_t)n };
	uint8_t buf[MOLD_REREQ_LEN];
	uint64_t s;

	memcpy(r.session, st->session, MOLD_SESSION_LEN);
	mold_encode_rerequest(buf, sizeof(buf), &r);
	if (sendto(fd, buf, sizeof(buf), 0, (const struct sockaddr *)srv, sizeof(*srv)) < 0)
		return;
	st->requests++;
	for (s = seq; s < seq + n; s++)
		st->asked[s] = now_ms;
}

/* Ask for the holes old enough, and again for those asked long enough ago. */
static void scan(struct state *st, int fd, const struct sockaddr_in *srv,
		 uint32_t now_ms, uint32_t after_ms, uint64_t req_max)
{
	uint64_t s, run = 0, run_n = 0;
	unsigned int sent = 0;

	while (st->lo < st->hi && st->have[st->lo])
		st->lo++;
	for (s = st->lo; s < st->hi && sent < MAX_REQ_PER_SCAN; s++) {
		bool want = false;

		if (!st->have[s]) {
			if (!st->noticed[s])
				st->noticed[s] = now_ms;
			else
				want = now_ms - st->noticed[s] >= after_ms &&
				       (!st->asked[s] || now_ms - st->asked[s] >= after_ms);
		}
		if (want && run_n && run + run_n == s && run_n < req_max) {
			run_n++;
			continue;
		}
		if (run_n) {
			request(st, fd, srv, run, run_n, now_ms);
			sent++;
			run_n = 0;
		}
		if (want) {
			run = s;
			run_n = 1;
		}
	}
	if (run_n)
		request(st, fd, srv, run, run_n, now_ms);
}

static uint64_t missing(const struct state *st, uint64_t upto)
{
	uint64_t s, n = 0;

	for (s = 1; s < upto && s <= st->max_seq; s++)
		n += !st->have[s];
	return n;
}

static void write_hex(FILE *o, const uint8_t *m, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		fprintf(o, "%02x", m[i]);
}

static int write_arrivals(const struct state *st, const char *path, uint64_t upto)
{
	FILE *o = fopen(path, "w");
	uint64_t s;

	if (!o) {
		perror("fault_recv: --arrivals");
		return -1;
	}
	for (s = 1; s < upto && s <= st->max_seq; s++) {
		const uint8_t *m = st->arena + st->off[s];

		if (st->have[s] != 1 || st->len[s] < ITCH_OFF_TIMESTAMP + 6)
			continue;
		fprintf(o, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", s, st->arrive[s],
			be48_load(m + ITCH_OFF_TIMESTAMP));
	}
	return fclose(o) ? -1 : 0;
}

static int write_outputs(const struct state *st, const char *trades, const char *dump,
			 uint64_t upto)
{
	static char symbol[65536][ITCH_SYMBOL_LEN];
	uint64_t s, now = mono_ns();
	FILE *t = NULL, *d = NULL;
	int rc = 0;

	if (trades && !(t = fopen(trades, "w")))
		goto err;
	if (dump && !(d = fopen(dump, "w")))
		goto err;
	if (t)
		fputs(TOOL_TRADES_HEADER, t);
	for (s = 1; s < upto && s <= st->max_seq; s++) {
		const uint8_t *m = st->arena + st->off[s];
		uint16_t n = st->len[s], loc;

		if (!st->have[s])
			continue;
		if (d) {
			fprintf(d, "%" PRIu64 ",", s);
			write_hex(d, m, n);
			fputc('\n', d);
		}
		loc = be16_load(m + ITCH_OFF_LOCATE);
		if (m[0] == 'R')
			memcpy(symbol[loc], m + ITCH_R_OFF_STOCK, ITCH_SYMBOL_LEN);
		if (m[0] != 'P' || !t)
			continue;
		tool_write_trade(t, s, symbol[loc], m, now);
	}
	if (t && fclose(t))
		rc = -1;
	if (d && fclose(d))
		rc = -1;
	return rc;
err:
	perror("fault_recv: output");
	if (t)
		fclose(t);
	return -1;
}

static void report(const struct state *st, uint64_t upto, uint64_t miss_feed,
		   uint64_t miss, bool timed_out)
{
	static const char *const dname[MOLD_NDEFECTS] = {
		"well_formed", "short_packet", "block_overrun", "count_too_high",
		"count_too_low", "zero_length_block", "bad_length", "unknown_type",
	};
	uint64_t malformed = 0;
	int d;

	printf("session=%.10s\ndatagrams=%" PRIu64 "\ndata_packets=%" PRIu64
	       "\nheartbeats=%" PRIu64 "\nend_of_session=%" PRIu64 "\nnext_seq=%" PRIu64
	       "\nforeign=%" PRIu64 "\n", st->session, st->datagrams, st->data_packets,
	       st->heartbeats, st->end_of_session, upto, st->foreign);
	for (d = 1; d < MOLD_NDEFECTS; d++) {
		printf("%s=%" PRIu64 "\n", dname[d], st->defects[d]);
		malformed += st->defects[d];
	}
	printf("malformed=%" PRIu64 "\nin_order=%" PRIu64 "\ngap_events=%" PRIu64
	       "\ngap_msgs=%" PRIu64 "\nlate_packets=%" PRIu64 "\nlate_msgs=%" PRIu64
	       "\ndup_packets=%" PRIu64 "\ndup_msgs=%" PRIu64 "\nmismatch=%" PRIu64
	       "\nfeed_msgs=%" PRIu64 "\nmissing_from_feed=%" PRIu64 "\ntrades=%" PRIu64
	       "\nrequests=%" PRIu64 "\nfill_datagrams=%" PRIu64 "\nfill_packets=%" PRIu64
	       "\nfill_msgs=%" PRIu64 "\nfill_dup_msgs=%" PRIu64 "\nmissing=%" PRIu64
	       "\nmax_datagram=%" PRIu64 "\nmax_count=%" PRIu64
	       "\noverflow=%d\ntimed_out=%d\n", malformed, st->in_order,
	       st->gap_events, st->gap_msgs, st->late_packets, st->late_msgs,
	       st->dup_packets, st->dup_msgs, st->mismatch, st->feed_msgs, miss_feed,
	       st->trades, st->requests, st->fill_datagrams, st->fill_packets,
	       st->fill_msgs, st->fill_dup_msgs, miss, st->max_datagram, st->max_count,
	       st->overflow, timed_out);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "max-ms", required_argument, NULL, 'm' },
		{ "session", required_argument, NULL, 's' },
		{ "max-seq", required_argument, NULL, 'q' },
		{ "rerequest", required_argument, NULL, 'r' },
		{ "fill-after-ms", required_argument, NULL, 'a' },
		{ "request-max", required_argument, NULL, 'x' },
		{ "linger-ms", required_argument, NULL, 'l' },
		{ "expect-complete", no_argument, NULL, 'c' },
		{ "expect-trades", required_argument, NULL, 'n' },
		{ "trades", required_argument, NULL, 'o' },
		{ "dump", required_argument, NULL, 'd' },
		{ "arrivals", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct state st = { .max_seq = 1 << 22 };
	static uint8_t buf[DGRAM_MAX];
	uint64_t timeout_ms = 3000, max_ms = 120000, after_ms = 20, req_max = 2000;
	uint64_t linger_ms = 3000, expect_trades = 0, start, last_rx, ended_at = 0;
	uint64_t last_scan = 0, upto, miss_feed = 0, miss, s;
	const char *trades = NULL, *dump = NULL, *arrivals = NULL;
	bool fill = false, complete = false, have_expect = false, timed_out = false, ok;
	struct sockaddr_in srv;
	uint16_t port;
	int fd, ffd = -1, opt;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 't':
			if (tool_parse_u64(optarg, UINT64_MAX, &timeout_ms) || !timeout_ms)
				goto bad;
			break;
		case 'm':
			if (tool_parse_u64(optarg, UINT64_MAX, &max_ms) || !max_ms)
				goto bad;
			break;
		case 's':
			if (strlen(optarg) > MOLD_SESSION_LEN)
				goto bad;
			mold_session_set(st.session, optarg);
			st.have_session = true;
			break;
		case 'q':
			if (tool_parse_u64(optarg, UINT64_C(1) << 30, &st.max_seq) ||
			    !st.max_seq)
				goto bad;
			break;
		case 'r':
			if (parse_hostport(optarg, &srv))
				goto bad;
			fill = true;
			break;
		case 'a':
			if (tool_parse_u64(optarg, 60000, &after_ms) || !after_ms)
				goto bad;
			break;
		case 'x':
			if (tool_parse_u64(optarg, MOLD_COUNT_MAX, &req_max) || !req_max)
				goto bad;
			break;
		case 'l':
			if (tool_parse_u64(optarg, UINT64_MAX, &linger_ms))
				goto bad;
			break;
		case 'c':
			complete = true;
			break;
		case 'n':
			if (tool_parse_u64(optarg, UINT64_MAX, &expect_trades))
				goto bad;
			have_expect = true;
			break;
		case 'o':
			trades = optarg;
			break;
		case 'd':
			dump = optarg;
			break;
		case 'A':
			arrivals = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (argc - optind < 2 || argc - optind > 3 ||
	    tool_parse_port(argv[optind + 1], &port))
		goto bad;
	if (arrivals)
		st.arrive = calloc(st.max_seq + 2, sizeof(*st.arrive));
	if (alloc_state(&st) || (arrivals && !st.arrive)) {
		fprintf(stderr, "fault_recv: out of memory for --max-seq %" PRIu64 "\n",
			st.max_seq);
		return 2;
	}
	fd = tool_open_feed("fault_recv", argv[optind], port,
			    argc - optind == 3 ? argv[optind + 2] : NULL, SOCK_NONBLOCK, RCVBUF);
	if (fd < 0 || (fill && (ffd = open_fill()) < 0))
		return 2;
	printf("joined\n");
	fflush(stdout);

	start = last_rx = mono_ns();
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = ffd, .events = POLLIN },
		};
		uint64_t now = mono_ns(), wait_ms = timeout_ms;
		int r, k;

		if (now - start >= max_ms * 1000000u ||
		    (!st.ended && now - last_rx >= timeout_ms * 1000000u)) {
			timed_out = true;
			break;
		}
		if (st.ended) {
			while (st.lo < st.end_seq && st.have[st.lo])
				st.lo++;
			if (!fill || st.lo >= st.end_seq)
				break;
			if (now - ended_at >= linger_ms * 1000000u)
				break;
		}
		if (fill)
			wait_ms = after_ms / 2 ? after_ms / 2 : 1;
		r = poll(p, 2, (int)wait_ms);
		if (r < 0 && errno != EINTR) {
			perror("fault_recv: poll");
			return 2;
		}
		for (k = 0; k < 2; k++) {
			ssize_t n;

			if (p[k].fd < 0)
				continue;
			while ((n = recv(p[k].fd, buf, sizeof(buf), 0)) >= 0) {
				last_rx = st.now = mono_ns();
				packet(&st, buf, (size_t)n, k == 0 ? SRC_FEED : SRC_FILL);
				if (st.ended && !ended_at)
					ended_at = last_rx;
			}
		}
		/*
		 * Holes are judged after reading what waits in the sockets: after
		 * a stall, a late packet may already be here, and asking for it
		 * would be a needless request.
		 */
		now = mono_ns();
		if (fill && now - last_scan >= after_ms * 500000u) {
			uint32_t now_ms = (uint32_t)((now - start) / 1000000u) + 1;

			scan(&st, ffd, &srv, now_ms, (uint32_t)after_ms, req_max);
			last_scan = now;
		}
	}
	close(fd);
	if (ffd >= 0)
		close(ffd);

	upto = st.ended ? st.end_seq : st.hi;
	for (s = 1; s < upto && s <= st.max_seq; s++)
		miss_feed += st.have[s] != 1;
	miss = missing(&st, upto);
	report(&st, upto, miss_feed, miss, timed_out);
	if ((trades || dump) && write_outputs(&st, trades, dump, upto))
		return 2;
	if (arrivals && write_arrivals(&st, arrivals, upto))
		return 2;
	ok = st.ended && !timed_out && !st.mismatch && !st.overflow &&
	     (!complete || !miss) && (!have_expect || st.trades == expect_trades);
	printf("result=%s\n", ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
bad:
	fputs(usage, stderr);
	return 2;
}
