// SPDX-License-Identifier: MIT
/*
 * The dry session (net/xsk_dry.h): logged in after its played handshake,
 * it takes an order's send as the live session does (a valid segment on
 * its TX ring), forever (the peer's ACK after each send keeps the stream
 * empty and the frames free), and it owns no socket.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "net/xsk_dry.h"
#include "proto/csum.h"
#include "proto/ouch.h"

#define FRAME 2048

static struct order_conn_cfg session_cfg(void)
{
	struct order_conn_cfg c;

	order_session_defaults(&c);
	c.local = (struct frame_endpoint){ { 2, 0, 0, 0, 0, 2 }, 0x0a000002, 40001 };
	c.remote = (struct frame_endpoint){ { 2, 0, 0, 0, 0, 1 }, 0x0a000001, 26401 };
	c.mss = 1460;
	return c;
}

static struct xsk_dry *open_dry(void)
{
	struct order_conn_cfg c = session_cfg();
	struct xsk_dry *d = malloc(sizeof(*d));
	char err[128];

	assert_non_null(d);
	assert_int_equal(xsk_dry_init(d, &c, FRAME, 1000, err, sizeof(err)), 0);
	return d;
}

static void close_dry(struct xsk_dry *d)
{
	xsk_dry_destroy(d);
	free(d);
}

static void test_dry_session_is_up_and_owns_no_socket(void **state)
{
	struct xsk_dry *d = open_dry();

	(void)state;
	assert_true(order_conn_up(&d->xs.oc));
	assert_true(tcp_is_established(d->xs.oc.tcp));
	assert_int_equal(d->xs.oc.tcp->snd_una, d->xs.oc.tcp->snd_max);
	assert_int_equal(d->port.fd, -1);
	assert_int_equal(d->xs.oc.fd, -1);
	assert_int_equal(d->xs.oc.port_fd, -1);
	assert_null(d->xs.steer);
	assert_ptr_equal(d->xs.port, &d->port);
	assert_int_equal(d->port.tx_free_n, XSK_DRY_FRAMES);
	assert_int_equal(d->port.tx_inflight, 0);
	close_dry(d);
}

/*
 * Far more bytes than the send buffer holds and sends than the ring has
 * slots: each send is a whole, valid segment on the ring, one past the
 * last, and after each reset the stream is acknowledged and the pool full.
 */
static void test_dry_sends_forever(void **state)
{
	struct xsk_dry *d = open_dry();
	struct tcp_conn *t = d->xs.oc.tcp;
	uint32_t seq0 = t->snd_nxt;
	const unsigned int n = 4 * TCP_SBUF / OUCH_ENTER_PKT_LEN;

	(void)state;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t addr = xsk_port_tx_frame(&d->port), sum;
		uint8_t *frame;
		const struct xdp_desc *desc;
		struct tcp_seg s;

		assert_int_not_equal(addr, UINT64_MAX);
		frame = xsk_port_data(&d->port, addr);
		memset(frame + FRAME_TCP_HDR_LEN, (int)(i & 0xff), OUCH_ENTER_PKT_LEN);
		sum = csum_partial(frame + FRAME_TCP_HDR_LEN, OUCH_ENTER_PKT_LEN, 0);
		assert_int_equal(xsk_session_send(&d->xs, addr, OUCH_ENTER_PKT_LEN, sum,
						  2000 + i), 1);
		assert_int_equal(d->tx_prod - d->tx_cons, 1);
		desc = &d->tx_ring[d->tx_cons & (XSK_DRY_RING - 1)];
		assert_int_equal(desc->addr, addr);
		assert_int_equal(desc->len, FRAME_TCP_HDR_LEN + OUCH_ENTER_PKT_LEN);
		assert_int_equal(frame_parse_tcp(frame, desc->len, &s), 0);
		assert_int_equal(tcp_seg_verify(&s), 0);
		assert_int_equal(s.seq, seq0 + i * OUCH_ENTER_PKT_LEN);
		assert_int_equal(s.len, OUCH_ENTER_PKT_LEN);

		xsk_dry_reset(d, 2000 + i);
		assert_int_equal(t->snd_una, t->snd_max);
		assert_int_equal(d->tx_prod, d->tx_cons);
		assert_int_equal(d->port.tx_free_n, XSK_DRY_FRAMES);
		assert_int_equal(d->port.tx_inflight, 0);
	}
	assert_int_equal(d->sends, n);
	assert_int_equal(d->acks, n);
	assert_true(tcp_is_established(t));
	assert_int_equal(t->st.retrans_segs, 0);
	assert_int_equal(d->xs.oc.st.send_fail, 0);
	close_dry(d);
}

/* A reset with nothing sent plays no ACK and changes nothing. */
static void test_reset_without_send(void **state)
{
	struct xsk_dry *d = open_dry();
	uint32_t una = d->xs.oc.tcp->snd_una;

	(void)state;
	xsk_dry_reset(d, 5000);
	assert_int_equal(d->acks, 0);
	assert_int_equal(d->sends, 0);
	assert_int_equal(d->xs.oc.tcp->snd_una, una);
	close_dry(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dry_session_is_up_and_owns_no_socket),
		cmocka_unit_test(test_dry_sends_forever),
		cmocka_unit_test(test_reset_without_send),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
