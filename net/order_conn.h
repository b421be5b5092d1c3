/* SPDX-License-Identifier: MIT */
/*
 * The order session: a SoupBinTCP 3.0 client (proto/soup_client.h) over a
 * TCP connection to the exchange's order port, on one of two stacks:
 *
 *   own     the TCP client of net/tcp.h, its frames on the caller's AF_XDP
 *           socket (struct tcp_tx), its segments steered there by the XDP
 *           program (ops.steer: the connection's 4-tuple);
 *   kernel  a non-blocking kernel TCP socket: TCP_NODELAY (an order is one
 *           small write that must leave at once: no Nagle), TCP_USER_TIMEOUT
 *           (unacknowledged data for as long as the own stack's retries
 *           last is a lost connection, not 15 minutes of kernel retries),
 *           TCP_RTO_MIN_US and TCP_DELACK_MAX_US (Linux 6.15: the own
 *           stack's rto_min and ACK delay, where the kernel has them; said
 *           once where it has not), busy polling when configured.  Every
 *           setsockopt() and bind() is checked: a failure is said (notes)
 *           and, but for the tuning ones, fails the attempt, so a
 *           --local-port that cannot be bound never goes out from another
 *           port.  With a fixed local port, a connection we give up while
 *           the exchange holds it (silence, a broken stream,
 *           retransmissions unanswered) is reset (SO_LINGER 0), so it
 *           leaves no TIME_WAIT and the port connects again at once; when
 *           the exchange closed first (its FIN, a logout) our close comes
 *           second and leaves none either.
 *
 * Initial sequence numbers (own stack) are RFC 6528's: a 4 us clock plus
 * SipHash-2-4 of the connection's 4-tuple under a 16-byte secret from
 * getrandom(); without the secret nothing starts.  Each connection takes
 * a local port at random from the configured range (own stack: 64 from
 * OC_FIRST_PORT by default; kernel: the kernel's own choice unless given),
 * held in the kernel by a bound socket (own stack) so nothing else takes
 * it.
 *
 * Recovery: a lost connection (RST, FIN, the 15 s rule, retransmissions
 * unanswered, a broken stream, a connect that fails) is made again at once
 * when it had been logged in, else after a backoff (doubling from
 * backoff_min to backoff_max while attempts fail, back to the minimum after
 * a login), and logs in asking for the next sequenced message it lacks; a
 * rejected login, a Login Accepted for another session or an End of
 * Session stops the session for good.  A Login Accepted beyond the next
 * reply lacked means replies lost for good: the session stays logged in
 * (replies still come) but halted, with no order leaving, for the rest of
 * the run.  The callbacks say when orders may leave (on_up) and when they
 * may not (on_down), and hand on every sequenced message once (on_msg).
 *
 * Everything the hot loop calls is allocation- and syscall-free on the own
 * stack; the kernel stack's send() and recv() are the fallback's own cost.
 * Connecting, timers and logging out happen in idle turns.
 */
#ifndef NET_ORDER_CONN_H
#define NET_ORDER_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/busy_poll.h"
#include "net/tcp.h"
#include "proto/frame.h"
#include "proto/soup_client.h"
#include "util/siphash.h"
#include "util/touch.h"

enum oc_stack { OC_STACK_OWN, OC_STACK_KERNEL };

/*
 * The own stack's first local port when none is given; each connection
 * takes one of OC_PORT_SPAN from there at random.
 */
#define OC_FIRST_PORT	26402
#define OC_PORT_SPAN	64

enum oc_state {
	OC_WAITING,		/* for the next connection attempt */
	OC_CONNECTING,		/* TCP handshake */
	OC_LOGGING_IN,
	OC_UP,			/* logged in: orders may leave */
	OC_HALTED,		/* logged in, no orders: replies were lost for good */
	OC_CLOSING,		/* logged out, closing at shutdown */
	OC_STOPPED,		/* for good: rejected, ended, or shut down */
};

enum oc_lost {
	OC_LOST_REFUSED,	/* the SYN was refused (RST), or connect() failed */
	OC_LOST_RESET,		/* the exchange reset the connection */
	OC_LOST_FIN,		/* the exchange closed it */
	OC_LOST_SILENCE,	/* 15 s (--soup-timeout) without a byte */
	OC_LOST_RETRANS,	/* retransmissions unanswered */
	OC_LOST_BROKEN,		/* a Packet Length no reader can follow */
	OC_LOST_NR,
};

enum oc_stop {
	OC_STOP_NONE,
	OC_STOP_REJECTED,	/* the login was refused: soup.reject_reason */
	OC_STOP_ENDED,		/* End of Session */
	OC_STOP_SHUTDOWN,
	OC_STOP_WRONG_SESSION,	/* accepted for another session: soup.other_session */
	OC_STOP_NR,
};

extern const char *const oc_state_names[];
extern const char *const oc_lost_names[OC_LOST_NR];
extern const char *const oc_stop_names[OC_STOP_NR];

struct order_conn_cfg {
	int stack;			/* enum oc_stack */
	struct frame_endpoint local;	/* port: the first local port; 0: OC_FIRST_PORT
					   (own), any (kernel) */
	uint16_t local_port_last;	/* the range's last; 0: own: 64 ports, kernel: one */
	struct frame_endpoint remote;	/* the exchange; MACs for the own stack */
	uint16_t mss;			/* own stack: announced */
	struct soup_client_cfg soup;
	uint64_t rto_init_ns, rto_min_ns, rto_max_ns;
	uint32_t retries;
	uint64_t ack_delay_ns;
	uint64_t tlp_min_ns;		/* own stack: an order's loss probe, at the soonest */
	uint32_t ack_budget;		/* own stack: challenge ACKs a second */
	uint64_t connect_timeout_ns;	/* kernel stack: a connect still pending */
	uint64_t backoff_min_ns, backoff_max_ns;
	uint64_t close_ns;		/* at shutdown: logout, FIN, and the peer's */
	struct busy_poll_cfg busy_poll;	/* kernel stack */
};

struct order_conn_ops {
	/* One sequenced message: an OUCH reply, each exactly once. */
	void (*on_msg)(void *ctx, const struct soup_msg *m, uint64_t now);
	/* Logged in: orders may leave. */
	void (*on_up)(void *ctx, uint64_t now);
	/* The connection is gone or the session stopped: no order may leave. */
	void (*on_down)(void *ctx, uint64_t now);
	/* Own stack: steer the exchange's segments to @new_port to our socket
	 * (and no longer those to @old_port; 0: none).  0 or -errno. */
	int (*steer)(void *ctx, uint16_t old_port, uint16_t new_port);
	void *ctx;
};

struct order_conn_stats {
	uint64_t attempts;		/* connections tried */
	uint64_t connected;		/* TCP up */
	uint64_t lost[OC_LOST_NR];
	uint64_t send_fail;		/* an order the stream could not take */
	uint64_t send_errors;		/* kernel: send() refused for another reason */
	uint64_t partial_writes;	/* kernel: bytes left for a later send() */
	uint64_t steer_errors;
	uint64_t sock_errors;		/* kernel: a setsockopt() or bind() refused */
};

#define OC_KBUF_OUT	8192
#define OC_KBUF_IN	65536

struct order_conn {
	struct order_conn_cfg cfg;
	struct order_conn_ops ops;
	uint8_t state;			/* enum oc_state */
	uint8_t stop;			/* enum oc_stop */
	uint8_t last_lost;		/* enum oc_lost, of the last connection lost */
	struct soup_client soup;
	struct tcp_conn *tcp;		/* own stack */
	int fd;				/* kernel stack's socket */
	int fd_err;			/* its error as a send() took it (below) */
	int port_fd;			/* own stack: holds the local port in the kernel */
	uint16_t port;			/* the connection's local port */
	uint32_t conn_no;		/* connections made, this one included */
	uint64_t retry_at;
	uint64_t backoff;
	uint64_t deadline;		/* connect (kernel) or close */
	uint16_t port_lo, port_hi;	/* the local ports a connection takes one of */
	uint8_t isn_key[SIPHASH_KEY_LEN]; /* RFC 6528's secret */
	uint64_t rng;			/* the local ports */
	uint32_t notes;			/* what the kernel refused, said: count, then */
	char note[160];			/* ... the last one (the main thread prints it) */
	struct order_conn_stats st;
	uint32_t kout_len;		/* kernel: bytes send() has not taken yet */
	uint8_t kout[OC_KBUF_OUT];
	uint8_t kin[OC_KBUF_IN];
};

/*
 * The defaults a user of the session starts from: the own stack, login
 * T2TG:secret (the rig's simulator's too), the current session, the
 * contract's 1 s heartbeat and 15 s silence rule, RTO 50 ms to 1 s (1 s
 * before any sample, RFC 6298), 8 retries, a 0.2 ms ACK delay, an order's
 * loss probe after 0.25 ms at the soonest, 100 challenge ACKs a second,
 * reconnects after 20 ms doubling to 1 s, 2 s for a kernel connect, 200 ms
 * to close.
 */
void order_session_defaults(struct order_conn_cfg *c);

/*
 * Set up (the own stack's TCP state is allocated here, @tx its frames'
 * way out; NULL for the kernel stack; the secret from getrandom()).  0, or
 * -errno with err set.
 */
int order_conn_init(struct order_conn *oc, const struct order_conn_cfg *cfg,
		    const struct order_conn_ops *ops, const struct tcp_tx *tx,
		    char *err, size_t errlen);
void order_conn_destroy(struct order_conn *oc);

/*
 * --local-port PORT[-LAST] as an option of a command line (util/opt.h's
 * OPT_CALL, at a struct order_conn_cfg): the local port, or the range each
 * connection takes one of at random.
 */
int order_conn_opt_ports(void *session_cfg, const char *arg, char *why, size_t n);

/* The first connection, now (idle turns take it from there). */
void order_conn_start(struct order_conn *oc, uint64_t now);

static inline bool order_conn_up(const struct order_conn *oc)
{
	return oc->state == OC_UP;
}

/* Own stack: is this segment the connection's?  (Its 4-tuple.) */
static inline bool order_conn_owns(const struct order_conn *oc, const struct tcp_seg *s)
{
	return s->dst_port == oc->port && s->src_port == oc->cfg.remote.port &&
	       s->src_ip == oc->cfg.remote.ip;
}

/* Own stack: a segment of the connection (checksums verified). */
void order_conn_on_segment(struct order_conn *oc, const struct tcp_seg *s, uint64_t now);

/* Kernel stack: read what has arrived, without blocking. */
void order_conn_poll(struct order_conn *oc, uint64_t now);

/* Timers, connecting, heartbeats, the 15 s rule: in idle turns. */
void order_conn_idle(struct order_conn *oc, uint64_t now);

/*
 * Own stack, the hot path: an Unsequenced Data packet of @len bytes built
 * at frame + FRAME_TCP_HDR_LEN with its sum.  Returns the frame length to
 * transmit, 0 when only queued (the frame is the caller's again), -1 when
 * not taken (counted).
 */
static inline int order_conn_send_frame(struct order_conn *oc, uint8_t *frame, uint32_t len,
					uint64_t sum, uint64_t now)
{
	int ret;

	if (__builtin_expect(oc->state != OC_UP, 0)) {
		oc->st.send_fail++;
		return -1;
	}
	ret = tcp_send_built(oc->tcp, frame, len, sum, now);
	if (__builtin_expect(ret < 0, 0))
		oc->st.send_fail++;
	else
		soup_client_sent(&oc->soup, now);
	return ret;
}

/*
 * Idle turns: read the lines an order's send touches here (the state, the
 * SoupBinTCP client's liveness, the stack's pointers and the counters),
 * not the receive buffers behind them.  Nothing is written.
 */
static inline void order_conn_warm(const struct order_conn *oc)
{
	touch_lines(&oc->state, offsetof(struct order_conn, soup.rx) -
				offsetof(struct order_conn, state));
	touch_lines(&oc->tcp, offsetof(struct order_conn, kout) - offsetof(struct order_conn, tcp));
}

/*
 * Either stack: @len bytes of whole packets onto the stream.  0, or -1 when
 * not taken (not logged in, or no room: counted).
 */
int order_conn_send(struct order_conn *oc, const uint8_t *buf, size_t len, uint64_t now);

/* Log out and close, within cfg.close_ns; then stopped. */
void order_conn_shutdown(struct order_conn *oc, uint64_t now);

static inline bool order_conn_stopped(const struct order_conn *oc)
{
	return oc->state == OC_STOPPED;
}

#endif /* NET_ORDER_CONN_H */
