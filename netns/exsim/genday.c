// SPDX-License-Identifier: MIT
/* t2t-exsim --gen-day (genday.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "book/daygen.h"
#include "netns/exsim/genday.h"
#include "util/clock.h"

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

int genday_run(const struct exsim_cfg *c, FILE *out)
{
	struct daygen_config dc = {
		.messages = c->gen_messages,
		.symbols = c->nsym,
		.seed = c->seed,
		.duration_ns = (uint64_t)(c->day_seconds * 1e9),
		/* Never full (same bytes as the default), and quicker to set up. */
		.max_orders = c->gen_messages < BOOK_DEFAULT_ORDERS ? (uint32_t)c->gen_messages : 0,
		.names = c->symbols_named ? (const char (*)[ITCH_SYMBOL_LEN])c->symbols : NULL,
	};
	bool gz = ends_with(c->gen_day_path, ".gz");
	struct daygen_stats st;
	uint64_t t0, t1, dur;
	char err[512];
	double secs;

	t0 = mono_ns();
	if (daygen_write(c->gen_day_path, &dc, gz ? 1 : 0, &st, err, sizeof(err))) {
		fprintf(stderr, "t2t-exsim: --gen-day: %s\n", err);
		return 1;
	}
	t1 = mono_ns();
	secs = (double)(t1 - t0) / 1e9;
	dur = dc.duration_ns ? dc.duration_ns : DAYGEN_DURATION_NS;
	fprintf(out, "exsim gen-day: %s (%s): %" PRIu64 " messages, %" PRIu64
		" bytes uncompressed, %u symbols, seed %" PRIu64 "\n", c->gen_day_path,
		gz ? "gzip" : "plain", st.messages, st.bytes, c->nsym, c->seed);
	fprintf(out, "  day        09:30:00 + %.3f s of timestamps (ns since midnight)\n",
		(double)dur / 1e9);
	fprintf(out, "  by type   ");
	for (int t = 0; t < 256; t++)
		if (st.by_type[t])
			fprintf(out, " %c %" PRIu64 " (%.3f%%)", t, st.by_type[t],
				100.0 * (double)st.by_type[t] / (double)st.messages);
	fprintf(out, "\n  book       peak %" PRIu64 " live orders, %" PRIu64
		" at the end, %" PRIu64 " impossible events\n", st.peak_live, st.end_live,
		st.impossible);
	fprintf(out, "  generated  in %.3f s: %.0f messages/s\n", secs,
		secs > 0 ? (double)st.messages / secs : 0.0);
	return st.impossible ? 1 : 0;
}
