// SPDX-License-Identifier: MIT
/* t2t-genday: write a synthetic ITCH 5.0 day file (book/daygen.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book/daygen.h"
#include "book/dayshape.h"
#include "util/clock.h"
#include "util/opt.h"

struct gd_cfg {
	struct daygen_config day;
	uint64_t start_s, duration_s;	/* 0: the generator's */
	bool gzip;
	int level;			/* -1: not given */
	const char *out;
	bool quiet;
	int shape;
	bool stats;
	const char *stats_json;
};

static const char *const shapes[] = { "flat", "real", NULL };

static int gzip_level(void *cfg, const char *a, char *why, size_t n)
{
	struct gd_cfg *c = cfg;
	uint64_t v;

	if (opt_parse_u64(a, 0, 9, &v))
		return snprintf(why, n, "wants 0..9"), -1;
	c->level = (int)v;
	return 0;
}

#define C(f) OFF(struct gd_cfg, f)

static const struct opt opts[] = {
	OPT("shape", 0, OPT_ENUM, C(shape), "flat|real",
	    "flat: the uniform day; real: shaped like a real day (book/README.md)",
	    .choices = shapes),
	OPT("messages", 0, OPT_U64, C(day.messages), "N",
	    "messages in the whole day (flat: at least 7 + 5 K)"),
	OPT("symbols", 0, OPT_U32, C(day.symbols), "K",
	    "symbols (locates 1..K: AAPL, MSFT, NVDA, AMZN, ...); needed for flat, real:\n"
	    "one per 37,500 messages (at least 10)", .min = 1, .max = DAYGEN_MAX_SYMBOLS),
	OPT("seed", 0, OPT_U64, C(day.seed), "S", "generator seed"),
	OPT("gzip", 0, OPT_FLAG, C(gzip), NULL, "gzip the file at level 1"),
	OPT("gzip-level", 0, OPT_CALL, 0, "L", "gzip at level L (0 = plain), whether or "
	    "not --gzip is given", .call = gzip_level),
	OPT("start", 0, OPT_U64, C(start_s), "SECONDS",
	    "first timestamp, seconds after midnight (real: the open, the pre-open\n"
	    "before it)", .max = 86399, .def = "34200, 09:30"),
	OPT("duration", 0, OPT_U64, C(duration_s), "SECONDS",
	    "length of the day (real: of the session, at least 60)", .min = 1, .max = 86400,
	    .def = "23400, 6.5 h"),
	OPT("book-orders", 0, OPT_U32, C(day.max_orders), "N",
	    "live orders the generator's own book holds", .min = 1, .max = BOOK_MAX_ORDERS,
	    .def = "2097152; real: N / 64 + 65536"),
	OPT("stats", 0, OPT_FLAG, C(stats), NULL,
	    "print the day's shape on standard output (symbols by rank, live orders,\n"
	    "depth, rate, busiest millisecond, lifetimes)"),
	OPT("stats-json", 0, OPT_STR, C(stats_json), "FILE", "the same shape as JSON"),
	OPT("output", 'o', OPT_STR, C(out), "FILE", "the day file to write"),
	OPT("quiet", 'q', OPT_FLAG, C(quiet), NULL, "no summary on standard error"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "t2t-genday",
	.usage = "--messages N --symbols K [--seed S] [--gzip] -o FILE\n"
		 "--shape real --messages N [--symbols K] [--stats] -o FILE",
	.about =
"Write a synthetic TotalView-ITCH 5.0 day as a Nasdaq BinaryFILE (each\n"
"message after its 2-byte big-endian length), deterministic from the seed:\n"
"the same arguments give the same bytes.  System events, the stock\n"
"directory, opening and closing crosses, and in between a session with the\n"
"real day's mix of adds, deletes, replaces, executions, cancels, hidden\n"
"prints and administrative messages around a GBM mid per symbol.\n"
"--shape real lays the day out like a real one, scaled down by N: skewed\n"
"activity, orders from fleeting to resting for hours, deep books, a U-shaped\n"
"rate with microbursts, NOII and crosses at the open and the close.\n",
	.more = "Exit status: 0 ok, 2 bad usage or a write error.\n",
	.opts = opts,
};

static void summary(const struct gd_cfg *c, const struct daygen_stats *st, uint32_t symbols,
		    double s)
{
	fprintf(stderr, "t2t-genday: %s: %" PRIu64 " messages, %" PRIu64
		" bytes uncompressed, %u symbols, peak %" PRIu64 " live orders (%"
		PRIu64 " at the end), %.1f s\n", c->out, st->messages, st->bytes,
		symbols, st->peak_live, st->end_live, s);
	fprintf(stderr, "t2t-genday: mix A %.2f%% D %.2f%% U %.2f%% E %.2f%% X %.2f%% "
		"P %.3f%% C %.3f%% F %.2f%%\n",
		100.0 * st->by_type['A'] / st->messages, 100.0 * st->by_type['D'] / st->messages,
		100.0 * st->by_type['U'] / st->messages, 100.0 * st->by_type['E'] / st->messages,
		100.0 * st->by_type['X'] / st->messages, 100.0 * st->by_type['P'] / st->messages,
		100.0 * st->by_type['C'] / st->messages, 100.0 * st->by_type['F'] / st->messages);
}

static void see(void *arg, const struct daygen *g, const uint8_t *msg, uint16_t len)
{
	dayshape_see(arg, daygen_book(g), msg, len);
}

static int report(const struct gd_cfg *c, const struct daygen *g, struct dayshape_meter *m)
{
	struct dayshape s;
	FILE *f;

	dayshape_get(m, &s);
	snprintf(s.busiest, sizeof(s.busiest), "%s", daygen_symbol(g, s.busiest_locate));
	if (c->stats)
		dayshape_print(stdout, &s);
	if (!c->stats_json)
		return 0;
	f = fopen(c->stats_json, "w");
	if (!f) {
		fprintf(stderr, "t2t-genday: %s: %s\n", c->stats_json, strerror(errno));
		return -1;
	}
	dayshape_json(f, &s);
	if (fclose(f)) {
		fprintf(stderr, "t2t-genday: %s: %s\n", c->stats_json, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct gd_cfg c = { .day.seed = 1, .level = -1 };
	const struct daygen_config *dc;
	struct dayshape_meter *m = NULL;
	struct daygen_stats st;
	struct daygen *g = NULL;
	uint64_t t0;
	double secs;
	char err[512];
	int ret;

	ret = opt_parse(&prog, &c, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	c.day.shape = c.shape ? DAYGEN_SHAPE_REAL : DAYGEN_SHAPE_FLAT;
	if (c.day.shape == DAYGEN_SHAPE_FLAT && (!c.out || !c.day.messages || !c.day.symbols))
		return opt_error(&prog, "--messages, --symbols and -o FILE are needed");
	if (!c.out || !c.day.messages)
		return opt_error(&prog, "--messages and -o FILE are needed");
	if (c.level < 0)
		c.level = c.gzip;
	c.day.start_ns = c.start_s * 1000000000ull;
	c.day.duration_ns = c.duration_s * 1000000000ull;

	t0 = mono_ns();
	ret = 2;
	if (daygen_new(&g, &c.day, err, sizeof(err))) {
		fprintf(stderr, "t2t-genday: %s\n", err);
		return 2;
	}
	dc = daygen_config(g);
	if (c.stats || c.stats_json) {
		m = dayshape_new(dc->messages, dc->symbols, dc->start_ns,
				 dc->start_ns + dc->duration_ns);
		if (!m) {
			fprintf(stderr, "t2t-genday: out of memory\n");
			goto out;
		}
	}
	if (daygen_write_from(g, c.out, c.level, m ? see : NULL, m, err, sizeof(err))) {
		fprintf(stderr, "t2t-genday: %s\n", err);
		goto out;
	}
	daygen_get_stats(g, &st);
	secs = (double)(mono_ns() - t0) / 1e9;
	if (!c.quiet)
		summary(&c, &st, dc->symbols, secs);
	if (st.impossible) {
		fprintf(stderr, "t2t-genday: internal error: the generator's own book counted "
			"%" PRIu64 " impossible events\n", st.impossible);
		goto out;
	}
	if (m && report(&c, g, m))
		goto out;
	ret = 0;
out:
	dayshape_free(m);
	daygen_free(g);
	return ret;
}
