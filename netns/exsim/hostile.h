/* SPDX-License-Identifier: MIT */
/*
 * Hostile input mixed into the feed (--hostile F: F packets per 1000 tick
 * packets, classes from --hostile-classes, picked by the --fault-seed
 * stream).  None of them consumes a sequence number or reaches the record.
 *
 * Malformed MoldUDP64 (sent on the feed socket, so to the feed group:port
 * from the feed's own address and port, valid UDP checksum).  Every one
 * carries the real session id and the sequence numbers of messages of the
 * session's opening (1 .. 3 + symbols: O, S, the directory, Q), which were
 * published long before and which the random faults never drop; its blocks
 * are copies of those messages as published, with exactly one defect:
 *
 *   short_packet        1-19 bytes: a header cut short
 *   block_overrun       a block length running past the end of the packet
 *   count_too_high      Message Count above the blocks present
 *   count_too_low       Message Count below the blocks present
 *   zero_length_block   one block of length 0
 *   bad_length          one block 1-8 bytes longer or shorter than its type
 *   unknown_type        one block whose type byte is not ITCH 5.0
 *   random              header (real session, seq 1, count 1..opening) and
 *                       0-1452 random bytes; never well formed by chance
 *                       (redrawn), so it lands in one of the classes above
 *
 * Because their sequence numbers are old, a receiver that sequences first
 * drops them as duplicates; one that checks structure first counts them by
 * class.  Either way: dropped, counted, and trading goes on.  Never
 * count 0 or 0xFFFF: an end of session, even an old one, would end the
 * session for a receiver that believes it.
 *
 * Frames (sent raw on the feed's interface with AF_PACKET, from the feed's
 * MAC, address and port): their payload is a well-formed MoldUDP64 packet
 * of the real session at the *next* sequence number, holding one trade of
 * the first symbol at price 0.0001 ("poison"): a receiver that takes one
 * of these loses the real message with that number and trades on a false
 * price, which shows in its orders.
 *
 *   truncated_frame     the frame cut at a random point after the Ethernet
 *                       header (IPv4 and UDP lengths still claim it all)
 *   bad_checksum        complete, IPv4 checksum right, UDP checksum wrong
 *                       (never 0, which would mean "none")
 *   other_port          to the feed address on a port in 600-999 (never the
 *                       feed, order or re-request port)
 *   other_address       to another group (the feed group + 1) or, when the
 *                       interface has a neighbour, to an unused unicast
 *                       address of its subnet at the neighbour's MAC
 *
 * A correct receiver drops all four before decoding (the kernel does so
 * for its sockets; an AF_XDP one must check lengths and checksums and steer
 * only its flows).  Frame classes need a named network namespace (like the
 * multicast feed), root, and for a unicast feed a neighbour entry for it.
 */
#ifndef NETNS_EXSIM_HOSTILE_H
#define NETNS_EXSIM_HOSTILE_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netns/exsim/exsim.h"
#include "netns/exsim/feed.h"
#include "proto/frame.h"

enum hostile_class {
	/* the first seven in mold_check.h order (class = defect - 1) */
	HC_SHORT_PACKET,
	HC_BLOCK_OVERRUN,
	HC_COUNT_TOO_HIGH,
	HC_COUNT_TOO_LOW,
	HC_ZERO_LENGTH_BLOCK,
	HC_BAD_LENGTH,
	HC_UNKNOWN_TYPE,
	HC_RANDOM,
	HC_TRUNCATED_FRAME,
	HC_BAD_CHECKSUM,
	HC_OTHER_PORT,
	HC_OTHER_ADDRESS,
	HC_NCLASSES,
};

#define HC_FIRST_FRAME		HC_TRUNCATED_FRAME
#define HOSTILE_ALL		((1u << HC_NCLASSES) - 1)
#define HOSTILE_FRAMES		(HOSTILE_ALL & ~((1u << HC_FIRST_FRAME) - 1))
#define HOSTILE_BUF		2048

const char *hostile_class_name(unsigned int cls);

/* "all" or comma-separated class names.  Returns 0, or -1 (bad name). */
int hostile_parse_classes(const char *list, uint32_t *mask, const char **bad);

struct hostile_stats {
	uint64_t sent;
	uint64_t by_class[HC_NCLASSES];
	uint64_t unicast_other;		/* other_address frames sent unicast */
	uint64_t send_errors;		/* given up (not in by_class) */
};

struct hostile {
	struct feed *feed;
	const struct exsim_cfg *cfg;
	unsigned int cls[HC_NCLASSES];	/* enabled classes */
	unsigned int ncls;
	double per_1000;
	double credit;
	uint64_t rng;
	uint16_t opening;		/* messages 1..opening: the old ones */
	uint8_t unknown_type;		/* a byte that is no ITCH 5.0 type */

	/* frames */
	int pkt_fd;
	int ifindex;
	char ifname[IF_NAMESIZE];
	struct frame_endpoint src, feed_dst, group_dst, unicast_dst;
	bool have_unicast;

	struct hostile_stats st;
	uint8_t buf[HOSTILE_BUF];
};

/*
 * Prepare (after feed_open): with frame classes, find the feed's interface,
 * MAC and neighbour and open the AF_PACKET socket.  Returns 0, or -1 with
 * a message in @err.
 */
int hostile_open(struct hostile *h, const struct exsim_cfg *c, struct feed *f,
		 char *err, size_t errlen);
void hostile_close(struct hostile *h);

/* After each tick packet: send the hostile packets now due. */
void hostile_after_packet(struct hostile *h);

#endif /* NETNS_EXSIM_HOSTILE_H */
