// SPDX-License-Identifier: MIT
/*
 * feed_recv: a plain kernel-UDP MoldUDP64 / ITCH 5.0 receiver for tests.
 *
 *   feed_recv [options] ADDR PORT [IFADDR]
 *
 * ADDR is a multicast group (joined on the interface that has IFADDR, or the
 * route's) or a local unicast address to bind.  Prints "joined" once it
 * listens, then reads until the first end-of-session packet, checking that
 * every packet is in sequence from 1 (heartbeats and end of session carry
 * the next expected number), that each message block has its type's ITCH
 * length, that the header counts match the blocks, that the session never
 * changes and that the ITCH timestamps (the simulator's send times) never go
 * back.  At the end it prints key=value lines and exits 0 when all held, 1
 * when not (or on timeout), 2 on a usage or socket error.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns/tools/tool_util.h"
#include "proto/be.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

#define BATCH		64
#define DGRAM_MAX	2048
#define RCVBUF		(64 << 20)

struct cfg {
	struct tool_rx rx;	/* first: tool_util.h */
	bool flush;
};
TOOL_RX_FIRST(struct cfg);

static const struct opt opts[] = {
	TOOL_RX_OPTS(struct cfg, "expect this MoldUDP64 session (default: the first seen)",
		     "write the trades as CSV seq,symbol,locate,price,shares,send_ns "
		     "(t2t-exsim's --record format; send_ns recovered from the 48-bit ITCH "
		     "timestamp with this host's clock)"),
	OPT("flush", 0, OPT_FLAG, OFF(struct cfg, flush), NULL,
	    "flush FILE after every trade (for tests that poll it)"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "feed_recv",
	.usage = TOOL_RX_USAGE,
	.about =
"A plain kernel-UDP MoldUDP64 / ITCH 5.0 receiver for tests: joins ADDR (a\n"
"multicast group, on the interface that has IFADDR) or binds it (unicast),\n"
"prints \"joined\", reads to the first end of session checking every packet,\n"
"then prints key=value lines and result=ok or result=FAIL.\n",
	.more = "Exit status: 0 all held, 1 not (or a timeout), 2 bad usage or a socket error.\n",
	.opts = opts,
};

struct state {
	char session[MOLD_SESSION_LEN];
	bool have_session;
	uint64_t expected;		/* next sequence number */
	uint64_t last_ts;
	struct tool_trades trades_out;

	uint64_t packets, data_packets, heartbeats, end_of_session;
	uint64_t messages, trades, by_type[256];
	uint64_t gaps, gap_msgs, old_packets, bad_blocks, bad_counts;
	uint64_t session_mismatch, ts_backwards, short_packets;
	uint64_t lat_min, lat_max, lat_sum, lat_n;	/* receive - ITCH stamp */
};

/* One datagram.  Returns true at end of session. */
static bool packet(struct state *st, const uint8_t *pkt, size_t len, uint64_t now)
{
	struct mold_header h;
	struct mold_iter it;
	const uint8_t *m;
	uint16_t mlen, blocks = 0;
	uint64_t seq;
	int rc;

	st->packets++;
	if (mold_parse_header(pkt, len, &h)) {
		st->short_packets++;
		return false;
	}
	if (!st->have_session) {
		memcpy(st->session, h.session, MOLD_SESSION_LEN);
		st->have_session = true;
	} else if (memcmp(st->session, h.session, MOLD_SESSION_LEN)) {
		st->session_mismatch++;
		return false;
	}
	if (h.seq > st->expected) {
		st->gaps++;
		st->gap_msgs += h.seq - st->expected;
	} else if (h.seq < st->expected) {
		st->old_packets++;
		return false;
	}
	if (h.count == MOLD_COUNT_HEARTBEAT) {
		st->heartbeats++;
		st->expected = h.seq;
		return false;
	}
	if (h.count == MOLD_COUNT_END) {
		st->end_of_session++;
		return true;
	}

	st->data_packets++;
	seq = h.seq;
	mold_iter_init(&it, pkt, len);
	while ((rc = mold_iter_next(&it, &m, &mlen)) == 1) {
		uint8_t type = mlen ? m[0] : 0;
		uint64_t ts;

		blocks++;
		if (!mlen || itch_msg_len[type] != mlen) {
			st->bad_blocks++;
			seq++;
			continue;
		}
		st->messages++;
		st->by_type[type]++;
		ts = itch_ts_recover(be48_load(m + ITCH_OFF_TIMESTAMP), now);
		if (ts < st->last_ts)
			st->ts_backwards++;
		st->last_ts = ts;
		st->trades += type == 'P';
		tool_trades_msg(&st->trades_out, seq, m, now);
		seq++;
	}
	if (rc < 0)
		st->bad_blocks++;
	if (blocks != h.count)
		st->bad_counts++;
	if (blocks && now >= st->last_ts) {
		uint64_t lat = now - st->last_ts;

		st->lat_min = st->lat_n && st->lat_min < lat ? st->lat_min : lat;
		st->lat_max = lat > st->lat_max ? lat : st->lat_max;
		st->lat_sum += lat;
		st->lat_n++;
	}
	st->expected = h.seq + h.count;
	return false;
}

static void report(const struct state *st, bool timed_out)
{
	const char *t;

	printf("session=%.10s\n", st->session);
	printf("packets=%" PRIu64 "\ndata_packets=%" PRIu64 "\nheartbeats=%" PRIu64
	       "\nend_of_session=%" PRIu64 "\nmessages=%" PRIu64 "\nnext_seq=%" PRIu64
	       "\ntrades=%" PRIu64 "\n", st->packets, st->data_packets,
	       st->heartbeats, st->end_of_session, st->messages, st->expected,
	       st->trades);
	for (t = "SRAFECXDUP"; *t; t++)
		printf("type_%c=%" PRIu64 "\n", *t, st->by_type[(uint8_t)*t]);
	printf("gaps=%" PRIu64 "\ngap_msgs=%" PRIu64 "\nold_packets=%" PRIu64
	       "\nbad_blocks=%" PRIu64 "\nbad_counts=%" PRIu64
	       "\nsession_mismatch=%" PRIu64 "\nts_backwards=%" PRIu64
	       "\nshort_packets=%" PRIu64 "\ntimed_out=%d\n",
	       st->gaps, st->gap_msgs, st->old_packets, st->bad_blocks,
	       st->bad_counts, st->session_mismatch, st->ts_backwards,
	       st->short_packets, timed_out);
	if (st->lat_n)
		printf("feed_latency_ns_min=%" PRIu64 "\nfeed_latency_ns_mean=%" PRIu64
		       "\nfeed_latency_ns_max=%" PRIu64 "\n", st->lat_min,
		       st->lat_sum / st->lat_n, st->lat_max);
}

int main(int argc, char **argv)
{
	static struct state st = { .expected = 1 };
	static uint8_t bufs[BATCH][DGRAM_MAX];
	struct cfg c = { .rx = TOOL_RX_DEFAULTS };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	bool done = false, timed_out = false, ok;
	int fd, ret, i;
	uint64_t start;

	ret = tool_rx_parse(&prog, &c, argc, argv);
	if (ret)
		return ret == 1 ? 0 : 2;
	st.have_session = tool_rx_session(&c.rx, st.session);
	st.trades_out.flush = c.flush;
	if (c.rx.trades && tool_trades_open(&st.trades_out, prog.name, c.rx.trades))
		return 2;
	fd = tool_rx_open(prog.name, &c.rx, 0, RCVBUF);
	if (fd < 0)
		return 2;

	for (i = 0; i < BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = DGRAM_MAX;
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	start = mono_ns();
	while (!done) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = mono_ns(), left;
		int n, r;

		if (now - start >= c.rx.max_ms * 1000000u) {
			timed_out = true;
			break;
		}
		left = c.rx.max_ms - (now - start) / 1000000u;
		r = poll(&p, 1, (int)(left < c.rx.timeout_ms ? left : c.rx.timeout_ms));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = true;
			break;
		}
		n = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			perror("feed_recv: recvmmsg");
			return 2;
		}
		now = mono_ns();
		for (i = 0; i < n && !done; i++)
			done = packet(&st, bufs[i], msgs[i].msg_len, now);
	}
	close(fd);
	if (tool_trades_close(&st.trades_out, prog.name))
		return 2;
	report(&st, timed_out);
	ok = done && !st.gaps && !st.old_packets && !st.bad_blocks && !st.bad_counts &&
	     !st.session_mismatch && !st.ts_backwards && !st.short_packets &&
	     (!c.rx.have_expect || st.trades == c.rx.expect_trades);
	printf("result=%s\n", ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
}
