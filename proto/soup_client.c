// SPDX-License-Identifier: MIT
/* A SoupBinTCP 3.0 client session: login, numbering, liveness. */
#include <stdio.h>
#include <string.h>

#include "proto/proto_err.h"
#include "proto/soup_client.h"

const char *const soup_client_state_names[] = {
	[SOUP_C_IDLE] = "idle",
	[SOUP_C_LOGIN_SENT] = "login sent",
	[SOUP_C_LOGGED_IN] = "logged in",
	[SOUP_C_REJECTED] = "rejected",
	[SOUP_C_ENDED] = "ended",
	[SOUP_C_WRONG_SESSION] = "wrong session",
};

void soup_client_init(struct soup_client *c, const struct soup_client_cfg *cfg)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	memcpy(c->session, cfg->session, SOUP_SESSION_LEN);
	c->next_seq = 1;
	c->live.hb_ns = cfg->hb_ns ? cfg->hb_ns : SOUP_HEARTBEAT_NS;
	c->live.timeout_ns = cfg->timeout_ns ? cfg->timeout_ns : SOUP_TIMEOUT_NS;
	soup_rx_init(&c->rx, 0);
}

int soup_client_login(struct soup_client *c, uint8_t *dst, size_t cap, uint64_t now)
{
	struct soup_login_request l;
	int len;

	if (soup_client_final(c))
		return PROTO_E_RANGE;
	memcpy(l.user, c->cfg.user, SOUP_USER_LEN);
	memcpy(l.password, c->cfg.password, SOUP_PASSWORD_LEN);
	memcpy(l.session, c->session, SOUP_SESSION_LEN);
	l.seq = c->next_seq;
	len = soup_encode_login_request(dst, cap, &l);
	if (len < 0)
		return len;
	soup_rx_reset(&c->rx);
	soup_live_start(&c->live, now);
	c->state = SOUP_C_LOGIN_SENT;
	c->st.logins++;
	return len;
}

/* All spaces: no session asked for (the current one). */
static bool blank(const char *s)
{
	for (int i = 0; i < SOUP_SESSION_LEN; i++)
		if (s[i] != ' ')
			return false;
	return true;
}

/* Login Accepted: the session it names, and where its numbering stands against ours. */
static int accepted(struct soup_client *c, const struct soup_pkt *p)
{
	struct soup_login_accepted a;

	if (c->state != SOUP_C_LOGIN_SENT || soup_decode_login_accepted(p->payload, p->len, &a)) {
		c->st.bad++;
		return SOUP_EV_LOST;
	}
	if (!blank(c->session) && memcmp(c->session, a.session, SOUP_SESSION_LEN)) {
		memcpy(c->other_session, a.session, SOUP_SESSION_LEN);
		c->state = SOUP_C_WRONG_SESSION;
		c->st.wrong_session++;
		return SOUP_EV_WRONG_SESSION;
	}
	memcpy(c->session, a.session, SOUP_SESSION_LEN);
	c->recv_seq = a.seq;
	if (a.seq > c->next_seq) {
		/* Gone for good: the orders they answered are in doubt from now on. */
		if (!c->lost_from)
			c->lost_from = c->next_seq;
		c->lost_to = a.seq - 1;
		c->halted = true;
		c->st.skipped += a.seq - c->next_seq;
		c->next_seq = a.seq;
	}
	c->state = SOUP_C_LOGGED_IN;
	c->st.accepted++;
	return SOUP_EV_LOGGED_IN;
}

static int rejected(struct soup_client *c, const struct soup_pkt *p)
{
	char reason;

	if (c->state != SOUP_C_LOGIN_SENT || soup_decode_login_rejected(p->payload, p->len, &reason)) {
		c->st.bad++;
		return SOUP_EV_LOST;
	}
	c->reject_reason = reason;
	c->state = SOUP_C_REJECTED;
	c->st.rejected++;
	return SOUP_EV_REJECTED;
}

/*
 * One sequenced message: numbered whatever it holds, handed on once,
 * whatever the connection.  Before the Login Accepted it has no number:
 * the connection goes, and the next login asks for it again.
 */
static int sequenced(struct soup_client *c, const struct soup_pkt *p, struct soup_msg *m)
{
	uint64_t seq;

	if (c->state == SOUP_C_LOGIN_SENT) {
		c->st.seq_before_login++;
		return SOUP_EV_LOST;
	}
	if (c->state != SOUP_C_LOGGED_IN) {
		c->st.bad++;
		return SOUP_EV_NONE;
	}
	seq = c->recv_seq++;
	if (seq < c->next_seq) {
		c->st.dup_msgs++;
		return SOUP_EV_NONE;
	}
	c->next_seq = seq + 1;
	if (!p->len) {
		c->st.empty_msgs++;
		return SOUP_EV_NONE;
	}
	c->st.seq_msgs++;
	m->data = p->payload;
	m->len = p->len;
	m->seq = seq;
	return SOUP_EV_MSG;
}

int soup_client_next(struct soup_client *c, struct soup_msg *m)
{
	struct soup_pkt p;
	int ret, ev;

	while ((ret = soup_rx_next(&c->rx, &p)) == 1) {
		switch (p.type) {
		case SOUP_SEQ_DATA:
			ev = sequenced(c, &p, m);
			if (ev != SOUP_EV_NONE)
				return ev;
			continue;
		case SOUP_LOGIN_ACCEPTED:
			return accepted(c, &p);
		case SOUP_LOGIN_REJECTED:
			return rejected(c, &p);
		case SOUP_SERVER_HEARTBEAT:
			if (p.len)
				c->st.bad++;
			c->st.hb_in++;
			continue;
		case SOUP_END_OF_SESSION:
			if (c->state != SOUP_C_LOGGED_IN) {
				c->st.bad++;
				continue;
			}
			c->state = SOUP_C_ENDED;
			c->st.ends++;
			return SOUP_EV_END;
		case SOUP_DEBUG:
			c->st.debug_in++;
			continue;
		default:
			/* A client's packet type from the server is as wrong as none. */
			if (soup_check(p.type, p.len) == PROTO_E_PKT_TYPE)
				c->st.unknown++;
			else
				c->st.bad++;
			continue;
		}
	}
	if (ret < 0) {
		c->st.broken++;
		return SOUP_EV_LOST;
	}
	return SOUP_EV_NONE;
}

int soup_client_tick(struct soup_client *c, uint8_t *dst, uint64_t now)
{
	if (c->state != SOUP_C_LOGIN_SENT && c->state != SOUP_C_LOGGED_IN)
		return 0;
	if (soup_live_lost(&c->live, now)) {
		c->st.timeouts++;
		return -1;
	}
	if (c->state != SOUP_C_LOGGED_IN || !soup_live_hb_due(&c->live, now))
		return 0;
	soup_encode_empty(dst, SOUP_EMPTY_LEN, SOUP_CLIENT_HEARTBEAT);
	c->live.last_tx = now;
	c->st.hb_out++;
	return 1;
}

int soup_client_logout(struct soup_client *c, uint8_t *dst, size_t cap)
{
	int len = soup_encode_empty(dst, cap, SOUP_LOGOUT_REQUEST);

	if (len > 0)
		c->st.logouts++;
	return len;
}

void soup_client_disconnected(struct soup_client *c)
{
	if (!soup_client_final(c))
		c->state = SOUP_C_IDLE;
	soup_rx_reset(&c->rx);
}

int soup_parse_login(const char *arg, char user[SOUP_USER_LEN],
		     char password[SOUP_PASSWORD_LEN])
{
	const char *colon = strchr(arg, ':');
	size_t ulen, plen;
	char u[SOUP_USER_LEN + 1], p[SOUP_PASSWORD_LEN + 1];

	if (!colon)
		return -1;
	ulen = (size_t)(colon - arg);
	plen = strlen(colon + 1);
	if (!ulen || ulen > SOUP_USER_LEN || plen > SOUP_PASSWORD_LEN)
		return -1;
	/* Alphanumeric fields: printable, and spaces only as padding. */
	for (const char *c = arg; *c; c++)
		if (c != colon && (*c <= ' ' || *c > '~'))
			return -1;
	memcpy(u, arg, ulen);
	u[ulen] = '\0';
	memcpy(p, colon + 1, plen + 1);
	soup_pad_right(user, SOUP_USER_LEN, u);
	soup_pad_right(password, SOUP_PASSWORD_LEN, p);
	return 0;
}

int soup_parse_session(const char *arg, char session[SOUP_SESSION_LEN])
{
	size_t len = strlen(arg);

	if (len > SOUP_SESSION_LEN)
		return -1;
	for (const char *c = arg; *c; c++)
		if (*c <= ' ' || *c > '~')
			return -1;
	soup_pad_left(session, SOUP_SESSION_LEN, arg);
	return 0;
}

int soup_opt_login(void *soup_cfg, const char *arg, char *why, size_t n)
{
	struct soup_client_cfg *c = soup_cfg;

	if (soup_parse_login(arg, c->user, c->password))
		return snprintf(why, n, "wants USER:PASSWORD, 1-6 and 0-10 printable "
				"characters, no spaces"), -1;
	return 0;
}

int soup_opt_session(void *soup_cfg, const char *arg, char *why, size_t n)
{
	struct soup_client_cfg *c = soup_cfg;

	if (soup_parse_session(arg, c->session))
		return snprintf(why, n, "wants at most 10 printable characters, no spaces"), -1;
	return 0;
}
