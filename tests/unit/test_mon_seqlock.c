// SPDX-License-Identifier: MIT
/*
 * The seqlock protocol under ThreadSanitizer (build/tsan/): one writer
 * storing flat out into every block, a ticker copying the stages into the
 * window ring (as the gateway's main thread would), and two readers, one
 * through the writer's own mapping (so TSan sees both sides of every
 * access and would report any unsynchronised one) and one through a
 * mapping of its own, as another process has.
 *
 * Every value the writer stores is derived from one number, so a reader
 * can tell a copy that mixes two states: counter i = n * (i + 1) + i, a
 * symbol's fields are functions of n, a histogram's total, sum, min and
 * max must agree with its buckets (values below 256 have a bucket each),
 * an event's fields are functions of its number.  The readers must see no
 * mixed copy and must not starve.
 *
 * Then the same writer with the counters' sequence counter left out must
 * be caught by the same check: the test is able to fail.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/hist.h"
#include "monitor/reader.h"
#include "monitor/writer.h"
#include "util/clock.h"

const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "halt_on_error=1:exitcode=66";
}

#define NCOUNTERS	200
#define NSYMS		4
#define RUN_NS		(3 * NS_PER_SEC)
#define CATCH_NS	(10 * NS_PER_SEC)

static struct mon_counter_def defs[NCOUNTERS];
static char names[NCOUNTERS][16];
static const char *const syms[NSYMS] = { "AAAA", "BBBB", "CCCC", "DDDD" };

struct run {
	struct mon_writer w;
	int stop;		/* atomics: set by main */
	int honest;
	uint64_t writes;
};

struct tally {
	const char *who;
	struct mon_reader r;
	struct run *run;
	uint64_t ok[5], busy, bad[5];
	char first_bad[160];
};

enum { B_COUNTERS, B_SYMBOL, B_STAGE, B_WINDOW, B_EVENTS };
static const char *const block_names[] = { "counters", "symbol", "stage", "window", "events" };

static void publish_counters_dishonestly(struct mon_writer *w, const uint64_t *v)
{
	/* What a writer without the sequence counter would do. */
	for (unsigned int i = 0; i < NCOUNTERS; i++)
		mon_st(&w->seg->counters.v[i], v[i]);
}

static void fill_sym(struct mon_sym *s, uint64_t n)
{
	s->position = (int64_t)n;
	s->cash = -3 * (int64_t)n;
	s->pnl = 7 * (int64_t)n;
	s->target = (int64_t)n + 1;
	s->bid = (uint32_t)(2 * n);
	s->ask = (uint32_t)(2 * n + 1);
	s->last_price = (uint32_t)(2 * n);
	s->last_size = (uint32_t)(n % 1000);
	s->strat_pos = (int32_t)(n % 3) - 1;
	s->ticks = n;
	s->orders = n / 2;
	s->fills = n / 3;
	s->cancels = n / 5;
	s->rejects = n / 7;
}

static void *writer(void *arg)
{
	struct run *run = arg;
	static uint64_t v[NCOUNTERS];
	struct mon_sym s;
	uint64_t n;

	memset(&s, 0, sizeof(s));
	for (n = 1; !__atomic_load_n(&run->stop, __ATOMIC_RELAXED); n++) {
		uint32_t no = (uint32_t)(n - 1);

		for (unsigned int i = 0; i < NCOUNTERS; i++)
			v[i] = n * (i + 1) + i;
		if (__atomic_load_n(&run->honest, __ATOMIC_RELAXED))
			mon_publish_counters(&run->w, v, NCOUNTERS, n);
		else
			publish_counters_dishonestly(&run->w, v);
		fill_sym(&s, n);
		mon_publish_symbol(&run->w, (unsigned int)(n % NSYMS), &s, n);
		mon_record_stage(&run->w, (unsigned int)(n % MON_STAGES), 100 + (int64_t)(n % 150));
		mon_record_event(&run->w, (enum mon_event_kind)(1 + no % 4), no % NSYMS,
				 no % 2 ? 'S' : 'B', no % 1000 + 1, 3 * no, no, 5 * (uint64_t)no + 1);
	}
	__atomic_store_n(&run->writes, n, __ATOMIC_RELAXED);
	return NULL;
}

/* The gateway's main thread: a window copy every few ms, one "second" apart. */
static void *ticker(void *arg)
{
	struct run *run = arg;
	uint64_t t = NS_PER_SEC;

	while (!__atomic_load_n(&run->stop, __ATOMIC_RELAXED)) {
		mon_tick(&run->w, t);
		t += NS_PER_SEC;
		usleep(2000);
	}
	return NULL;
}

/* A histogram whose values are all below 256: every field follows from the buckets. */
static int hist_consistent(const struct hdr_hist *h, char *why, size_t len)
{
	uint64_t total = 0, sum = 0;
	int64_t first = -1, last = -1;

	for (int i = 0; i < 256; i++) {
		total += h->counts[i];
		sum += (uint64_t)i * h->counts[i];
		if (h->counts[i]) {
			if (first < 0)
				first = i;
			last = i;
		}
	}
	for (unsigned int i = 256; i < HDR_BUCKETS; i++)
		if (h->counts[i])
			return snprintf(why, len, "bucket %u non-zero", i), 0;
	if (total != h->total || sum != h->sum || (total && (first != h->min || last != h->max)))
		return snprintf(why, len, "total %llu/%llu sum %llu/%llu min %lld/%lld max %lld/%lld",
				(unsigned long long)h->total, (unsigned long long)total,
				(unsigned long long)h->sum, (unsigned long long)sum,
				(long long)h->min, (long long)first, (long long)h->max,
				(long long)last), 0;
	return 1;
}

static void bad(struct tally *t, int block, const char *why)
{
	/* main watches the counters' count to stop early: atomic */
	if (!__atomic_fetch_add(&t->bad[block], 1, __ATOMIC_RELAXED) && !t->first_bad[0])
		snprintf(t->first_bad, sizeof(t->first_bad), "%s: %s", block_names[block], why);
}

static void *reader(void *arg)
{
	struct tally *t = arg;
	static __thread struct hdr_hist h, win[MON_STAGES];
	static __thread struct mon_event ev[256];
	uint64_t v[NCOUNTERS], ts, next = 0;
	unsigned int k = 0;
	struct mon_sym s;
	char why[128];

	while (!__atomic_load_n(&t->run->stop, __ATOMIC_RELAXED)) {
		int ret = mon_read_counters(&t->r, v, &ts);

		if (ret) {
			t->busy++;
		} else {
			int ok = 1;

			for (unsigned int i = 0; i < NCOUNTERS && ok; i++)
				ok = v[i] == v[0] * (i + 1) + i;
			if (ok && v[0])
				t->ok[B_COUNTERS]++;
			else if (!ok)
				bad(t, B_COUNTERS, "counters from two states");
		}

		k = (k + 1) % NSYMS;
		if (!mon_read_symbol(&t->r, k, &s) && s.ticks) {
			struct mon_sym want;

			memset(&want, 0, sizeof(want));
			fill_sym(&want, s.ticks);
			want.t_ns = s.t_ns;
			if (memcmp(&want, &s, offsetof(struct mon_sym, t_ns)) || s.t_ns != s.ticks)
				bad(t, B_SYMBOL, "fields from two states");
			else
				t->ok[B_SYMBOL]++;
		}

		hdr_reset(&h);
		if (!mon_read_stage(&t->r, k % MON_STAGES, &h)) {
			if (hist_consistent(&h, why, sizeof(why)))
				t->ok[B_STAGE]++;
			else
				bad(t, B_STAGE, why);
		}

		if (!mon_read_window(&t->r, UINT64_MAX / 2, 0, win, &ts)) {
			int ok = 1;

			for (unsigned int i = 0; i < MON_STAGES && ok; i++)
				ok = hist_consistent(&win[i], why, sizeof(why));
			if (ok)
				t->ok[B_WINDOW]++;
			else
				bad(t, B_WINDOW, why);
		}

		{
			uint64_t from = next;
			unsigned int n = mon_read_events(&t->r, next, ev, 256, &next);
			int ok = 1;

			for (unsigned int i = 0; i < n && ok; i++) {
				uint32_t no = (uint32_t)(next - n + i);
				const struct mon_event *e = &ev[i];

				ok = e->order_no == no && e->price == 3 * no &&
				     e->shares == no % 1000 + 1 && e->t_ns == 5 * (uint64_t)no + 1 &&
				     e->kind == 1 + no % 4 && e->sym == no % NSYMS &&
				     e->side == (no % 2 ? 'S' : 'B');
			}
			(void)from;
			if (!ok)
				bad(t, B_EVENTS, "an event from two states");
			else if (n)
				t->ok[B_EVENTS]++;
		}
	}
	return NULL;
}

/* Writer, ticker and both readers for @ns, or until a reader finds a mixed copy. */
static double run_for(struct run *run, struct tally *t, uint64_t ns, int stop_at_bad)
{
	pthread_t tw, tt, tr[2];
	uint64_t t0 = mono_ns(), end = t0 + ns;

	__atomic_store_n(&run->stop, 0, __ATOMIC_RELAXED);
	pthread_create(&tw, NULL, writer, run);
	pthread_create(&tt, NULL, ticker, run);
	for (int i = 0; i < 2; i++)
		pthread_create(&tr[i], NULL, reader, &t[i]);
	while (mono_ns() < end) {
		usleep(10000);
		if (stop_at_bad && (__atomic_load_n(&t[0].bad[B_COUNTERS], __ATOMIC_RELAXED) ||
				    __atomic_load_n(&t[1].bad[B_COUNTERS], __ATOMIC_RELAXED)))
			break;
	}
	__atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
	pthread_join(tw, NULL);
	pthread_join(tt, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(tr[i], NULL);
	return (double)(mono_ns() - t0) / 1e9;
}

int main(void)
{
	static struct run run;
	static struct tally t[2];
	struct mon_cfg c = { .writer = "test_mon_seqlock", .counters = defs,
			     .n_counters = NCOUNTERS, .symbols = syms, .n_symbols = NSYMS };
	char name[40], err[256];
	int fails = 0;
	double took;

	for (int i = 0; i < NCOUNTERS; i++) {
		snprintf(names[i], sizeof(names[i]), "c%d", i);
		defs[i] = (struct mon_counter_def){ "test", names[i], MON_COUNTER, 0 };
	}
	snprintf(name, sizeof(name), "test-seqlock-%d", getpid());
	c.name = name;
	if (mon_create(&run.w, &c, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	t[0].who = "same mapping";
	t[1].who = "own mapping";
	mon_attach(&t[0].r, run.w.seg);
	if (mon_open(&t[1].r, name, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		mon_destroy(&run.w);
		return 1;
	}
	for (int i = 0; i < 2; i++)
		t[i].run = &run;

	run.honest = 1;
	run_for(&run, t, RUN_NS, 0);
	printf("honest writer: %llu writes in %.0f s\n", (unsigned long long)run.writes,
	       (double)RUN_NS / 1e9);
	for (int i = 0; i < 2; i++) {
		printf("  reader (%s): consistent copies", t[i].who);
		for (int b = 0; b < 5; b++) {
			printf(" %s %llu", block_names[b], (unsigned long long)t[i].ok[b]);
			/* A reader that never got a copy proves nothing: it starved. */
			if (t[i].ok[b] < 20) {
				printf(" (STARVED)");
				fails++;
			}
		}
		printf(", gave up %llu; mixed copies %llu %llu %llu %llu %llu\n",
		       (unsigned long long)t[i].busy, (unsigned long long)t[i].bad[0],
		       (unsigned long long)t[i].bad[1], (unsigned long long)t[i].bad[2],
		       (unsigned long long)t[i].bad[3], (unsigned long long)t[i].bad[4]);
		for (int b = 0; b < 5; b++)
			if (t[i].bad[b]) {
				printf("  FAIL: %s\n", t[i].first_bad);
				fails++;
				break;
			}
	}

	/* The counters' sequence counter left out: the check must see it. */
	memset(t[0].bad, 0, sizeof(t[0].bad));
	memset(t[1].bad, 0, sizeof(t[1].bad));
	run.honest = 0;
	took = run_for(&run, t, CATCH_NS, 1);
	if (t[0].bad[B_COUNTERS] + t[1].bad[B_COUNTERS])
		printf("writer without the sequence counter: caught in %.2f s (%llu mixed copies)\n",
		       took, (unsigned long long)(t[0].bad[B_COUNTERS] + t[1].bad[B_COUNTERS]));
	else {
		printf("FAIL: a writer without the sequence counter went unnoticed for %.0f s\n",
		       (double)CATCH_NS / 1e9);
		fails++;
	}
	mon_close(&t[1].r);
	mon_destroy(&run.w);
	printf("%s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
