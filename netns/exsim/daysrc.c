// SPDX-License-Identifier: MIT
/* The generated day as the live feed's source (daysrc.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netns/exsim/daysrc.h"

int daysrc_open(struct daysrc *d, const struct exsim_cfg *c, uint64_t messages,
		char *err, size_t errlen)
{
	struct daygen_config dc = {
		.messages = messages,
		.symbols = c->nsym,
		.seed = c->seed,
		/* Never full: the live orders of a day are at most its messages. */
		.max_orders = messages < BOOK_DEFAULT_ORDERS ? (uint32_t)messages : 0,
		.names = c->symbols_named ? (const char (*)[ITCH_SYMBOL_LEN])c->symbols : NULL,
	};
	char why[256];

	memset(d, 0, sizeof(*d));
	d->period_ns = c->rate > 0 ? 1e9 / c->rate : 0;
	d->burst = c->burst ? c->burst : 1;
	if (daygen_new(&d->g, &dc, why, sizeof(why))) {
		snprintf(err, errlen, "the day to publish: %s", why);
		return -EINVAL;
	}
	return 0;
}

void daysrc_close(struct daysrc *d)
{
	daygen_free(d->g);
	d->g = NULL;
}

static bool is_event(const uint8_t *m, uint16_t len, char ev)
{
	return len == ITCH_LEN_S && m[ITCH_OFF_TYPE] == 'S' && m[ITCH_S_OFF_EVENT] == ev;
}

static void put(struct feed_unit *u, const uint8_t *m, uint16_t len)
{
	memcpy(feed_unit_add(u, len), m, len);
}

/* S M, S E, S C of our own, for a body cut short. */
static int own_close(struct daysrc *d, struct feed_unit *u)
{
	struct itch_msg m = { .type = 'S' };
	uint8_t *p;

	if (d->cut_sent == 3)
		return 0;
	m.s.event = "MEC"[d->cut_sent++];
	p = feed_unit_add(u, ITCH_LEN_S);
	itch_encode(p, ITCH_LEN_S, &m);
	return 1;
}

int daysrc_next(void *src, struct feed_unit *u)
{
	struct daysrc *d = src;
	uint8_t buf[DAYGEN_MSG_MAX];
	uint16_t len;

	if (d->part_over || d->part == DAY_OVER)
		return 0;
	if (d->part == DAY_CLOSE) {
		if (d->cut)
			return own_close(d, u);
		if (d->held_len) {
			put(u, d->held, d->held_len);
			d->held_len = 0;
			return 1;
		}
	}
	len = daygen_next(d->g, buf);
	if (!len) {
		d->part_over = true;
		return 0;
	}
	switch (d->part) {
	case DAY_OPENING:
		d->part_over = is_event(buf, len, 'Q');
		break;
	case DAY_BODY:
		if (is_event(buf, len, 'M')) {
			memcpy(d->held, buf, len);
			d->held_len = len;
			d->part_over = true;
			return 0;
		}
		u->offset_ns = (uint64_t)((double)(d->body - d->body % d->burst) *
					  d->period_ns);
		d->body++;
		break;
	default:
		break;
	}
	put(u, buf, len);
	return 1;
}

void daysrc_next_part(struct daysrc *d)
{
	if (d->part < DAY_OVER)
		d->part++;
	d->part_over = false;
}

void daysrc_cut(struct daysrc *d)
{
	d->cut = true;
}
