/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the kernel-UDP test tools (feed_recv, order_client,
 * fault_recv, rerequest_client): strict number and hex parsing for their
 * command lines, the feed socket (bind, multicast join), a receive buffer
 * large enough for a burst, and the trade CSV line they all write in
 * exsim's --record format.  Not for the gateway's hot path: these print
 * to stderr and make syscalls.
 */
#ifndef NETNS_TOOLS_TOOL_UTIL_H
#define NETNS_TOOLS_TOOL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/itch.h"
#include "util/clock.h"

/* The header line of a trades file (t2t-exsim --record, feed_recv --trades). */
#define TOOL_TRADES_HEADER "seq,symbol,locate,price,shares,send_ns\n"


/*
 * Decimal digits only (no sign, no blanks, no suffix), at most @max.
 * Returns 0 or -1; *@v is written even when it is above @max.
 */
int tool_parse_u64(const char *s, uint64_t max, uint64_t *v);

/* A UDP port, 1 to 65535. */
int tool_parse_port(const char *s, uint16_t *port);

/* An even number of hex digits, at most @cap bytes, into @out. */
int tool_parse_hex(const char *s, uint8_t *out, size_t cap, size_t *len);

/*
 * SO_RCVBUFFORCE (root may exceed rmem_max), else SO_RCVBUF as far as
 * the limit allows; the tools go on with what they get.
 */
void tool_set_rcvbuf(int fd, int bytes);

/*
 * A UDP socket bound to @addr:@port with SO_REUSEADDR and a @rcvbuf-byte
 * receive buffer; a multicast @addr is joined on the interface that has
 * @ifaddr (NULL: the route's).  @sock_flags is or-ed into the socket type
 * (SOCK_NONBLOCK).  Errors go to stderr prefixed "@prog: ".  Returns the
 * descriptor or -1.
 */
int tool_open_feed(const char *prog, const char *addr, uint16_t port,
		   const char *ifaddr, int sock_flags, int rcvbuf);

/*
 * One trade line "seq,symbol,locate,price,shares,send_ns" for the ITCH
 * 'P' message @m: @symbol is the stock of its locate code (trailing
 * blanks and NULs dropped), send_ns the 48-bit timestamp recovered with
 * @now_ns.
 */
void tool_write_trade(FILE *o, uint64_t seq, const char symbol[ITCH_SYMBOL_LEN],
		      const uint8_t *m, uint64_t now_ns);

#endif /* NETNS_TOOLS_TOOL_UTIL_H */
