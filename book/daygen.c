// SPDX-License-Identifier: MIT
/*
 * The synthetic ITCH day (daygen.h): what every shape shares, the set-up
 * of its book, symbols and queues, and the day file.  The shapes' engines:
 * daygen_flat.c, daygen_real.c; their common writers: daygen_msg.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/daygen_int.h"
#include "proto/dayfile.h"

/* Well-known names first, so that a small day trades familiar symbols. */
static const char *const names[] = {
	"AAPL", "MSFT", "NVDA", "AMZN", "GOOG", "META", "TSLA", "AMD",
	"INTC", "NFLX", "QQQ", "SPY", "CSCO", "ADBE", "PEP", "COST",
};

uint16_t daygen_next(struct daygen *g, uint8_t *buf)
{
	uint16_t len;

	if (g->n == g->cfg.messages)
		return 0;
	len = g->real ? dg_real_next(g, buf) : dg_flat_next(g, buf);
	g->n++;
	g->bytes += DAYFILE_FRAME_HDR + len;
	return len;
}

static void make_name(char out[ITCH_SYMBOL_LEN + 1], uint32_t k)
{
	char name[ITCH_SYMBOL_LEN + 1];

	if (k < sizeof(names) / sizeof(names[0])) {
		snprintf(name, sizeof(name), "%s", names[k]);
	} else {
		/* ZAAA, ZAAB, ...: five letters at most for 60000 symbols. */
		uint32_t v = k;
		int n = 0;
		char rev[8];

		do {
			rev[n++] = (char)('A' + v % 26);
			v /= 26;
		} while (v && n < 7);
		while (n < 3)
			rev[n++] = 'A';
		name[0] = 'Z';
		for (int i = 0; i < n; i++)
			name[1 + i] = rev[n - 1 - i];
		name[1 + n] = '\0';
	}
	snprintf(out, ITCH_SYMBOL_LEN + 1, "%-8s", name);
}

static int setup(struct daygen *g, char *err, size_t errlen)
{
	const struct daygen_config *c = &g->cfg;
	uint64_t k = c->symbols;
	struct book_config bc = { .max_orders = c->max_orders, .track_all = true };
	int ret;

	if (!k || k > DAYGEN_MAX_SYMBOLS) {
		snprintf(err, errlen, "symbols must be 1 to %d", DAYGEN_MAX_SYMBOLS);
		return -EINVAL;
	}
	ret = c->shape == DAYGEN_SHAPE_REAL ? dg_real_check(c, err, errlen)
					    : dg_flat_check(c, err, errlen);
	if (ret)
		return ret;
	ret = book_init(&g->book, &bc);
	if (ret) {
		snprintf(err, errlen, "book: %s", strerror(-ret));
		return ret;
	}
	g->sym = calloc(k + 1, sizeof(*g->sym));
	g->sym_cdf = calloc(k, sizeof(*g->sym_cdf));
	g->qnext = calloc(c->messages + 2, sizeof(*g->qnext));
	g->qprev = calloc(c->messages + 2, sizeof(*g->qprev));
	g->qhead = calloc((size_t)g->book.levels.cap + 1, sizeof(*g->qhead));
	g->qtail = calloc((size_t)g->book.levels.cap + 1, sizeof(*g->qtail));
	if (!g->sym || !g->sym_cdf || !g->qnext || !g->qprev || !g->qhead || !g->qtail) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < k; i++) {
		struct gsym *s = &g->sym[i + 1];

		if (c->names) {
			memcpy(s->name, c->names[i], ITCH_SYMBOL_LEN);
			s->name[ITCH_SYMBOL_LEN] = '\0';
		} else {
			make_name(s->name, (uint32_t)i);
		}
	}
	g->rng = c->seed;
	g->next_ref = 1;
	return c->shape == DAYGEN_SHAPE_REAL ? dg_real_setup(g, err, errlen)
					     : dg_flat_setup(g, err, errlen);
}

int daygen_new(struct daygen **gp, const struct daygen_config *cfg, char *err, size_t errlen)
{
	struct daygen *g = calloc(1, sizeof(*g));
	int ret;

	*gp = NULL;
	if (!g) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	g->cfg = *cfg;
	if (!g->cfg.start_ns)
		g->cfg.start_ns = DAYGEN_START_NS;
	if (!g->cfg.duration_ns)
		g->cfg.duration_ns = DAYGEN_DURATION_NS;
	if (g->cfg.shape == DAYGEN_SHAPE_REAL)
		dg_real_defaults(&g->cfg);
	if (g->cfg.shape > DAYGEN_SHAPE_REAL) {
		snprintf(err, errlen, "no such shape");
		ret = -EINVAL;
	} else {
		ret = setup(g, err, errlen);
	}
	if (ret) {
		daygen_free(g);
		return ret;
	}
	*gp = g;
	return 0;
}

void daygen_free(struct daygen *g)
{
	if (!g)
		return;
	if (g->book.mem.addr)
		book_destroy(&g->book);
	dg_flat_free(g);
	dg_real_free(g);
	free(g->sym);
	free(g->sym_cdf);
	free(g->qnext);
	free(g->qprev);
	free(g->qhead);
	free(g->qtail);
	free(g);
}

const char *daygen_symbol(const struct daygen *g, uint16_t locate)
{
	if (!locate || locate > g->cfg.symbols)
		return NULL;
	return g->sym[locate].name;
}

const struct book *daygen_book(const struct daygen *g)
{
	return &g->book;
}

const struct daygen_config *daygen_config(const struct daygen *g)
{
	return &g->cfg;
}

void daygen_get_stats(const struct daygen *g, struct daygen_stats *st)
{
	const struct book_counters *c = &g->book.cnt;

	memset(st, 0, sizeof(*st));
	st->messages = g->n;
	memcpy(st->by_type, c->by_type, sizeof(st->by_type));
	st->peak_live = g->book.peak;
	st->end_live = g->book.live;
	st->fallbacks = g->fallbacks;
	st->impossible = c->dup_ref + c->unknown_ref + c->overfill + c->book_full +
			 c->bad_side + c->malformed;
	st->bytes = g->bytes;
}

int daygen_write_from(struct daygen *g, const char *path, int gzip_level,
		      void (*each)(void *arg, const struct daygen *g, const uint8_t *msg,
				   uint16_t len),
		      void *arg, char *err, size_t errlen)
{
	struct dayfile_writer w;
	uint8_t buf[DAYGEN_MSG_MAX];
	uint16_t len;

	if (dayfile_writer_open(&w, path, gzip_level)) {
		snprintf(err, errlen, "%s", w.err);
		return -1;
	}
	while ((len = daygen_next(g, buf))) {
		if (each)
			each(arg, g, buf, len);
		if (dayfile_write(&w, buf, len))
			break;
	}
	if (dayfile_writer_close(&w)) {
		snprintf(err, errlen, "%s", w.err);
		return -1;
	}
	return 0;
}

int daygen_write(const char *path, const struct daygen_config *cfg, int gzip_level,
		 struct daygen_stats *st, char *err, size_t errlen)
{
	struct daygen *g;
	int ret;

	if (daygen_new(&g, cfg, err, errlen))
		return -1;
	ret = daygen_write_from(g, path, gzip_level, NULL, NULL, err, errlen);
	if (!ret && st)
		daygen_get_stats(g, st);
	daygen_free(g);
	return ret;
}
