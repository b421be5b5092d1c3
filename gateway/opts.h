/* SPDX-License-Identifier: MIT */
/* Command line of the gateway: parsed and validated before anything starts. */
#ifndef GATEWAY_OPTS_H
#define GATEWAY_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "gateway/engine.h"

enum gw_mode { GW_MODE_XDP, GW_MODE_UDP };
enum gw_udp_recv { GW_UDP_SPIN, GW_UDP_BLOCK };

struct gw_opts {
	enum gw_mode mode;
	enum gw_udp_recv udp_recv;
	const char *ifname;
	unsigned int queue;
	bool xdp_generic;
	bool zero_copy;
	bool replace_xdp;
	bool no_warm;			/* no idle-time cache warming */
	uint32_t feed_group;		/* host order */
	uint16_t feed_port;
	uint32_t feed_source;		/* 0 = any */
	uint32_t exch_ip;
	uint16_t exch_port;
	uint8_t exch_mac[6];
	bool have_exch_mac;
	uint16_t local_port;		/* where replies arrive */
	int cpu;			/* -1: do not pin */
	bool fifo;
	double duration;		/* seconds, 0 = until signal / end */
	bool exit_on_end;
	double grace;			/* seconds after end of session */
	const char *json;
	const char *orders_out;
	bool quiet;
	struct gw_cfg eng;
};

/* 0 to run, 1 after --help, 2 on a bad command line (message printed). */
int opts_parse(struct gw_opts *o, int argc, char **argv);

#endif /* GATEWAY_OPTS_H */
