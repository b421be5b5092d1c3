// SPDX-License-Identifier: MIT
/* ITCH 5.0 message lengths, encoder and decoder (not the hot decode loop). */
#include <string.h>

#include "proto/be.h"
#include "proto/itch.h"
#include "proto/proto_err.h"

/* Every ITCH 5.0 message type with its fixed total length. */
const uint8_t itch_msg_len[256] = {
	['S'] = 12, ['R'] = 39, ['H'] = 25, ['Y'] = 20, ['L'] = 26,
	['V'] = 35, ['W'] = 12, ['K'] = 28, ['J'] = 35, ['h'] = 21,
	['A'] = 36, ['F'] = 40, ['E'] = 31, ['C'] = 36, ['X'] = 23,
	['D'] = 19, ['U'] = 35, ['P'] = 44, ['Q'] = 40, ['B'] = 19,
	['I'] = 50, ['N'] = 20, ['O'] = 48,
};

int itch_codec_len(char type)
{
	switch (type) {
	case 'S': case 'R': case 'A': case 'F': case 'E':
	case 'C': case 'X': case 'D': case 'U': case 'P':
	case 'Q': case 'B':
		return itch_msg_len[(uint8_t)type];
	}
	return PROTO_E_MSG_TYPE;
}

int itch_encode(uint8_t *dst, size_t cap, const struct itch_msg *m)
{
	int len = itch_codec_len(m->type);

	if (len < 0)
		return len;
	if (cap < (size_t)len)
		return PROTO_E_NOSPACE;

	dst[ITCH_OFF_TYPE] = (uint8_t)m->type;
	be16_store(dst + ITCH_OFF_LOCATE, m->locate);
	be16_store(dst + ITCH_OFF_TRACKING, m->tracking);
	be48_store(dst + ITCH_OFF_TIMESTAMP, m->timestamp);

	switch (m->type) {
	case 'S':
		dst[ITCH_S_OFF_EVENT] = (uint8_t)m->s.event;
		break;
	case 'R':
		memcpy(dst + ITCH_R_OFF_STOCK, m->r.stock, ITCH_SYMBOL_LEN);
		dst[ITCH_R_OFF_MARKET_CAT] = (uint8_t)m->r.market_category;
		dst[ITCH_R_OFF_FIN_STATUS] = (uint8_t)m->r.financial_status;
		be32_store(dst + ITCH_R_OFF_ROUND_LOT, m->r.round_lot_size);
		dst[ITCH_R_OFF_ROUND_ONLY] = (uint8_t)m->r.round_lots_only;
		dst[ITCH_R_OFF_ISSUE_CLASS] = (uint8_t)m->r.issue_classification;
		memcpy(dst + ITCH_R_OFF_ISSUE_SUB, m->r.issue_subtype, 2);
		dst[ITCH_R_OFF_AUTHENTIC] = (uint8_t)m->r.authenticity;
		dst[ITCH_R_OFF_SHORT_SALE] = (uint8_t)m->r.short_sale_threshold;
		dst[ITCH_R_OFF_IPO] = (uint8_t)m->r.ipo_flag;
		dst[ITCH_R_OFF_LULD_TIER] = (uint8_t)m->r.luld_tier;
		dst[ITCH_R_OFF_ETP_FLAG] = (uint8_t)m->r.etp_flag;
		be32_store(dst + ITCH_R_OFF_ETP_LEVER, m->r.etp_leverage);
		dst[ITCH_R_OFF_INVERSE] = (uint8_t)m->r.inverse;
		break;
	case 'A':
	case 'F':
		be64_store(dst + ITCH_A_OFF_ORDER_REF, m->a.order_ref);
		dst[ITCH_A_OFF_SIDE] = (uint8_t)m->a.side;
		be32_store(dst + ITCH_A_OFF_SHARES, m->a.shares);
		memcpy(dst + ITCH_A_OFF_STOCK, m->a.stock, ITCH_SYMBOL_LEN);
		be32_store(dst + ITCH_A_OFF_PRICE, m->a.price);
		if (m->type == 'F')
			memcpy(dst + ITCH_F_OFF_MPID, m->a.mpid, 4);
		break;
	case 'E':
	case 'C':
		be64_store(dst + ITCH_E_OFF_ORDER_REF, m->e.order_ref);
		be32_store(dst + ITCH_E_OFF_SHARES, m->e.shares);
		be64_store(dst + ITCH_E_OFF_MATCH, m->e.match);
		if (m->type == 'C') {
			dst[ITCH_C_OFF_PRINTABLE] = (uint8_t)m->e.printable;
			be32_store(dst + ITCH_C_OFF_PRICE, m->e.price);
		}
		break;
	case 'X':
		be64_store(dst + ITCH_X_OFF_ORDER_REF, m->x.order_ref);
		be32_store(dst + ITCH_X_OFF_SHARES, m->x.shares);
		break;
	case 'D':
		be64_store(dst + ITCH_D_OFF_ORDER_REF, m->d.order_ref);
		break;
	case 'U':
		be64_store(dst + ITCH_U_OFF_ORIG_REF, m->u.orig_ref);
		be64_store(dst + ITCH_U_OFF_NEW_REF, m->u.new_ref);
		be32_store(dst + ITCH_U_OFF_SHARES, m->u.shares);
		be32_store(dst + ITCH_U_OFF_PRICE, m->u.price);
		break;
	case 'P':
		be64_store(dst + ITCH_P_OFF_ORDER_REF, m->p.order_ref);
		dst[ITCH_P_OFF_SIDE] = (uint8_t)m->p.side;
		be32_store(dst + ITCH_P_OFF_SHARES, m->p.shares);
		memcpy(dst + ITCH_P_OFF_STOCK, m->p.stock, ITCH_SYMBOL_LEN);
		be32_store(dst + ITCH_P_OFF_PRICE, m->p.price);
		be64_store(dst + ITCH_P_OFF_MATCH, m->p.match);
		break;
	case 'Q':
		be64_store(dst + ITCH_Q_OFF_SHARES, m->q.shares);
		memcpy(dst + ITCH_Q_OFF_STOCK, m->q.stock, ITCH_SYMBOL_LEN);
		be32_store(dst + ITCH_Q_OFF_PRICE, m->q.price);
		be64_store(dst + ITCH_Q_OFF_MATCH, m->q.match);
		dst[ITCH_Q_OFF_CROSS_TYPE] = (uint8_t)m->q.cross_type;
		break;
	case 'B':
		be64_store(dst + ITCH_B_OFF_MATCH, m->b.match);
		break;
	}
	return len;
}

int itch_decode(const uint8_t *src, size_t len, struct itch_msg *m)
{
	int want;

	if (len == 0)
		return PROTO_E_SHORT;
	want = itch_codec_len((char)src[0]);
	if (want < 0)
		return want;
	if (len != (size_t)want)
		return PROTO_E_LENGTH;

	memset(m, 0, sizeof(*m));
	m->type = (char)src[ITCH_OFF_TYPE];
	m->locate = be16_load(src + ITCH_OFF_LOCATE);
	m->tracking = be16_load(src + ITCH_OFF_TRACKING);
	m->timestamp = be48_load(src + ITCH_OFF_TIMESTAMP);

	switch (m->type) {
	case 'S':
		m->s.event = (char)src[ITCH_S_OFF_EVENT];
		break;
	case 'R':
		memcpy(m->r.stock, src + ITCH_R_OFF_STOCK, ITCH_SYMBOL_LEN);
		m->r.market_category = (char)src[ITCH_R_OFF_MARKET_CAT];
		m->r.financial_status = (char)src[ITCH_R_OFF_FIN_STATUS];
		m->r.round_lot_size = be32_load(src + ITCH_R_OFF_ROUND_LOT);
		m->r.round_lots_only = (char)src[ITCH_R_OFF_ROUND_ONLY];
		m->r.issue_classification = (char)src[ITCH_R_OFF_ISSUE_CLASS];
		memcpy(m->r.issue_subtype, src + ITCH_R_OFF_ISSUE_SUB, 2);
		m->r.authenticity = (char)src[ITCH_R_OFF_AUTHENTIC];
		m->r.short_sale_threshold = (char)src[ITCH_R_OFF_SHORT_SALE];
		m->r.ipo_flag = (char)src[ITCH_R_OFF_IPO];
		m->r.luld_tier = (char)src[ITCH_R_OFF_LULD_TIER];
		m->r.etp_flag = (char)src[ITCH_R_OFF_ETP_FLAG];
		m->r.etp_leverage = be32_load(src + ITCH_R_OFF_ETP_LEVER);
		m->r.inverse = (char)src[ITCH_R_OFF_INVERSE];
		break;
	case 'A':
	case 'F':
		m->a.order_ref = be64_load(src + ITCH_A_OFF_ORDER_REF);
		m->a.side = (char)src[ITCH_A_OFF_SIDE];
		m->a.shares = be32_load(src + ITCH_A_OFF_SHARES);
		memcpy(m->a.stock, src + ITCH_A_OFF_STOCK, ITCH_SYMBOL_LEN);
		m->a.price = be32_load(src + ITCH_A_OFF_PRICE);
		if (m->type == 'F')
			memcpy(m->a.mpid, src + ITCH_F_OFF_MPID, 4);
		break;
	case 'E':
	case 'C':
		m->e.order_ref = be64_load(src + ITCH_E_OFF_ORDER_REF);
		m->e.shares = be32_load(src + ITCH_E_OFF_SHARES);
		m->e.match = be64_load(src + ITCH_E_OFF_MATCH);
		if (m->type == 'C') {
			m->e.printable = (char)src[ITCH_C_OFF_PRINTABLE];
			m->e.price = be32_load(src + ITCH_C_OFF_PRICE);
		}
		break;
	case 'X':
		m->x.order_ref = be64_load(src + ITCH_X_OFF_ORDER_REF);
		m->x.shares = be32_load(src + ITCH_X_OFF_SHARES);
		break;
	case 'D':
		m->d.order_ref = be64_load(src + ITCH_D_OFF_ORDER_REF);
		break;
	case 'U':
		m->u.orig_ref = be64_load(src + ITCH_U_OFF_ORIG_REF);
		m->u.new_ref = be64_load(src + ITCH_U_OFF_NEW_REF);
		m->u.shares = be32_load(src + ITCH_U_OFF_SHARES);
		m->u.price = be32_load(src + ITCH_U_OFF_PRICE);
		break;
	case 'P':
		m->p.order_ref = be64_load(src + ITCH_P_OFF_ORDER_REF);
		m->p.side = (char)src[ITCH_P_OFF_SIDE];
		m->p.shares = be32_load(src + ITCH_P_OFF_SHARES);
		memcpy(m->p.stock, src + ITCH_P_OFF_STOCK, ITCH_SYMBOL_LEN);
		m->p.price = be32_load(src + ITCH_P_OFF_PRICE);
		m->p.match = be64_load(src + ITCH_P_OFF_MATCH);
		break;
	case 'Q':
		m->q.shares = be64_load(src + ITCH_Q_OFF_SHARES);
		memcpy(m->q.stock, src + ITCH_Q_OFF_STOCK, ITCH_SYMBOL_LEN);
		m->q.price = be32_load(src + ITCH_Q_OFF_PRICE);
		m->q.match = be64_load(src + ITCH_Q_OFF_MATCH);
		m->q.cross_type = (char)src[ITCH_Q_OFF_CROSS_TYPE];
		break;
	case 'B':
		m->b.match = be64_load(src + ITCH_B_OFF_MATCH);
		break;
	}
	return want;
}
