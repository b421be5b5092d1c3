// SPDX-License-Identifier: MIT
/* The shape of a day as a table and as JSON (dayshape.h). */
#include <inttypes.h>
#include <string.h>

#include "book/dayshape.h"

static const char *const mix_name[DS_NMIX] = { "add", "delete", "replace", "execute",
					       "cancel" };

/* Nanoseconds since midnight as HH:MM:SS.mmm. */
static const char *clock_of(uint64_t ns, char *buf, size_t len)
{
	uint64_t ms = ns / 1000000;

	snprintf(buf, len, "%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%03" PRIu64,
		 ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
	return buf;
}

/* 1234567 as 1,234,567. */
static const char *grouped(uint64_t v, char *buf, size_t len)
{
	char raw[32];
	size_t n, o = 0;

	n = (size_t)snprintf(raw, sizeof(raw), "%" PRIu64, v);
	for (size_t i = 0; i < n && o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

static const char *part_clock(const struct dayshape *s, int i, char *buf, size_t len)
{
	uint64_t at = s->open_ns + (s->close_ns - s->open_ns) * (uint64_t)i / DAYSHAPE_PARTS;

	clock_of(at, buf, len);
	buf[5] = '\0';		/* HH:MM */
	return buf;
}

void dayshape_print(FILE *f, const struct dayshape *s)
{
	char a[32], b[32], c[32];

	fprintf(f, "%-30s %s messages, %u symbols\n", "day", grouped(s->messages, a, sizeof(a)),
		s->symbols);
	fprintf(f, "%-30s top 1 %s %s (%.2f %%), top 10 %s (%.1f %%), top 100 %s (%.1f %%)\n",
		"messages by symbol rank", s->busiest, grouped(s->top1, a, sizeof(a)), s->top1_pct,
		grouped(s->top10, b, sizeof(b)), s->top10_pct, grouped(s->top100, c, sizeof(c)),
		s->top100_pct);
	fprintf(f, "%-30s top 1 %% %.1f %%, top 10 %% %.1f %%, top half %.1f %%\n",
		"  share of the symbols", s->pct1_pct, s->pct10_pct, s->pct50_pct);
	fprintf(f, "%-30s", "busiest symbol's mix");
	for (int i = 0; i < DS_NMIX; i++)
		fprintf(f, " %s %.1f %%%s", mix_name[i], s->mix[i], i + 1 < DS_NMIX ? "," : "\n");
	fprintf(f, "%-30s peak %s at %s, %s at the end\n", "live orders",
		grouped(s->peak_live, a, sizeof(a)), clock_of(s->peak_ns, b, sizeof(b)),
		grouped(s->end_live, c, sizeof(c)));
	fprintf(f, "%-30s", "  over the peak");
	for (int i = 0; i <= DAYSHAPE_PARTS; i++)
		fprintf(f, "%s %s %.2f", i && i % 7 == 0 ? "\n                              " : "",
			part_clock(s, i, a, sizeof(a)), s->live[i]);
	fprintf(f, "\n%-30s %u busiest symbols' sides: p50 %u, max %u\n",
		"levels per side at the peak", s->busy_n, s->levels_p50, s->levels_max);
	fprintf(f, "%-30s first %.1f x, last %.1f x the middle one\n",
		"rate, first and last part", s->rate[0], s->rate[DAYSHAPE_PARTS - 1]);
	fprintf(f, "%-30s", "  each part over the middle");
	for (int i = 0; i < DAYSHAPE_PARTS; i++)
		fprintf(f, " %.2f", s->rate[i]);
	fprintf(f, "\n%-30s %s messages at %s, mean %.3f: %.0f x\n", "busiest millisecond",
		grouped(s->busiest_ms, a, sizeof(a)), clock_of(s->busiest_ms_ns, b, sizeof(b)),
		s->mean_ms, s->mean_ms > 0 ? (double)s->busiest_ms / s->mean_ms : 0);
	fprintf(f, "%-30s within 1 ms %.1f %%, 10 ms %.1f %%, 1 s %.1f %% (of %s D and U)\n",
		"cancels after their add", s->cancel_1ms_pct, s->cancel_10ms_pct,
		s->cancel_1s_pct, grouped(s->cancels, a, sizeof(a)));
	fprintf(f, "%-30s %s of %s orders (%.2f %%)\n", "resting over an hour",
		grouped(s->rest_1h, a, sizeof(a)), grouped(s->orders, b, sizeof(b)),
		s->rest_1h_pct);
}

static void json_list(FILE *f, const char *name, const double *v, int n)
{
	fprintf(f, "\"%s\": [", name);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%.4f", i ? ", " : "", v[i]);
	fprintf(f, "]");
}

void dayshape_json(FILE *f, const struct dayshape *s)
{
	char name[ITCH_SYMBOL_LEN + 1];
	size_t n = strcspn(s->busiest, " ");

	/* A symbol is letters, digits and a few marks: no escaping needed. */
	snprintf(name, sizeof(name), "%.*s", (int)n, s->busiest);
	fprintf(f, "{\"messages\": %" PRIu64 ", \"symbols\": %u, \"open_ns\": %" PRIu64
		", \"close_ns\": %" PRIu64 ",\n", s->messages, s->symbols, s->open_ns, s->close_ns);
	fprintf(f, " \"busiest\": \"%s\", \"top1\": %" PRIu64 ", \"top10\": %" PRIu64
		", \"top100\": %" PRIu64 ", \"top1_pct\": %.4f, \"top10_pct\": %.4f, "
		"\"top100_pct\": %.4f,\n", name, s->top1, s->top10, s->top100, s->top1_pct,
		s->top10_pct, s->top100_pct);
	fprintf(f, " \"top_1pc_pct\": %.4f, \"top_10pc_pct\": %.4f, \"top_50pc_pct\": %.4f,\n",
		s->pct1_pct, s->pct10_pct, s->pct50_pct);
	fprintf(f, " \"busiest_mix_pct\": {");
	for (int i = 0; i < DS_NMIX; i++)
		fprintf(f, "%s\"%s\": %.4f", i ? ", " : "", mix_name[i], s->mix[i]);
	fprintf(f, "},\n \"peak_live\": %" PRIu64 ", \"peak_ns\": %" PRIu64 ", \"end_live\": %"
		PRIu64 ", ", s->peak_live, s->peak_ns, s->end_live);
	json_list(f, "live_over_peak", s->live, DAYSHAPE_PARTS + 1);
	fprintf(f, ",\n \"busy_symbols\": %u, \"levels_p50\": %u, \"levels_max\": %u,\n",
		s->busy_n, s->levels_p50, s->levels_max);
	fprintf(f, " \"busiest_ms\": %" PRIu64 ", \"busiest_ms_ns\": %" PRIu64
		", \"mean_ms\": %.6f, ", s->busiest_ms, s->busiest_ms_ns, s->mean_ms);
	json_list(f, "rate_over_middle", s->rate, DAYSHAPE_PARTS);
	fprintf(f, ",\n \"cancels\": %" PRIu64 ", \"cancel_1ms_pct\": %.4f, \"cancel_10ms_pct\": "
		"%.4f, \"cancel_1s_pct\": %.4f,\n", s->cancels, s->cancel_1ms_pct,
		s->cancel_10ms_pct, s->cancel_1s_pct);
	fprintf(f, " \"orders\": %" PRIu64 ", \"rest_1h\": %" PRIu64 ", \"rest_1h_pct\": %.4f}\n",
		s->orders, s->rest_1h, s->rest_1h_pct);
}
