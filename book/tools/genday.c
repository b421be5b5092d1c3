// SPDX-License-Identifier: MIT
/* t2t-genday: write a synthetic ITCH 5.0 day file (book/daygen.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "book/daygen.h"

static const char usage[] =
"Usage: t2t-genday --messages N --symbols K [--seed S] [--gzip] -o FILE\n"
"\n"
"Write a synthetic TotalView-ITCH 5.0 day as a Nasdaq BinaryFILE (each\n"
"message after its 2-byte big-endian length), deterministic from the seed:\n"
"the same arguments give the same bytes.  System events, the stock\n"
"directory, opening and closing crosses, and in between a session with the\n"
"real day's mix of adds, deletes, replaces, executions, cancels, hidden\n"
"prints and administrative messages around a GBM mid per symbol.\n"
"\n"
"  --messages N      messages in the whole day (at least 7 + 5 K)\n"
"  --symbols K       symbols (locates 1..K: AAPL, MSFT, NVDA, AMZN, ...)\n"
"  --seed S          generator seed (default 1)\n"
"  --gzip            gzip the file (level 1; --gzip-level 1-9 for another)\n"
"  --gzip-level L    gzip at level L (0 = plain)\n"
"  --start SECONDS   first timestamp, seconds after midnight (default 34200,\n"
"                    09:30)\n"
"  --duration SECONDS  length of the day (default 23400, 6.5 h)\n"
"  --book-orders N   live orders the generator's own book holds\n"
"                    (default 2097152)\n"
"  -o, --output FILE the day file to write\n"
"  -q, --quiet       no summary on standard error\n"
"  -h, --help        this text\n"
"\n"
"Exit status: 0 ok, 2 bad usage or a write error.\n";

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int bad(const char *what, const char *arg)
{
	fprintf(stderr, "t2t-genday: %s, not '%s'\nTry 't2t-genday --help'.\n", what, arg);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "messages", required_argument, NULL, 'n' },
		{ "symbols", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "gzip", no_argument, NULL, 'z' },
		{ "gzip-level", required_argument, NULL, 'Z' },
		{ "start", required_argument, NULL, 'S' },
		{ "duration", required_argument, NULL, 'D' },
		{ "book-orders", required_argument, NULL, 'b' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct daygen_config cfg = { .seed = 1 };
	struct daygen_stats st;
	const char *out = NULL;
	uint64_t v, secs;
	int level = 0, quiet = 0, c;
	struct timespec t0, t1;
	char err[512];

	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_u64(optarg, &cfg.messages))
				return bad("--messages wants a count", optarg);
			break;
		case 'k':
			if (parse_u64(optarg, &v) || !v || v > DAYGEN_MAX_SYMBOLS)
				return bad("--symbols wants 1 to 60000", optarg);
			cfg.symbols = (uint32_t)v;
			break;
		case 's':
			if (parse_u64(optarg, &cfg.seed))
				return bad("--seed wants an unsigned integer", optarg);
			break;
		case 'z':
			if (!level)
				level = 1;
			break;
		case 'Z':
			if (parse_u64(optarg, &v) || v > 9)
				return bad("--gzip-level wants 0 to 9", optarg);
			level = (int)v;
			break;
		case 'S':
			if (parse_u64(optarg, &secs) || secs >= 86400)
				return bad("--start wants seconds after midnight", optarg);
			cfg.start_ns = secs * 1000000000ull;
			break;
		case 'D':
			if (parse_u64(optarg, &secs) || !secs || secs > 86400)
				return bad("--duration wants 1 to 86400 seconds", optarg);
			cfg.duration_ns = secs * 1000000000ull;
			break;
		case 'b':
			if (parse_u64(optarg, &v) || !v || v > BOOK_MAX_ORDERS)
				return bad("--book-orders wants 1 to 2^30", optarg);
			cfg.max_orders = (uint32_t)v;
			break;
		case 'o':
			out = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fprintf(stderr, "Try 't2t-genday --help'.\n");
			return 2;
		}
	}
	if (optind < argc)
		return bad("unexpected argument", argv[optind]);
	if (!out || !cfg.messages || !cfg.symbols) {
		fprintf(stderr, "t2t-genday: --messages, --symbols and -o FILE are needed\n"
			"Try 't2t-genday --help'.\n");
		return 2;
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (daygen_write(out, &cfg, level, &st, err, sizeof(err))) {
		fprintf(stderr, "t2t-genday: %s\n", err);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!quiet) {
		double s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;

		fprintf(stderr, "t2t-genday: %s: %" PRIu64 " messages, %" PRIu64
			" bytes uncompressed, %u symbols, peak %" PRIu64 " live orders (%"
			PRIu64 " at the end), %.1f s\n", out, st.messages, st.bytes,
			cfg.symbols, st.peak_live, st.end_live, s);
		fprintf(stderr, "t2t-genday: mix A %.2f%% D %.2f%% U %.2f%% E %.2f%% X %.2f%% "
			"P %.3f%% C %.3f%% F %.2f%%\n",
			100.0 * st.by_type['A'] / st.messages, 100.0 * st.by_type['D'] / st.messages,
			100.0 * st.by_type['U'] / st.messages, 100.0 * st.by_type['E'] / st.messages,
			100.0 * st.by_type['X'] / st.messages, 100.0 * st.by_type['P'] / st.messages,
			100.0 * st.by_type['C'] / st.messages, 100.0 * st.by_type['F'] / st.messages);
	}
	if (st.impossible) {
		fprintf(stderr, "t2t-genday: internal error: the generator's own book counted "
			"%" PRIu64 " impossible events\n", st.impossible);
		return 2;
	}
	return 0;
}
