// SPDX-License-Identifier: MIT
/* Ethernet/IPv4/UDP header template, per-frame patching, RX parsing. */
#include <string.h>

#include "proto/be.h"
#include "proto/csum.h"
#include "proto/frame.h"
#include "proto/proto_err.h"

#define ETHERTYPE_IPV4		0x0800
#define IPPROTO_UDP_NUM		17
#define IP_DF			0x4000
#define IP_MF			0x2000
#define IP_OFFSET_MASK		0x1fff

void frame_template_init(struct frame_template *t,
			 const struct frame_endpoint *src,
			 const struct frame_endpoint *dst,
			 uint8_t ttl, uint8_t tos)
{
	uint8_t *h = t->hdr;
	uint8_t *ip = h + FRAME_OFF_IP;

	memset(t, 0, sizeof(*t));
	memcpy(h, dst->mac, 6);
	memcpy(h + 6, src->mac, 6);
	be16_store(h + FRAME_OFF_ETHERTYPE, ETHERTYPE_IPV4);

	ip[0] = 0x45;			/* version 4, IHL 5 */
	ip[1] = tos;
	be16_store(h + FRAME_OFF_IP_FRAG, IP_DF);
	h[FRAME_OFF_IP_TTL] = ttl;
	h[FRAME_OFF_IP_PROTO] = IPPROTO_UDP_NUM;
	be32_store(h + FRAME_OFF_IP_SRC, src->ip);
	be32_store(h + FRAME_OFF_IP_DST, dst->ip);

	be16_store(h + FRAME_OFF_UDP, src->port);
	be16_store(h + FRAME_OFF_UDP + 2, dst->port);

	/* Length, id and checksum are still zero: the sum covers the rest. */
	t->ip_sum = csum_partial(ip, FRAME_IP4_LEN, 0);

	/* Pseudo-header (addresses, zero + protocol) and the two ports. */
	t->udp_sum = csum_partial(h + FRAME_OFF_IP_SRC, 8, 0);
	t->udp_sum = csum_add_host16(t->udp_sum, IPPROTO_UDP_NUM);
	t->udp_sum = csum_partial(h + FRAME_OFF_UDP, 4, t->udp_sum);
}

size_t frame_patch_sum(struct frame_template *t, uint8_t *frame,
		       size_t payload_len, uint64_t payload_sum)
{
	uint16_t udp_len, ip_len, id, csum;
	uint64_t sum;

	if (payload_len > FRAME_MAX_PAYLOAD)
		return 0;
	udp_len = (uint16_t)(payload_len + FRAME_UDP_LEN);
	ip_len = (uint16_t)(udp_len + FRAME_IP4_LEN);
	id = t->next_id++;

	frame_ip4_finish(frame, t->ip_sum, ip_len, id);

	/* UDP length counts once in the pseudo-header, once in the header. */
	be16_store(frame + FRAME_OFF_UDP_LEN, udp_len);
	sum = csum_add_host16(t->udp_sum, udp_len);
	sum = csum_add_host16(sum, udp_len);
	csum = csum_finish(sum + payload_sum);
	if (csum == 0)
		csum = 0xffff;	/* 0 would mean "no checksum" (RFC 768) */
	memcpy(frame + FRAME_OFF_UDP_CSUM, &csum, 2);

	return FRAME_HDR_LEN + payload_len;
}

size_t frame_patch(struct frame_template *t, uint8_t *frame,
		   size_t payload_len)
{
	if (payload_len > FRAME_MAX_PAYLOAD)
		return 0;
	return frame_patch_sum(t, frame, payload_len,
			       csum_partial(frame + FRAME_OFF_PAYLOAD,
					    payload_len, 0));
}

size_t frame_finish_sum(struct frame_template *t, uint8_t *frame,
			size_t payload_len, uint64_t payload_sum)
{
	memcpy(frame, t->hdr, FRAME_HDR_LEN);
	return frame_patch_sum(t, frame, payload_len, payload_sum);
}

size_t frame_finish(struct frame_template *t, uint8_t *frame,
		    size_t payload_len)
{
	memcpy(frame, t->hdr, FRAME_HDR_LEN);
	return frame_patch(t, frame, payload_len);
}

int frame_parse_ip4(const uint8_t *frame, size_t len, struct frame_ip4 *out)
{
	const uint8_t *ip;
	size_t ihl, ip_len;
	uint16_t frag;

	if (len < FRAME_ETH_LEN)
		return PROTO_E_SHORT;
	if (be16_load(frame + FRAME_OFF_ETHERTYPE) != ETHERTYPE_IPV4)
		return PROTO_E_ETHERTYPE;
	ip = frame + FRAME_ETH_LEN;
	len -= FRAME_ETH_LEN;

	if (len < FRAME_IP4_LEN)
		return PROTO_E_SHORT;
	if ((ip[0] >> 4) != 4)
		return PROTO_E_IP_HDR;
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	if (ihl < FRAME_IP4_LEN)
		return PROTO_E_IP_HDR;
	if (len < ihl)
		return PROTO_E_SHORT;
	ip_len = be16_load(ip + 2);
	if (ip_len < ihl)
		return PROTO_E_IP_HDR;
	if (ip_len > len)
		return PROTO_E_LENGTH;
	frag = be16_load(ip + 6);
	if (frag & (IP_MF | IP_OFFSET_MASK))
		return PROTO_E_FRAGMENT;

	out->ip = ip;
	out->l4 = ip + ihl;
	out->ip_hdr_len = (uint16_t)ihl;
	out->l4_len = (uint16_t)(ip_len - ihl);
	out->proto = ip[9];
	out->src_ip = be32_load(ip + 12);
	out->dst_ip = be32_load(ip + 16);
	return 0;
}

int frame_parse_udp_ip4(const struct frame_ip4 *ip, struct frame_udp *out)
{
	const uint8_t *udp = ip->l4;
	size_t udp_len;

	if (ip->proto != IPPROTO_UDP_NUM)
		return PROTO_E_NOT_UDP;
	if (ip->l4_len < FRAME_UDP_LEN)
		return PROTO_E_SHORT;
	udp_len = be16_load(udp + 4);
	if (udp_len < FRAME_UDP_LEN || udp_len > ip->l4_len)
		return PROTO_E_LENGTH;

	out->ip = ip->ip;
	out->udp = udp;
	out->payload = udp + FRAME_UDP_LEN;
	out->payload_len = (uint16_t)(udp_len - FRAME_UDP_LEN);
	out->ip_hdr_len = ip->ip_hdr_len;
	out->src_ip = ip->src_ip;
	out->dst_ip = ip->dst_ip;
	out->src_port = be16_load(udp);
	out->dst_port = be16_load(udp + 2);
	return 0;
}

int frame_parse_udp(const uint8_t *frame, size_t len, struct frame_udp *out)
{
	struct frame_ip4 ip;
	int ret = frame_parse_ip4(frame, len, &ip);

	return ret ? ret : frame_parse_udp_ip4(&ip, out);
}

int frame_verify_checksums(const struct frame_udp *f)
{
	uint16_t udp_len = (uint16_t)(f->payload_len + FRAME_UDP_LEN);
	uint16_t stored;
	uint64_t sum;

	if (csum_fold(csum_partial(f->ip, f->ip_hdr_len, 0)) != 0xffff)
		return PROTO_E_CHECKSUM;

	memcpy(&stored, f->udp + 6, 2);
	if (stored == 0)
		return 0;
	sum = csum_partial(f->ip + 12, 8, 0);
	sum = csum_add_host16(sum, IPPROTO_UDP_NUM);
	sum = csum_add_host16(sum, udp_len);
	sum = csum_partial(f->udp, udp_len, sum);
	return csum_fold(sum) == 0xffff ? 0 : PROTO_E_CHECKSUM;
}
