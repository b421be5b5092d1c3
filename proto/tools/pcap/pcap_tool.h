/* SPDX-License-Identifier: MIT */
/*
 * t2t-pcap: a day file as a capture of its MoldUDP64 feed, and a capture
 * of a feed as the day file of its messages.  main.c parses the options
 * (one table, util/opt.h) and runs one of the two directions:
 * day_to_pcap.c or pcap_to_day.c.
 */
#ifndef PROTO_TOOLS_PCAP_TOOL_H
#define PROTO_TOOLS_PCAP_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto/moldudp64.h"

#define PT_NAME		"t2t-pcap"

struct pt_cfg {
	const char *from_day;	/* day -> pcap */
	const char *from_pcap;	/* pcap -> day */
	const char *out;
	const char *json;
	bool quiet;

	/* both: the feed's group and port, its session */
	uint32_t group;		/* host order */
	uint16_t port;
	char session[MOLD_SESSION_LEN];
	bool session_given;

	/* day -> pcap: the sender, the packets, their times */
	uint32_t src_ip;
	uint16_t src_port;
	uint8_t src_mac[6];
	uint8_t dst_mac[6];
	bool dst_mac_given;
	int ttl;
	uint32_t per_packet;	/* 0: as many as fit */
	uint32_t mtu;
	uint64_t pack_ns;	/* 0: no limit */
	double rate;		/* packets per second; 0: the ITCH timestamps */
	double speed;
	double start;		/* seconds since the epoch; 0: the default */
	bool nsec;
	uint32_t ends;		/* end of session copies */

	/* pcap -> day: which datagrams */
	uint32_t feed_source;	/* 0: any */
	uint16_t retrans_port;	/* 0: none */
	uint64_t hold_mb;
};

/* A session id's length without its padding spaces, for "%.*s". */
static inline int pt_session_len(const char *s)
{
	int n = MOLD_SESSION_LEN;

	while (n && s[n - 1] == ' ')
		n--;
	return n;
}

/*
 * After a failure no half-written output is left: a regular file only,
 * since -o may name /dev/null or a pipe.
 */
static inline void pt_remove_output(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

/* Each returns the program's exit status. */
int pt_day_to_pcap(const struct pt_cfg *c);
int pt_pcap_to_day(const struct pt_cfg *c);

#endif /* PROTO_TOOLS_PCAP_TOOL_H */
