// SPDX-License-Identifier: MIT
/*
 * The order session on the kernel's TCP (net/order_conn.h), against a
 * SoupBinTCP server played by the test on loopback (in a network namespace
 * of its own when it may make one): why a lost connection was lost.  A
 * reset the exchange sends is a reset even when an order's send() is what
 * meets it first (that send() takes the socket's error, and the next
 * recv() sees only an end of stream); a close is a close.  A fixed local
 * port connects again at once after our own close; one that cannot be
 * bound is said, and no connection leaves from another.  A Login Accepted
 * ahead of the next reply halts the session (replies still taken, no
 * order); one for another session stops it.
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
#include <stdio.h>
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

static uint16_t fixed_port;	/* the next session_init()'s --local-port; 0: any */
static unsigned int ups;	/* on_up calls */
static unsigned int msgs;	/* on_msg calls */

static void on_up(void *ctx, uint64_t now)
{
	(void)ctx;
	(void)now;
	ups++;
}

static void on_msg(void *ctx, const struct soup_msg *m, uint64_t now)
{
	(void)ctx;
	(void)m;
	(void)now;
	msgs++;
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
		.local = { .port = fixed_port }, .local_port_last = fixed_port,
	};
	struct order_conn_ops ops = { .on_up = on_up, .on_msg = on_msg };
	char err[128];

	ups = msgs = 0;
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

/*
 * Connect, take the Login Request, answer it with a Login Accepted of
 * @session at @seq; wait until the session is in a state other than
 * logging in.
 */
static void accept_login(struct order_conn *oc, struct server *sv, const char *session,
			 uint64_t seq)
{
	struct soup_login_accepted acc = { .seq = seq };
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
	soup_pad_left(acc.session, SOUP_SESSION_LEN, session);
	n = soup_encode_login_accepted(out, sizeof(out), &acc);
	assert_int_equal(n, SOUP_LOGIN_ACCEPTED_LEN);
	assert_int_equal(send(sv->fd, out, (size_t)n, 0), n);
	while (oc->state == OC_LOGGING_IN && mono_ns() < deadline)
		order_conn_poll(oc, mono_ns());
}

/* Connect, take the Login Request, accept it: the session is up. */
static void log_in(struct order_conn *oc, struct server *sv)
{
	accept_login(oc, sv, "S1", 1);
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

/* A sysctl of the test's own namespace, where it may write one. */
static void sysctl_set(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return;
	fputs(v, f);
	fclose(f);
}

/* The local port of the server's end of the connection. */
static uint16_t peer_port(const struct server *sv)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	assert_int_equal(getpeername(sv->fd, (struct sockaddr *)&a, &len), 0);
	return ntohs(a.sin_port);
}

/*
 * A fixed --local-port: the connection we give up ourselves (here by the
 * silence rule) is reset, not closed, so no TIME_WAIT holds the port (a
 * plain bind() of it succeeds) and the next connection leaves from it at
 * once.
 */
static void test_fixed_port_reconnects_at_once(void **state)
{
	struct order_conn oc;
	struct server sv;
	uint64_t deadline;

	(void)state;
	own_loopback();
	/* Loopback may reuse a TIME_WAIT port (tcp_tw_reuse 2): not here. */
	sysctl_set("/proc/sys/net/ipv4/tcp_tw_reuse", "0");
	server_listen(&sv);
	fixed_port = 40123;
	session_init(&oc, &sv);
	fixed_port = 0;
	oc.soup.live.timeout_ns = 50000000ull;
	log_in(&oc, &sv);
	assert_int_equal(peer_port(&sv), 40123);
	/* Silence: the gateway gives the connection up, then logs in again at once. */
	pause_ms(60);
	order_conn_idle(&oc, mono_ns());
	assert_int_equal(oc.st.lost[OC_LOST_SILENCE], 1);
	close(sv.fd);
	sv.fd = -1;
	pause_ms(20);
	/* No TIME_WAIT holds the port: a socket without SO_REUSEADDR may bind it. */
	{
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(40123) };
		int probe = socket(AF_INET, SOCK_STREAM, 0);

		assert_int_equal(bind(probe, (struct sockaddr *)&a, sizeof(a)), 0);
		close(probe);
	}
	deadline = mono_ns() + 500000000ull;
	while (sv.fd < 0 && mono_ns() < deadline) {
		struct pollfd p = { .fd = sv.lfd, .events = POLLIN };

		order_conn_idle(&oc, mono_ns());
		if (poll(&p, 1, 1) == 1)
			sv.fd = accept(sv.lfd, NULL, NULL);
	}
	assert_true(sv.fd >= 0);
	assert_int_equal(peer_port(&sv), 40123);
	assert_int_equal(oc.st.lost[OC_LOST_REFUSED], 0);
	assert_int_equal(oc.st.sock_errors, 0);
	order_conn_destroy(&oc);
	close(sv.fd);
	close(sv.lfd);
}

/* A --local-port held by another socket: said, and nothing leaves from another port. */
static void test_port_in_use_is_said(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(40124) };
	struct order_conn oc;
	struct server sv;
	struct pollfd p;
	int holder;

	(void)state;
	own_loopback();
	server_listen(&sv);
	holder = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(holder, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(holder, 1), 0);
	fixed_port = 40124;
	session_init(&oc, &sv);
	fixed_port = 0;
	order_conn_start(&oc, mono_ns());
	assert_int_equal(oc.st.lost[OC_LOST_REFUSED], 1);
	assert_int_equal(oc.st.sock_errors, 1);
	assert_int_equal(oc.notes, 1);
	assert_non_null(strstr(oc.note, "bind(--local-port 40124)"));
	p = (struct pollfd){ .fd = sv.lfd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 50), 0);
	order_conn_destroy(&oc);
	close(holder);
	close(sv.lfd);
}

/* A Sequenced Data packet of one byte, from the server. */
static void server_reply(struct server *sv)
{
	uint8_t pkt[SOUP_HDR_LEN + 1];

	soup_put_header(pkt, SOUP_SEQ_DATA, 1);
	pkt[SOUP_HDR_LEN] = 'A';
	assert_int_equal(send(sv->fd, pkt, sizeof(pkt), 0), (ssize_t)sizeof(pkt));
}

/*
 * A Login Accepted at 5 when 1 is the next reply lacked: replies 1-4 are
 * lost for good.  The session stays logged in (replies handed on) and
 * halted: on_up is never called and no order is taken.
 */
static void test_login_accepted_ahead_halts(void **state)
{
	struct order_conn oc;
	struct server sv;
	uint64_t deadline;

	(void)state;
	own_loopback();
	server_listen(&sv);
	session_init(&oc, &sv);
	accept_login(&oc, &sv, "S1", 5);
	assert_int_equal(oc.state, OC_HALTED);
	assert_int_equal(ups, 0);
	assert_int_equal(oc.soup.lost_from, 1);
	assert_int_equal(oc.soup.lost_to, 4);
	assert_int_equal(send_order(&oc), -1);
	server_reply(&sv);
	deadline = mono_ns() + 1000000000ull;
	while (!msgs && mono_ns() < deadline)
		order_conn_poll(&oc, mono_ns());
	assert_int_equal(msgs, 1);
	assert_int_equal(oc.soup.next_seq, 6);
	assert_int_equal(oc.state, OC_HALTED);
	order_conn_destroy(&oc);
	close(sv.fd);
	close(sv.lfd);
}

/* Asked for S1, accepted for S2: refused, stopped for good. */
static void test_login_accepted_for_another_session_stops(void **state)
{
	struct order_conn oc;
	struct server sv;

	(void)state;
	own_loopback();
	server_listen(&sv);
	session_init(&oc, &sv);
	soup_pad_left(oc.soup.session, SOUP_SESSION_LEN, "S1");
	accept_login(&oc, &sv, "S2", 1);
	assert_int_equal(oc.state, OC_STOPPED);
	assert_int_equal(oc.stop, OC_STOP_WRONG_SESSION);
	assert_int_equal(ups, 0);
	assert_memory_equal(oc.soup.other_session, "        S2", SOUP_SESSION_LEN);
	order_conn_idle(&oc, mono_ns() + 5000000000ull);
	assert_int_equal(oc.st.attempts, 1);
	order_conn_destroy(&oc);
	close(sv.fd);
	close(sv.lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_met_by_a_send_is_a_reset),
		cmocka_unit_test(test_reset_alone_is_a_reset),
		cmocka_unit_test(test_close_is_a_close),
		cmocka_unit_test(test_fixed_port_reconnects_at_once),
		cmocka_unit_test(test_port_in_use_is_said),
		cmocka_unit_test(test_login_accepted_ahead_halts),
		cmocka_unit_test(test_login_accepted_for_another_session_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
