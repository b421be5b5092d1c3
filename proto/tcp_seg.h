/* SPDX-License-Identifier: MIT */
/*
 * TCP segments in Ethernet/IPv4 frames, for a TCP client that writes its
 * own frames (net/tcp.h on AF_XDP).
 *
 * TX: a per-connection template holds the 54 header bytes (Ethernet, IPv4
 * without options, TCP without options) and the one's complement sums of
 * every word that never changes; per segment only the lengths, the IPv4
 * id, the sequence and acknowledgment numbers, the flags, the window and
 * the two checksums are written, and the TCP checksum adds the payload's
 * sum, which the caller may already have (it built the payload).
 *
 * RX: tcp_seg_parse() checks the header's lengths and reads the MSS and
 * SACK-permitted options of a SYN and the SACK blocks of an ACK;
 * tcp_seg_verify() checks both checksums (in copy mode nothing else has).
 */
#ifndef PROTO_TCP_SEG_H
#define PROTO_TCP_SEG_H

#include <stddef.h>
#include <stdint.h>

#include "proto/be.h"
#include "proto/csum.h"
#include "proto/frame.h"

#define TCP_HDR_LEN		20	/* without options */
#define TCP_HDR_MAX		60
#define FRAME_OFF_TCP		(FRAME_ETH_LEN + FRAME_IP4_LEN)		/* 34 */
#define FRAME_TCP_HDR_LEN	(FRAME_OFF_TCP + TCP_HDR_LEN)		/* 54 */
#define FRAME_TCP_MAX_PAYLOAD	(0xffff - FRAME_IP4_LEN - TCP_HDR_MAX)

/* Offsets in the TCP header. */
#define TCP_OFF_SPORT		0
#define TCP_OFF_DPORT		2
#define TCP_OFF_SEQ		4
#define TCP_OFF_ACK		8
#define TCP_OFF_DOFF		12	/* data offset (high nibble) */
#define TCP_OFF_FLAGS		13
#define TCP_OFF_WIN		14
#define TCP_OFF_CSUM		16
#define TCP_OFF_URG		18

#define TCP_FIN			0x01
#define TCP_SYN			0x02
#define TCP_RST			0x04
#define TCP_PSH			0x08
#define TCP_ACK			0x10
#define TCP_URG			0x20

#define TCP_OPT_EOL		0
#define TCP_OPT_NOP		1
#define TCP_OPT_MSS		2
#define TCP_OPT_MSS_LEN		4
#define TCP_OPT_SACK_PERM	4
#define TCP_OPT_SACK_PERM_LEN	2
#define TCP_OPT_SACK		5

#define IPPROTO_TCP_NUM		6

/* A received segment, pointing into the frame. */
struct tcp_seg {
	const uint8_t *ip;
	const uint8_t *tcp;
	const uint8_t *payload;
	uint16_t ip_hdr_len;
	uint16_t tcp_len;	/* header and payload */
	uint16_t hdr_len;	/* data offset * 4 */
	uint16_t len;		/* payload bytes */
	uint32_t src_ip;	/* host order */
	uint32_t dst_ip;
	uint16_t src_port;
	uint16_t dst_port;
	uint32_t seq;
	uint32_t ack;
	uint16_t win;
	uint8_t flags;
	uint16_t mss;		/* a SYN's MSS option; 0: none */
	uint8_t sack_ok;	/* a SYN's SACK-permitted option */
	uint8_t nsack;		/* SACK blocks in the segment */
	uint32_t sack_right;	/* the highest right edge among them */
	uint32_t sack0_left;	/* the first block: a D-SACK's, if any (RFC 2883) */
	uint32_t sack0_right;
};

/*
 * The segment of a parsed IPv4 packet.  0, or PROTO_E_NOT_TCP,
 * PROTO_E_SHORT (shorter than a TCP header), PROTO_E_TCP_HDR (a data
 * offset below 5 or beyond the packet, an option running past the header).
 */
int tcp_seg_parse(const struct frame_ip4 *ip, struct tcp_seg *s);
/* Both steps from the frame. */
int frame_parse_tcp(const uint8_t *frame, size_t len, struct tcp_seg *s);
/* The IPv4 header checksum and the TCP checksum: 0 or PROTO_E_CHECKSUM. */
int tcp_seg_verify(const struct tcp_seg *s);

struct tcp_template {
	uint8_t hdr[FRAME_TCP_HDR_LEN];
	uint64_t ip_sum;	/* IPv4 header words except length, id, checksum */
	uint64_t tcp_sum;	/* pseudo-header addresses and protocol; the ports */
	uint16_t next_id;
};

/* Once per connection: DF set, @ttl, ports and addresses from the endpoints. */
void tcp_template_init(struct tcp_template *t, const struct frame_endpoint *src,
		       const struct frame_endpoint *dst, uint8_t ttl);

/*
 * Finish a segment in @frame: the template's header, then @opt_len bytes
 * of options (a multiple of 4, already at frame + FRAME_TCP_HDR_LEN), then
 * @len bytes of payload after them whose csum_partial() sum is
 * @payload_sum.  Returns the frame's length.
 */
static inline size_t tcp_frame_finish(struct tcp_template *t, uint8_t *frame,
				      uint32_t seq, uint32_t ack, uint8_t flags,
				      uint16_t win, size_t opt_len, size_t len,
				      uint64_t payload_sum)
{
	uint8_t *tcp = frame + FRAME_OFF_TCP;
	uint16_t tcp_len = (uint16_t)(TCP_HDR_LEN + opt_len + len);
	uint16_t ip_len = (uint16_t)(FRAME_IP4_LEN + tcp_len);
	uint16_t id = t->next_id++;
	uint16_t doff_flags = (uint16_t)(((TCP_HDR_LEN + opt_len) / 4) << 12 | flags);
	uint64_t sum;
	uint16_t csum;

	__builtin_memcpy(frame, t->hdr, FRAME_TCP_HDR_LEN);
	frame_ip4_finish(frame, t->ip_sum, ip_len, id);

	be32_store(tcp + TCP_OFF_SEQ, seq);
	be32_store(tcp + TCP_OFF_ACK, ack);
	be16_store(tcp + TCP_OFF_DOFF, doff_flags);
	be16_store(tcp + TCP_OFF_WIN, win);
	be16_store(tcp + TCP_OFF_URG, 0);
	sum = csum_add_host16(t->tcp_sum, tcp_len);
	sum += csum_field32_even(be32_mem(seq));
	sum += csum_field32_even(be32_mem(ack));
	sum = csum_add_host16(sum, doff_flags);
	sum = csum_add_host16(sum, win);
	if (opt_len)
		sum = csum_partial(tcp + TCP_HDR_LEN, opt_len, sum);
	csum = csum_finish(sum + payload_sum);
	__builtin_memcpy(tcp + TCP_OFF_CSUM, &csum, 2);
	return FRAME_TCP_HDR_LEN + opt_len + len;
}

/* Sequence numbers compare modulo 2^32 (RFC 9293). */
static inline int tcp_seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline int tcp_seq_le(uint32_t a, uint32_t b) { return (int32_t)(a - b) <= 0; }
static inline int tcp_seq_gt(uint32_t a, uint32_t b) { return (int32_t)(a - b) > 0; }
static inline int tcp_seq_ge(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }

#endif /* PROTO_TCP_SEG_H */
