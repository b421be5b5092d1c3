// SPDX-License-Identifier: MIT
/* TCP segments: header template, parsing, checksum verification. */
#include <string.h>

#include "proto/be.h"
#include "proto/csum.h"
#include "proto/proto_err.h"
#include "proto/tcp_seg.h"

#define ETHERTYPE_IPV4	0x0800
#define IP_DF		0x4000

void tcp_template_init(struct tcp_template *t, const struct frame_endpoint *src,
		       const struct frame_endpoint *dst, uint8_t ttl)
{
	uint8_t *h = t->hdr;
	uint8_t *ip = h + FRAME_OFF_IP;
	uint8_t *tcp = h + FRAME_OFF_TCP;

	memset(t, 0, sizeof(*t));
	memcpy(h, dst->mac, 6);
	memcpy(h + 6, src->mac, 6);
	be16_store(h + FRAME_OFF_ETHERTYPE, ETHERTYPE_IPV4);

	ip[0] = 0x45;
	be16_store(h + FRAME_OFF_IP_FRAG, IP_DF);
	h[FRAME_OFF_IP_TTL] = ttl;
	h[FRAME_OFF_IP_PROTO] = IPPROTO_TCP_NUM;
	be32_store(h + FRAME_OFF_IP_SRC, src->ip);
	be32_store(h + FRAME_OFF_IP_DST, dst->ip);
	t->ip_sum = csum_partial(ip, FRAME_IP4_LEN, 0);

	be16_store(tcp + TCP_OFF_SPORT, src->port);
	be16_store(tcp + TCP_OFF_DPORT, dst->port);
	/* Pseudo-header addresses and zero + protocol, then the ports. */
	t->tcp_sum = csum_partial(h + FRAME_OFF_IP_SRC, 8, 0);
	t->tcp_sum = csum_add_host16(t->tcp_sum, IPPROTO_TCP_NUM);
	t->tcp_sum = csum_partial(tcp, 4, t->tcp_sum);
}

/* The options a SYN may carry; PROTO_E_TCP_HDR when an option overruns. */
static int parse_options(const uint8_t *opt, size_t len, struct tcp_seg *s)
{
	size_t i = 0;

	while (i < len) {
		uint8_t kind = opt[i], olen;

		if (kind == TCP_OPT_EOL)
			break;
		if (kind == TCP_OPT_NOP) {
			i++;
			continue;
		}
		if (i + 2 > len)
			return PROTO_E_TCP_HDR;
		olen = opt[i + 1];
		if (olen < 2 || i + olen > len)
			return PROTO_E_TCP_HDR;
		if (kind == TCP_OPT_MSS && olen == TCP_OPT_MSS_LEN)
			s->mss = be16_load(opt + i + 2);
		else if (kind == TCP_OPT_SACK_PERM && olen == TCP_OPT_SACK_PERM_LEN)
			s->sack_ok = 1;
		else if (kind == TCP_OPT_SACK && olen >= 10 && (olen - 2) % 8 == 0)
			for (uint8_t b = 0; b < (olen - 2) / 8; b++) {
				uint32_t right = be32_load(opt + i + 6 + 8 * b);

				if (!s->nsack) {
					s->sack0_left = be32_load(opt + i + 2 + 8 * b);
					s->sack0_right = right;
				}
				if (!s->nsack++ || tcp_seq_gt(right, s->sack_right))
					s->sack_right = right;
			}
		i += olen;
	}
	return 0;
}

int tcp_seg_parse(const struct frame_ip4 *ip, struct tcp_seg *s)
{
	const uint8_t *tcp = ip->l4;
	size_t hlen;

	if (ip->proto != IPPROTO_TCP_NUM)
		return PROTO_E_NOT_TCP;
	if (ip->l4_len < TCP_HDR_LEN)
		return PROTO_E_SHORT;
	hlen = (size_t)(tcp[TCP_OFF_DOFF] >> 4) * 4;
	if (hlen < TCP_HDR_LEN || hlen > ip->l4_len)
		return PROTO_E_TCP_HDR;

	s->mss = 0;
	s->sack_ok = 0;
	s->nsack = 0;
	s->sack_right = s->sack0_left = s->sack0_right = 0;
	if (hlen > TCP_HDR_LEN && parse_options(tcp + TCP_HDR_LEN, hlen - TCP_HDR_LEN, s))
		return PROTO_E_TCP_HDR;
	s->ip = ip->ip;
	s->tcp = tcp;
	s->payload = tcp + hlen;
	s->ip_hdr_len = ip->ip_hdr_len;
	s->tcp_len = ip->l4_len;
	s->hdr_len = (uint16_t)hlen;
	s->len = (uint16_t)(ip->l4_len - hlen);
	s->src_ip = ip->src_ip;
	s->dst_ip = ip->dst_ip;
	s->src_port = be16_load(tcp + TCP_OFF_SPORT);
	s->dst_port = be16_load(tcp + TCP_OFF_DPORT);
	s->seq = be32_load(tcp + TCP_OFF_SEQ);
	s->ack = be32_load(tcp + TCP_OFF_ACK);
	s->flags = tcp[TCP_OFF_FLAGS];
	s->win = be16_load(tcp + TCP_OFF_WIN);
	return 0;
}

int frame_parse_tcp(const uint8_t *frame, size_t len, struct tcp_seg *s)
{
	struct frame_ip4 ip;
	int ret = frame_parse_ip4(frame, len, &ip);

	return ret ? ret : tcp_seg_parse(&ip, s);
}

int tcp_seg_verify(const struct tcp_seg *s)
{
	uint64_t sum;

	if (csum_fold(csum_partial(s->ip, s->ip_hdr_len, 0)) != 0xffff)
		return PROTO_E_CHECKSUM;
	sum = csum_partial(s->ip + 12, 8, 0);
	sum = csum_add_host16(sum, IPPROTO_TCP_NUM);
	sum = csum_add_host16(sum, s->tcp_len);
	sum = csum_partial(s->tcp, s->tcp_len, sum);
	return csum_fold(sum) == 0xffff ? 0 : PROTO_E_CHECKSUM;
}
