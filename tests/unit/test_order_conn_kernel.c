// SPDX-License-Identifier: MIT
/*
 * The order session on the kernel's TCP (net/order_conn.h), against a
 * SoupBinTCP server played by the test on loopback (in a network namespace
 * of its own when it may make one): why a lost connection was lost.  A
 * reset the exchange sends is a reset even when an order's send() is what
 * meets it first (that send() takes the socket's error, and the next
 * recv() sees only an end of stream); a close is a close.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "net/order_conn.h"
#include "proto/soupbin.h"
#include "util/clock.h"

struct server {
	int lfd, fd;
	uint16_t port;
};

/* Loopback up in a namespace of our own; the shared one's when not root. */
static void own_loopback(void)
{
	struct ifreq ifr = { 0 };
	int s;

	if (unshare(CLONE_NEWNET))
		return;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(s >= 0);
	strcpy(ifr.ifr_name, "lo");
	assert_int_equal(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	assert_int_equal(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
	close(s);
}

static void server_listen(struct server *sv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);

	sv->lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(sv->lfd >= 0);
	assert_int_equal(bind(sv->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(sv->lfd, 1), 0);
	assert_int_equal(getsockname(sv->lfd, (struct sockaddr *)&a, &len), 0);
	sv->port = ntohs(a.sin_port);
	sv->fd = -1;
}

static void session_init(struct order_conn *oc, const struct server *sv)
{
	struct order_conn_cfg cfg = {
		.stack = OC_STACK_KERNEL,
		.remote = { .ip = INADDR_LOOPBACK, .port = sv->port },
		.connect_timeout_ns = 1000000000ull,
		.backoff_min_ns = 1000000ull, .backoff_max_ns = 10000000ull,
		.close_ns = 100000000ull,
		.rto_init_ns = 200000000ull, .rto_min_ns = 200000000ull,
		.rto_max_ns = 1000000000ull, .retries = 3,
		.soup = { .hb_ns = 1000000000ull, .timeout_ns = 15000000000ull },
	};
	struct order_conn_ops ops = { 0 };
	char err[128];

	soup_pad_right(cfg.soup.user, SOUP_USER_LEN, "TEST");
	soup_pad_right(cfg.soup.password, SOUP_PASSWORD_LEN, "PW");
	soup_pad_right(cfg.soup.session, SOUP_SESSION_LEN, "");
	assert_int_equal(order_conn_init(oc, &cfg, &ops, NULL, err, sizeof(err)), 0);
}

/* Read exactly @n bytes from the server's connection. */
static void server_read(struct server *sv, uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd p = { .fd = sv->fd, .events = POLLIN };
		ssize_t r;

		assert_int_equal(poll(&p, 1, 2000), 1);
		r = recv(sv->fd, buf + got, n - got, 0);
		assert_true(r > 0);
		got += (size_t)r;
	}
}

/* Connect, take the Login Request, accept it: the session is up. */
static void log_in(struct order_conn *oc, struct server *sv)
{
	struct soup_login_accepted acc = { .seq = 1 };
	uint8_t req[SOUP_LOGIN_REQUEST_LEN], out[SOUP_LOGIN_ACCEPTED_LEN];
	uint64_t deadline = mono_ns() + 2000000000ull;
	int n;

	order_conn_start(oc, mono_ns());
	while (sv->fd < 0 && mono_ns() < deadline) {
		struct pollfd p = { .fd = sv->lfd, .events = POLLIN };

		order_conn_idle(oc, mono_ns());
		if (poll(&p, 1, 1) == 1)
			sv->fd = accept(sv->lfd, NULL, NULL);
	}
	assert_true(sv->fd >= 0);
	while (oc->state != OC_LOGGING_IN && mono_ns() < deadline)
		order_conn_idle(oc, mono_ns());
	server_read(sv, req, sizeof(req));
	assert_int_equal(req[2], 'L');
	soup_pad_left(acc.session, SOUP_SESSION_LEN, "S1");
	n = soup_encode_login_accepted(out, sizeof(out), &acc);
	assert_int_equal(n, SOUP_LOGIN_ACCEPTED_LEN);
	assert_int_equal(send(sv->fd, out, (size_t)n, 0), n);
	while (!order_conn_up(oc) && mono_ns() < deadline)
		order_conn_poll(oc, mono_ns());
	assert_true(order_conn_up(oc));
}

static void pause_ms(long ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* An Unsequenced Data packet, as an order is sent. */
static int send_order(struct order_conn *oc)
{
	uint8_t pkt[SOUP_HDR_LEN + 8];

	soup_put_header(pkt, 'U', 8);
	memset(pkt + SOUP_HDR_LEN, 'O', 8);
	return order_conn_send(oc, pkt, sizeof(pkt), mono_ns());
}

/*
 * A session up against the test's server, whose end then goes away: with a
 * reset (a zero linger) when @reset, else with a FIN.
 */
static void up_then_lost(struct order_conn *oc, struct server *sv, bool reset)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	own_loopback();
	server_listen(sv);
	session_init(oc, sv);
	log_in(oc, sv);
	if (reset)
		assert_int_equal(setsockopt(sv->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)), 0);
	close(sv->fd);
	pause_ms(50);
}

/* The poll that finds the loss counted it as @why, and only so. */
static void assert_lost_as(struct order_conn *oc, struct server *sv, int why, int not)
{
	order_conn_poll(oc, mono_ns());
	assert_int_equal(oc->st.lost[why], 1);
	assert_int_equal(oc->st.lost[not], 0);
	assert_int_equal(oc->last_lost, why);
	order_conn_destroy(oc);
	close(sv->lfd);
}

static void test_reset_met_by_a_send_is_a_reset(void **state)
{
	struct order_conn oc;
	struct server sv;

	(void)state;
	up_then_lost(&oc, &sv, true);
	/* The order's send() meets the reset and takes the socket's error. */
	assert_int_equal(send_order(&oc), -1);
	assert_int_equal(oc.st.send_errors, 1);
	assert_lost_as(&oc, &sv, OC_LOST_RESET, OC_LOST_FIN);
}

static void test_reset_alone_is_a_reset(void **state)
{
	struct order_conn oc;
	struct server sv;

	(void)state;
	up_then_lost(&oc, &sv, true);
	assert_lost_as(&oc, &sv, OC_LOST_RESET, OC_LOST_FIN);
}

static void test_close_is_a_close(void **state)
{
	struct order_conn oc;
	struct server sv;

	(void)state;
	up_then_lost(&oc, &sv, false);
	/* After a FIN a send() still succeeds (the peer only half-closed). */
	assert_int_equal(send_order(&oc), 0);
	assert_lost_as(&oc, &sv, OC_LOST_FIN, OC_LOST_RESET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_met_by_a_send_is_a_reset),
		cmocka_unit_test(test_reset_alone_is_a_reset),
		cmocka_unit_test(test_close_is_a_close),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
