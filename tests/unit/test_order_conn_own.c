// SPDX-License-Identifier: MIT
/*
 * The order session's connections on the own TCP (net/order_conn.h), their
 * SYNs caught by the test: each takes a local port of the configured range
 * at random (held by a bound socket), and its initial sequence number is
 * RFC 6528's, a 4 us clock plus SipHash-2-4 of the 4-tuple under the
 * session's secret.
 */
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "net/order_conn.h"
#include "proto/soupbin.h"

#define MS 1000000ull

static uint8_t frame[2048];
static uint32_t frame_len;
static unsigned int frames;

static uint8_t *tx_frame(void *ctx, uint64_t *handle)
{
	(void)ctx;
	*handle = 0;
	return frame;
}

static void tx_send(void *ctx, uint64_t handle, uint32_t len)
{
	(void)ctx;
	(void)handle;
	frame_len = len;
	frames++;
}

static const struct frame_endpoint me = { { 2, 0, 0, 0, 0, 2 }, INADDR_LOOPBACK, 41000 };
static const struct frame_endpoint ex = { { 2, 0, 0, 0, 0, 1 }, 0x0a000001, 26401 };

/* The ISN RFC 6528 gives this session's secret for @port at @now. */
static uint32_t want_isn(const struct order_conn *oc, uint16_t port, uint64_t now)
{
	uint8_t t[12];

	be32_store(t, me.ip);
	be16_store(t + 4, port);
	be32_store(t + 6, ex.ip);
	be16_store(t + 10, ex.port);
	return (uint32_t)(now / 4000) + (uint32_t)siphash24(oc->isn_key, t, sizeof(t));
}

static void test_random_ports_and_rfc6528_isns(void **state)
{
	struct order_conn_cfg cfg;
	struct order_conn_ops ops = { 0 };
	struct tcp_tx tx = { tx_frame, tx_send, NULL };
	static struct order_conn oc;
	bool seen[8] = { 0 };
	unsigned int distinct = 0;
	uint64_t now = 123456789;
	char err[160];

	(void)state;
	/* A namespace of our own when we may: the ports are bound in it. */
	(void)unshare(CLONE_NEWNET);
	order_session_defaults(&cfg);
	cfg.local = me;
	cfg.local_port_last = 41007;
	cfg.remote = ex;
	assert_int_equal(order_conn_init(&oc, &cfg, &ops, &tx, err, sizeof(err)), 0);
	for (int i = 0; i < 40; i++) {
		struct tcp_seg s;
		uint16_t port;

		frames = 0;
		if (i == 0)
			order_conn_start(&oc, now);
		else
			order_conn_idle(&oc, now);
		assert_int_equal(oc.state, OC_CONNECTING);
		assert_int_equal(frames, 1);
		assert_int_equal(frame_parse_tcp(frame, frame_len, &s), 0);
		assert_int_equal(s.flags, TCP_SYN);
		port = s.src_port;
		assert_true(port >= 41000 && port <= 41007);
		assert_int_equal(port, oc.port);
		assert_int_equal(s.seq, want_isn(&oc, port, now));
		if (!seen[port - 41000]) {
			seen[port - 41000] = true;
			distinct++;
		}
		/* The connection is refused: the next attempt after the backoff. */
		tcp_abort(oc.tcp, now);
		order_conn_idle(&oc, now);
		assert_int_equal(oc.state, OC_WAITING);
		now = oc.retry_at;
	}
	/* At random: 40 draws of 8 ports hit fewer than 6 with odds below 1e-6. */
	assert_true(distinct >= 6);
	order_conn_destroy(&oc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_ports_and_rfc6528_isns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
