/* SPDX-License-Identifier: MIT */
/*
 * What the kernel-socket test tools (feed_recv, fault_recv and
 * rerequest_client over UDP, order_client over TCP) share: the two feed
 * receivers' common options (rows of
 * a util/opt.h table), their arguments ADDR PORT [IFADDR] and start (the
 * feed socket joined, "joined" printed); the clients' ADDR PORT and --raw
 * HEX; a socket with a receive buffer large enough for a burst; the trades
 * CSV in t2t-exsim's --record format and the seq,hex dump line.  Not for
 * the gateway's hot path: these print to stderr and make syscalls.
 */
#ifndef NETNS_TOOLS_TOOL_UTIL_H
#define NETNS_TOOLS_TOOL_UTIL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "util/clock.h"
#include "util/opt.h"

/*
 * The feed receivers' shared part of the command line.  It must be the
 * first member of the program's config, named rx: the handler of
 * --expect-trades takes the config as a struct tool_rx.
 */
struct tool_rx {
	uint64_t timeout_ms;	/* fail after this long without a datagram */
	uint64_t max_ms;	/* ... or this long in all */
	const char *session;	/* expected; NULL: the first seen */
	uint64_t expect_trades;
	bool have_expect;	/* --expect-trades given */
	const char *trades;	/* CSV of the trades, or NULL */
	/* The arguments: ADDR PORT [IFADDR]. */
	const char *addr;
	uint16_t port;
	const char *ifaddr;	/* NULL: the route's interface */
};

#define TOOL_RX_DEFAULTS	{ .timeout_ms = 3000, .max_ms = 120000 }
#define TOOL_RX_FIRST(type) \
	_Static_assert(offsetof(type, rx) == 0, "struct tool_rx comes first in " #type)

int tool_rx_expect_trades(void *cfg, const char *arg, char *why, size_t whylen);

/*
 * The rows of those options in the table of a program whose config is
 * @type; the help of --session and --trades is the program's.
 */
#define TOOL_RX_OPTS(type, session_help, trades_help) \
	OPT("timeout-ms", 0, OPT_U64, OFF(type, rx.timeout_ms), "T", \
	    "fail after T ms without a datagram", .min = 1), \
	OPT("max-ms", 0, OPT_U64, OFF(type, rx.max_ms), "T", "fail after T ms in all", \
	    .min = 1), \
	OPT("session", 0, OPT_STR, OFF(type, rx.session), "ID", session_help, \
	    .max = MOLD_SESSION_LEN), \
	OPT("expect-trades", 0, OPT_CALL, 0, "N", \
	    "fail unless exactly N trades ('P') arrived, each counted once", \
	    .call = tool_rx_expect_trades), \
	OPT("trades", 0, OPT_STR, OFF(type, rx.trades), "FILE", trades_help)

/* What the receivers take after the options. */
#define TOOL_RX_USAGE	"[options] ADDR PORT [IFADDR]"

/*
 * The command line of a receiver whose config @cfg begins with its struct
 * tool_rx (TOOL_RX_FIRST): the table of @p, then ADDR PORT [IFADDR].
 * Returns 0 to run, 1 after --help, 2 after a usage error was printed.
 */
int tool_rx_parse(const struct opt_prog *p, void *cfg, int argc, char **argv);

/*
 * @session from --session (true), or unset (false: the receiver takes the
 * first one it sees).
 */
bool tool_rx_session(const struct tool_rx *rx, char session[MOLD_SESSION_LEN]);

/*
 * The feed socket of @rx: a tool_udp_socket() bound to ADDR:PORT with
 * SO_REUSEADDR, a multicast ADDR joined on the interface that has IFADDR
 * (none: the route's); then "joined" on standard output for the test
 * waiting on it.  Returns the descriptor, or -1 (said on stderr).
 */
int tool_rx_open(const char *prog, const struct tool_rx *rx, int sock_flags, int rcvbuf);

/*
 * An OPT_STR argument @s of @flag as an even number of hex digits, at most
 * @cap bytes, into @out.  Returns 0, or 2 after a usage error was printed.
 */
int tool_opt_hex(const struct opt_prog *p, const char *flag, const char *s, uint8_t *out,
		 size_t cap, size_t *len);

/*
 * After opt_parse(): the arguments from @first on are ADDR PORT and @more
 * others (@names says them all, for the error), ADDR:PORT into @sa.
 * Returns 0, or 2 after a usage error was printed.
 */
int tool_opt_target(const struct opt_prog *p, int argc, char **argv, int first, int more,
		    const char *names, struct sockaddr_in *sa);

/*
 * A UDP socket (@sock_flags or-ed into the type: SOCK_NONBLOCK) with a
 * receive buffer of @rcvbuf bytes (0: the system's): SO_RCVBUFFORCE, as
 * root may exceed rmem_max, else SO_RCVBUF as far as the limit allows; the
 * tools go on with what they get.  Returns the descriptor, or -1 (said on
 * stderr, prefixed "@prog: ").
 */
int tool_udp_socket(const char *prog, int sock_flags, int rcvbuf);

/*
 * The trades of a stream of ITCH messages as CSV, one line
 * "seq,symbol,locate,price,shares,send_ns" per 'P' (t2t-exsim --record's
 * format): the stock directory ('R') names the locates, send_ns is the
 * 48-bit timestamp recovered with the time given.
 */
struct tool_trades {
	FILE *f;		/* NULL: nothing written */
	const char *path;
	bool flush;		/* after every line, for a test polling the file */
	char symbol[65536][ITCH_SYMBOL_LEN];	/* by locate */
};

/* @path for writing, the header written.  Returns 0, or -1 (said on stderr). */
int tool_trades_open(struct tool_trades *t, const char *prog, const char *path);

/* One well-formed message @m of sequence number @seq, read at @now_ns. */
void tool_trades_msg(struct tool_trades *t, uint64_t seq, const uint8_t *m, uint64_t now_ns);

/* The file closed (none: nothing to do).  Returns 0, or -1 (said on stderr). */
int tool_trades_close(struct tool_trades *t, const char *prog);

/* One message as "seq,hex\n" (fault_recv --dump, rerequest_client). */
void tool_write_hex(FILE *o, uint64_t seq, const uint8_t *m, size_t len);

#endif /* NETNS_TOOLS_TOOL_UTIL_H */
