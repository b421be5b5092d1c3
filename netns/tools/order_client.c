// SPDX-License-Identifier: MIT
/*
 * order_client: send one OUCH 4.2 Enter Order (or raw bytes) over UDP and
 * print the decoded replies, one per line:
 *
 *   sent token=<14> bytes=52
 *   A token=<14> side=B shares=100 stock=AAPL price=1000100 tif=0 ... state=L
 *   E token=<14> shares=100 price=1000000 liquidity=R match=1
 *   C token=<14> decrement=100 reason=I
 *   J token=<14> reason=S
 *
 * Exits 0 once the order is over: Canceled or Rejected, or Executed for all
 * its shares (a partial fill is Executed once per price level, then
 * Canceled for the rest), with an Accepted before any Executed or Canceled
 * and every token the one sent; 1 on a timeout, an undecodable reply or a wrong token; 2 on
 * bad usage.  With --raw the bytes are sent as given and any reply ends it;
 * with --expect-none success means no reply within the timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns/tools/tool_util.h"
#include "proto/ouch.h"
#include "proto/order_token.h"
#include "proto/proto_err.h"

struct cfg {
	const char *symbol, *raw;
	char side;
	uint32_t shares, price, tif;
	bool have_price, expect_none;
	uint64_t seq, num, timeout_ms;
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

static int side(void *cfg, const char *a, char *why, size_t n)
{
	struct cfg *c = cfg;

	if (strlen(a) != 1)
		return snprintf(why, n, "wants one character"), -1;
	c->side = a[0];
	return 0;
}

static const struct opt opts[] = {
	OPT("symbol", 0, OPT_STR, C(symbol), "SYM", "stock, 1-8 characters", .max = 8),
	OPT("side", 0, OPT_CALL, 0, "C", "B, S, T, E, or anything to test a reject",
	    .call = side, .def = "B"),
	OPT("shares", 0, OPT_U32, C(shares), "N", "shares"),
	OPT("price", 0, OPT_CALL, 0, "P", "limit, Price(4) integer (required unless --raw)",
	    .call = price),
	OPT("seq", 0, OPT_U64, C(seq), "S", "market-data sequence number for the token",
	    .max = (double)ORDER_TOKEN_SEQ_MASK),
	OPT("num", 0, OPT_U64, C(num), "N", "client order number for the token",
	    .max = ORDER_TOKEN_NUM_MASK),
	OPT("tif", 0, OPT_U32, C(tif), "N",
	    "time in force (default 0, immediate-or-cancel)"),
	OPT("raw", 0, OPT_STR, C(raw), "HEX", "send these bytes instead of an Enter Order"),
	OPT("timeout-ms", 0, OPT_U64, C(timeout_ms), "T", "wait this long for replies",
	    .min = 1, .max = 600000),
	OPT("expect-none", 0, OPT_FLAG, C(expect_none), NULL,
	    "succeed only if nothing is answered"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "order_client",
	.usage = "[options] ADDR PORT",
	.about =
"Send one OUCH 4.2 Enter Order (or raw bytes) over UDP to ADDR:PORT and print\n"
"the decoded replies, one per line.  The order is over when Canceled,\n"
"Rejected, or Executed for all its shares, with an Accepted before any\n"
"Executed or Canceled and every token the one sent.  With --raw any reply\n"
"ends it; with --expect-none success is no reply within the timeout.\n",
	.more = "Exit status: 0 the order is over, 1 a timeout, an undecodable reply or a\n"
		"wrong token, 2 bad usage.\n",
	.opts = opts,
};

static int field(const char *s, int n)
{
	while (n > 0 && s[n - 1] == ' ')
		n--;
	return n;
}

static void print_reply(const struct ouch_reply *r)
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
	printf(" ts=%" PRIu64 "\n", r->timestamp);
	fflush(stdout);
}

/*
 * The command line into @c, then what to send: @pkt of *@len bytes, @o (not
 * --raw), @to.  Returns 0 to run, 1 after --help, 2 after a usage error.
 */
static int parse(struct cfg *c, int argc, char **argv, struct ouch_enter_order *o,
		 uint8_t *pkt, size_t cap, size_t *len, struct sockaddr_in *to)
{
	size_t n;
	int first, ret;

	ret = opt_parse(&prog, c, argc, argv, &first);
	if (ret)
		return ret;
	ret = tool_opt_target(&prog, argc, argv, first, 0, "ADDR PORT", to);
	if (ret)
		return ret;
	if (c->raw)
		return tool_opt_hex(&prog, "--raw", c->raw, pkt, cap, len);
	if (!c->have_price)
		return opt_error(&prog, "--price is needed (or --raw)");
	o->side = c->side;
	o->shares = c->shares;
	o->price = c->price;
	o->tif = c->tif;
	n = strlen(c->symbol);
	memcpy(o->stock, c->symbol, n);
	memset(o->stock + n, ' ', sizeof(o->stock) - n);
	order_token_encode(o->token, c->seq, (uint32_t)c->num);
	*len = (size_t)ouch_encode_enter_order(pkt, cap, o);
	return 0;
}

/*
 * The replies to the order @o (or to --raw bytes) on @fd until it is over.
 * Returns the exit status: 0 over (or, with --expect-none, nothing
 * answered), 1 not.
 */
static int replies(int fd, const struct cfg *c, const struct ouch_enter_order *o)
{
	bool accepted = false;
	uint64_t executed = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct ouch_reply r;
		uint8_t buf[2048];
		ssize_t got;
		int rc = poll(&p, 1, (int)c->timeout_ms);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			printf(c->expect_none ? "no reply\n" : "timeout\n");
			return c->expect_none ? 0 : 1;
		}
		got = recv(fd, buf, sizeof(buf), 0);
		if (got < 0) {
			perror("order_client: recv");
			return 1;
		}
		if (c->expect_none) {
			printf("unexpected reply of %zd bytes\n", got);
			return 1;
		}
		rc = ouch_decode_reply(buf, (size_t)got, &r);
		if (rc < 0) {
			printf("undecodable reply (%zd bytes): %s\n", got, proto_strerror(rc));
			return 1;
		}
		print_reply(&r);
		if (!c->raw && memcmp(r.token, o->token, ORDER_TOKEN_LEN)) {
			printf("wrong token\n");
			return 1;
		}
		if (r.type == 'A') {
			accepted = true;
			continue;
		}
		if ((r.type == 'E' || r.type == 'C') && !accepted) {
			printf("%c without Accepted first\n", r.type);
			return 1;
		}
		if (!c->raw && r.type == 'E') {
			executed += r.executed.shares;
			if (executed < o->shares)
				continue;	/* more levels, or the cancel of the rest */
		}
		return 0;
	}
}

int main(int argc, char **argv)
{
	struct cfg c = { .symbol = "AAPL", .side = 'B', .shares = 100, .seq = 1, .num = 1,
			 .timeout_ms = 2000 };
	struct ouch_enter_order o = {
		.firm = { 'T', 'E', 'S', 'T' }, .display = 'Y', .capacity = 'A', .iso = 'N',
		.cross_type = 'N', .customer_type = 'R',
	};
	struct sockaddr_in to;
	uint8_t pkt[2048];
	size_t len = 0;
	int fd, ret;

	ret = parse(&c, argc, argv, &o, pkt, sizeof(pkt), &len, &to);
	if (ret)
		return ret == 1 ? 0 : 2;
	fd = tool_udp_socket(prog.name, 0, 0);
	if (fd < 0)
		return 1;
	ret = 1;
	if (sendto(fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len) {
		fprintf(stderr, "order_client: sendto: %s\n", strerror(errno));
		goto out;
	}
	if (c.raw)
		printf("sent raw bytes=%zu\n", len);
	else
		printf("sent token=%.14s bytes=%zu\n", o.token, len);
	fflush(stdout);
	ret = replies(fd, &c, &o);
out:
	close(fd);
	return ret;
}
