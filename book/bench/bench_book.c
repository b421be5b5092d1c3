// SPDX-License-Identifier: MIT
/*
 * bench_book: decode + book + tape over a whole day on one pinned core.
 *
 * Two sources of the same day: the uncompressed file read into memory
 * first, on transparent huge pages (the book's own cost: frame walk, ITCH
 * decode, order table, levels, prints), and the gzip file streamed
 * through the day-file reader (what t2t-backtest --itch pays,
 * decompression included).  Each run builds a fresh book (not timed),
 * applies every message with the look-ahead prefetch and consumes every
 * print; the median of the runs is reported, with the fastest and
 * slowest, the peak of live orders and the memory: the process's peak RSS
 * and the book's tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book/book_apply.h"
#include "proto/dayfile.h"
#include "util/clock.h"
#include "util/opt.h"

#define MAX_REPS 15

struct opts {
	unsigned int reps;
	int cpu;
	unsigned int ahead;
	uint32_t orders;
	enum table_mem_pages pages;
	bool mem_only;
	bool gz_only;
};

struct result {
	double ns;		/* whole run */
	uint64_t messages;
	uint64_t prints;
	uint64_t peak;
	uint64_t digest;
	uint64_t tape_sum;	/* every print folded in, so none is skipped */
};

static long rss_kb(const char *field)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			kb = strtol(line + strlen(field), NULL, 10);
	fclose(f);
	return kb;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "bench_book: pinning to CPU %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The day into @m, on huge pages where the kernel gives them
 * (util/table_mem.h): read in order, a day on 4 KB pages misses the TLB
 * every 4 KB, and on this VM that cost the run a third of its time and
 * most of its spread; the input's pages are not the book's cost.
 */
static uint8_t *load(const char *path, struct table_mem *m, size_t *n)
{
	struct stat st;
	size_t got = 0;
	uint8_t *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "bench_book: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (table_mem_map(m, (size_t)st.st_size + 1, TABLE_MEM_THP)) {
		fprintf(stderr, "bench_book: %s: no memory for %zu MB\n", path,
			(size_t)st.st_size >> 20);
		close(fd);
		return NULL;
	}
	p = m->addr;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, p + got, (size_t)st.st_size - got);

		if (r <= 0) {
			fprintf(stderr, "bench_book: %s: read failed\n", path);
			table_mem_unmap(m);
			p = NULL;
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	*n = got;
	return p;
}

static inline void consume(struct result *r, const struct tape_print *p)
{
	r->tape_sum += p->seq ^ (uint64_t)p->price << 20 ^ p->shares ^ (uint64_t)p->kind;
}

/* The hot loop both sources share: one span of whole frames. */
static uint64_t apply_span(struct book *b, const uint8_t *p, size_t n, uint64_t seq,
			   unsigned int ahead, struct result *r)
{
	struct book_walk w;
	const uint8_t *m;
	uint16_t len;

	book_walk_init_ahead(&w, b, p, n, ahead);
	while (book_walk_next(&w, b, &m, &len)) {
		struct tape_print pr;

		if (book_apply(b, m, len, seq++, &pr) == 1)
			consume(r, &pr);
	}
	return seq;
}

static int new_book(struct book *b, const struct opts *o)
{
	struct book_config cfg = { .max_orders = o->orders, .track_all = true,
				   .pages = o->pages };
	int ret = book_init(b, &cfg);

	if (ret)
		fprintf(stderr, "bench_book: book_init: %s\n", strerror(-ret));
	return ret;
}

static void finish(struct book *b, struct result *r, uint64_t t0, uint64_t messages)
{
	r->ns = (double)(mono_ns() - t0);
	r->messages = messages;
	r->prints = b->cnt.prints;
	r->peak = b->peak;
	r->digest = book_digest(b);
}

static int run_mem(const uint8_t *day, size_t n, const struct opts *o, struct book *b,
		   struct result *r)
{
	uint64_t t0, end;

	memset(r, 0, sizeof(*r));
	if (new_book(b, o))
		return -1;
	t0 = mono_ns();
	end = apply_span(b, day, n, 1, o->ahead, r);
	finish(b, r, t0, end - 1);
	return 0;
}

static int run_gz(const char *path, const struct opts *o, struct book *b, struct result *r)
{
	struct dayfile_reader rd;
	struct dayfile_span sp;
	uint64_t t0;
	int ret;

	memset(r, 0, sizeof(*r));
	if (new_book(b, o))
		return -1;
	t0 = mono_ns();
	if (dayfile_open(&rd, path, 0)) {
		fprintf(stderr, "bench_book: %s\n", rd.err);
		return -1;
	}
	while ((ret = dayfile_span(&rd, &sp)) == 1)
		apply_span(b, sp.p, sp.len, sp.first_seq, o->ahead, r);
	if (ret < 0)
		fprintf(stderr, "bench_book: %s\n", rd.err);
	finish(b, r, t0, rd.msgs);
	dayfile_close(&rd);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int report(const char *what, const struct result *r, unsigned int reps)
{
	double ns[MAX_REPS], med;

	for (unsigned int i = 0; i < reps; i++) {
		ns[i] = r[i].ns;
		if (r[i].digest != r[0].digest || r[i].tape_sum != r[0].tape_sum ||
		    r[i].messages != r[0].messages) {
			fprintf(stderr, "bench_book: %s run %u gave another book or tape\n",
				what, i + 1);
			return -1;
		}
	}
	qsort(ns, reps, sizeof(ns[0]), cmp_double);
	med = ns[reps / 2];
	printf("| %-13s | %9.0f | %9.0f | %9.0f | %6.2f | %5.1f | %9" PRIu64 " | %7" PRIu64 " |\n",
	       what, med / 1e6, ns[0] / 1e6, ns[reps - 1] / 1e6,
	       (double)r[0].messages / med * 1e3, med / (double)r[0].messages,
	       r[0].prints, r[0].peak);
	return 0;
}

static const char *const page_kinds[] = { "auto", "4k", "thp", NULL };

#define O(f) OFF(struct opts, f)

static const struct opt opts[] = {
	OPT("reps", 0, OPT_U32, O(reps), "N", "runs of each source", .min = 1,
	    .max = MAX_REPS),
	OPT("cpu", 0, OPT_INT, O(cpu), "C", "the CPU to pin to", .min = 0, .max = 4095),
	OPT("ahead", 0, OPT_U32, O(ahead), "A", "messages of prefetch look-ahead (0 = none)"),
	OPT("orders", 0, OPT_U32, O(orders), "N", "live orders the book holds",
	    .max = BOOK_MAX_ORDERS, .def = "2097152"),
	OPT("pages", 0, OPT_ENUM, O(pages), "auto|4k|thp",
	    "the book's memory (util/table_mem.h; thp is the gateway's)",
	    .choices = page_kinds, .def = "thp"),
	OPT("mem-only", 0, OPT_FLAG, O(mem_only), NULL, "only the day in memory"),
	OPT("gz-only", 0, OPT_FLAG, O(gz_only), NULL, "only the gzip file"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "bench_book",
	.usage = "[options] DAY DAY.gz",
	.about =
"Decode + book + tape over a whole day file, pinned to one CPU; the median\n"
"of N runs from the uncompressed day in memory and from the gzip file.\n",
	.opts = opts,
};

int main(int argc, char **argv)
{
	struct opts o = { .reps = 3, .cpu = 1, .ahead = BOOK_LOOKAHEAD, .pages = TABLE_MEM_THP };
	struct result mem[MAX_REPS], gz[MAX_REPS];
	struct book b;
	struct table_mem day_mem = { 0 };
	uint8_t *day = NULL;
	size_t n = 0;
	long rss_before, rss_book;
	char pages[96];
	int c, first;

	c = opt_parse(&prog, &o, argc, argv, &first);
	if (c)
		return c == 1 ? 0 : 2;
	if (argc - first != 2)
		return opt_error(&prog, "the arguments are DAY DAY.gz");
	if (pin(o.cpu))
		return 2;
	if (!o.gz_only && !(day = load(argv[first], &day_mem, &n)))
		return 2;

	rss_before = rss_kb("VmRSS:");
	if (new_book(&b, &o))
		return 2;
	rss_book = rss_kb("VmRSS:") - rss_before;
	book_describe_pages(&b, pages, sizeof(pages));
	book_destroy(&b);

	printf("bench_book: %s, %zu MB in memory; CPU %d; book of %u orders, tables %zu MB "
	       "(%s); look-ahead %u; %u runs each\n\n", argv[first], n >> 20, o.cpu,
	       o.orders ? o.orders : BOOK_DEFAULT_ORDERS, (size_t)rss_book >> 10, pages,
	       o.ahead, o.reps);
	printf("| source        | median ms |    min ms |    max ms | M msg/s | ns/msg |    prints | peak live |\n");
	printf("|---------------|----------:|----------:|----------:|-------:|------:|----------:|--------:|\n");
	for (unsigned int i = 0; !o.gz_only && i < o.reps; i++) {
		if (run_mem(day, n, &o, &b, &mem[i]))
			return 2;
		book_destroy(&b);
	}
	if (!o.gz_only && report("memory", mem, o.reps))
		return 1;
	for (unsigned int i = 0; !o.mem_only && i < o.reps; i++) {
		if (run_gz(argv[first + 1], &o, &b, &gz[i]))
			return 2;
		book_destroy(&b);
	}
	if (!o.mem_only && report("gzip file", gz, o.reps))
		return 1;
	if (!o.mem_only && !o.gz_only && (mem[0].digest != gz[0].digest ||
					  mem[0].tape_sum != gz[0].tape_sum)) {
		fprintf(stderr, "bench_book: the gzip file gave another book or tape\n");
		return 1;
	}
	printf("\npeak RSS %ld MB (the day in memory %zu MB, the book's tables %ld MB); "
	       "book digest %016" PRIx64 "\n", rss_kb("VmHWM:") >> 10, n >> 20, rss_book >> 10,
	       o.gz_only ? gz[0].digest : mem[0].digest);
	if (day)
		table_mem_unmap(&day_mem);
	return 0;
}
