// SPDX-License-Identifier: MIT
/*
 * bench-monitor: what the writer API costs the thread that calls it, on one
 * core (CPU 1, where the gateway's hot loop runs), per call:
 *
 *	counters	mon_publish_counters() of 105 values (the gateway's table)
 *	symbol		mon_publish_symbol()
 *	stage		mon_record_stage() (hdr_record() into private memory beside it)
 *	order		mon_record_order(): the 9 stages of one order
 *	event		mon_record_event()
 *
 * each with no reader, with a reader taking a full snapshot (t2t-monitor's
 * work per request) 10 times a second on CPU 0, and, as a stress case, with
 * that reader snapshotting flat out.  For each: the mean over half a second
 * of back-to-back calls, and the distribution of single calls timed with
 * the TSC (its own back-to-back cost subtracted), where a reader shows up:
 * the first store after a read misses the line the reader shared.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "latency/hdr.h"
#include "monitor/snap.h"
#include "monitor/writer.h"
#include "util/clock.h"

#define NCOUNTERS	105
#define NVALUES		4096
#define RUN_NS		(500 * NS_PER_MS)
#define WRITER_CPU	1
#define READER_CPU	0

enum api { A_COUNTERS, A_SYMBOL, A_STAGE, A_HDR, A_ORDER, A_EVENT, A_NR };
static const char *const api_names[A_NR] = {
	"counters (105)", "symbol", "stage", "hdr_record (private)", "order (9 stages)", "event",
};
enum mode { M_NONE, M_10HZ, M_FLAT, M_NR };
static const char *const mode_names[M_NR] = { "no reader", "reader 10 Hz", "reader flat out" };

static struct mon_writer w;
static uint64_t vals[NCOUNTERS];
static int64_t lat[NVALUES];
static struct order_times times[NVALUES];
static struct hdr_hist priv;
static double tsc_per_ns;

struct reader_ctl {
	int mode;		/* enum mode, atomic */
	int stop;
	uint64_t snaps;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *reader(void *arg)
{
	struct reader_ctl *c = arg;
	struct mon_snap *s = malloc(sizeof(*s));
	struct mon_reader r;
	char err[256];

	pin(READER_CPU);
	if (!s || mon_open(&r, w.seg->hdr.name, err, sizeof(err))) {
		fprintf(stderr, "bench-monitor: reader: %s\n", err);
		exit(1);
	}
	while (!__atomic_load_n(&c->stop, __ATOMIC_RELAXED)) {
		int m = __atomic_load_n(&c->mode, __ATOMIC_RELAXED);

		if (m == M_NONE) {
			usleep(1000);
			continue;
		}
		mon_snapshot(&r, s, 5 * NS_PER_SEC, 0);
		__atomic_fetch_add(&c->snaps, 1, __ATOMIC_RELAXED);
		if (m == M_10HZ)
			usleep(100000);
	}
	mon_close(&r);
	free(s);
	return NULL;
}

static inline void call(enum api a, uint64_t i)
{
	struct mon_sym s;

	switch (a) {
	case A_COUNTERS:
		vals[i % NCOUNTERS] = i;
		mon_publish_counters(&w, vals, NCOUNTERS, i);
		break;
	case A_SYMBOL:
		memset(&s, 0, sizeof(s));
		s.position = (int64_t)i;
		s.last_price = (uint32_t)i;
		s.ticks = i;
		mon_publish_symbol(&w, (unsigned int)(i & 3), &s, i);
		break;
	case A_STAGE:
		mon_record_stage(&w, (unsigned int)(i % MON_STAGES), lat[i % NVALUES]);
		break;
	case A_HDR:
		hdr_record(&priv, lat[i % NVALUES]);
		break;
	case A_ORDER:
		mon_record_order(&w, &times[i % NVALUES], ORDER_FILLED, 0);
		break;
	case A_EVENT:
		mon_record_event(&w, MON_EV_FILL, (unsigned int)(i & 3), 'B', 100,
				 (uint32_t)i, (uint32_t)i, i);
		break;
	default:
		break;
	}
}

/* Back-to-back calls for RUN_NS: the mean per call. */
static double mean_ns(enum api a)
{
	uint64_t t0 = mono_ns(), t = t0, i = 0;

	while (t - t0 < RUN_NS) {
		for (int k = 0; k < 1024; k++, i++)
			call(a, i);
		t = mono_ns();
	}
	return (double)(t - t0) / (double)i;
}

/* Each call timed alone: the distribution, in ns, less the timer's own cost. */
static void single_calls(enum api a, struct hdr_hist *h, double timer)
{
	uint64_t end = mono_ns() + RUN_NS, i = 0;

	hdr_reset(h);
	while (mono_ns() < end) {
		for (int k = 0; k < 1024; k++, i++) {
			uint64_t c0 = __rdtsc();

			call(a, i);
			hdr_record(h, (int64_t)((double)(__rdtsc() - c0) / tsc_per_ns - timer));
		}
	}
}

static void calibrate(double *timer)
{
	static struct hdr_hist h;
	uint64_t t0 = mono_ns(), c0 = __rdtsc();
	struct timespec ts = { 0, 200 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	tsc_per_ns = (double)(__rdtsc() - c0) / (double)(mono_ns() - t0);
	hdr_reset(&h);
	for (int i = 0; i < 1000000; i++) {
		uint64_t c = __rdtsc();

		hdr_record(&h, (int64_t)((double)(__rdtsc() - c) / tsc_per_ns * 16));
	}
	*timer = (double)hdr_value_at_percentile(&h, 50) / 16;
}

int main(void)
{
	static struct mon_counter_def defs[NCOUNTERS];
	static char names[NCOUNTERS][16];
	static const char *const syms[] = { "AAPL", "MSFT", "NVDA", "TSLA" };
	static struct hdr_hist h;
	struct reader_ctl ctl = { 0 };
	struct mon_cfg c = { .writer = "bench-monitor", .counters = defs, .n_counters = NCOUNTERS,
			     .symbols = syms, .n_symbols = 4 };
	uint64_t seed = 42, t = 1000000000;
	char name[32], err[256];
	pthread_t th;
	double timer;

	for (int i = 0; i < NCOUNTERS; i++) {
		snprintf(names[i], sizeof(names[i]), "c%d", i);
		defs[i] = (struct mon_counter_def){ "bench", names[i], MON_COUNTER, 0 };
	}
	for (int i = 0; i < NVALUES; i++) {
		double u;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		u = (double)(seed >> 11) / 9007199254740992.0;
		lat[i] = (int64_t)exp(log(100.0) + u * (log(1e6) - log(100.0)));
		t += 100000;
		times[i] = (struct order_times){ .t_send = t, .t_hook = t + 4900 + lat[i] % 500,
			.t_seen = t + 6200 + lat[i] % 3000, .t_decided = t + 7000 + lat[i] % 3000,
			.t_queued = t + 7070 + lat[i] % 3000, .t_sent = t + 19000 + lat[i] % 3000,
			.t_ack = t + 17000 + lat[i] };
	}
	hdr_reset(&priv);
	snprintf(name, sizeof(name), "bench-%d", getpid());
	c.name = name;
	if (mon_create(&w, &c, err, sizeof(err))) {
		fprintf(stderr, "bench-monitor: %s\n", err);
		return 1;
	}
	pin(WRITER_CPU);
	calibrate(&timer);
	pthread_create(&th, NULL, reader, &ctl);

	printf("bench-monitor: writer on CPU %d, reader on CPU %d; ns per call "
	       "(single calls: TSC, less %.1f ns of timer)\n", WRITER_CPU, READER_CPU, timer);
	printf("%-21s %-16s %7s | %7s %7s %7s %7s %8s\n", "call", "reader", "mean", "p50", "p99",
	       "p99.9", "p99.99", "max");
	for (int a = 0; a < A_NR; a++) {
		for (int m = 0; m < M_NR; m++) {
			double mean;

			__atomic_store_n(&ctl.mode, m, __ATOMIC_RELAXED);
			usleep(20000);
			mean = mean_ns(a);
			single_calls(a, &h, timer);
			printf("%-21s %-16s %7.1f | %7" PRId64 " %7" PRId64 " %7" PRId64 " %7" PRId64
			       " %8" PRId64 "\n", m ? "" : api_names[a], mode_names[m], mean,
			       hdr_value_at_percentile(&h, 50), hdr_value_at_percentile(&h, 99),
			       hdr_value_at_percentile(&h, 99.9), hdr_value_at_percentile(&h, 99.99),
			       hdr_max(&h));
			fflush(stdout);
		}
	}
	__atomic_store_n(&ctl.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	printf("reader snapshots taken: %" PRIu64 "\n", ctl.snaps);
	mon_destroy(&w);
	return 0;
}
