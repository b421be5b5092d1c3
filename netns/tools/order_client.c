// SPDX-License-Identifier: MIT
/*
 * order_client: a SoupBinTCP 3.0 client over kernel TCP (the session of
 * proto/soup_client.h) that logs in, sends OUCH 4.2 Enter Orders (or raw
 * bytes) and prints what comes back, one line each:
 *
 *   connected conn=1 port=40112
 *   login accepted session=EXSIM00001 seq=1
 *   sent token=<14> bytes=52
 *   A token=<14> side=B shares=100 stock=AAPL price=1000100 ... state=L ts=<ns> seq=1
 *   E token=<14> shares=100 price=1000000 liquidity=R match=1 ts=<ns> seq=2
 *   C token=<14> decrement=100 reason=I ts=<ns> seq=3
 *   J token=<14> reason=S ts=<ns> seq=4
 *   lost by=fin|rst|silence|broken conn=1
 *   end of session seq=5
 *
 * then key=value lines: result, connections, logins, seq_msgs (each
 * sequenced message handed on once), first_seq, last_seq, dup_msgs,
 * skipped, hb_in, hb_out, closed (how the last connection ended), end,
 * orders_over, extra (replies to an order already over), send_blocked
 * (send() took less than it was given or none: the window or the buffer
 * was full).
 *
 * It is done when every order is over (Canceled, Rejected, or Executed for
 * all its shares, an Accepted before any Executed or Canceled, every token
 * one it sent), or with --raw when any sequenced message came, and also
 * --max-msgs messages arrived and, with --until-end, End of Session; then
 * it reads --hold-ms more, logs out and exits 0.  1 when that did not
 * happen within --timeout-ms, a reply was wrong, or the connection was
 * lost with no --reconnect left; 2 on bad usage.  --expect-none,
 * --expect-close and --expect-reject C turn the verdict around.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns/tools/tool_util.h"
#include "proto/order_token.h"
#include "proto/ouch.h"
#include "proto/proto_err.h"
#include "proto/soup_client.h"

#define MAX_ORDERS	100000
#define OUT_CAP		(1 << 20)
#define RECONNECT_NS	(20 * NS_PER_MS)
#define LOGOUT_WAIT_MS	500

struct cfg {
	const char *symbol, *raw, *login, *session;
	char side, expect_reject;
	uint32_t shares, price, tif, sndbuf;
	bool have_price, expect_none, expect_close, no_login, dup, resend, until_end, no_logout;
	uint64_t seq, num, orders, from, reconnect, max_msgs;
	uint64_t gap_ns, timeout_ns, hold_ns, hb_ns, soup_timeout_ns;
};

#define C(f) OFF(struct cfg, f)

static int price(void *cfg, const char *a, char *why, size_t n)
{
	struct cfg *c = cfg;
	uint64_t v;

	if (opt_parse_u64(a, 0, UINT32_MAX, &v))
		return snprintf(why, n, "wants 0..%u", UINT32_MAX), -1;
	c->price = (uint32_t)v;
	c->have_price = true;
	return 0;
}

/* One character: --side, --expect-reject. */
static int one_char(const char *a, char *dst, char *why, size_t n)
{
	if (strlen(a) != 1)
		return snprintf(why, n, "wants one character"), -1;
	*dst = a[0];
	return 0;
}

static int side(void *cfg, const char *a, char *why, size_t n)
{
	return one_char(a, &((struct cfg *)cfg)->side, why, n);
}

static int expect_reject(void *cfg, const char *a, char *why, size_t n)
{
	return one_char(a, &((struct cfg *)cfg)->expect_reject, why, n);
}

static const struct opt opts[] = {
	OPT_SECTION("Session:"),
	OPT("login", 0, OPT_STR, C(login), "USER:PASSWORD", "the account", .def = "T2TG:secret"),
	OPT("session", 0, OPT_STR, C(session), "ID", "the session asked for (default: blank, "
	    "the current one)"),
	OPT("from", 0, OPT_U64, C(from), "N",
	    "Requested Sequence Number of the first login (0: from now on, and then a "
	    "reply to another token is an error; from N, others' replies are counted, "
	    "foreign); later logins ask for the next message lacking"),
	OPT("reconnect", 0, OPT_U64, C(reconnect), "N",
	    "after a lost connection, connect and log in again, up to N times", .max = 1000),
	OPT("resend", 0, OPT_FLAG, C(resend), NULL,
	    "after a new login, send again the orders sent but not over (the exchange "
	    "ignores a token it has seen)"),
	OPT("no-login", 0, OPT_FLAG, C(no_login), NULL, "send --raw without logging in"),
	OPT("no-logout", 0, OPT_FLAG, C(no_logout), NULL,
	    "at the end close without a Logout Request"),
	OPT("soup-heartbeat", 0, OPT_MS, C(hb_ns), "MS", "Client Heartbeat after this idle time",
	    .min = 1, .max = 600000),
	OPT("soup-timeout", 0, OPT_MS, C(soup_timeout_ns), "MS",
	    "a connection with nothing received for this long is lost", .min = 1, .max = 3600000),
	OPT("sndbuf", 0, OPT_U32, C(sndbuf), "BYTES", "SO_SNDBUF of the socket (default: the "
	    "system's)", .min = 1, .max = 1 << 30),
	OPT_SECTION("Orders (Enter Order, tokens from --seq and --num):"),
	OPT("symbol", 0, OPT_STR, C(symbol), "SYM", "stock, 1-8 characters", .max = 8),
	OPT("side", 0, OPT_CALL, 0, "C", "B, S, T, E, or anything to test a reject",
	    .call = side, .def = "B"),
	OPT("shares", 0, OPT_U32, C(shares), "N", "shares"),
	OPT("price", 0, OPT_CALL, 0, "P", "limit, Price(4) integer (required with orders)",
	    .call = price),
	OPT("seq", 0, OPT_U64, C(seq), "S", "market-data sequence number for the tokens",
	    .max = (double)ORDER_TOKEN_SEQ_MASK),
	OPT("num", 0, OPT_U64, C(num), "N", "order number of the first token",
	    .max = ORDER_TOKEN_NUM_MASK),
	OPT("orders", 0, OPT_U64, C(orders), "K",
	    "send K orders, numbers num .. num + K - 1 (0: none)", .max = MAX_ORDERS),
	OPT("gap-ms", 0, OPT_MS, C(gap_ns), "MS", "between two orders (default: none)",
	    .max = 600000),
	OPT("dup", 0, OPT_FLAG, C(dup), NULL,
	    "send every order twice, with the same token: the second must be ignored"),
	OPT("tif", 0, OPT_U32, C(tif), "N",
	    "time in force (default 0, immediate-or-cancel)"),
	OPT("raw", 0, OPT_STR, C(raw), "HEX", "send these bytes (after the login, unless "
	    "--no-login) instead of orders"),
	OPT_SECTION("Waiting:"),
	OPT("timeout-ms", 0, OPT_MS, C(timeout_ns), "T", "give up after this long",
	    .min = 1, .max = 600000),
	OPT("max-msgs", 0, OPT_U64, C(max_msgs), "N", "done only once N sequenced messages came",
	    .min = 1),
	OPT("until-end", 0, OPT_FLAG, C(until_end), NULL, "done only after End of Session"),
	OPT("hold-ms", 0, OPT_MS, C(hold_ns), "MS",
	    "once done, read this long more before logging out", .max = 600000),
	OPT("expect-none", 0, OPT_FLAG, C(expect_none), NULL,
	    "succeed only if no sequenced message comes within the timeout"),
	OPT("expect-close", 0, OPT_FLAG, C(expect_close), NULL,
	    "succeed only if the exchange closes the connection (and no --reconnect is left)"),
	OPT("expect-reject", 0, OPT_CALL, 0, "C",
	    "succeed only if the login is rejected with reason C", .call = expect_reject),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "order_client",
	.usage = "[options] ADDR PORT",
	.about =
"Log in to the SoupBinTCP 3.0 order session at ADDR:PORT (TCP), send OUCH 4.2\n"
"Enter Orders (or raw bytes) and print the sequenced replies, one per line\n"
"with their sequence numbers, then key=value lines.  Done when every order\n"
"is over (Canceled, Rejected, or Executed for all its shares, an Accepted\n"
"first, the tokens its own), with --raw when any reply came, and after\n"
"--max-msgs messages and End of Session when asked for.\n",
	.more = "Exit status: 0 done (or what --expect-... asks for), 1 not, 2 bad usage.\n",
	.opts = opts,
};

enum lost_by { BY_NONE, BY_FIN, BY_RST, BY_SILENCE, BY_BROKEN, BY_LOGOUT, BY_ERROR };

static const char *const lost_names[] = {
	[BY_NONE] = "none", [BY_FIN] = "fin", [BY_RST] = "rst", [BY_SILENCE] = "silence",
	[BY_BROKEN] = "broken", [BY_LOGOUT] = "logout", [BY_ERROR] = "error",
};

struct order_st {
	bool sent, accepted, over;
	uint64_t executed;
};

struct run {
	struct cfg *c;
	struct sockaddr_in to;
	struct soup_client soup;
	struct ouch_enter_order proto;
	struct order_st ord[MAX_ORDERS];
	uint64_t next_order;		/* index of the next order to send */
	uint64_t next_order_at;
	uint8_t raw[4096];
	size_t raw_len;
	int fd;
	uint64_t conns, reconnects_left, send_blocked, over, extra, foreign;
	uint64_t first_seq, last_seq;
	int closed;			/* enum lost_by, of the last connection */
	bool raw_sent, got_msg, ended, rejected, failed, logging_out;
	uint64_t out_len;
	uint8_t out[OUT_CAP];
	uint8_t in[65536];
};

static int field(const char *s, int n)
{
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n;
}

static void print_reply(const struct ouch_reply *r, uint64_t seq)
{
	printf("%c token=%.14s", r->type, r->token);
	switch (r->type) {
	case 'A': {
		const struct ouch_accepted *a = &r->accepted;

		printf(" side=%c shares=%" PRIu32 " stock=%.*s price=%" PRIu32
		       " tif=%" PRIu32 " firm=%.4s display=%c ref=%" PRIu64
		       " capacity=%c iso=%c min_qty=%" PRIu32 " cross=%c state=%c",
		       a->side, a->shares, field(a->stock, 8), a->stock, a->price,
		       a->tif, a->firm, a->display, a->order_ref, a->capacity,
		       a->iso, a->min_qty, a->cross_type, a->order_state);
		break;
	}
	case 'E':
		printf(" shares=%" PRIu32 " price=%" PRIu32 " liquidity=%c match=%" PRIu64,
		       r->executed.shares, r->executed.price, r->executed.liquidity,
		       r->executed.match);
		break;
	case 'C':
		printf(" decrement=%" PRIu32 " reason=%c", r->canceled.decrement,
		       r->canceled.reason);
		break;
	case 'J':
		printf(" reason=%c", r->rejected.reason);
		break;
	}
	printf(" ts=%" PRIu64 " seq=%" PRIu64 "\n", r->timestamp, seq);
}

/* Queue @len bytes for the connection; false when the buffer is full. */
static bool queue(struct run *R, const void *p, size_t len)
{
	if (OUT_CAP - R->out_len < len)
		return false;
	memcpy(R->out + R->out_len, p, len);
	R->out_len += len;
	return true;
}

/* As much of the queue as send() takes now. */
static int flush(struct run *R, uint64_t now)
{
	while (R->out_len) {
		ssize_t n = send(R->fd, R->out, R->out_len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			R->send_blocked++;
			return 0;
		}
		if (n < 0)
			return -1;
		soup_client_sent(&R->soup, now);
		memmove(R->out, R->out + n, R->out_len - (size_t)n);
		R->out_len -= (size_t)n;
		if (R->out_len) {
			R->send_blocked++;
			return 0;
		}
	}
	return 0;
}

static void send_order(struct run *R, uint64_t i)
{
	struct ouch_enter_order o = R->proto;
	uint8_t pkt[OUCH_ENTER_PKT_LEN];
	int len;

	order_token_encode(o.token, R->c->seq, (uint32_t)(R->c->num + i));
	len = ouch_encode_enter_order(pkt, sizeof(pkt), &o);
	for (int k = 0; k < (R->c->dup ? 2 : 1); k++)
		if (!queue(R, pkt, (size_t)len))
			R->send_blocked++;
	R->ord[i].sent = true;
	printf("sent token=%.14s bytes=%d%s\n", o.token, len, R->c->dup ? " twice" : "");
}

/* The orders due now (all at once without --gap-ms), or the raw bytes. */
static void send_due(struct run *R, uint64_t now)
{
	if (R->c->raw) {
		if (!R->raw_sent && queue(R, R->raw, R->raw_len)) {
			R->raw_sent = true;
			printf("sent raw bytes=%zu\n", R->raw_len);
		}
		return;
	}
	while (R->next_order < R->c->orders && now >= R->next_order_at &&
	       OUT_CAP - R->out_len >= 2 * OUCH_ENTER_PKT_LEN) {
		send_order(R, R->next_order++);
		R->next_order_at = now + R->c->gap_ns;
	}
}

/* The order a token names: its index, or -1 when not one of ours. */
static int64_t order_of(const struct run *R, const char *token)
{
	uint64_t md_seq;
	uint32_t num;

	if (order_token_decode(token, &md_seq, &num) || md_seq != R->c->seq ||
	    num < R->c->num || num - R->c->num >= R->c->orders)
		return -1;
	return (int64_t)(num - R->c->num);
}

/* One sequenced message: printed, and what it says of its order. */
static void on_msg(struct run *R, const struct soup_msg *m)
{
	struct order_st *o;
	struct ouch_reply r;
	int64_t i;
	int rc;

	if (!R->got_msg)
		R->first_seq = m->seq;
	R->got_msg = true;
	R->last_seq = m->seq;
	rc = ouch_decode_reply(m->data, m->len, &r);
	if (rc < 0) {
		printf("undecodable reply seq=%" PRIu64 " (%u bytes): %s\n", m->seq, m->len,
		       proto_strerror(rc));
		R->failed = true;
		return;
	}
	print_reply(&r, m->seq);
	if (R->c->raw)
		return;
	i = order_of(R, r.token);
	if (i < 0) {
		/* From now on, every reply is to an order of ours. */
		R->foreign++;
		printf("foreign token\n");
		if (!R->c->from)
			R->failed = true;
		return;
	}
	o = &R->ord[i];
	if (o->over) {
		R->extra++;
		printf("extra reply for an order already over\n");
		return;
	}
	if (r.type == 'A') {
		o->accepted = true;
		return;
	}
	if ((r.type == 'E' || r.type == 'C') && !o->accepted) {
		printf("%c without Accepted first\n", r.type);
		R->failed = true;
		return;
	}
	if (r.type == 'E') {
		o->executed += r.executed.shares;
		if (o->executed < R->proto.shares)
			return;		/* more levels, or the cancel of the rest */
	}
	o->over = true;
	R->over++;
}

/* The orders in doubt after a new login: sent, not over. */
static void resend(struct run *R)
{
	for (uint64_t i = 0; i < R->next_order; i++)
		if (!R->ord[i].over) {
			printf("resend ");
			send_order(R, i);
		}
}

/* A connection, then the Login Request (unless --no-login).  0, or -1. */
static int connect_login(struct run *R, uint64_t now)
{
	struct sockaddr_in me;
	socklen_t mlen = sizeof(me);
	uint8_t login[SOUP_LOGIN_REQUEST_LEN];
	int one = 1, len;

	R->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (R->fd < 0)
		return -1;
	setsockopt(R->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (R->c->sndbuf)
		setsockopt(R->fd, SOL_SOCKET, SO_SNDBUF, &R->c->sndbuf, sizeof(R->c->sndbuf));
	if (connect(R->fd, (const struct sockaddr *)&R->to, sizeof(R->to))) {
		printf("connect failed: %s\n", strerror(errno));
		close(R->fd);
		R->fd = -1;
		return -1;
	}
	getsockname(R->fd, (struct sockaddr *)&me, &mlen);
	R->conns++;
	printf("connected conn=%" PRIu64 " port=%u\n", R->conns, ntohs(me.sin_port));
	R->out_len = 0;
	if (R->c->no_login) {
		soup_live_start(&R->soup.live, now);
		return 0;
	}
	len = soup_client_login(&R->soup, login, sizeof(login), now);
	if (len < 0 || !queue(R, login, (size_t)len))
		return -1;
	return 0;
}

static void lost(struct run *R, int by)
{
	if (R->logging_out)
		by = BY_LOGOUT;
	else
		printf("lost by=%s conn=%" PRIu64 "\n", lost_names[by], R->conns);
	R->closed = by;
	close(R->fd);
	R->fd = -1;
	soup_client_disconnected(&R->soup);
	R->out_len = 0;
}

/* What the connection brought.  -1 when it was lost. */
static int read_conn(struct run *R, uint64_t now)
{
	for (;;) {
		ssize_t n = recv(R->fd, R->in, sizeof(R->in), MSG_DONTWAIT);
		struct soup_msg m;
		int ev;

		if (n == 0) {
			lost(R, BY_FIN);
			return -1;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			lost(R, errno == ECONNRESET ? BY_RST : BY_ERROR);
			return -1;
		}
		soup_client_on_bytes(&R->soup, R->in, (size_t)n, now);
		while ((ev = soup_client_next(&R->soup, &m)) != SOUP_EV_NONE) {
			switch (ev) {
			case SOUP_EV_MSG:
				on_msg(R, &m);
				break;
			case SOUP_EV_LOGGED_IN:
				printf("login accepted session=%.*s seq=%" PRIu64 "\n",
				       SOUP_SESSION_LEN, R->soup.session, R->soup.recv_seq);
				/* "From now on" skips nothing it wanted. */
				if (R->conns == 1 && !R->c->from) {
					R->soup.st.skipped = 0;
					R->soup.halted = false;
					R->soup.lost_from = R->soup.lost_to = 0;
				}
				if (R->conns > 1 && R->c->resend)
					resend(R);
				break;
			case SOUP_EV_REJECTED:
				printf("login rejected reason=%c\n", R->soup.reject_reason);
				R->rejected = true;
				break;
			case SOUP_EV_WRONG_SESSION:
				printf("login accepted for another session=%.*s\n", SOUP_SESSION_LEN,
				       R->soup.other_session);
				R->rejected = true;
				break;
			case SOUP_EV_END:
				printf("end of session seq=%" PRIu64 "\n", R->soup.next_seq);
				R->ended = true;
				break;
			case SOUP_EV_LOST:
				lost(R, BY_BROKEN);
				return -1;
			}
		}
	}
}

/* Everything asked for has come. */
static bool done(const struct run *R)
{
	const struct cfg *c = R->c;

	if (c->expect_close || c->expect_none || c->expect_reject)
		return false;
	if (!c->no_login && !R->soup.st.accepted)
		return false;
	if (c->raw ? !R->got_msg : R->over < c->orders)
		return false;
	if (c->max_msgs && R->soup.st.seq_msgs < c->max_msgs)
		return false;
	return !c->until_end || R->ended;
}

/* Logout, then the exchange's FIN (a little while at most). */
static void logout(struct run *R, uint64_t now)
{
	uint8_t pkt[SOUP_EMPTY_LEN];
	struct pollfd p = { .fd = R->fd, .events = POLLIN };

	if (R->c->no_logout || !soup_client_logged_in(&R->soup)) {
		close(R->fd);
		R->fd = -1;
		return;
	}
	soup_client_logout(&R->soup, pkt, sizeof(pkt));
	queue(R, pkt, sizeof(pkt));
	flush(R, now);
	R->logging_out = true;
	while (R->fd >= 0 && poll(&p, 1, LOGOUT_WAIT_MS) > 0)
		read_conn(R, mono_ns());
	if (R->fd >= 0) {
		close(R->fd);
		R->fd = -1;
	}
}

static void report(const struct run *R, const char *result)
{
	const struct soup_client_stats *s = &R->soup.st;

	printf("result=%s\nconnections=%" PRIu64 "\nlogins=%" PRIu64 "\naccepted=%" PRIu64
	       "\nrejected=%" PRIu64 "\nseq_msgs=%" PRIu64 "\nfirst_seq=%" PRIu64
	       "\nlast_seq=%" PRIu64 "\nnext_seq=%" PRIu64 "\ndup_msgs=%" PRIu64
	       "\nskipped=%" PRIu64 "\nhb_in=%" PRIu64 "\nhb_out=%" PRIu64
	       "\nclosed=%s\nend=%d\norders_sent=%" PRIu64 "\norders_over=%" PRIu64
	       "\nextra=%" PRIu64 "\nforeign=%" PRIu64 "\nsend_blocked=%" PRIu64
	       "\nbad=%" PRIu64 "\n",
	       result, R->conns, s->logins, s->accepted, s->rejected, s->seq_msgs,
	       R->first_seq, R->last_seq, R->soup.next_seq, s->dup_msgs, s->skipped,
	       s->hb_in, s->hb_out, lost_names[R->closed], R->ended ? 1 : 0, R->next_order,
	       R->over, R->extra, R->foreign, R->send_blocked, s->bad + s->unknown);
}

/*
 * The connection lost: again while --reconnect allows (the session asks
 * for the next message lacking), else the verdict.  0 to go on, or the
 * exit status.
 */
static int after_loss(struct run *R, uint64_t deadline)
{
	while (R->reconnects_left && !soup_client_final(&R->soup)) {
		uint64_t now = mono_ns();

		if (now >= deadline)
			break;
		R->reconnects_left--;
		usleep(RECONNECT_NS / 1000);
		if (!connect_login(R, mono_ns()))
			return 0;
	}
	if (R->c->expect_close) {
		report(R, "ok");
		return 0x100;
	}
	/* The loop's next turn says it (the exchange closes after a Login Rejected). */
	if (R->rejected)
		return 0;
	report(R, "lost");
	return 0x101;
}

/* The session until done, lost or out of time: the exit status. */
static int run(struct run *R)
{
	uint64_t start = mono_ns(), deadline = start + R->c->timeout_ns, hold_until = 0;
	int rc;

	if (connect_login(R, start)) {
		report(R, "connect_failed");
		return 1;
	}
	for (;;) {
		uint64_t now = mono_ns();
		struct pollfd p = { .fd = R->fd, .events = POLLIN };
		uint8_t hb[SOUP_EMPTY_LEN];

		if (R->failed) {
			report(R, "fail");
			return 1;
		}
		if (R->rejected) {
			bool ok = R->c->expect_reject == R->soup.reject_reason;

			R->closed = BY_NONE;
			report(R, ok ? "ok" : "rejected");
			return ok ? 0 : 1;
		}
		if (R->c->expect_none && R->got_msg) {
			report(R, "unexpected_reply");
			return 1;
		}
		if (done(R)) {
			if (!hold_until)
				hold_until = now + R->c->hold_ns;
			if (now >= hold_until) {
				logout(R, now);
				report(R, R->extra ? "extra" : "ok");
				return R->extra ? 1 : 0;
			}
		}
		if (now >= deadline) {
			if (R->c->expect_none) {
				report(R, "ok");
				return 0;
			}
			report(R, "timeout");
			return 1;
		}
		/* After End of Session too: what an exchange does with a late order is a test. */
		if (R->c->no_login || soup_client_logged_in(&R->soup) ||
		    (R->soup.state == SOUP_C_ENDED && R->fd >= 0))
			send_due(R, now);
		rc = soup_client_tick(&R->soup, hb, now);
		if (rc > 0)
			queue(R, hb, sizeof(hb));
		if (rc < 0 || (R->c->no_login && soup_live_lost(&R->soup.live, now))) {
			lost(R, BY_SILENCE);
			rc = after_loss(R, deadline);
			if (rc)
				return rc == 0x100 ? 0 : 1;
			continue;
		}
		if (flush(R, now)) {
			lost(R, errno == ECONNRESET || errno == EPIPE ? BY_RST : BY_ERROR);
			rc = after_loss(R, deadline);
			if (rc)
				return rc == 0x100 ? 0 : 1;
			continue;
		}
		if (R->out_len)
			p.events |= POLLOUT;
		if (poll(&p, 1, 5) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (read_conn(R, mono_ns()) < 0) {
			rc = after_loss(R, deadline);
			if (rc)
				return rc == 0x100 ? 0 : 1;
		}
	}
}

/* The command line into @R.  Returns 0 to run, 1 after --help, 2 after a usage error. */
static int parse(struct run *R, int argc, char **argv)
{
	struct cfg *c = R->c;
	struct soup_client_cfg sc = { 0 };
	size_t n;
	int first, ret;

	ret = opt_parse(&prog, c, argc, argv, &first);
	if (ret)
		return ret;
	ret = tool_opt_target(&prog, argc, argv, first, 0, "ADDR PORT", &R->to);
	if (ret)
		return ret;
	if (soup_parse_login(c->login, sc.user, sc.password))
		return opt_error(&prog, "--login wants USER:PASSWORD (1-6 and 0-10 characters)");
	soup_pad_left(sc.session, SOUP_SESSION_LEN, "");
	if (c->session && soup_parse_session(c->session, sc.session))
		return opt_error(&prog, "--session wants 1-10 printable characters");
	sc.hb_ns = c->hb_ns;
	sc.timeout_ns = c->soup_timeout_ns;
	soup_client_init(&R->soup, &sc);
	R->soup.next_seq = c->from;
	R->reconnects_left = c->reconnect;
	if (c->no_login && !c->raw)
		return opt_error(&prog, "--no-login goes with --raw");
	if (c->raw)
		return tool_opt_hex(&prog, "--raw", c->raw, R->raw, sizeof(R->raw), &R->raw_len);
	if (c->orders && !c->have_price)
		return opt_error(&prog, "--price is needed (or --raw, or --orders 0)");
	if (c->num + c->orders > ORDER_TOKEN_NUM_MASK + 1)
		return opt_error(&prog, "--num + --orders is beyond the token's order numbers");
	R->proto.side = c->side;
	R->proto.shares = c->shares;
	R->proto.price = c->price;
	R->proto.tif = c->tif;
	n = strlen(c->symbol);
	memcpy(R->proto.stock, c->symbol, n);
	memset(R->proto.stock + n, ' ', sizeof(R->proto.stock) - n);
	return 0;
}

int main(int argc, char **argv)
{
	static struct run R;
	struct cfg c = { .symbol = "AAPL", .side = 'B', .shares = 100, .seq = 1, .num = 1,
			 .orders = 1, .login = "T2TG:secret",
			 .timeout_ns = 2000 * NS_PER_MS, .hb_ns = SOUP_HEARTBEAT_NS,
			 .soup_timeout_ns = SOUP_TIMEOUT_NS };
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	R.c = &c;
	R.fd = -1;
	R.proto = (struct ouch_enter_order){
		.firm = { 'T', 'E', 'S', 'T' }, .display = 'Y', .capacity = 'A', .iso = 'N',
		.cross_type = 'N', .customer_type = 'R',
	};
	ret = parse(&R, argc, argv);
	if (ret)
		return ret == 1 ? 0 : 2;
	ret = run(&R);
	if (R.fd >= 0)
		close(R.fd);
	return ret;
}
