// SPDX-License-Identifier: MIT
/* OUCH 4.2 messages in SoupBinTCP packets. */
#include <string.h>

#include "proto/be.h"
#include "proto/ouch.h"
#include "proto/proto_err.h"

int ouch_encode_enter_order(uint8_t *dst, size_t cap,
			    const struct ouch_enter_order *o)
{
	uint8_t *m = dst + SOUP_HDR_LEN;

	if (cap < OUCH_ENTER_PKT_LEN)
		return PROTO_E_NOSPACE;
	soup_put_header(dst, SOUP_UNSEQ_DATA, OUCH_LEN_ENTER);
	m[0] = 'O';
	memcpy(m + OUCH_O_OFF_TOKEN, o->token, ORDER_TOKEN_LEN);
	m[OUCH_O_OFF_SIDE] = (uint8_t)o->side;
	be32_store(m + OUCH_O_OFF_SHARES, o->shares);
	memcpy(m + OUCH_O_OFF_STOCK, o->stock, 8);
	be32_store(m + OUCH_O_OFF_PRICE, o->price);
	be32_store(m + OUCH_O_OFF_TIF, o->tif);
	memcpy(m + OUCH_O_OFF_FIRM, o->firm, 4);
	m[OUCH_O_OFF_DISPLAY] = (uint8_t)o->display;
	m[OUCH_O_OFF_CAPACITY] = (uint8_t)o->capacity;
	m[OUCH_O_OFF_ISO] = (uint8_t)o->iso;
	be32_store(m + OUCH_O_OFF_MIN_QTY, o->min_qty);
	m[OUCH_O_OFF_CROSS] = (uint8_t)o->cross_type;
	m[OUCH_O_OFF_CUSTOMER] = (uint8_t)o->customer_type;
	return OUCH_ENTER_PKT_LEN;
}

void ouch_order_tmpl_init(struct ouch_order_tmpl *t,
			  const struct ouch_enter_order *proto)
{
	uint8_t *m = t->pkt + SOUP_HDR_LEN;

	ouch_encode_enter_order(t->pkt, sizeof(t->pkt), proto);
	memset(m + OUCH_O_OFF_TOKEN, 0, ORDER_TOKEN_LEN);
	m[OUCH_O_OFF_SIDE] = 0;
	memset(m + OUCH_O_OFF_SHARES, 0, 4);
	memset(m + OUCH_O_OFF_STOCK, 0, 8);
	memset(m + OUCH_O_OFF_PRICE, 0, 4);
	t->fixed_sum = csum_partial(t->pkt, sizeof(t->pkt), 0);
}

int ouch_decode_enter_order(const uint8_t *m, size_t len, struct ouch_enter_order *o)
{
	if (!len)
		return PROTO_E_SHORT;
	if (m[0] != 'O')
		return PROTO_E_MSG_TYPE;
	if (len != OUCH_LEN_ENTER)
		return PROTO_E_LENGTH;

	memcpy(o->token, m + OUCH_O_OFF_TOKEN, ORDER_TOKEN_LEN);
	o->side = (char)m[OUCH_O_OFF_SIDE];
	o->shares = be32_load(m + OUCH_O_OFF_SHARES);
	memcpy(o->stock, m + OUCH_O_OFF_STOCK, 8);
	o->price = be32_load(m + OUCH_O_OFF_PRICE);
	o->tif = be32_load(m + OUCH_O_OFF_TIF);
	memcpy(o->firm, m + OUCH_O_OFF_FIRM, 4);
	o->display = (char)m[OUCH_O_OFF_DISPLAY];
	o->capacity = (char)m[OUCH_O_OFF_CAPACITY];
	o->iso = (char)m[OUCH_O_OFF_ISO];
	o->min_qty = be32_load(m + OUCH_O_OFF_MIN_QTY);
	o->cross_type = (char)m[OUCH_O_OFF_CROSS];
	o->customer_type = (char)m[OUCH_O_OFF_CUSTOMER];
	return OUCH_LEN_ENTER;
}

const char *ouch_reject_reason(char reason)
{
	switch (reason) {
	case OUCH_REJ_TEST_MODE: return "test mode";
	case OUCH_REJ_HALTED: return "halted";
	case OUCH_REJ_SHARES: return "shares beyond the safety threshold";
	case OUCH_REJ_STOCK: return "invalid stock";
	case OUCH_REJ_DISPLAY: return "invalid display";
	case OUCH_REJ_CLOSED: return "exchange closed";
	case OUCH_REJ_FIRM: return "firm not authorized";
	case OUCH_REJ_TIMES: return "outside the permitted times";
	case OUCH_REJ_CROSS: return "cross not allowed";
	case OUCH_REJ_PRICE: return "invalid price";
	case OUCH_REJ_MIN_QTY: return "invalid minimum quantity";
	case OUCH_REJ_OTHER: return "other";
	default: return NULL;
	}
}

int ouch_reply_len(char type)
{
	switch (type) {
	case 'A': return OUCH_LEN_ACCEPTED;
	case 'E': return OUCH_LEN_EXECUTED;
	case 'C': return OUCH_LEN_CANCELED;
	case 'J': return OUCH_LEN_REJECTED;
	}
	return PROTO_E_MSG_TYPE;
}

int ouch_encode_reply(uint8_t *dst, size_t cap, const struct ouch_reply *r)
{
	int mlen = ouch_reply_len(r->type);
	uint8_t *m = dst + SOUP_HDR_LEN;

	if (mlen < 0)
		return mlen;
	if (cap < SOUP_HDR_LEN + (size_t)mlen)
		return PROTO_E_NOSPACE;
	soup_put_header(dst, SOUP_SEQ_DATA, (uint16_t)mlen);
	m[0] = (uint8_t)r->type;
	be64_store(m + OUCH_R_OFF_TIMESTAMP, r->timestamp);
	memcpy(m + OUCH_R_OFF_TOKEN, r->token, ORDER_TOKEN_LEN);

	switch (r->type) {
	case 'A': {
		const struct ouch_accepted *a = &r->accepted;

		m[OUCH_A_OFF_SIDE] = (uint8_t)a->side;
		be32_store(m + OUCH_A_OFF_SHARES, a->shares);
		memcpy(m + OUCH_A_OFF_STOCK, a->stock, 8);
		be32_store(m + OUCH_A_OFF_PRICE, a->price);
		be32_store(m + OUCH_A_OFF_TIF, a->tif);
		memcpy(m + OUCH_A_OFF_FIRM, a->firm, 4);
		m[OUCH_A_OFF_DISPLAY] = (uint8_t)a->display;
		be64_store(m + OUCH_A_OFF_ORDER_REF, a->order_ref);
		m[OUCH_A_OFF_CAPACITY] = (uint8_t)a->capacity;
		m[OUCH_A_OFF_ISO] = (uint8_t)a->iso;
		be32_store(m + OUCH_A_OFF_MIN_QTY, a->min_qty);
		m[OUCH_A_OFF_CROSS] = (uint8_t)a->cross_type;
		m[OUCH_A_OFF_STATE] = (uint8_t)a->order_state;
		m[OUCH_A_OFF_BBO_WEIGHT] = (uint8_t)a->bbo_weight;
		break;
	}
	case 'E':
		be32_store(m + OUCH_E_OFF_SHARES, r->executed.shares);
		be32_store(m + OUCH_E_OFF_PRICE, r->executed.price);
		m[OUCH_E_OFF_LIQUIDITY] = (uint8_t)r->executed.liquidity;
		be64_store(m + OUCH_E_OFF_MATCH, r->executed.match);
		break;
	case 'C':
		be32_store(m + OUCH_C_OFF_DECREMENT, r->canceled.decrement);
		m[OUCH_C_OFF_REASON] = (uint8_t)r->canceled.reason;
		break;
	case 'J':
		m[OUCH_J_OFF_REASON] = (uint8_t)r->rejected.reason;
		break;
	}
	return SOUP_HDR_LEN + mlen;
}

int ouch_decode_reply(const uint8_t *m, size_t len, struct ouch_reply *r)
{
	int want;

	if (!len)
		return PROTO_E_SHORT;
	want = ouch_reply_len((char)m[0]);
	if (want < 0)
		return want;
	if (len != (size_t)want)
		return PROTO_E_LENGTH;

	memset(r, 0, sizeof(*r));
	r->type = (char)m[0];
	r->timestamp = be64_load(m + OUCH_R_OFF_TIMESTAMP);
	memcpy(r->token, m + OUCH_R_OFF_TOKEN, ORDER_TOKEN_LEN);

	switch (r->type) {
	case 'A': {
		struct ouch_accepted *a = &r->accepted;

		a->side = (char)m[OUCH_A_OFF_SIDE];
		a->shares = be32_load(m + OUCH_A_OFF_SHARES);
		memcpy(a->stock, m + OUCH_A_OFF_STOCK, 8);
		a->price = be32_load(m + OUCH_A_OFF_PRICE);
		a->tif = be32_load(m + OUCH_A_OFF_TIF);
		memcpy(a->firm, m + OUCH_A_OFF_FIRM, 4);
		a->display = (char)m[OUCH_A_OFF_DISPLAY];
		a->order_ref = be64_load(m + OUCH_A_OFF_ORDER_REF);
		a->capacity = (char)m[OUCH_A_OFF_CAPACITY];
		a->iso = (char)m[OUCH_A_OFF_ISO];
		a->min_qty = be32_load(m + OUCH_A_OFF_MIN_QTY);
		a->cross_type = (char)m[OUCH_A_OFF_CROSS];
		a->order_state = (char)m[OUCH_A_OFF_STATE];
		a->bbo_weight = (char)m[OUCH_A_OFF_BBO_WEIGHT];
		break;
	}
	case 'E':
		r->executed.shares = be32_load(m + OUCH_E_OFF_SHARES);
		r->executed.price = be32_load(m + OUCH_E_OFF_PRICE);
		r->executed.liquidity = (char)m[OUCH_E_OFF_LIQUIDITY];
		r->executed.match = be64_load(m + OUCH_E_OFF_MATCH);
		break;
	case 'C':
		r->canceled.decrement = be32_load(m + OUCH_C_OFF_DECREMENT);
		r->canceled.reason = (char)m[OUCH_C_OFF_REASON];
		break;
	case 'J':
		r->rejected.reason = (char)m[OUCH_J_OFF_REASON];
		break;
	}
	return (int)len;
}
