/* SPDX-License-Identifier: MIT */
/*
 * Ethernet / IPv4 / UDP frames for AF_XDP.
 *
 * TX: a per-destination template holds the 42 header bytes and the one's
 * complement sums of every header word that never changes.  Per frame only
 * the IPv4 total length, the IPv4 id, the UDP length and the two checksums
 * are written; the IPv4 checksum costs two additions on top of the template
 * sum and the UDP checksum one pass over the payload.
 *
 * RX: frame_parse_udp() finds the UDP payload of a received frame, with IHL
 * options, and rejects anything short, fragmented, not IPv4/UDP, or with
 * lengths that disagree with the frame.  No VLAN tags (the rig has none).
 */
#ifndef PROTO_FRAME_H
#define PROTO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "proto/be.h"
#include "proto/csum.h"

#define FRAME_ETH_LEN		14
#define FRAME_IP4_LEN		20	/* without options */
#define FRAME_UDP_LEN		8
#define FRAME_HDR_LEN		(FRAME_ETH_LEN + FRAME_IP4_LEN + FRAME_UDP_LEN)
#define FRAME_MAX_PAYLOAD	(0xffff - FRAME_IP4_LEN - FRAME_UDP_LEN)

/* Offsets in a template frame (IPv4 without options). */
#define FRAME_OFF_ETHERTYPE	12
#define FRAME_OFF_IP		14
#define FRAME_OFF_IP_TOT_LEN	(FRAME_OFF_IP + 2)
#define FRAME_OFF_IP_ID		(FRAME_OFF_IP + 4)
#define FRAME_OFF_IP_FRAG	(FRAME_OFF_IP + 6)
#define FRAME_OFF_IP_TTL	(FRAME_OFF_IP + 8)
#define FRAME_OFF_IP_PROTO	(FRAME_OFF_IP + 9)
#define FRAME_OFF_IP_CSUM	(FRAME_OFF_IP + 10)
#define FRAME_OFF_IP_SRC	(FRAME_OFF_IP + 12)
#define FRAME_OFF_IP_DST	(FRAME_OFF_IP + 16)
#define FRAME_OFF_UDP		(FRAME_OFF_IP + FRAME_IP4_LEN)
#define FRAME_OFF_UDP_LEN	(FRAME_OFF_UDP + 4)
#define FRAME_OFF_UDP_CSUM	(FRAME_OFF_UDP + 6)
#define FRAME_OFF_PAYLOAD	FRAME_HDR_LEN

struct frame_endpoint {
	uint8_t mac[6];
	uint32_t ip;		/* host order: 0x0a000001 is 10.0.0.1 */
	uint16_t port;		/* host order */
};

struct frame_template {
	uint8_t hdr[FRAME_HDR_LEN];
	uint64_t ip_sum;	/* IPv4 header words except length/id/csum */
	uint64_t udp_sum;	/* pseudo-header addresses + protocol, ports */
	uint16_t next_id;	/* IPv4 id of the next frame */
};

/*
 * A frame's IPv4 header from its template's: total length, id, and the
 * checksum from @ip_sum (the header's other words, summed once).  UDP's
 * and TCP's templates both finish their frames with it.
 */
static inline void frame_ip4_finish(uint8_t *frame, uint64_t ip_sum, uint16_t ip_len,
				    uint16_t id)
{
	uint16_t csum;

	be16_store(frame + FRAME_OFF_IP_TOT_LEN, ip_len);
	be16_store(frame + FRAME_OFF_IP_ID, id);
	csum = csum_finish(csum_add_host16(csum_add_host16(ip_sum, ip_len), id));
	__builtin_memcpy(frame + FRAME_OFF_IP_CSUM, &csum, 2);
}

/* Build the template once per destination: DF set, @ttl, DSCP/ECN @tos. */
void frame_template_init(struct frame_template *t,
			 const struct frame_endpoint *src,
			 const struct frame_endpoint *dst,
			 uint8_t ttl, uint8_t tos);

/*
 * Finish a frame whose @payload_len bytes are already at
 * frame + FRAME_HDR_LEN: copy the template header in front, patch lengths,
 * IPv4 id and both checksums.  Returns the frame length, or 0 if the payload
 * is over FRAME_MAX_PAYLOAD.
 */
size_t frame_finish(struct frame_template *t, uint8_t *frame,
		    size_t payload_len);

/* As frame_finish() for a frame that already holds the template header. */
size_t frame_patch(struct frame_template *t, uint8_t *frame,
		   size_t payload_len);

/*
 * As frame_finish() / frame_patch(), with the payload's csum_partial() sum
 * supplied by the caller (e.g. from ouch_order_tmpl_write()), so the
 * payload is not read.
 */
size_t frame_finish_sum(struct frame_template *t, uint8_t *frame,
			size_t payload_len, uint64_t payload_sum);
size_t frame_patch_sum(struct frame_template *t, uint8_t *frame,
		       size_t payload_len, uint64_t payload_sum);

/* A received IPv4 packet (not a fragment), pointing into the frame. */
struct frame_ip4 {
	const uint8_t *ip;		/* IPv4 header */
	const uint8_t *l4;		/* what follows it */
	uint16_t ip_hdr_len;		/* IHL * 4 */
	uint16_t l4_len;		/* IPv4 total length - IHL * 4 */
	uint8_t proto;
	uint32_t src_ip;		/* host order */
	uint32_t dst_ip;
};

/*
 * The IPv4 packet of a frame.  Returns 0 or PROTO_E_SHORT, PROTO_E_ETHERTYPE,
 * PROTO_E_IP_HDR (version != 4, IHL < 5, total length < IHL * 4),
 * PROTO_E_LENGTH (total length beyond the frame), PROTO_E_FRAGMENT.
 * Ethernet padding after the IPv4 total length is ignored.
 */
int frame_parse_ip4(const uint8_t *frame, size_t len, struct frame_ip4 *out);

/* A received UDP datagram, pointing into the frame. */
struct frame_udp {
	const uint8_t *ip;		/* IPv4 header */
	const uint8_t *udp;		/* UDP header */
	const uint8_t *payload;
	uint16_t payload_len;		/* from the UDP length */
	uint16_t ip_hdr_len;		/* IHL * 4 */
	uint32_t src_ip;		/* host order */
	uint32_t dst_ip;
	uint16_t src_port;		/* host order */
	uint16_t dst_port;
};

/*
 * Returns 0 or PROTO_E_SHORT (frame ends inside a header), PROTO_E_ETHERTYPE,
 * PROTO_E_IP_HDR (version != 4, IHL < 5, total length < IHL * 4),
 * PROTO_E_LENGTH (IPv4 total length beyond the frame, UDP length < 8 or
 * beyond the IPv4 payload), PROTO_E_FRAGMENT, PROTO_E_NOT_UDP.
 * Ethernet padding after the IPv4 total length is ignored.
 */
int frame_parse_udp(const uint8_t *frame, size_t len, struct frame_udp *out);
/* The UDP datagram of a parsed IPv4 packet: as frame_parse_udp() after it. */
int frame_parse_udp_ip4(const struct frame_ip4 *ip, struct frame_udp *out);

/*
 * Verify the IPv4 header checksum and the UDP checksum (0 = not used) of a
 * parsed datagram.  Returns 0 or PROTO_E_CHECKSUM.
 */
int frame_verify_checksums(const struct frame_udp *f);

#endif /* PROTO_FRAME_H */
