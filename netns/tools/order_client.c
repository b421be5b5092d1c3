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
#include <getopt.h>
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

static const char usage[] =
"Usage: order_client [options] ADDR PORT\n"
"  --symbol SYM        stock, 1-8 characters (default AAPL)\n"
"  --side C            B, S, T, E, or anything to test a reject (default B)\n"
"  --shares N          (default 100)\n"
"  --price P           limit, Price(4) integer (required unless --raw)\n"
"  --seq S             market-data sequence number for the token (default 1)\n"
"  --num N             client order number for the token (default 1)\n"
"  --tif N             time in force (default 0, immediate-or-cancel)\n"
"  --raw HEX           send these bytes instead of an Enter Order\n"
"  --timeout-ms T      wait this long for replies (default 2000)\n"
"  --expect-none       succeed only if nothing is answered\n";

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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "symbol", required_argument, NULL, 'y' },
		{ "side", required_argument, NULL, 's' },
		{ "shares", required_argument, NULL, 'n' },
		{ "price", required_argument, NULL, 'p' },
		{ "seq", required_argument, NULL, 'q' },
		{ "num", required_argument, NULL, 'u' },
		{ "tif", required_argument, NULL, 't' },
		{ "raw", required_argument, NULL, 'r' },
		{ "timeout-ms", required_argument, NULL, 'w' },
		{ "expect-none", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ouch_enter_order o = {
		.side = 'B', .shares = 100, .firm = { 'T', 'E', 'S', 'T' },
		.display = 'Y', .capacity = 'A', .iso = 'N', .cross_type = 'N',
		.customer_type = 'R',
	};
	struct sockaddr_in to = { .sin_family = AF_INET };
	uint64_t seq = 1, num = 1, v, timeout_ms = 2000;
	uint16_t port;
	const char *symbol = "AAPL";
	uint8_t pkt[2048];
	size_t len = 0, n;
	bool raw = false, have_price = false, expect_none = false, accepted = false;
	uint64_t executed = 0;
	int fd, opt, ret = 1;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'y':
			symbol = optarg;
			if (!*symbol || strlen(symbol) > 8)
				goto bad;
			break;
		case 's':
			if (strlen(optarg) != 1)
				goto bad;
			o.side = optarg[0];
			break;
		case 'n':
			if (tool_parse_u64(optarg, UINT32_MAX, &v))
				goto bad;
			o.shares = (uint32_t)v;
			break;
		case 'p':
			if (tool_parse_u64(optarg, UINT32_MAX, &v))
				goto bad;
			o.price = (uint32_t)v;
			have_price = true;
			break;
		case 'q':
			if (tool_parse_u64(optarg, ORDER_TOKEN_SEQ_MASK, &seq))
				goto bad;
			break;
		case 'u':
			if (tool_parse_u64(optarg, ORDER_TOKEN_NUM_MASK, &num))
				goto bad;
			break;
		case 't':
			if (tool_parse_u64(optarg, UINT32_MAX, &v))
				goto bad;
			o.tif = (uint32_t)v;
			break;
		case 'r':
			if (tool_parse_hex(optarg, pkt, sizeof(pkt), &len))
				goto bad;
			raw = true;
			break;
		case 'w':
			if (tool_parse_u64(optarg, 600000, &timeout_ms) || !timeout_ms)
				goto bad;
			break;
		case 'x':
			expect_none = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			goto bad;
		}
	}
	if (argc - optind != 2 || inet_pton(AF_INET, argv[optind], &to.sin_addr) != 1 ||
	    tool_parse_port(argv[optind + 1], &port) || (!raw && !have_price))
		goto bad;
	to.sin_port = htons(port);

	if (!raw) {
		n = strlen(symbol);
		memcpy(o.stock, symbol, n);
		memset(o.stock + n, ' ', sizeof(o.stock) - n);
		order_token_encode(o.token, seq, (uint32_t)num);
		len = (size_t)ouch_encode_enter_order(pkt, sizeof(pkt), &o);
	}

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("order_client: socket");
		return 1;
	}
	if (sendto(fd, pkt, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len) {
		fprintf(stderr, "order_client: sendto: %s\n", strerror(errno));
		goto out;
	}
	if (raw)
		printf("sent raw bytes=%zu\n", len);
	else
		printf("sent token=%.14s bytes=%zu\n", o.token, len);
	fflush(stdout);

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct ouch_reply r;
		uint8_t buf[2048];
		ssize_t got;
		int rc = poll(&p, 1, (int)timeout_ms);

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			if (expect_none) {
				printf("no reply\n");
				ret = 0;
			} else {
				printf("timeout\n");
			}
			break;
		}
		got = recv(fd, buf, sizeof(buf), 0);
		if (got < 0) {
			perror("order_client: recv");
			break;
		}
		if (expect_none) {
			printf("unexpected reply of %zd bytes\n", got);
			break;
		}
		rc = ouch_decode_reply(buf, (size_t)got, &r);
		if (rc < 0) {
			printf("undecodable reply (%zd bytes): %s\n", got, proto_strerror(rc));
			break;
		}
		print_reply(&r);
		if (!raw && memcmp(r.token, o.token, ORDER_TOKEN_LEN)) {
			printf("wrong token\n");
			break;
		}
		if (r.type == 'A') {
			accepted = true;
			continue;
		}
		if ((r.type == 'E' || r.type == 'C') && !accepted) {
			printf("%c without Accepted first\n", r.type);
			break;
		}
		if (!raw && r.type == 'E') {
			executed += r.executed.shares;
			if (executed < o.shares)
				continue;	/* more levels, or the cancel of the rest */
		}
		ret = 0;
		break;
	}
out:
	close(fd);
	return ret;
bad:
	fputs(usage, stderr);
	return 2;
}
