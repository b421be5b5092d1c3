// SPDX-License-Identifier: MIT
/*
 * The order server's rules, without a socket: who may log in and where
 * the sequenced messages start again (netns/exsim/soup_login.h), and when
 * a fault stops a connection (netns/exsim/soup_fault.h): every N messages
 * of each connection, after listed session numbers once each (those a
 * connection starts beyond passed over), silence, the earliest first; and
 * the options' grammar.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "netns/exsim/soup_fault.h"
#include "netns/exsim/soup_login.h"
#include "proto/soup_client.h"

static struct soup_login_rules rules(void)
{
	struct soup_login_rules r;

	memset(&r, 0, sizeof(r));
	soup_parse_login("T2TG:secret", r.acct[0].user, r.acct[0].password);
	soup_parse_login("OTHER:pw", r.acct[1].user, r.acct[1].password);
	r.nacct = 2;
	soup_pad_left(r.session, SOUP_SESSION_LEN, "EXSIM01");
	return r;
}

/* A Login Request with its fields as given, each padded the contract's way. */
static struct soup_login_request req(const char *user, const char *pw, const char *session)
{
	struct soup_login_request l;

	soup_pad_right(l.user, SOUP_USER_LEN, user);
	soup_pad_right(l.password, SOUP_PASSWORD_LEN, pw);
	soup_pad_left(l.session, SOUP_SESSION_LEN, session);
	l.seq = 1;
	return l;
}

static void expect_login(const struct soup_login_rules *r, struct soup_login_request l,
			 int who, char reason)
{
	char why = 0;

	assert_int_equal(soup_login_check(r, &l, &why), who);
	if (who < 0)
		assert_int_equal(why, reason);
}

static void test_login_accounts_and_session(void **state)
{
	struct soup_login_rules r = rules();
	struct soup_login_request l;

	(void)state;
	expect_login(&r, req("T2TG", "secret", ""), 0, 0);
	expect_login(&r, req("OTHER", "pw", ""), 1, 0);
	expect_login(&r, req("T2TG", "secret", "EXSIM01"), 0, 0);
	expect_login(&r, req("T2TG", "secre", ""), -1, SOUP_REJECT_NOT_AUTHORIZED);
	expect_login(&r, req("T2TG", "pw", ""), -1, SOUP_REJECT_NOT_AUTHORIZED);
	expect_login(&r, req("NOBODY", "secret", ""), -1, SOUP_REJECT_NOT_AUTHORIZED);
	expect_login(&r, req("T2TG", "secret", "EXSIM02"), -1, SOUP_REJECT_NO_SESSION);
	/* Credentials first: a stranger learns nothing of the sessions. */
	expect_login(&r, req("T2TG", "x", "EXSIM02"), -1, SOUP_REJECT_NOT_AUTHORIZED);
	/* Padded the other way, the same names. */
	l = req("T2TG", "secret", "");
	soup_pad_left(l.user, SOUP_USER_LEN, "T2TG");
	soup_pad_right(l.session, SOUP_SESSION_LEN, "EXSIM01");
	expect_login(&r, l, 0, 0);
	/* A prefix is not the name. */
	l = req("T2TG", "secret", "EXSIM0");
	expect_login(&r, l, -1, SOUP_REJECT_NO_SESSION);
	r.refuse = true;
	expect_login(&r, req("T2TG", "secret", ""), -1, SOUP_REJECT_NOT_AUTHORIZED);
}

static void test_login_start(void **state)
{
	uint64_t gone = 99;

	(void)state;
	/* Nothing made yet: every request starts at 1. */
	assert_int_equal(soup_login_start(1, 1, 1, &gone), 1);
	assert_int_equal(gone, 0);
	assert_int_equal(soup_login_start(0, 1, 1, &gone), 1);
	assert_int_equal(soup_login_start(7, 1, 1, &gone), 1);
	/* 1..10 made, all kept. */
	assert_int_equal(soup_login_start(1, 1, 11, &gone), 1);
	assert_int_equal(soup_login_start(4, 1, 11, &gone), 4);
	assert_int_equal(soup_login_start(10, 1, 11, &gone), 10);
	assert_int_equal(soup_login_start(11, 1, 11, &gone), 11);
	assert_int_equal(soup_login_start(12, 1, 11, &gone), 11);
	assert_int_equal(soup_login_start(UINT64_MAX, 1, 11, &gone), 11);
	assert_int_equal(soup_login_start(0, 1, 11, &gone), 11);
	/* 1..10 made, 6.. kept. */
	assert_int_equal(soup_login_start(2, 6, 11, &gone), 6);
	assert_int_equal(gone, 4);
	assert_int_equal(soup_login_start(6, 6, 11, &gone), 6);
	assert_int_equal(gone, 0);
}

static void plan(const struct soup_fault_cfg *f, uint64_t sent, uint64_t next, size_t *at,
		 uint64_t last, int kind, bool drop_at, size_t passed)
{
	struct soup_fault_plan p;

	assert_int_equal(soup_fault_plan(f, sent, next, at, &p), passed);
	assert_int_equal(p.last, last);
	assert_int_equal(p.kind, kind);
	assert_int_equal(p.drop_at, drop_at);
}

static void test_fault_plans(void **state)
{
	struct soup_fault_cfg f;
	char why[128];
	size_t at = 0;

	(void)state;
	memset(&f, 0, sizeof(f));
	plan(&f, 0, 1, &at, UINT64_MAX, SOUP_FAULT_NONE, false, 0);
	/* Every 3 messages of each connection, wherever it starts. */
	assert_int_equal(soup_fault_parse_after(&f, "3:rst", why, sizeof(why)), 0);
	plan(&f, 0, 1, &at, 3, SOUP_FAULT_RST, false, 0);
	plan(&f, 0, 4, &at, 6, SOUP_FAULT_RST, false, 0);
	plan(&f, 0, 2, &at, 4, SOUP_FAULT_RST, false, 0);
	/* The list: the earliest of both, once each. */
	assert_int_equal(soup_fault_parse_at(&f, "5,2:fin", why, sizeof(why)), 0);
	plan(&f, 0, 1, &at, 2, SOUP_FAULT_FIN, true, 0);
	at = 1;		/* 2 was consumed */
	plan(&f, 0, 4, &at, 5, SOUP_FAULT_FIN, true, 0);
	/* Both at 5: the list's, which is consumed then. */
	plan(&f, 0, 3, &at, 5, SOUP_FAULT_FIN, true, 0);
	plan(&f, 2, 3, &at, 3, SOUP_FAULT_RST, false, 0);
	/* A connection that starts beyond 5 passes it over. */
	plan(&f, 0, 6, &at, 8, SOUP_FAULT_RST, false, 1);
	assert_int_equal(at, 2);
	/* Silence is a plan too, the earliest one wins. */
	f.silent_after = 1;
	plan(&f, 0, 9, &at, 9, SOUP_FAULT_SILENT, false, 0);
}

static void test_fault_grammar(void **state)
{
	struct soup_fault_cfg f;
	char why[128];

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(soup_fault_parse_after(&f, "100", why, sizeof(why)), 0);
	assert_int_equal(f.drop_after, 100);
	assert_int_equal(f.drop_after_how, SOUP_FAULT_FIN);
	assert_int_equal(soup_fault_parse_after(&f, "7:fin", why, sizeof(why)), 0);
	assert_int_equal(f.drop_after, 7);
	assert_int_equal(soup_fault_parse_after(&f, "0", why, sizeof(why)), -1);
	assert_int_equal(soup_fault_parse_after(&f, "5:reset", why, sizeof(why)), -1);
	assert_int_equal(soup_fault_parse_after(&f, ":rst", why, sizeof(why)), -1);
	assert_int_equal(soup_fault_parse_after(&f, "5x", why, sizeof(why)), -1);

	assert_int_equal(soup_fault_parse_at(&f, "500,100,300,100:rst", why, sizeof(why)), 0);
	assert_int_equal(f.ndrop_at, 3);
	assert_int_equal(f.drop_at[0], 100);
	assert_int_equal(f.drop_at[1], 300);
	assert_int_equal(f.drop_at[2], 500);
	assert_int_equal(f.drop_at_how, SOUP_FAULT_RST);
	assert_int_equal(soup_fault_parse_at(&f, "42", why, sizeof(why)), 0);
	assert_int_equal(f.ndrop_at, 1);
	assert_int_equal(f.drop_at_how, SOUP_FAULT_FIN);
	assert_int_equal(soup_fault_parse_at(&f, "1,,2", why, sizeof(why)), -1);
	assert_int_equal(soup_fault_parse_at(&f, "1,2,", why, sizeof(why)), -1);
	assert_int_equal(soup_fault_parse_at(&f, "0,2", why, sizeof(why)), -1);
	assert_int_equal(soup_fault_parse_at(&f, "3:x", why, sizeof(why)), -1);
	assert_int_equal(f.ndrop_at, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_login_accounts_and_session),
		cmocka_unit_test(test_login_start),
		cmocka_unit_test(test_fault_plans),
		cmocka_unit_test(test_fault_grammar),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
