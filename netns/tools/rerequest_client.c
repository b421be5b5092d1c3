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

struct cfg {
	const char *session, *raw;
	uint64_t wait_ms, repeat, expect;
	bool have_expect, none;
};

#define C(f) OFF(struct cfg, f)

static int expect(void *cfg, const char *a, char *why, size_t n)
{
	struct cfg *c = cfg;

	if (opt_parse_u64(a, 0, UINT64_MAX, &c->expect))
		return snprintf(why, n, "wants a count"), -1;
	c->have_expect = true;
	return 0;
}

static const struct opt opts[] = {
	OPT("session", 0, OPT_STR, C(session), "ID", "session asked for",
	    .max = MOLD_SESSION_LEN),
	OPT("wait-ms", 0, OPT_U64, C(wait_ms), "T", "stop after T ms without an answer",
	    .min = 1, .max = 60000),
	OPT("repeat", 0, OPT_U64, C(repeat), "K", "send the request K times back to back",
	    .min = 1, .max = 100000),
	OPT("expect", 0, OPT_CALL, 0, "N", "fail unless exactly N messages, SEQ.. in order",
	    .call = expect),
	OPT("expect-none", 0, OPT_FLAG, C(none), NULL, "fail if anything comes back"),
	OPT("raw", 0, OPT_STR, C(raw), "HEX", "send these bytes instead of a request"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "rerequest_client",
	.usage = "[options] ADDR PORT SEQ COUNT\n"
		 "       rerequest_client [options] --raw HEX ADDR PORT",
	.about =
"Ask the simulator's MoldUDP64 re-request server at ADDR:PORT once (the\n"
"spec's 20-byte request: session, first sequence number SEQ, COUNT) or send\n"
"raw bytes, then read answers until --wait-ms passes without one.  Every\n"
"message answered goes to standard output as seq,hex (fault_recv --dump's\n"
"format), a summary to standard error.  Every answer must be a well-formed\n"
"packet of the session asked for, in sequence order without repeats.\n",
	.more = "Exit status: 0 all held, 1 not, 2 bad usage or a socket error.\n",
	.opts = opts,
};

/*
 * The command line into @c, the request into @out (*@out_len bytes) and
 * @req, the server into @srv.  Returns 0 to run, 1 after --help, 2 after a
 * usage error.
 */
static int parse(struct cfg *c, int argc, char **argv, struct mold_rerequest *req,
		 uint8_t *out, size_t cap, size_t *out_len, struct sockaddr_in *srv)
{
	uint64_t count;
	int first, ret;

	ret = opt_parse(&prog, c, argc, argv, &first);
	if (ret)
		return ret;
	ret = tool_opt_target(&prog, argc, argv, first, c->raw ? 0 : 2,
			      c->raw ? "ADDR PORT (with --raw)" : "ADDR PORT SEQ COUNT", srv);
	if (ret)
		return ret;
	mold_session_set(req->session, c->session);
	if (c->raw) {
		ret = tool_opt_hex(&prog, "--raw", c->raw, out, cap, out_len);
		if (!ret && mold_decode_rerequest(out, *out_len, req) < 0)
			req->seq = 0;	/* not a request: no order to check answers against */
		return ret;
	}
	if (opt_parse_u64(argv[first + 2], 0, UINT64_MAX, &req->seq))
		return opt_error(&prog, "SEQ wants a sequence number: '%s'", argv[first + 2]);
	if (opt_parse_u64(argv[first + 3], 0, 0xFFFF, &count))
		return opt_error(&prog, "COUNT wants 0..65535: '%s'", argv[first + 3]);
	req->count = (uint16_t)count;
	*out_len = (size_t)mold_encode_rerequest(out, cap, req);
	return 0;
}

/*
 * The answers until @c->wait_ms passes without one, printed; the
 * summary on stderr.  Returns the exit status.
 */
static int answers(int fd, const struct cfg *c, const struct mold_rerequest *req)
{
	uint64_t next = req->seq, packets = 0, messages = 0, bad = 0;
	uint8_t buf[2048];
	bool ok;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct mold_iter it;
		const uint8_t *m;
		uint64_t seq;
		uint16_t count, len, i;
		ssize_t n;

		if (poll(&p, 1, (int)c->wait_ms) <= 0)
			break;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			break;
		packets++;
		if (mold_check(buf, (size_t)n) != MOLD_WELL_FORMED ||
		    memcmp(buf + MOLD_OFF_SESSION, req->session, MOLD_SESSION_LEN)) {
			bad++;
			continue;
		}
		seq = be64_load(buf + MOLD_OFF_SEQ);
		count = be16_load(buf + MOLD_OFF_COUNT);
		if (count == MOLD_COUNT_HEARTBEAT || count == MOLD_COUNT_END) {
			bad++;
			continue;
		}
		if (c->repeat == 1 && req->seq && seq != next)
			bad++;
		next = seq + count;
		mold_iter_init(&it, buf, (size_t)n);
		for (i = 0; mold_iter_next(&it, &m, &len) == 1; i++) {
			tool_write_hex(stdout, seq + i, m, len);
			messages++;
		}
	}
	fprintf(stderr, "packets=%" PRIu64 " messages=%" PRIu64 " bad=%" PRIu64 "\n",
		packets, messages, bad);
	ok = !bad && (!c->none || !packets) && (!c->have_expect || messages == c->expect);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct cfg c = { .session = "EXSIM00001", .wait_ms = 300, .repeat = 1 };
	struct mold_rerequest req = { 0 };
	struct sockaddr_in srv;
	uint8_t out[256];
	size_t out_len = 0;
	int fd, ret;

	ret = parse(&c, argc, argv, &req, out, sizeof(out), &out_len, &srv);
	if (ret)
		return ret == 1 ? 0 : 2;
	/* Answers come as fast as the server sends them; this reads only
	 * after all requests went out. */
	fd = tool_udp_socket(prog.name, 0, 16 << 20);
	if (fd < 0)
		return 2;
	for (uint64_t k = 0; k < c.repeat; k++)
		if (sendto(fd, out, out_len, 0, (struct sockaddr *)&srv, sizeof(srv)) < 0) {
			perror("rerequest_client: sendto");
			close(fd);
			return 2;
		}
	ret = answers(fd, &c, &req);
	close(fd);
	return ret;
}
