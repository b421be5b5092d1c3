// SPDX-License-Identifier: MIT
/* MoldUDP64 sequencing and the fused ITCH block walk into the book and the tape. */
#include <errno.h>
#include <string.h>

#include "book/book_apply.h"
#include "book/feed_decoder.h"
#include "proto/be.h"
#include "proto/itch.h"
#include "proto/mold_check.h"
#include "util/compiler.h"


int feed_decoder_init(struct feed_decoder *d,
		      const struct feed_decoder_config *cfg)
{
	int err;

	memset(d, 0, sizeof(*d));
	if (cfg->on_due && !cfg->on_print)
		return -EINVAL;
	err = tick_ring_init(&d->ring, cfg->ring_capacity);
	if (err)
		return err;
	err = stock_dir_init(&d->dir);
	if (err) {
		tick_ring_destroy(&d->ring);
		return err;
	}
	d->next_seq = 1;
	d->book = cfg->book;
	d->on_symbol = cfg->on_symbol;
	d->on_print = cfg->on_print;
	d->on_due = cfg->on_due;
	d->stepped = cfg->on_print != NULL;
	d->due = UINT64_MAX;
	d->cb_ctx = cfg->cb_ctx;
	if (cfg->session) {
		mold_session_set(d->session, cfg->session);
		d->have_session = d->pinned = true;
	}
	return 0;
}

void feed_decoder_destroy(struct feed_decoder *d)
{
	tick_ring_destroy(&d->ring);
	stock_dir_destroy(&d->dir);
	memset(d, 0, sizeof(*d));
}

void feed_decoder_reset(struct feed_decoder *d)
{
	memset(&d->cnt, 0, sizeof(d->cnt));
	memset(&d->last, 0, sizeof(d->last));
	if (!d->pinned)
		memset(d->session, 0, sizeof(d->session));
	d->have_session = d->pinned;
	d->ended = false;
	d->in_order_pkts = 0;
	d->cand_run = 0;
	d->next_seq = 1;
	d->system_event = 0;
	d->ring.head = 0;
	stock_dir_clear(&d->dir);
}

/* A block that is not a well-formed message: counted by class. */
static void bad_block(struct feed_decoder *d, const uint8_t *m, uint16_t len)
{
	uint8_t type;

	if (!len) {
		d->cnt.zero_length_block++;
		d->last.malformed = true;
		return;
	}
	type = m[ITCH_OFF_TYPE];
	if (!itch_msg_len[type]) {
		/* Not ITCH 5.0: its block length is all we can trust. */
		d->cnt.unknown_type++;
		return;
	}
	d->cnt.bad_length++;
	d->last.malformed = true;
}

/* The session's administrative messages the decoder keeps. */
static void admin_msg(struct feed_decoder *d, const uint8_t *m)
{
	uint16_t locate;
	const char *sym;

	if (m[ITCH_OFF_TYPE] == 'S') {
		d->system_event = (char)m[ITCH_S_OFF_EVENT];
		d->cnt.system_events++;
		return;
	}
	locate = be16_load(m + ITCH_OFF_LOCATE);
	sym = (const char *)m + ITCH_R_OFF_STOCK;
	if (stock_dir_set(&d->dir, locate, sym))
		d->cnt.dir_full++;
	d->cnt.stock_directory++;
	if (d->on_symbol)
		d->on_symbol(d->cb_ctx, locate, sym);
}

static inline void ring_put(struct tick_ring *r, uint64_t head, const struct tape_print *p,
			    uint64_t exch_ts, uint64_t arrival_ns)
{
	uint32_t i = (uint32_t)(head & r->mask);

	r->seq[i] = p->seq;
	r->exch_ts[i] = exch_ts;
	r->arrival_ns[i] = arrival_ns;
	r->locate[i] = p->locate;
	r->price[i] = p->price;
	r->shares[i] = p->shares > UINT32_MAX ? UINT32_MAX : (uint32_t)p->shares;
	r->kind[i] = (uint8_t)p->kind;
}

/*
 * One well-formed message: into the book (which gives the tape's print,
 * if any), or without a book, a 'P' straight onto the tape.
 */
static inline bool message(struct feed_decoder *d, const uint8_t *m, uint16_t len,
			   uint64_t seq, struct tape_print *p)
{
	uint8_t type = m[ITCH_OFF_TYPE];

	d->cnt.by_type[type]++;
	if (unlikely(type == 'S' || type == 'R'))
		admin_msg(d, m);
	if (d->book)
		return book_apply(d->book, m, len, seq, p) > 0;
	if (type != 'P')
		return false;
	p->seq = seq;
	p->locate = be16_load(m + ITCH_OFF_LOCATE);
	p->price = be32_load(m + ITCH_P_OFF_PRICE);
	p->shares = be32_load(m + ITCH_P_OFF_SHARES);
	p->kind = 'P';
	return true;
}

/*
 * One message for a receiver that trades message by message: what is due
 * before it, then the message, then its print.  The ring's head is kept
 * current for the callbacks.
 */
static void step(struct feed_decoder *d, const uint8_t *m, uint16_t len, uint64_t seq,
		 uint64_t head, uint64_t arrival_ns)
{
	struct tick_ring *r = &d->ring;
	uint64_t ts = be48_load(m + ITCH_OFF_TIMESTAMP);
	struct tape_print pr;

	r->head = head;
	if (unlikely(ts > d->due) && d->on_due)
		d->on_due(d->cb_ctx, ts);
	if (!message(d, m, len, seq, &pr))
		return;
	ring_put(r, r->head++, &pr, ts, arrival_ns);
	d->on_print(d->cb_ctx, ts);
}

/*
 * How many blocks ahead of the one being applied the book slots are
 * loaded: the first that many at once, then one more per block applied,
 * so that a packet's cache misses overlap instead of following one
 * another however long it is (a print deep in a packed burst would
 * otherwise wait for each miss before it in turn).
 */
#define PREFETCH_BLOCKS	16

/*
 * Start loading the book slots the block at *ahead will touch and step
 * past it; false at the packet's end or at a length running past it.
 */
static inline bool prefetch_block(const struct book *b, const uint8_t **ahead,
				  const uint8_t *end)
{
	const uint8_t *p = *ahead, *m;
	uint16_t len;

	if (end - p < MOLD_BLOCK_HDR_LEN)
		return false;
	len = be16_load(p);
	m = p + MOLD_BLOCK_HDR_LEN;
	if (len > end - m)
		return false;
	if (len >= ITCH_OFF_LOCATE + 2 && b->tracked[be16_load(m + ITCH_OFF_LOCATE)])
		book_prefetch(b, m, len);
	*ahead = m + len;
	return true;
}

/*
 * Walk up to @count blocks from @p, the first @skip of them already seen.
 * Returns how many blocks could be read (each consumes a sequence number).
 */
static uint32_t walk_blocks(struct feed_decoder *d, const uint8_t *p,
			    const uint8_t *end, uint64_t seq, uint32_t count,
			    uint32_t skip, uint64_t arrival_ns)
{
	struct tick_ring *r = &d->ring;
	uint64_t start = r->head, head = start;
	uint32_t left = count, unseen = 0;	/* blocks not prefetched yet */
	const uint8_t *ahead = p;

	if (d->book && count > 1) {
		unseen = count;
		while (unseen && count - unseen < PREFETCH_BLOCKS &&
		       prefetch_block(d->book, &ahead, end))
			unseen--;
		if (count - unseen < PREFETCH_BLOCKS)
			unseen = 0;	/* the packet (or what can be read of it) is done */
	}
	while (left) {
		const uint8_t *m;
		uint16_t len;

		if (unseen && !(prefetch_block(d->book, &ahead, end) && --unseen))
			unseen = 0;

		if (unlikely(end - p < MOLD_BLOCK_HDR_LEN)) {
			if (p == end)
				d->cnt.count_too_high++;
			else
				d->cnt.block_overrun++;
			goto malformed;
		}
		len = be16_load(p);
		m = p + MOLD_BLOCK_HDR_LEN;
		if (unlikely(len > end - m)) {
			d->cnt.block_overrun++;
			goto malformed;
		}
		p = m + len;
		left--;

		if (unlikely(skip)) {
			skip--;
		} else if (likely(len && itch_msg_len[m[ITCH_OFF_TYPE]] == len)) {
			struct tape_print pr;

			if (d->stepped) {
				step(d, m, len, seq, head, arrival_ns);
				head = r->head;
			} else if (message(d, m, len, seq, &pr)) {
				ring_put(r, head++, &pr, be48_load(m + ITCH_OFF_TIMESTAMP),
					 arrival_ns);
			}
		} else {
			bad_block(d, m, len);
		}
		seq++;
	}
	if (unlikely(p != end)) {
		d->cnt.count_too_low++;
		d->last.malformed = true;
	}
	goto out;

malformed:
	d->cnt.lost_msgs += left;
	d->last.malformed = true;
out:
	d->last.ticks = (uint32_t)(head - start);
	d->cnt.ticks += head - start;
	r->head = head;
	return count - left;
}

/* Heartbeat and end of session both carry the next expected number. */
static void control_packet(struct feed_decoder *d, uint64_t seq, size_t len)
{
	if (seq > d->next_seq) {
		d->last.gap_first = d->next_seq;
		d->last.gap_count = seq - d->next_seq;
		d->cnt.gaps++;
		d->cnt.gap_msgs += seq - d->next_seq;
		d->next_seq = seq;
	} else if (seq < d->next_seq && d->last.kind == FEED_SEQ_HEARTBEAT) {
		d->cnt.stale_heartbeats++;
	}
	if (len != MOLD_HDR_LEN) {
		d->cnt.count_too_low++;
		d->last.malformed = true;
	}
}

static bool same_session(const struct feed_decoder *d, const uint8_t *pkt)
{
	return d->have_session &&
	       !memcmp(d->session, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN);
}

/* Another packet of the candidate id, continuing where it left off? */
static bool challenge(struct feed_decoder *d, const uint8_t *pkt, uint64_t seq,
		      uint64_t next)
{
	if (memcmp(d->cand, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN) || seq != d->cand_next) {
		memcpy(d->cand, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN);
		d->cand_run = 0;
	}
	d->cand_next = next;
	return ++d->cand_run >= FEED_CHALLENGE_RUN;
}

/*
 * May a packet of another id become the session?  A well-formed data
 * packet, when there is no session, it ended, or it has not shown itself
 * yet while this id keeps arriving in sequence (see the header).  Without
 * a session, also heartbeats (and ends of session) of one id repeating
 * the same number: a gateway that joins after the last data packet of the
 * day sees nothing else, and must still catch the day up.
 */
static bool may_adopt(struct feed_decoder *d, const uint8_t *pkt, size_t len,
		      const struct mold_header *h)
{
	if (d->pinned)
		return false;
	if (h->count == MOLD_COUNT_HEARTBEAT || h->count == MOLD_COUNT_END) {
		if (len != MOLD_HDR_LEN || (d->have_session && !d->ended) || !h->seq)
			return false;
		return challenge(d, pkt, h->seq, h->seq);
	}
	if (mold_check(pkt, len) != MOLD_WELL_FORMED)
		return false;
	if (!d->have_session || d->ended)
		return true;
	if (feed_established(d))
		return false;
	return challenge(d, pkt, h->seq, h->seq + h->count);
}

static void adopt(struct feed_decoder *d, const uint8_t *pkt)
{
	if (d->have_session)
		d->cnt.session_changes++;
	memcpy(d->session, pkt + MOLD_OFF_SESSION, MOLD_SESSION_LEN);
	d->have_session = true;
	d->ended = false;
	d->next_seq = 1;	/* MoldUDP64 sessions count from 1 */
	d->in_order_pkts = 0;
	d->cand_run = 0;
	d->last.new_session = true;
}

enum feed_verdict feed_classify(struct feed_decoder *d, const uint8_t *pkt,
				size_t len, struct mold_header *h)
{
	struct feed_result *res = &d->last;

	d->cnt.packets++;
	memset(res, 0, sizeof(*res));
	if (unlikely(mold_parse_header(pkt, len, h))) {
		d->cnt.short_packet++;
		res->kind = FEED_SEQ_MALFORMED;
		res->malformed = true;
		return FEED_V_DROP;
	}
	res->seq = h->seq;
	res->count = h->count;
	if (unlikely(!same_session(d, pkt))) {
		if (!may_adopt(d, pkt, len, h)) {
			d->cnt.other_session++;
			res->kind = FEED_SEQ_FOREIGN;
			return FEED_V_DROP;
		}
		adopt(d, pkt);
	}
	/* After the end only repeats and strays arrive: the decoder counts them. */
	if (likely(h->seq <= d->next_seq) || d->ended)
		return FEED_V_DECODE;
	return FEED_V_AHEAD;
}

uint32_t feed_decode_at(struct feed_decoder *d, const uint8_t *pkt, size_t len,
			const struct mold_header *h, uint64_t arrival_ns)
{
	struct feed_result *res = &d->last;
	uint64_t seq = h->seq, next;
	uint16_t count = h->count;
	uint32_t skip = 0, walked;

	if (unlikely(count == MOLD_COUNT_END)) {
		res->kind = FEED_SEQ_END_OF_SESSION;
		if (d->ended) {
			d->cnt.end_repeats++;
			return 0;
		}
		if (seq < d->next_seq) {
			/* An old one must not end the live session. */
			res->kind = FEED_SEQ_STALE_END;
			d->cnt.stale_end++;
			return 0;
		}
		d->cnt.end_of_session++;
		control_packet(d, seq, len);
		d->ended = true;
		return 0;
	}
	if (unlikely(d->ended)) {
		res->kind = FEED_SEQ_AFTER_END;
		d->cnt.after_end++;
		return 0;
	}
	if (unlikely(count == MOLD_COUNT_HEARTBEAT)) {
		res->kind = FEED_SEQ_HEARTBEAT;
		d->cnt.heartbeats++;
		control_packet(d, seq, len);
		return 0;
	}

	next = d->next_seq;
	if (likely(seq == next)) {
		res->kind = FEED_SEQ_IN_ORDER;
		d->cnt.in_order++;
		if (d->in_order_pkts < FEED_ESTABLISHED)
			d->in_order_pkts++;
	} else if (seq > next) {
		res->kind = FEED_SEQ_GAP;
		res->gap_first = next;
		res->gap_count = seq - next;
		d->cnt.gaps++;
		d->cnt.gap_msgs += seq - next;
	} else if (next - seq >= count) {
		res->kind = FEED_SEQ_DUPLICATE;
		d->cnt.duplicates++;
		d->cnt.dup_msgs += count;
		return 0;
	} else {
		skip = (uint32_t)(next - seq);
		res->kind = FEED_SEQ_OVERLAP;
		d->cnt.overlaps++;
		d->cnt.dup_msgs += skip;
	}

	walked = walk_blocks(d, pkt + MOLD_HDR_LEN, pkt + len, seq, count, skip,
			     arrival_ns);
	/* Old messages we could not even walk past are not new ones. */
	if (walked > skip) {
		d->cnt.msgs += walked - skip;
		d->next_seq = seq + walked;
	}
	return res->ticks;
}

uint32_t feed_decode(struct feed_decoder *d, const uint8_t *pkt, size_t len,
		     uint64_t arrival_ns)
{
	struct mold_header h;

	if (feed_classify(d, pkt, len, &h) == FEED_V_DROP)
		return 0;
	return feed_decode_at(d, pkt, len, &h, arrival_ns);
}
