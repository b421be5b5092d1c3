// SPDX-License-Identifier: MIT
/* t2t-backtest --itch: day file -> book -> tape -> strategy (backtest_itch.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/book_apply.h"
#include "book/day_replay.h"
#include "proto/dayfile.h"
#include "proto/itch_filter.h"
#include "backtest/backtest_itch.h"
#include "strategy/trader.h"
#include "util/json.h"

#define EXIT_BAD	2
#define MAX_SPECS	64
#define NO_SPEC		-1

struct run {
	const struct itch_opts *o;
	struct book book;
	struct trader tr[MAX_SPECS];
	char sym8[MAX_SPECS][ITCH_SYMBOL_LEN];	/* space-padded */
	int spec_locate[MAX_SPECS];		/* -1 until the directory names it */
	int8_t locate_spec[BOOK_LOCATES];	/* NO_SPEC or an index of tr */
	char book_sym8[ITCH_SYMBOL_LEN];
	int book_locate;
	FILE *tape, *stats, *bookf, *dump;
	struct itch_filter filt;
	uint64_t messages;
	double seconds;
	bool gzip;
};

static void pad8(char dst[ITCH_SYMBOL_LEN], const char *s)
{
	memset(dst, ' ', ITCH_SYMBOL_LEN);
	memcpy(dst, s, strnlen(s, ITCH_SYMBOL_LEN));
}

/* A Stock Directory message: the locates of the symbols asked for. */
static void directory(void *ctx, const uint8_t *m)
{
	struct run *r = ctx;
	const char *stock = (const char *)m + ITCH_R_OFF_STOCK;
	uint16_t loc = be16_load(m + ITCH_OFF_LOCATE);

	for (unsigned int k = 0; k < r->o->nspec; k++) {
		if (memcmp(stock, r->sym8[k], ITCH_SYMBOL_LEN))
			continue;
		r->spec_locate[k] = loc;
		r->locate_spec[loc] = (int8_t)k;
		book_track(&r->book, loc, true);
	}
	if (r->o->book_symbol && !memcmp(stock, r->book_sym8, ITCH_SYMBOL_LEN)) {
		r->book_locate = loc;
		book_track(&r->book, loc, true);
	}
}

static void on_print(void *ctx, const struct tape_print *p)
{
	struct run *r = ctx;
	int k = r->locate_spec[p->locate];

	if (r->tape)
		fprintf(r->tape, "%" PRIu64 ",%u,%u,%" PRIu64 ",%c\n", p->seq, p->locate,
			p->price, p->shares, p->kind);
	if (k != NO_SPEC)
		trader_tick(&r->tr[k], p->seq, p->price, r->o->out);
}

static void dump_msg(FILE *f, uint64_t seq, const uint8_t *m, uint16_t len)
{
	static const char hex[] = "0123456789abcdef";

	fprintf(f, "%" PRIu64 ",", seq);
	for (uint16_t i = 0; i < len; i++) {
		putc(hex[m[i] >> 4], f);
		putc(hex[m[i] & 15], f);
	}
	putc('\n', f);
}

static void on_msg(void *ctx, uint64_t seq, const uint8_t *m, uint16_t len)
{
	struct run *r = ctx;

	dump_msg(r->dump, seq, m, len);
}

/* The whole day through the books (book/day_replay.h). */
static int run_day(struct run *r)
{
	const struct day_replay_hooks h = { .on_msg = r->dump ? on_msg : NULL,
					    .on_directory = directory, .on_print = on_print,
					    .ctx = r };
	struct day_replay_stats st;
	char err[DAYFILE_ERR_LEN + 64];
	int ret = day_replay(r->o->path, &r->book, &r->filt, &h, &st, err, sizeof(err));

	r->gzip = st.gzip;
	r->seconds = st.seconds;
	r->messages = st.messages;
	if (ret)
		fprintf(stderr, "t2t-backtest: %s\n", err);
	return ret ? EXIT_BAD : 0;
}

static void write_book(struct run *r, FILE *f)
{
	fputs("side,price,shares,orders\n", f);
	for (unsigned int side = BOOK_BID; side <= BOOK_ASK; side++) {
		const struct book_level *l;

		for (l = book_best(&r->book, (uint16_t)r->book_locate, side); l;
		     l = book_level_next(&r->book, l))
			fprintf(f, "%c,%u,%" PRIu64 ",%u\n", side == BOOK_BID ? 'B' : 'S',
				l->price, l->shares, l->orders);
	}
}

static void write_stats(struct run *r, FILE *f)
{
	const struct book *b = &r->book;
	const struct book_counters *c = &b->cnt;
	char pages[96];
	int first = 1;

	book_describe_pages(b, pages, sizeof(pages));
	fputs("{\n  \"file\": ", f);
	json_str(f, r->o->path);
	fprintf(f, ",\n  \"gzip\": %s,\n  \"messages\": %" PRIu64 ",\n  \"by_type\": {",
		r->gzip ? "true" : "false", r->messages);
	for (int t = 0; t < 256; t++) {
		if (!c->by_type[t])
			continue;
		fprintf(f, "%s\"%c\": %" PRIu64, first ? "" : ", ", t, c->by_type[t]);
		first = 0;
	}
	fputs("},\n", f);
	if (r->filt.nsym)
		fprintf(f, "  \"filter\": {\"symbols\": %u, \"kept\": %" PRIu64
			", \"malformed_dropped\": %" PRIu64 "},\n", r->filt.nsym, r->filt.kept,
			r->filt.malformed);
	fprintf(f, "  \"malformed\": %" PRIu64 ",\n  \"prints\": %" PRIu64 ",\n"
		"  \"dup_ref\": %" PRIu64 ",\n  \"unknown_ref\": %" PRIu64 ",\n"
		"  \"overfill\": %" PRIu64 ",\n  \"book_full\": %" PRIu64 ",\n"
		"  \"bad_side\": %" PRIu64 ",\n  \"zero_shares\": %" PRIu64 ",\n"
		"  \"live_orders\": %" PRIu64 ",\n"
		"  \"peak_live_orders\": %" PRIu64 ",\n  \"book_orders\": %u,\n"
		"  \"tracked\": \"%s\",\n  \"pages\": \"%s\",\n  \"digest\": \"%016" PRIx64 "\",\n"
		"  \"seconds\": %.6f,\n  \"messages_per_second\": %.0f,\n"
		"  \"ns_per_message\": %.2f\n}\n",
		c->malformed, c->prints, c->dup_ref, c->unknown_ref, c->overfill, c->book_full,
		c->bad_side, c->zero_shares, b->live, b->peak, b->max_orders,
		r->o->track_named ? "named" : "all", pages, book_digest(b), r->seconds,
		r->seconds > 0 ? (double)r->messages / r->seconds : 0.0,
		r->messages ? r->seconds * 1e9 / (double)r->messages : 0.0);
}

/* An output file, or the main output for ITCH_OUT_MAIN. */
static FILE *open_out(const struct itch_opts *o, const char *path)
{
	FILE *f;

	if (!path)
		return NULL;
	if (!strcmp(path, ITCH_OUT_MAIN))
		return o->out;
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "t2t-backtest: %s: %s\n", path, strerror(errno));
	return f;
}

static int close_out(const struct itch_opts *o, FILE *f, const char *path)
{
	if (!f)
		return 0;
	if (f == o->out ? fflush(f) : fclose(f)) {
		fprintf(stderr, "t2t-backtest: %s: %s\n", f == o->out ? "output" : path,
			strerror(errno));
		return EXIT_BAD;
	}
	return 0;
}

static int setup(struct run *r)
{
	const struct itch_opts *o = r->o;
	struct book_config bc = { .max_orders = o->book_orders, .track_all = !o->track_named,
				  .pages = o->pages };
	int ret;

	if (o->nspec > MAX_SPECS) {
		fprintf(stderr, "t2t-backtest: at most %d --symbol\n", MAX_SPECS);
		return EXIT_BAD;
	}
	memset(r->locate_spec, NO_SPEC, sizeof(r->locate_spec));
	r->book_locate = -1;
	for (unsigned int k = 0; k < o->nspec; k++) {
		for (unsigned int j = 0; j < k; j++)
			if (!strcmp(o->spec[j].symbol, o->spec[k].symbol)) {
				fprintf(stderr, "t2t-backtest: --symbol %s given twice\n",
					o->spec[k].symbol);
				return EXIT_BAD;
			}
		pad8(r->sym8[k], o->spec[k].symbol);
		r->spec_locate[k] = -1;
		trader_init(&r->tr[k], &o->spec[k]);
	}
	if (o->book_symbol)
		pad8(r->book_sym8, o->book_symbol);
	ret = itch_filter_init(&r->filt, o->symbols, o->nsymbols);
	if (ret) {
		fprintf(stderr, "t2t-backtest: --symbols: %s\n", strerror(-ret));
		return EXIT_BAD;
	}
	ret = book_init(&r->book, &bc);
	if (ret) {
		fprintf(stderr, "t2t-backtest: book of %u orders: %s\n",
			o->book_orders ? o->book_orders : BOOK_DEFAULT_ORDERS, strerror(-ret));
		return EXIT_BAD;
	}
	return 0;
}

int backtest_itch(const struct itch_opts *o)
{
	struct run *r = calloc(1, sizeof(*r));
	int ret;

	if (!r) {
		fprintf(stderr, "t2t-backtest: out of memory\n");
		return EXIT_BAD;
	}
	r->o = o;
	ret = setup(r);
	if (ret) {
		itch_filter_free(&r->filt);
		free(r);
		return ret;
	}
	r->tape = open_out(o, o->tape);
	r->stats = open_out(o, o->stats);
	r->bookf = open_out(o, o->book_symbol ? (o->book_out ? o->book_out : ITCH_OUT_MAIN)
					      : NULL);
	r->dump = open_out(o, o->dump);
	if ((o->tape && !r->tape) || (o->stats && !r->stats) ||
	    (o->book_symbol && !r->bookf) || (o->dump && !r->dump)) {
		ret = EXIT_BAD;
		goto out;
	}
	if (r->tape)
		fputs("seq,locate,price,shares,kind\n", r->tape);
	if (o->nspec)
		fputs(TRADER_CSV_HEADER, o->out);

	ret = run_day(r);
	if (ret)
		goto out;
	for (unsigned int k = 0; k < o->nspec; k++)
		if (r->spec_locate[k] < 0) {
			fprintf(stderr, "t2t-backtest: %s is not in the day's stock directory\n",
				o->spec[k].symbol);
			ret = EXIT_BAD;
		}
	if (itch_filter_missing(&r->filt)) {
		const char *miss = itch_filter_missing(&r->filt);
		int n = ITCH_SYMBOL_LEN;

		while (n > 1 && miss[n - 1] == ' ')
			n--;
		fprintf(stderr, "t2t-backtest: --symbols %.*s is not in the day's stock directory\n",
			n, miss);
		ret = EXIT_BAD;
	}
	if (o->book_symbol && r->book_locate < 0) {
		fprintf(stderr, "t2t-backtest: --book %s is not in the day's stock directory\n",
			o->book_symbol);
		ret = EXIT_BAD;
	}
	if (ret)
		goto out;
	for (unsigned int k = 0; k < o->nspec; k++)
		trader_summary(&r->tr[k], stderr);
	if (r->bookf)
		write_book(r, r->bookf);
	if (r->stats)
		write_stats(r, r->stats);
out:
	if (close_out(o, r->tape, o->tape) && !ret)
		ret = EXIT_BAD;
	if (close_out(o, r->stats, o->stats) && !ret)
		ret = EXIT_BAD;
	if (close_out(o, r->bookf, o->book_out) && !ret)
		ret = EXIT_BAD;
	if (close_out(o, r->dump, o->dump) && !ret)
		ret = EXIT_BAD;
	itch_filter_free(&r->filt);
	if (r->book.mem.addr)
		book_destroy(&r->book);
	free(r);
	return ret;
}
