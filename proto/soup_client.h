/* SPDX-License-Identifier: MIT */
/*
 * A SoupBinTCP 3.0 client session (contract: docs/wire.md): the login,
 * the sequenced messages numbered across connections, heartbeats, the
 * lost-connection rule, end of session and logout.  It knows nothing of
 * the transport: the caller gives it the bytes that arrive (on_bytes())
 * and sends the packets it writes into the caller's buffers.
 *
 * Numbering.  Sequenced messages are numbered 1, 2, 3 ... for the whole
 * session, implicitly: every Sequenced Data packet the server sends takes
 * the next number, whether it is handed on or not (an empty one is
 * counted and numbered).  next_seq is the next one wanted; a login asks
 * for it, and the server's Login Accepted says the number of the next
 * message it will send.  When lower, the messages up to next_seq are
 * duplicates (ignored, counted).  When higher, the messages between are
 * lost for good: what became of the orders they answered is unknown, so
 * the client is halted (lost_from..lost_to name them) and stays so; its
 * caller must send no new order.  A Sequenced Data packet before the Login
 * Accepted cannot be numbered: the connection is lost, and the next login
 * asks for it again.  So across any number of connections each message is
 * handed on exactly once, or the loss is said.
 *
 * Session.  A Login Accepted names the session; when the client asked for
 * one (cfg.session, or the one the first login was accepted for), any
 * other is refused: the client stops for good.
 *
 * Liveness (both sides, docs/wire.md): a heartbeat goes out after hb_ns
 * with nothing else sent; timeout_ns with nothing received is a lost
 * connection.
 */
#ifndef PROTO_SOUP_CLIENT_H
#define PROTO_SOUP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/soupbin.h"

/* The contract's: a heartbeat after 1 s of silence, lost after 15 s. */
#define SOUP_HEARTBEAT_NS	(1000ull * 1000 * 1000)
#define SOUP_TIMEOUT_NS		(15000ull * 1000 * 1000)

/* Heartbeats and the lost-connection rule, for either side. */
struct soup_liveness {
	uint64_t hb_ns;
	uint64_t timeout_ns;
	uint64_t last_rx;
	uint64_t last_tx;
};

static inline void soup_live_start(struct soup_liveness *l, uint64_t now)
{
	l->last_rx = l->last_tx = now;
}

static inline bool soup_live_hb_due(const struct soup_liveness *l, uint64_t now)
{
	return now - l->last_tx >= l->hb_ns;
}

static inline bool soup_live_lost(const struct soup_liveness *l, uint64_t now)
{
	return now - l->last_rx >= l->timeout_ns;
}

enum soup_client_state {
	SOUP_C_IDLE,		/* no connection */
	SOUP_C_LOGIN_SENT,
	SOUP_C_LOGGED_IN,
	SOUP_C_REJECTED,	/* the server refused the login: final */
	SOUP_C_ENDED,		/* End of Session: no more messages, final */
	SOUP_C_WRONG_SESSION,	/* accepted for another session than asked: final */
};

extern const char *const soup_client_state_names[];

struct soup_client_cfg {
	char user[SOUP_USER_LEN];		/* padded as on the wire */
	char password[SOUP_PASSWORD_LEN];
	char session[SOUP_SESSION_LEN];		/* wanted; spaces: the current one */
	uint64_t hb_ns;
	uint64_t timeout_ns;
};

struct soup_client_stats {
	uint64_t logins;		/* Login Requests sent */
	uint64_t accepted;
	uint64_t rejected;
	uint64_t seq_msgs;		/* sequenced messages handed on */
	uint64_t dup_msgs;		/* below next_seq after a login: ignored */
	uint64_t empty_msgs;		/* numbered, nothing to hand on */
	uint64_t skipped;		/* the server started beyond next_seq: lost */
	uint64_t seq_before_login;	/* Sequenced Data before the Login Accepted */
	uint64_t wrong_session;		/* accepted for another session */
	uint64_t hb_in, hb_out;
	uint64_t debug_in;
	uint64_t unknown;		/* types the contract does not have */
	uint64_t bad;			/* wrong length for the type, or out of place */
	uint64_t broken;		/* streams that lost their framing */
	uint64_t timeouts;		/* connections given up by the 15 s rule */
	uint64_t ends;			/* End of Session */
	uint64_t logouts;
};

struct soup_client {
	struct soup_client_cfg cfg;
	uint8_t state;			/* enum soup_client_state */
	char reject_reason;		/* the server's code, when rejected */
	char session[SOUP_SESSION_LEN];	/* what the server named; the cfg's before */
	char other_session[SOUP_SESSION_LEN]; /* a wrong one the server named */
	uint64_t next_seq;		/* next sequenced message wanted */
	uint64_t recv_seq;		/* the number of the next 'S' on this connection */
	bool halted;			/* replies were lost for good: no new orders */
	uint64_t lost_from, lost_to;	/* the first numbers lost, inclusive; 0: none */
	struct soup_liveness live;
	struct soup_client_stats st;
	struct soup_rx rx;
};

/* What a packet or a turn of the clock meant. */
enum soup_event {
	SOUP_EV_NONE,
	SOUP_EV_MSG,		/* a sequenced message to apply (*msg) */
	SOUP_EV_LOGGED_IN,
	SOUP_EV_REJECTED,
	SOUP_EV_END,		/* End of Session */
	SOUP_EV_LOST,		/* the connection must go: broken stream or silence */
	SOUP_EV_WRONG_SESSION,	/* accepted for another session: stop */
};

struct soup_msg {
	const uint8_t *data;	/* one OUCH message; lives until the next call */
	uint16_t len;
	uint64_t seq;
};

void soup_client_init(struct soup_client *c, const struct soup_client_cfg *cfg);

/*
 * A new connection is up: the Login Request (SOUP_LOGIN_REQUEST_LEN bytes)
 * at @dst, asking for the session and next_seq.  Returns its length or
 * PROTO_E_NOSPACE; PROTO_E_RANGE once rejected or ended.
 */
int soup_client_login(struct soup_client *c, uint8_t *dst, size_t cap, uint64_t now);

/* The bytes that arrived on the connection (soup_rx_push() semantics). */
static inline void soup_client_on_bytes(struct soup_client *c, const uint8_t *data,
					size_t len, uint64_t now)
{
	soup_rx_push(&c->rx, data, len);
	c->live.last_rx = now;
}

/*
 * The next thing the bytes say: SOUP_EV_MSG with *m, another event, or
 * SOUP_EV_NONE when they are used up (heartbeats and debug packets are
 * taken in passing).  Call until SOUP_EV_NONE after every on_bytes().
 */
int soup_client_next(struct soup_client *c, struct soup_msg *m);

/* The 3-byte header of an Unsequenced Data packet; counts as sending. */
static inline void soup_client_unseq_header(struct soup_client *c, uint8_t *dst,
					    uint16_t msg_len, uint64_t now)
{
	soup_put_header(dst, SOUP_UNSEQ_DATA, msg_len);
	c->live.last_tx = now;
}

/* Something was sent: no heartbeat owed for hb_ns. */
static inline void soup_client_sent(struct soup_client *c, uint64_t now)
{
	c->live.last_tx = now;
}

/*
 * The clock, in idle turns: -1 after timeout_ns of silence (the
 * connection is lost); otherwise 1 with a Client Heartbeat at @dst
 * (SOUP_EMPTY_LEN bytes) when one is due, else 0.
 */
int soup_client_tick(struct soup_client *c, uint8_t *dst, uint64_t now);

/* The Logout Request at @dst (SOUP_EMPTY_LEN bytes). */
int soup_client_logout(struct soup_client *c, uint8_t *dst, size_t cap);

/* The connection is gone: logged out, the stream's framing forgotten. */
void soup_client_disconnected(struct soup_client *c);

/*
 * USER:PASSWORD of a command line into the padded fields (at most 6 and 10
 * printable characters, no spaces).  0, or -1.
 */
int soup_parse_login(const char *arg, char user[SOUP_USER_LEN],
		     char password[SOUP_PASSWORD_LEN]);
/* A session id of at most 10 printable characters, left padded.  0, or -1. */
int soup_parse_session(const char *arg, char session[SOUP_SESSION_LEN]);

/*
 * The two as a client's command-line options (util/opt.h's OPT_CALL, at a
 * struct soup_client_cfg): --login USER:PASSWORD, --soup-session ID.
 */
int soup_opt_login(void *soup_cfg, const char *arg, char *why, size_t n);
int soup_opt_session(void *soup_cfg, const char *arg, char *why, size_t n);

static inline bool soup_client_logged_in(const struct soup_client *c)
{
	return c->state == SOUP_C_LOGGED_IN;
}

/* Rejected, ended or the wrong session: no login will be tried again. */
static inline bool soup_client_final(const struct soup_client *c)
{
	return c->state == SOUP_C_REJECTED || c->state == SOUP_C_ENDED ||
	       c->state == SOUP_C_WRONG_SESSION;
}

#endif /* PROTO_SOUP_CLIENT_H */
