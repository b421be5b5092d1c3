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

struct cfg {
	struct tool_rx rx;	/* first: tool_util.h */
	uint64_t max_seq;
	uint32_t rereq_ip;	/* --rerequest, host order; port 0: not given */
	uint16_t rereq_port;
	uint64_t after_ms, req_max, linger_ms;
	bool complete;
	const char *dump, *arrivals;
};
TOOL_RX_FIRST(struct cfg);

#define C(field) OFF(struct cfg, field)

static const struct opt opts[] = {
	TOOL_RX_OPTS(struct cfg, "the session (default: the first seen); others are foreign",
		     "trades in sequence order, t2t-exsim's --record format"),
	OPT("max-seq", 0, OPT_U64, C(max_seq), "N", "highest sequence number kept",
	    .min = 1, .max = 1 << 30),
	OPT("rerequest", 0, OPT_IP_PORT, C(rereq_ip), "A:P",
	    "fill gaps from the re-request server at A:P", .off2 = C(rereq_port)),
	OPT("fill-after-ms", 0, OPT_U64, C(after_ms), "T",
	    "ask for a hole this old, again after as long", .min = 1, .max = 60000),
	OPT("request-max", 0, OPT_U64, C(req_max), "N", "messages per request",
	    .min = 1, .max = MOLD_COUNT_MAX),
	OPT("linger-ms", 0, OPT_U64, C(linger_ms), "T",
	    "after end of session, fill for at most T ms"),
	OPT("expect-complete", 0, OPT_FLAG, C(complete), NULL,
	    "fail unless every message before end of session is there"),
	OPT("dump", 0, OPT_STR, C(dump), "FILE", "every message in sequence order: seq,hex"),
	OPT("arrivals", 0, OPT_STR, C(arrivals), "FILE",
	    "every message the feed brought, in sequence order: seq,arrival_ns,itch_ts "
	    "(CLOCK_MONOTONIC when read; the message's 48-bit timestamp), for pacing checks"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "fault_recv",
	.usage = TOOL_RX_USAGE,
	.about =
"A tolerant MoldUDP64 / ITCH 5.0 receiver for the fault tests: where\n"
"feed_recv fails at the first anomaly, this one counts them (malformed,\n"
"foreign, gaps, late, duplicates, mismatches) and goes on, and with\n"
"--rerequest fills the gaps from the simulator's re-request server.  It reads\n"
"to the first end of session (with --rerequest, until every message before\n"
"it is there or --linger-ms passed), then prints key=value lines and\n"
"result=ok or result=FAIL.\n",
	.more = "Exit status: 0 ok, 1 FAIL (a timeout, no end of session, a mismatch, a\n"
		"message beyond --max-seq, a --expect-* not met), 2 bad usage or a socket\n"
		"error.\n",
	.opts = opts,
};

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

/* A heartbeat or an end of session at @seq: the numbers below it exist. */
static void control(struct state *st, uint64_t seq, uint16_t count)
{
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
}

/*
 * The messages of a well-formed data packet from @seq on: kept where new,
 * compared with the first copy where not.  Returns how many were new, or
 * -1 when the store is full.
 */
static int64_t store(struct state *st, const uint8_t *pkt, size_t len, uint64_t seq, int src)
{
	struct mold_iter it;
	const uint8_t *m;
	int64_t news = 0;
	uint16_t n;

	/* Well formed: exactly count blocks, the last one ending the packet. */
	mold_iter_init(&it, pkt, len);
	for (uint64_t s = seq; mold_iter_next(&it, &m, &n) == 1; s++) {
		if (st->have[s]) {
			if (st->len[s] != n || memcmp(st->arena + st->off[s], m, n))
				st->mismatch++;
			continue;
		}
		if (keep(st, s, m, n))
			return -1;
		st->have[s] = src == SRC_FEED ? 1 : 2;
		if (st->arrive && src == SRC_FEED)
			st->arrive[s] = st->now;
		news++;
		if (m[ITCH_OFF_TYPE] == 'P')
			st->trades++;
	}
	return news;
}

/*
 * What a feed data packet of @len bytes, @count messages from @seq, @news
 * of them new, was: in order, a gap (beyond @hi0, the highest number known
 * before it), late (filling a hole) or a duplicate.
 */
static void classify(struct state *st, size_t len, uint64_t seq, uint16_t count,
		     uint64_t news, uint64_t hi0)
{
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

/* One datagram from the feed or the fill socket. */
static void packet(struct state *st, const uint8_t *pkt, size_t len, int src)
{
	enum mold_defect d;
	uint64_t seq, hi0 = st->hi;
	uint16_t count;
	int64_t news;

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
		control(st, seq, count);
		return;
	}
	news = seq && seq + count - 1 <= st->max_seq ? store(st, pkt, len, seq, src) : -1;
	if (news < 0) {
		st->overflow = true;
		return;
	}
	if (seq + count > st->hi)
		st->hi = seq + count;
	if (src == SRC_FEED) {
		classify(st, len, seq, count, (uint64_t)news, hi0);
		return;
	}
	st->fill_packets++;
	st->fill_msgs += (uint64_t)news;
	st->fill_dup_msgs += count - (uint64_t)news;
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
	static struct tool_trades t;
	uint64_t s, now = mono_ns();
	FILE *d = NULL;
	int rc = 0;

	if (trades && tool_trades_open(&t, prog.name, trades))
		return -1;
	if (dump && !(d = fopen(dump, "w"))) {
		fprintf(stderr, "fault_recv: %s: %s\n", dump, strerror(errno));
		tool_trades_close(&t, prog.name);
		return -1;
	}
	for (s = 1; s < upto && s <= st->max_seq; s++) {
		const uint8_t *m = st->arena + st->off[s];

		if (!st->have[s])
			continue;
		if (d)
			tool_write_hex(d, s, m, st->len[s]);
		tool_trades_msg(&t, s, m, now);
	}
	if (tool_trades_close(&t, prog.name))
		rc = -1;
	if (d && fclose(d)) {
		fprintf(stderr, "fault_recv: %s: %s\n", dump, strerror(errno));
		rc = -1;
	}
	return rc;
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

/*
 * Read the feed (and the fill socket) to the end of session, filling holes
 * when asked.  Returns 0 at the end, 1 on a timeout, -1 when poll failed.
 */
/* Quiet after the end of session before leaving: the copies come back to back. */
#define END_QUIET_NS (20 * 1000000u)

static int receive(struct state *st, const struct cfg *c, int fd, int ffd)
{
	static uint8_t buf[DGRAM_MAX];
	bool fill = ffd >= 0;
	struct sockaddr_in srv = {
		.sin_family = AF_INET, .sin_addr.s_addr = htonl(c->rereq_ip),
		.sin_port = htons(c->rereq_port),
	};
	uint64_t start, last_rx, ended_at = 0, last_scan = 0;

	start = last_rx = mono_ns();
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = ffd, .events = POLLIN },
		};
		uint64_t now = mono_ns(), wait_ms = c->rx.timeout_ms;
		ssize_t n;

		if (now - start >= c->rx.max_ms * 1000000u ||
		    (!st->ended && now - last_rx >= c->rx.timeout_ms * 1000000u))
			return 1;
		if (st->ended) {
			while (st->lo < st->end_seq && st->have[st->lo])
				st->lo++;
			/*
			 * The exchange repeats its end of session: read the
			 * copies still in flight, so that none is left to the
			 * kernel's counters as a packet nobody took.
			 */
			if ((!fill || st->lo >= st->end_seq) &&
			    now - last_rx >= END_QUIET_NS)
				return 0;
			if (now - ended_at >= c->linger_ms * 1000000u)
				return 0;
		}
		if (fill)
			wait_ms = c->after_ms / 2 ? c->after_ms / 2 : 1;
		if (st->ended && wait_ms > 5)
			wait_ms = 5;
		if (poll(p, 2, (int)wait_ms) < 0 && errno != EINTR) {
			perror("fault_recv: poll");
			return -1;
		}
		for (int k = 0; k < 2; k++) {
			if (p[k].fd < 0)
				continue;
			while ((n = recv(p[k].fd, buf, sizeof(buf), 0)) >= 0) {
				last_rx = st->now = mono_ns();
				packet(st, buf, (size_t)n, k == 0 ? SRC_FEED : SRC_FILL);
				if (st->ended && !ended_at)
					ended_at = last_rx;
			}
		}
		/*
		 * Holes are judged after reading what waits in the sockets: after
		 * a stall, a late packet may already be here, and asking for it
		 * would be a needless request.
		 */
		now = mono_ns();
		if (fill && now - last_scan >= c->after_ms * 500000u) {
			uint32_t now_ms = (uint32_t)((now - start) / 1000000u) + 1;

			scan(st, ffd, &srv, now_ms, (uint32_t)c->after_ms, c->req_max);
			last_scan = now;
		}
	}
}

int main(int argc, char **argv)
{
	static struct state st;
	struct cfg c = { .rx = TOOL_RX_DEFAULTS, .max_seq = 1 << 22, .after_ms = 20,
			 .req_max = 2000, .linger_ms = 3000 };
	uint64_t upto, miss_feed = 0, miss, s;
	int fd, ffd = -1, ret, timed_out;
	bool ok;

	ret = tool_rx_parse(&prog, &c, argc, argv);
	if (ret)
		return ret == 1 ? 0 : 2;
	st.have_session = tool_rx_session(&c.rx, st.session);
	st.max_seq = c.max_seq;
	if (c.arrivals)
		st.arrive = calloc(st.max_seq + 2, sizeof(*st.arrive));
	if (alloc_state(&st) || (c.arrivals && !st.arrive)) {
		fprintf(stderr, "fault_recv: out of memory for --max-seq %" PRIu64 "\n",
			st.max_seq);
		return 2;
	}
	fd = tool_rx_open(prog.name, &c.rx, SOCK_NONBLOCK, RCVBUF);
	if (fd < 0)
		return 2;
	if (c.rereq_port && (ffd = tool_udp_socket(prog.name, SOCK_NONBLOCK, RCVBUF)) < 0)
		return 2;
	timed_out = receive(&st, &c, fd, ffd);
	close(fd);
	if (ffd >= 0)
		close(ffd);
	if (timed_out < 0)
		return 2;

	upto = st.ended ? st.end_seq : st.hi;
	for (s = 1; s < upto && s <= st.max_seq; s++)
		miss_feed += st.have[s] != 1;
	miss = missing(&st, upto);
	report(&st, upto, miss_feed, miss, timed_out);
	if ((c.rx.trades || c.dump) && write_outputs(&st, c.rx.trades, c.dump, upto))
		return 2;
	if (c.arrivals && write_arrivals(&st, c.arrivals, upto))
		return 2;
	ok = st.ended && !timed_out && !st.mismatch && !st.overflow &&
	     (!c.complete || !miss) && (!c.rx.have_expect || st.trades == c.rx.expect_trades);
	printf("result=%s\n", ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
}
