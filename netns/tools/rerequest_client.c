// SPDX-License-Identifier: MIT
/*
 * rerequest_client: ask the simulator's MoldUDP64 re-request server once
 * and print what comes back.
 *
 *   rerequest_client [options] ADDR PORT SEQ COUNT
 *   rerequest_client [options] --raw HEX ADDR PORT
 *
 * Sends the spec's 20-byte request (session, first sequence number, count)
 * or raw bytes, then reads answers until --wait-ms passes without one.
 * Every message answered goes to standard output as "seq,hex" (the format
 * of fault_recv --dump), a summary to standard error.  Every answer must be
 * a well-formed MoldUDP64 packet of the session asked for, in sequence
 * order without repeats; with --expect N exactly N messages from SEQ; with
 * --expect-none nothing at all.  Exit 0 when all held, 1 when not, 2 on a
 * usage or socket error.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/mold_check.h"
#include "netns/tools/tool_util.h"
#include "proto/be.h"
#include "proto/moldudp64.h"

static const char usage[] =
"Usage: rerequest_client [options] ADDR PORT SEQ COUNT\n"
"       rerequest_client [options] --raw HEX ADDR PORT\n"
"  --session ID      session asked for (default EXSIM00001)\n"
"  --wait-ms T       stop after T ms without an answer (default 300)\n"
"  --repeat K        send the request K times back to back (default 1)\n"
"  --expect N        fail unless exactly N messages, SEQ.. in order\n"
"  --expect-none     fail if anything comes back\n"
"  --raw HEX         send these bytes instead of a request\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "wait-ms", required_argument, NULL, 'w' },
		{ "repeat", required_argument, NULL, 'k' },
		{ "expect", required_argument, NULL, 'e' },
		{ "expect-none", no_argument, NULL, 'n' },
		{ "raw", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mold_rerequest req = { 0 };
	struct sockaddr_in srv = { .sin_family = AF_INET };
	uint64_t wait_ms = 300, repeat = 1, expect = 0, v, next, packets = 0;
	uint64_t messages = 0, bad = 0;
	uint8_t out[256], buf[2048];
	size_t out_len = 0;
	uint16_t port;
	bool have_expect = false, none = false, raw = false, ok;
	int fd, opt, args;

	mold_session_set(req.session, "EXSIM00001");
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			if (strlen(optarg) > MOLD_SESSION_LEN)
				goto usage;
			mold_session_set(req.session, optarg);
			break;
		case 'w':
			if (tool_parse_u64(optarg, 60000, &wait_ms) || !wait_ms)
				goto usage;
			break;
		case 'k':
			if (tool_parse_u64(optarg, 100000, &repeat) || !repeat)
				goto usage;
			break;
		case 'e':
			if (tool_parse_u64(optarg, UINT64_MAX, &expect))
				goto usage;
			have_expect = true;
			break;
		case 'n':
			none = true;
			break;
		case 'r':
			if (tool_parse_hex(optarg, out, sizeof(out), &out_len))
				goto usage;
			raw = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			goto usage;
		}
	}
	args = argc - optind;
	if (args != (raw ? 2 : 4) || inet_pton(AF_INET, argv[optind], &srv.sin_addr) != 1 ||
	    tool_parse_port(argv[optind + 1], &port))
		goto usage;
	srv.sin_port = htons(port);
	if (!raw) {
		if (tool_parse_u64(argv[optind + 2], UINT64_MAX, &req.seq) ||
		    tool_parse_u64(argv[optind + 3], 0xFFFF, &v))
			goto usage;
		req.count = (uint16_t)v;
		out_len = (size_t)mold_encode_rerequest(out, sizeof(out), &req);
	} else if (mold_decode_rerequest(out, out_len, &req) < 0) {
		req.seq = 0;	/* not a request: no order to check answers against */
	}

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("rerequest_client: socket");
		return 2;
	}
	/* Answers come as fast as the server sends them; this reads only
	 * after all requests went out. */
	tool_set_rcvbuf(fd, 16 << 20);
	for (v = 0; v < repeat; v++)
		if (sendto(fd, out, out_len, 0, (struct sockaddr *)&srv, sizeof(srv)) < 0) {
			perror("rerequest_client: sendto");
			return 2;
		}

	next = req.seq;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct mold_iter it;
		const uint8_t *m;
		uint64_t seq;
		uint16_t count, len, i, k;
		ssize_t n;

		if (poll(&p, 1, (int)wait_ms) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			break;
		packets++;
		if (mold_check(buf, (size_t)n) != MOLD_WELL_FORMED ||
		    memcmp(buf + MOLD_OFF_SESSION, req.session, MOLD_SESSION_LEN)) {
			bad++;
			continue;
		}
		seq = be64_load(buf + MOLD_OFF_SEQ);
		count = be16_load(buf + MOLD_OFF_COUNT);
		if (count == MOLD_COUNT_HEARTBEAT || count == MOLD_COUNT_END) {
			bad++;
			continue;
		}
		if (repeat == 1 && req.seq && seq != next)
			bad++;
		next = seq + count;
		mold_iter_init(&it, buf, (size_t)n);
		for (i = 0; mold_iter_next(&it, &m, &len) == 1; i++) {
			printf("%" PRIu64 ",", seq + i);
			for (k = 0; k < len; k++)
				printf("%02x", m[k]);
			putchar('\n');
			messages++;
		}
	}
	close(fd);
	fprintf(stderr, "packets=%" PRIu64 " messages=%" PRIu64 " bad=%" PRIu64 "\n",
		packets, messages, bad);
	ok = !bad && (!none || !packets) && (!have_expect || messages == expect);
	return ok ? 0 : 1;
usage:
	fputs(usage, stderr);
	return 2;
}
