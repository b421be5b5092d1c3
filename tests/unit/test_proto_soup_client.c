// SPDX-License-Identifier: MIT
/*
 * The SoupBinTCP client session (proto/soup_client.h): the Login Request's
 * bytes; Login Accepted and its numbering (a server starting below what we
 * asked for sends duplicates, ignored; above it, messages lost for good:
 * named, and the client halted for good); a Login Accepted for another
 * session than asked, refused; Login Rejected and its finality; every
 * sequenced message handed on once across reconnections, whatever the
 * cuts in the stream, an empty one numbered too, one before the Login
 * Accepted losing the connection; heartbeats out after the silence, the
 * lost-connection rule; End of Session; packets out of place or of the
 * client's own types; a broken stream; logout; and the USER:PASSWORD and
 * session parsers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/proto_err.h"
#include "proto/soup_client.h"

#define MS 1000000ull
#define S (1000 * MS)

static struct soup_client *c;

static int setup(void **state)
{
	struct soup_client_cfg cfg = { .hb_ns = 1 * S, .timeout_ns = 15 * S };

	(void)state;
	c = malloc(sizeof(*c));
	if (!c)
		return -1;
	assert_int_equal(soup_parse_login("T2TG:secret", cfg.user, cfg.password), 0);
	memset(cfg.session, ' ', sizeof(cfg.session));
	soup_client_init(c, &cfg);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(c);
	return 0;
}

/* A stream the server writes, built up packet by packet. */
static uint8_t stream[4096];
static size_t slen;

static void put_accepted(const char *session, uint64_t seq)
{
	struct soup_login_accepted a;

	soup_pad_left(a.session, sizeof(a.session), session);
	a.seq = seq;
	slen += (size_t)soup_encode_login_accepted(stream + slen, sizeof(stream) - slen, &a);
}

static void put_seq(const char *msg)
{
	size_t n = strlen(msg);

	soup_encode_header(stream + slen, sizeof(stream) - slen, SOUP_SEQ_DATA, n);
	memcpy(stream + slen + SOUP_HDR_LEN, msg, n);
	slen += SOUP_HDR_LEN + n;
}

static void put_empty(char type)
{
	slen += (size_t)soup_encode_empty(stream + slen, sizeof(stream) - slen, type);
}

/* Feed the stream in chunks of @cut bytes; collect the events and messages. */
static char events[64];
static char msgs[64][16];
static uint64_t seqs[64];
static int nmsgs, nev;

static void deliver(size_t cut, uint64_t now)
{
	struct soup_msg m;
	int ev;

	nmsgs = nev = 0;
	for (size_t off = 0; off < slen; off += cut) {
		size_t n = slen - off < cut ? slen - off : cut;

		soup_client_on_bytes(c, stream + off, n, now);
		while ((ev = soup_client_next(c, &m)) != SOUP_EV_NONE) {
			events[nev++] = (char)('0' + ev);
			/* The connection goes: nothing more is read from it. */
			if (ev == SOUP_EV_LOST)
				goto out;
			if (ev == SOUP_EV_MSG) {
				memcpy(msgs[nmsgs], m.data, m.len);
				msgs[nmsgs][m.len] = '\0';
				seqs[nmsgs++] = m.seq;
			}
		}
	}
out:
	events[nev] = '\0';
	slen = 0;
}

static void login(uint64_t now)
{
	uint8_t buf[SOUP_LOGIN_REQUEST_LEN];

	assert_int_equal(soup_client_login(c, buf, sizeof(buf), now), SOUP_LOGIN_REQUEST_LEN);
	assert_int_equal(c->state, SOUP_C_LOGIN_SENT);
}

static void test_login_request_bytes(void **state)
{
	static const char want[] = "\x00\x2f" "L" "T2TG  " "secret    " "          "
				   "                   1";
	uint8_t buf[SOUP_LOGIN_REQUEST_LEN];

	(void)state;
	assert_int_equal(soup_client_login(c, buf, sizeof(buf), 0), SOUP_LOGIN_REQUEST_LEN);
	assert_memory_equal(buf, want, SOUP_LOGIN_REQUEST_LEN);
	assert_int_equal(soup_client_login(c, buf, 10, 0), PROTO_E_NOSPACE);
	assert_int_equal(c->st.logins, 1);
}

static void test_messages_once_across_connections(void **state)
{
	uint8_t buf[SOUP_LOGIN_REQUEST_LEN];
	static const size_t cuts[] = { 1, 2, 3, 7, 1000 };

	(void)state;
	login(0);
	put_accepted("SESS01", 1);
	put_seq("one");
	put_seq("two");
	put_empty(SOUP_SERVER_HEARTBEAT);
	put_seq("three");
	deliver(5, 10);
	assert_string_equal(events, "211" "1");
	assert_int_equal(nmsgs, 3);
	assert_string_equal(msgs[2], "three");
	assert_int_equal(seqs[2], 3);
	assert_int_equal(c->next_seq, 4);
	assert_memory_equal(c->session, "    SESS01", 10);
	assert_int_equal(c->st.hb_in, 1);

	/* The connection goes; the next login asks for 4, in the same session. */
	soup_client_disconnected(c);
	assert_int_equal(c->state, SOUP_C_IDLE);
	assert_int_equal(soup_client_login(c, buf, sizeof(buf), 20), SOUP_LOGIN_REQUEST_LEN);
	assert_memory_equal(buf + 3 + 16, "    SESS01", 10);
	assert_memory_equal(buf + 3 + 26, "                   4", 20);

	/* A server that starts again at 2: 2 and 3 are duplicates, 4 and 5 new. */
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		uint64_t from = c->next_seq - 2;

		soup_client_disconnected(c);
		login(30);
		put_accepted("SESS01", from);
		put_seq("old");
		put_seq("old");
		put_seq("new");
		put_seq("new2");
		deliver(cuts[k], 40);
		assert_int_equal(nmsgs, 2);
		assert_string_equal(msgs[0], "new");
		assert_int_equal(seqs[0], from + 2);
		assert_int_equal(seqs[1], from + 3);
	}
	assert_int_equal(c->st.dup_msgs, 2 * 5);
	assert_int_equal(c->st.seq_msgs, 3 + 2 * 5);
}

/*
 * A Login Accepted ahead of the next reply lacked: the replies between are
 * gone for good, named, and the client halted (no new orders), for the
 * rest of the session, across reconnections; the replies after them are
 * still handed on.
 */
static void test_server_beyond_what_we_asked(void **state)
{
	(void)state;
	login(0);
	put_accepted("S", 1);
	put_seq("one");
	put_seq("two");
	deliver(100, 1);
	assert_false(c->halted);
	soup_client_disconnected(c);
	login(2);
	put_accepted("S", 7);	/* 3..6 are gone on its side */
	put_seq("seven");
	deliver(100, 3);
	assert_string_equal(events, "21");
	assert_int_equal(c->state, SOUP_C_LOGGED_IN);
	assert_int_equal(c->st.skipped, 4);
	assert_true(c->halted);
	assert_int_equal(c->lost_from, 3);
	assert_int_equal(c->lost_to, 6);
	assert_int_equal(seqs[0], 7);
	assert_int_equal(c->next_seq, 8);
	/* Reconnected and caught up: still halted, the first loss still named. */
	soup_client_disconnected(c);
	login(4);
	put_accepted("S", 10);
	deliver(100, 5);
	assert_true(c->halted);
	assert_int_equal(c->lost_from, 3);
	assert_int_equal(c->lost_to, 9);
	assert_int_equal(c->st.skipped, 6);
}

/*
 * Every Sequenced Data packet takes a number, an empty one too: the reply
 * after it has the server's number, and the replay after a reconnection
 * applies nothing twice.
 */
static void test_empty_sequenced_packet_is_numbered(void **state)
{
	(void)state;
	login(0);
	put_accepted("S", 1);
	put_seq("one");
	put_seq("");		/* message 2: empty */
	put_seq("three");
	deliver(100, 1);
	assert_string_equal(events, "211");
	assert_int_equal(seqs[1], 3);
	assert_int_equal(c->st.empty_msgs, 1);
	assert_int_equal(c->next_seq, 4);
	/* The server replays from 2 (it was asked for 4, say it had lost track). */
	soup_client_disconnected(c);
	login(2);
	put_accepted("S", 2);
	put_seq("");
	put_seq("three");
	put_seq("four");
	deliver(100, 3);
	assert_int_equal(nmsgs, 1);
	assert_string_equal(msgs[0], "four");
	assert_int_equal(seqs[0], 4);
	assert_int_equal(c->st.dup_msgs, 2);
	assert_false(c->halted);
}

/* A Sequenced Data packet before the Login Accepted has no number: the connection goes. */
static void test_sequenced_before_login_loses_the_connection(void **state)
{
	uint8_t buf[SOUP_LOGIN_REQUEST_LEN];

	(void)state;
	login(0);
	put_seq("early");
	put_accepted("S", 1);
	deliver(100, 1);
	assert_string_equal(events, "5");
	assert_int_equal(c->st.seq_before_login, 1);
	assert_int_equal(c->next_seq, 1);
	soup_client_disconnected(c);
	/* The next login asks for it again. */
	assert_int_equal(soup_client_login(c, buf, sizeof(buf), 2), SOUP_LOGIN_REQUEST_LEN);
	assert_memory_equal(buf + 3 + 26, "                   1", 20);
}

/*
 * A Login Accepted names the session: when one was asked for, another is
 * refused for good.  With none asked for, the first one accepted is the
 * one asked for from then on.
 */
static void test_login_accepted_for_another_session(void **state)
{
	uint8_t buf[SOUP_LOGIN_REQUEST_LEN];

	(void)state;
	login(0);
	put_accepted("DAY1", 1);
	deliver(100, 1);
	assert_string_equal(events, "2");
	soup_client_disconnected(c);
	assert_int_equal(soup_client_login(c, buf, sizeof(buf), 2), SOUP_LOGIN_REQUEST_LEN);
	assert_memory_equal(buf + 3 + 16, "      DAY1", 10);
	put_accepted("DAY2", 1);
	put_seq("not ours");
	deliver(100, 3);
	assert_string_equal(events, "6");
	assert_int_equal(nmsgs, 0);
	assert_int_equal(c->state, SOUP_C_WRONG_SESSION);
	assert_memory_equal(c->other_session, "      DAY2", 10);
	assert_memory_equal(c->session, "      DAY1", 10);
	assert_int_equal(c->st.wrong_session, 1);
	assert_true(soup_client_final(c));
	soup_client_disconnected(c);
	assert_int_equal(soup_client_login(c, buf, sizeof(buf), 4), PROTO_E_RANGE);
}

static void test_rejected_is_final(void **state)
{
	uint8_t buf[SOUP_LOGIN_REQUEST_LEN];

	(void)state;
	login(0);
	slen += (size_t)soup_encode_login_rejected(stream, sizeof(stream), SOUP_REJECT_NOT_AUTHORIZED);
	deliver(100, 1);
	assert_string_equal(events, "3");
	assert_int_equal(c->state, SOUP_C_REJECTED);
	assert_int_equal(c->reject_reason, 'A');
	assert_true(soup_client_final(c));
	soup_client_disconnected(c);
	assert_int_equal(c->state, SOUP_C_REJECTED);
	assert_int_equal(soup_client_login(c, buf, sizeof(buf), 2), PROTO_E_RANGE);
}

static void test_out_of_place_and_foreign_packets(void **state)
{
	(void)state;
	login(0);
	/* An End of Session before the login is accepted: out of place, ignored. */
	put_empty(SOUP_END_OF_SESSION);
	deliver(100, 1);
	assert_int_equal(nmsgs, 0);
	assert_int_equal(c->st.bad, 1);
	put_accepted("S", 1);
	/* A client's own packet types, an unknown type, a debug packet. */
	put_empty(SOUP_CLIENT_HEARTBEAT);
	stream[slen++] = 0;
	stream[slen++] = 1;
	stream[slen++] = '?';
	slen += (size_t)soup_encode_debug(stream + slen, 64, "hello", 5);
	put_seq("ok");
	deliver(3, 2);
	assert_string_equal(events, "21");
	assert_int_equal(c->st.unknown, 1);
	assert_int_equal(c->st.bad, 2);
	assert_int_equal(c->st.debug_in, 1);
	/* A second Login Accepted is a protocol error: the connection must go. */
	put_accepted("S", 1);
	deliver(100, 3);
	assert_string_equal(events, "5");
}

static void test_heartbeats_and_the_silence_rule(void **state)
{
	uint8_t hb[SOUP_EMPTY_LEN];

	(void)state;
	login(0);
	put_accepted("S", 1);
	deliver(100, 0);
	assert_int_equal(soup_client_tick(c, hb, 1 * S - 1), 0);
	assert_int_equal(soup_client_tick(c, hb, 1 * S), 1);
	assert_memory_equal(hb, "\x00\x01R", 3);
	assert_int_equal(soup_client_tick(c, hb, 1 * S + 1), 0);
	/* Something sent: no heartbeat owed for a second from then. */
	soup_client_sent(c, 1500 * MS);
	assert_int_equal(soup_client_tick(c, hb, 2 * S), 0);
	assert_int_equal(soup_client_tick(c, hb, 2500 * MS), 1);
	/* Bytes keep the connection alive; 15 s of none lose it. */
	put_empty(SOUP_SERVER_HEARTBEAT);
	deliver(100, 10 * S);
	assert_int_equal(soup_client_tick(c, hb, 25 * S - 1), 1);	/* a heartbeat, still alive */
	assert_int_equal(soup_client_tick(c, hb, 25 * S), -1);
	assert_int_equal(c->st.timeouts, 1);
	assert_int_equal(c->st.hb_out, 3);
}

static void test_end_of_session(void **state)
{
	uint8_t buf[SOUP_LOGIN_REQUEST_LEN];

	(void)state;
	login(0);
	put_accepted("S", 1);
	put_seq("last");
	put_empty(SOUP_END_OF_SESSION);
	deliver(100, 1);
	assert_string_equal(events, "214");
	assert_int_equal(c->state, SOUP_C_ENDED);
	assert_int_equal(soup_client_login(c, buf, sizeof(buf), 2), PROTO_E_RANGE);
	assert_int_equal(soup_client_logout(c, buf, sizeof(buf)), SOUP_EMPTY_LEN);
	assert_memory_equal(buf, "\x00\x01O", 3);
}

static void test_broken_stream(void **state)
{
	(void)state;
	login(0);
	put_accepted("S", 1);
	put_seq("x");
	stream[slen++] = 0;
	stream[slen++] = 0;	/* a Packet Length of 0: nothing can follow it */
	deliver(100, 1);
	assert_string_equal(events, "215");
	assert_int_equal(c->st.broken, 1);
	/* A new connection's stream starts clean. */
	soup_client_disconnected(c);
	login(2);
	put_accepted("S", 2);
	put_seq("y");
	deliver(1, 3);
	assert_string_equal(events, "21");
}

static void test_parsers(void **state)
{
	char user[SOUP_USER_LEN], pass[SOUP_PASSWORD_LEN], sess[SOUP_SESSION_LEN];

	(void)state;
	assert_int_equal(soup_parse_login("ABCDEF:0123456789", user, pass), 0);
	assert_memory_equal(user, "ABCDEF", 6);
	assert_memory_equal(pass, "0123456789", 10);
	assert_int_equal(soup_parse_login("u:", user, pass), 0);
	assert_memory_equal(user, "u     ", 6);
	assert_memory_equal(pass, "          ", 10);
	assert_int_equal(soup_parse_login("ABCDEFG:x", user, pass), -1);
	assert_int_equal(soup_parse_login("u:01234567890", user, pass), -1);
	assert_int_equal(soup_parse_login(":x", user, pass), -1);
	assert_int_equal(soup_parse_login("nocolon", user, pass), -1);
	assert_int_equal(soup_parse_login("a b:x", user, pass), -1);
	assert_int_equal(soup_parse_session("EXSIM00001", sess), 0);
	assert_memory_equal(sess, "EXSIM00001", 10);
	assert_int_equal(soup_parse_session("S1", sess), 0);
	assert_memory_equal(sess, "        S1", 10);
	assert_int_equal(soup_parse_session("EXSIM000012", sess), -1);
	assert_int_equal(soup_parse_session("a b", sess), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_login_request_bytes),
		T(test_messages_once_across_connections),
		T(test_server_beyond_what_we_asked),
		T(test_empty_sequenced_packet_is_numbered),
		T(test_sequenced_before_login_loses_the_connection),
		T(test_login_accepted_for_another_session),
		T(test_rejected_is_final),
		T(test_out_of_place_and_foreign_packets),
		T(test_heartbeats_and_the_silence_rule),
		T(test_end_of_session),
		T(test_broken_stream),
		T(test_parsers),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
