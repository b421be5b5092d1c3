/* SPDX-License-Identifier: MIT */
/*
 * The order port: a SoupBinTCP 3.0 server over kernel TCP (docs/wire.md),
 * the venue side of the session.  It knows the session and nothing of
 * OUCH: the payload of every Unsequenced Data packet goes to ops.on_unseq,
 * and the caller makes the sequenced messages (soup_srv_slot(),
 * soup_srv_commit(), soup_srv_push()).
 *
 * Connections.  A non-blocking listener (SO_REUSEADDR) and up to
 * SOUP_SRV_CONNS accepted connections (TCP_NODELAY, SO_TIMESTAMPNS), all
 * in one epoll set whose descriptor the event loop waits on (soup_srv_fd()),
 * read and written without ever blocking: a client that sends junk, stops
 * reading or never logs in costs its own slot and nothing else.
 *
 * Sessions.  One per account (--login, soup_login.h): a store of its
 * sequenced messages (soup_store.h), numbered across connections, and at
 * most one live connection.  A login of an account that has one takes
 * over: the old connection is closed (FIN).  Replies made while no
 * connection is up are kept all the same, for the next login.
 *
 * A connection's life:
 *   LOGIN    the first packet must be a Login Request of the right length,
 *            else it is closed (before_login, malformed, broken); a refused
 *            login gets Login Rejected, then FIN (rejected)
 *   UP       Login Accepted, every kept message from the number it names,
 *            then the new ones as they are made; End of Session once the
 *            session ended and everything before it went; a Server
 *            Heartbeat after hb_ns with nothing sent; nothing received for
 *            timeout_ns closes it (timeout).  'U' goes to on_unseq, 'R' is
 *            counted, '+' ignored, 'O' is answered with FIN (logout),
 *            another Login Request, a bad length for the type or a Packet
 *            Length of 0 close it (malformed, broken); types the contract
 *            does not give a client are counted and skipped
 *   SILENT   --silent-after: open, neither read nor written, until the
 *            peer closes it or a new login takes over
 *   DRAIN    what is written goes out, then FIN or RST (faults, logout,
 *            rejected logins)
 *   CLOSING  FIN sent: input read and thrown away until the peer's FIN
 *            (close() with unread input would send a reset instead)
 *
 * Arrival stamps.  An order's kernel arrival is the SO_TIMESTAMPNS stamp
 * TCP gives a read: the stamp of the last segment the read took bytes
 * from.  So reads stop at the end of the packet being read (its length is
 * known from its first two bytes; before them a read asks for one Enter
 * Order): when the client sends one packet per segment, as a TCP_NODELAY
 * client writing one order at a time does, each order gets its own
 * segment's stamp.  When packets share a segment they share its stamp; a
 * packet cut across segments gets the stamp of the one holding its last
 * byte, which, after a loss, arrived before the retransmission that made
 * it readable: wire-to-wire is then the time to the last byte's first
 * arrival, not to the moment the order could be read.
 */
#ifndef NETNS_EXSIM_SOUP_SERVER_H
#define NETNS_EXSIM_SOUP_SERVER_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns/exsim/soup_fault.h"
#include "netns/exsim/soup_login.h"
#include "netns/exsim/soup_store.h"
#include "proto/soupbin.h"

#define SOUP_SRV_CONNS		64
#define SOUP_SRV_OUT		8192	/* bytes written but not yet taken by send() */
#define SOUP_SRV_CLOSE_NS	(2000ull * 1000 * 1000)	/* DRAIN, CLOSING: then close() */
#define SOUP_SRV_PUMP_BYTES	65536	/* per connection per turn: a replay shares the loop */

enum soup_conn_state {
	SC_FREE,
	SC_LOGIN,
	SC_UP,
	SC_SILENT,
	SC_DRAIN,
	SC_CLOSING,
};

/* Why connections closed (JSON soup.closed). */
enum soup_close_why {
	SC_WHY_PEER,		/* the client closed or reset it */
	SC_WHY_LOGOUT,		/* Logout Request */
	SC_WHY_REJECTED,	/* Login Rejected */
	SC_WHY_TAKEOVER,	/* another login of its account */
	SC_WHY_TIMEOUT,		/* nothing received for timeout_ns */
	SC_WHY_BEFORE_LOGIN,	/* a first packet other than a Login Request */
	SC_WHY_MALFORMED,	/* a bad length for the type, a second login */
	SC_WHY_BROKEN,		/* a Packet Length of 0: no next packet to find */
	SC_WHY_FAULT,		/* --drop-after, --drop-at */
	SC_WHY_BEHIND,		/* lagged so far that its next message fell out of the store */
	SC_WHY_ERROR,		/* a socket error */
	SC_WHY_FULL,		/* no free slot: closed at once */
	SC_WHY_EXIT,		/* still open when the program ended */
	SC_WHY_NR,
};

extern const char *const soup_close_names[SC_WHY_NR];

struct soup_conn {
	int fd;
	uint8_t state;		/* enum soup_conn_state */
	uint8_t why;		/* enum soup_close_why, counted when it closes */
	uint8_t drain;		/* DRAIN: SOUP_FAULT_FIN or _RST once written */
	bool eos_sent;
	bool want_out;		/* EPOLLOUT asked for */
	bool paused;		/* --read-pause: EPOLLIN off until resume_at */
	int user;		/* the account, -1 before the login */
	struct sockaddr_in peer;
	uint64_t next_send;	/* session number of the next message it sends */
	uint64_t replay_end;	/* the session's next number at the login */
	uint64_t sent;		/* sequenced messages sent on it */
	struct soup_fault_plan plan;
	uint64_t last_rx, last_tx;
	uint64_t resume_at;
	uint64_t hold_until;	/* --late-replies: no reply written before; 0: none */
	uint64_t deadline;	/* DRAIN, CLOSING */
	uint32_t out_off, out_len;
	uint8_t out[SOUP_SRV_OUT];
	struct soup_rx rx;
};

struct soup_user_stats {
	uint64_t logins;	/* accepted */
	uint64_t takeovers;
	uint64_t replayed;	/* messages sent again after a login */
	uint64_t gone;		/* asked for by a login, no longer kept */
};

struct soup_user {
	struct soup_store store;
	struct soup_conn *live;	/* UP or SILENT, or NULL */
	size_t drop_at;		/* next entry of --drop-at */
	struct soup_user_stats st;
};

struct soup_srv_stats {
	uint64_t accepted;		/* connections */
	uint64_t max_open;
	uint64_t logins;		/* Login Requests decoded */
	uint64_t login_accepted;
	uint64_t login_rejected;
	uint64_t rej_not_authorized;	/* 'A': unknown account or password */
	uint64_t rej_no_session;	/* 'S' */
	uint64_t rej_refused;		/* 'A' by --refuse-login */
	uint64_t seq_sent;		/* sequenced messages written, replays included */
	uint64_t replayed;
	uint64_t gone;
	uint64_t takeovers;
	uint64_t unseq;			/* Unsequenced Data packets */
	uint64_t hb_in, hb_out;
	uint64_t debug_in;
	uint64_t unknown_in;		/* types a client does not send: skipped */
	uint64_t logouts;
	uint64_t end_of_session;	/* 'Z' sent */
	uint64_t closed[SC_WHY_NR];
	uint64_t fault_fin, fault_rst, fault_silent;
	uint64_t drop_at_passed;	/* --drop-at numbers no connection sent */
	uint64_t rst_unacked;		/* a reset while the peer still had bytes to ack */
	uint64_t bytes_in, bytes_out;
	uint64_t reads;
	uint64_t partial_writes;	/* send() took part: the rest waits for EPOLLOUT */
	uint64_t read_pauses;
	uint64_t late_replies;		/* orders whose replies were held (--late-replies) */
	uint64_t no_kernel_ts;		/* reads with no stamp: the user-space time used */
};

struct soup_srv_ops {
	/*
	 * One Unsequenced Data payload from account @user, read at @t_user, its
	 * kernel arrival @t_kern (both CLOCK_MONOTONIC).
	 */
	void (*on_unseq)(void *ctx, unsigned int user, const uint8_t *msg, size_t len,
			 uint64_t t_user, uint64_t t_kern);
	void *ctx;
};

struct soup_srv_cfg {
	struct sockaddr_in addr;
	struct soup_login_rules rules;
	uint64_t hb_ns, timeout_ns;
	uint64_t keep;			/* messages kept per session */
	struct soup_fault_cfg fault;
};

struct soup_srv {
	int lfd, efd;
	struct soup_srv_cfg cfg;
	struct soup_srv_ops ops;
	struct soup_user user[SOUP_SRV_USERS];
	unsigned int nusers;
	struct soup_conn *conn;		/* [SOUP_SRV_CONNS] */
	unsigned int open;
	bool ended;			/* End of Session: nothing more is sequenced */
	uint64_t next_due;		/* the earliest timer of any connection */
	int64_t rt_offset;
	uint64_t late_rng;		/* --late-replies' draw */
	struct soup_srv_stats st;
	uint8_t rbuf[SOUP_PKT_MAX];
};

/* Listen at cfg->addr.  0, or -1 with a message in @err. */
int soup_srv_open(struct soup_srv *s, const struct soup_srv_cfg *cfg,
		  const struct soup_srv_ops *ops, char *err, size_t errlen);
/* Every connection closed (what is written first handed to the kernel). */
void soup_srv_close(struct soup_srv *s);

/* The descriptor to wait on (POLLIN): the epoll set; -1 when not open. */
static inline int soup_srv_fd(const struct soup_srv *s)
{
	return s->efd;
}

/* Serve what is ready and the timers that are due, without blocking. */
unsigned int soup_srv_poll(struct soup_srv *s, unsigned int max, uint64_t now);

/* When soup_srv_poll() must run again even with nothing to read. */
static inline uint64_t soup_srv_next_due(const struct soup_srv *s)
{
	return s->next_due;
}

/* End of Session: sent on every connection after what it still lacks, and on later logins. */
void soup_srv_end(struct soup_srv *s, uint64_t now);

/* The next sequenced message of account @user: its 'S' packet goes here. */
static inline uint8_t *soup_srv_slot(struct soup_srv *s, unsigned int user)
{
	return soup_store_slot(&s->user[user].store);
}

/* ... and is now numbered and kept; returns its number. */
static inline uint64_t soup_srv_commit(struct soup_srv *s, unsigned int user)
{
	return soup_store_commit(&s->user[user].store);
}

/* Send what is new to @user's connection, if it has one. */
void soup_srv_push(struct soup_srv *s, unsigned int user, uint64_t now);

/*
 * A client is logged in and knows it: a connection is UP and the peer has
 * acknowledged every byte written to it, its Login Accepted among them.
 * Until then a lost Login Accepted may keep the client out for a
 * retransmission timeout (3 s after a handshake that needed one).
 */
bool soup_srv_client_ready(const struct soup_srv *s);

#endif /* NETNS_EXSIM_SOUP_SERVER_H */
