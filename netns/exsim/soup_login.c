// SPDX-License-Identifier: MIT
/* The order server's login rules (soup_login.h). */
#include <string.h>

#include "netns/exsim/soup_login.h"

/* @s without leading and trailing spaces: its start, its length in *@n. */
static const char *unpad(const char *s, size_t len, size_t *n)
{
	while (len && *s == ' ') {
		s++;
		len--;
	}
	while (len && s[len - 1] == ' ')
		len--;
	*n = len;
	return s;
}

static bool same(const char *a, const char *b, size_t len)
{
	size_t na, nb;
	const char *x = unpad(a, len, &na), *y = unpad(b, len, &nb);

	return na == nb && !memcmp(x, y, na);
}

int soup_login_check(const struct soup_login_rules *r, const struct soup_login_request *l,
		     char *reason)
{
	size_t n;
	int who = -1;

	*reason = SOUP_REJECT_NOT_AUTHORIZED;
	if (r->refuse)
		return -1;
	for (unsigned int i = 0; i < r->nacct && who < 0; i++)
		if (same(r->acct[i].user, l->user, SOUP_USER_LEN) &&
		    same(r->acct[i].password, l->password, SOUP_PASSWORD_LEN))
			who = (int)i;
	if (who < 0)
		return -1;
	unpad(l->session, SOUP_SESSION_LEN, &n);
	if (n && !same(r->session, l->session, SOUP_SESSION_LEN)) {
		*reason = SOUP_REJECT_NO_SESSION;
		return -1;
	}
	return who;
}

uint64_t soup_login_start(uint64_t requested, uint64_t first, uint64_t next, uint64_t *gone)
{
	*gone = 0;
	if (!requested || requested > next)
		return next;
	if (requested < first) {
		*gone = first - requested;
		return first;
	}
	return requested;
}
