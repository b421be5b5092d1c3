/* SPDX-License-Identifier: MIT */
/*
 * What the engine tests build their input from: one-message MoldUDP64
 * packets of a test session (directory entries, trades), and the
 * exchange's replies to an order, all with the shared codecs.
 */
#ifndef TESTS_UNIT_FEED_FIXTURE_H
#define TESTS_UNIT_FEED_FIXTURE_H

#include <string.h>

#include "gateway/orders.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "proto/ouch.h"

static char fx_session[MOLD_SESSION_LEN];
static uint64_t fx_next_seq = 1;
static uint64_t fx_timestamp = 12345;	/* what the feed stamps its trades with */

static inline void fx_begin(const char *session)
{
	mold_session_set(fx_session, session);
	fx_next_seq = 1;
}

static inline void fx_sym8(char dst[8], const char *s)
{
	memset(dst, ' ', 8);
	memcpy(dst, s, strlen(s));
}

/* One packet with one message at the next sequence number; its length. */
static inline size_t fx_pkt_one(uint8_t *buf, const struct itch_msg *m)
{
	struct mold_builder b;

	mold_builder_init(&b, buf, 1500, fx_session, fx_next_seq);
	mold_builder_append_itch(&b, m);
	fx_next_seq++;
	return mold_builder_finish(&b);
}

static inline size_t fx_directory(uint8_t *buf, uint16_t locate, const char *sym)
{
	struct itch_msg m = { .type = 'R', .locate = locate };

	fx_sym8(m.r.stock, sym);
	m.r.market_category = 'Q';
	m.r.financial_status = 'N';
	m.r.round_lot_size = 100;
	m.r.round_lots_only = 'N';
	m.r.issue_classification = 'C';
	m.r.issue_subtype[0] = 'Z';
	m.r.issue_subtype[1] = ' ';
	m.r.authenticity = 'P';
	m.r.short_sale_threshold = 'N';
	m.r.ipo_flag = 'N';
	m.r.luld_tier = '1';
	m.r.etp_flag = 'N';
	m.r.inverse = 'N';
	return fx_pkt_one(buf, &m);
}

static inline size_t fx_trade(uint8_t *buf, uint16_t locate, const char *sym,
			      uint32_t price)
{
	struct itch_msg m = { .type = 'P', .locate = locate, .timestamp = fx_timestamp };

	m.p.side = 'B';
	m.p.shares = 100;
	fx_sym8(m.p.stock, sym);
	m.p.price = price;
	m.p.match = fx_next_seq;
	return fx_pkt_one(buf, &m);
}

/*
 * A reply to order @o, as the session hands it on: the OUCH message (a
 * Sequenced Data packet's payload) at @buf (OUCH_REPLY_PKT_MAX bytes);
 * its length.
 */
static inline size_t fx_reply(uint8_t *buf, char type, const struct gw_order *o,
			      uint32_t shares, uint32_t price)
{
	struct ouch_reply r = { .type = type, .timestamp = 1 };
	uint8_t pkt[OUCH_REPLY_PKT_MAX];
	int len;

	order_token_encode(r.token, o->md_seq, o->order_no);
	if (type == 'E') {
		r.executed.shares = shares;
		r.executed.price = price;
		r.executed.liquidity = 'R';
		r.executed.match = 1;
	} else if (type == 'C') {
		r.canceled.decrement = shares;
		r.canceled.reason = 'I';
	} else if (type == 'J') {
		r.rejected.reason = 'S';
	} else {
		r.accepted.side = o->side;
		r.accepted.shares = o->shares;
		r.accepted.price = o->price;
	}
	len = ouch_encode_reply(pkt, sizeof(pkt), &r);
	memcpy(buf, pkt + SOUP_HDR_LEN, (size_t)len - SOUP_HDR_LEN);
	return (size_t)len - SOUP_HDR_LEN;
}

#endif /* TESTS_UNIT_FEED_FIXTURE_H */
