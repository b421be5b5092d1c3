/* SPDX-License-Identifier: MIT */
/*
 * The order server's login rules (docs/wire.md, SoupBinTCP): who may log
 * in, to which session, and where the sequenced messages start again.
 *
 *   --refuse-login             every login: Login Rejected 'A'
 *   username and password      one of the accounts (--login), else 'A'
 *   Requested Session          blank (the current one) or the server's
 *                              session id, else 'S'
 *
 * Fields are compared without their padding spaces, on either side: the
 * contract pads username and password on the right and the session on the
 * left, and a client that pads the other way names the same thing.
 *
 * Requested Sequence Number N: the Login Accepted names the number of the
 * next message the server sends, then every kept message from there goes
 * before any new one:
 *   N = 0 (from now on), or N beyond the last one made  -> the next new one
 *   N older than the oldest still kept                   -> the oldest kept
 *                                                            (the rest: gone)
 *   otherwise                                            -> N
 */
#ifndef NETNS_EXSIM_SOUP_LOGIN_H
#define NETNS_EXSIM_SOUP_LOGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/soupbin.h"

#define SOUP_SRV_USERS	4	/* accounts --login may name */

struct soup_account {
	char user[SOUP_USER_LEN];		/* right padded */
	char password[SOUP_PASSWORD_LEN];
};

struct soup_login_rules {
	struct soup_account acct[SOUP_SRV_USERS];
	unsigned int nacct;
	char session[SOUP_SESSION_LEN];		/* left padded */
	bool refuse;
};

/*
 * The account @l logs in to (its index), or -1 with the Login Rejected
 * code in *@reason (SOUP_REJECT_NOT_AUTHORIZED, SOUP_REJECT_NO_SESSION).
 */
int soup_login_check(const struct soup_login_rules *r, const struct soup_login_request *l,
		     char *reason);

/*
 * The number of the first message a login asking for @requested gets, in a
 * session that keeps [@first, @next) (@next: the number of the next new
 * one); *@gone: how many it asked for that are no longer kept.
 */
uint64_t soup_login_start(uint64_t requested, uint64_t first, uint64_t next, uint64_t *gone);

#endif /* NETNS_EXSIM_SOUP_LOGIN_H */
