/* SPDX-License-Identifier: MIT */
/* Command line of the gateway: parsed and validated before anything starts. */
#ifndef GATEWAY_OPTS_H
#define GATEWAY_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "net/busy_poll.h"
#include "net/order_conn.h"
#include "gateway/engine.h"

#define GW_CAPTURE_NOTES 16

enum gw_mode { GW_MODE_XDP, GW_MODE_UDP };
enum gw_udp_recv { GW_UDP_SPIN, GW_UDP_BLOCK };

struct gw_opts {
	int mode;			/* enum gw_mode */
	int udp_recv;			/* enum gw_udp_recv */
	const char *ifname;
	uint64_t queues;		/* receive queues served (bit q); 0: every one */
	bool queues_given;
	uint32_t ring_size;		/* AF_XDP fill/RX/TX/completion rings */
	bool xdp_generic;
	bool zero_copy;
	bool no_need_wakeup;		/* bind without XDP_USE_NEED_WAKEUP */
	bool replace_xdp;
	bool no_warm;			/* no idle-time cache warming */
	bool no_huge_text;		/* the code stays on its 4 KB pages */
	uint32_t warm_every;		/* idle spins between warmings (power of two) */
	struct busy_poll_cfg busy_poll;	/* on the path's sockets; all 0: off */
	bool no_verify_csum;		/* trust checksums (the NIC checked them) */
	uint32_t feed_group;		/* host order */
	uint16_t feed_port;
	uint32_t feed_source;		/* 0 = any */
	const char *line_b_if;		/* line B's interface; NULL = one line */
	uint32_t feed_b_group;		/* line B's group (host order) */
	uint16_t feed_b_port;		/* 0 = the feed's port */
	uint32_t feed_b_source;		/* 0 = any */
	uint32_t exch_ip;
	uint16_t exch_port;
	uint8_t exch_mac[6];
	bool have_exch_mac;
	bool stack_given;		/* --order-stack on the command line */
	uint32_t rerequest_ip;		/* MoldUDP64 re-request server */
	uint16_t rerequest_port;	/* 0 = no gap recovery */
	uint16_t retrans_port;		/* where its answers arrive */
	const char *kill_file;		/* kill switch: this file exists */
	int cpu;			/* -1: do not pin */
	bool fifo;
	double duration;		/* seconds, 0 = until signal / end */
	bool exit_on_end;
	double grace;			/* seconds after end of session */
	const char *json;
	const char *orders_out;
	const char *capture;		/* capture log (gzip), written at exit */
	const char *capture_note[GW_CAPTURE_NOTES];	/* KEY=VALUE for its header */
	unsigned int n_capture_notes;
	bool quiet;
	bool verbose;			/* the host findings at start, not their count */
	bool check_host;		/* --check-host: the host report, then exit */
	uint64_t check_host_window_ns;	/* its watch of the hot CPU */
	const char *host_root;		/* read ROOT/proc, ROOT/sys; NULL: / */
	const char *monitor;		/* segment name; NULL: ifname; "off": none */
	int feed_clock_mono;		/* the feed stamps this host's CLOCK_MONOTONIC */
	bool symbols_given;		/* the first --symbol replaces the defaults */
	bool rerequest_given;		/* else the re-request server is the exchange's */
	struct order_conn_cfg session;	/* the order session; addresses by the path */
	struct gw_cfg eng;
};

/* 0 to run, 1 after --help, 2 on a bad command line (message printed). */
int opts_parse(struct gw_opts *o, int argc, char **argv);

#endif /* GATEWAY_OPTS_H */
