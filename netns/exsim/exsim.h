/* SPDX-License-Identifier: MIT */
/*
 * exsim: the exchange simulator of the test rig (see netns/exsim/README.md).
 *
 * One thread publishes a MoldUDP64 / ITCH 5.0 feed on a schedule and, while
 * it waits for the next send time, serves an OUCH order port with paper
 * fills.  This header holds the run configuration shared by its parts.
 */
#ifndef NETNS_EXSIM_H
#define NETNS_EXSIM_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include "netns/exsim/soup_fault.h"
#include "netns/exsim/soup_login.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"

#define EXSIM_MAX_SYMBOLS	1024	/* GBM source: locates 1..1024 */
#define EXSIM_MAX_LIST		4096	/* symbols --symbols can list */
#define EXSIM_MAX_NOISE		20	/* --noise upper bound, per tick */
#define EXSIM_DEFAULT_COUNT	10000	/* ticks when neither --count nor --duration */
#define EXSIM_RATE0_TICK_CAP	20000000 /* tick cap of --rate 0 --duration without --count */
#define EXSIM_MAX_TICKS		(UINT64_C(1) << 31)
#define EXSIM_DEFAULT_SESSION	"EXSIM00001"
#define EXSIM_DEFAULT_GROUP	"239.1.1.1"	/* the rig's defaults */
#define EXSIM_DEFAULT_FEED_PORT	26400
#define EXSIM_DEFAULT_ORDER_PORT 26401	/* TCP: the SoupBinTCP server */
#define EXSIM_DEFAULT_LOGIN	"T2TG:secret"
#define EXSIM_DEFAULT_REREQ_PORT 26403	/* MoldUDP64 re-request server */
#define EXSIM_REREQ_MAX_COUNT	2000	/* messages per request, default cap */
#define EXSIM_REREQ_RATE	100000	/* messages per second (token bucket) */
#define EXSIM_REREQ_BURST	10000	/* bucket size, messages */
#define EXSIM_MAX_DROP_SEQS	65536	/* --drop-seqs entries */
#define EXSIM_REPLAY_WINDOW	(UINT64_C(1) << 22)	/* sequence numbers a replay keeps */
#define EXSIM_REPLAY_MSG_BYTES	40	/* store bytes per message kept (a day averages ~30) */

/* Where the feed's messages come from (README, "Sources"). */
enum exsim_source {
	EXSIM_SRC_DAY,		/* a generated day, its book, fills against it */
	EXSIM_SRC_GBM,		/* trade prints of GBM prices, fills at the last one */
	EXSIM_SRC_REPLAY,	/* a day file, at its pace, fills against its book */
};

/* One line's faults (faults.h). */
struct fault_cfg {
	double drop_rate, dup_rate, reorder_rate;
	uint32_t drop_burst;		/* a random drop takes this many packets (0, 1: one) */
	uint64_t seed;
	uint64_t *drop_seqs;		/* sorted, unique; malloc'd, or NULL */
	size_t ndrop_seqs;
};

struct exsim_cfg {
	char session[MOLD_SESSION_LEN];
	struct sockaddr_in feed;	/* destination: group or unicast */
	bool feed_mcast;
	struct in_addr mcast_if;	/* INADDR_ANY: let the route decide */
	int ttl;
	struct sockaddr_in order;	/* where the order server listens (TCP) */

	int source;			/* enum exsim_source */
	bool source_set;		/* --source given */
	const char *symbols_arg;	/* --symbols as given (NULL: default) */
	char symbols[EXSIM_MAX_LIST][ITCH_SYMBOL_LEN]; /* space-padded */
	unsigned int nsym;		/* listed, or the count K */
	bool symbols_named;		/* symbols[] holds nsym names */
	uint64_t seed;
	const char *prices_path;

	/* --replay FILE (replay.h) */
	const char *replay_path;
	double speed;			/* 0: as fast as possible */
	uint64_t replay_until_s;	/* --replay-until: time of day, 0 = the whole file */
	uint64_t window;		/* sequence numbers kept for re-requests and tokens */
	uint32_t book_orders;		/* the simulator's book; 0: the book's default */

	/* --gen-day FILE: write a day and exit (genday.h) */
	const char *gen_day_path;
	uint64_t gen_messages;
	double day_seconds;		/* 0: 6.5 hours */

	double rate;			/* ticks per second; 0 = flat out */
	uint32_t burst;			/* ticks per burst; 1 = steady */
	uint64_t count;			/* ticks to publish (a cap with --duration) */
	bool count_set;
	double duration_s;		/* 0 = none */
	uint32_t max_per_packet;	/* ticks; 0 = as many as fit the MTU */
	double noise;			/* mean noise messages per tick */
	int stamp_mono;			/* timestamps: 0 time of day, 1 CLOCK_MONOTONIC */

	uint32_t warmup_ms;
	uint32_t wait_login_ms;		/* the session starts once a client logged in */
	uint32_t linger_ms;
	uint32_t grace_ms;
	uint32_t after_end_ms;		/* the order port open after its End of Session */
	uint32_t heartbeat_ms;
	uint32_t spin_ns;		/* busy-wait window before a send */
	uint32_t max_shares;		/* largest acceptable order */

	/* MoldUDP64 re-request server (rereq.h) */
	uint16_t rereq_port;		/* 0: off */
	uint32_t rereq_max;		/* messages per request */
	double rereq_rate;		/* messages per second; 0: unlimited */
	uint32_t rereq_burst;		/* bucket size, messages */
	int rereq_all;			/* answer in as many packets as it takes */

	/* the order session (soup_server.h, soup_login.h, soup_fault.h) */
	struct soup_account logins[SOUP_SRV_USERS];
	unsigned int nlogins;		/* --login given; the default account after parsing */
	char soup_session[SOUP_SESSION_LEN];	/* left padded; the feed's by default */
	bool soup_session_set;
	uint64_t soup_hb_ns;		/* Server Heartbeat after this long with nothing sent */
	uint64_t soup_timeout_ns;	/* a connection with nothing received this long goes */
	uint64_t soup_keep;		/* sequenced messages kept per session */
	struct soup_fault_cfg soup_fault;

	/* session attacks (attack.h) */
	uint32_t junk_first;		/* junk packets before the session's first */
	uint64_t stale_end_at;		/* after this tick packet: an old end of session */
	uint64_t far_heartbeat_at;	/* ... a heartbeat a million messages ahead */
	struct in_addr spoof_from;	/* 0: no spoofed opening */

	/* faults on the feed (faults.h): line A's, and line B's */
	uint64_t fault_seed;		/* of every fault and attack stream */
	struct fault_cfg fa;
	const char *fault_log_path;

	/* a second feed line (line_b.h): the same packets to another group */
	struct sockaddr_in line_b;	/* sin_port 0: one line */
	struct fault_cfg fb;
	uint64_t a_delay_ns;		/* line A's path: packets leave this long late */
	uint64_t a_jitter_ns;		/* ... plus up to this much more */
	uint64_t b_delay_ns;		/* B's copy leaves this long after A's */
	uint64_t b_jitter_ns;		/* ... plus up to this much more */

	/* hostile packets (hostile.h) */
	double hostile_per_1000;	/* per 1000 tick packets; 0: off */
	uint32_t hostile_mask;		/* enabled classes, 1 << class */

	const char *record_path;
	const char *orders_log_path;
	const char *json_path;
	int cpu;			/* EXSIM_CPU_ANY: no pinning; EXSIM_CPU_AUTO */
	bool quiet;
	bool host_netns;		/* allow multicast from the initial netns */
};

/*
 * Parse the command line into @c.  Returns 0, 1 after --help was printed, or
 * -1 after a usage error was printed.
 */
int exsim_parse_args(struct exsim_cfg *c, int argc, char **argv);

/* Free what the parser allocated (--drop-seqs). */
void exsim_cfg_free(struct exsim_cfg *c);

#endif /* NETNS_EXSIM_H */
