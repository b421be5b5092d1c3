// SPDX-License-Identifier: MIT
/*
 * exsim: the exchange simulator (netns/exsim/README.md).
 *
 * One thread.  The session: system events O S, the stock directory, Q;
 * --warmup; the ticks on their schedule; --linger; M E C; a heartbeat; end
 * of session three times; --grace; the summary.  Between sends it waits in
 * ppoll() on the order socket until --spin-us before the next send time and
 * busy-waits (still reading orders) from there and for --spin-us after a
 * send, so orders are answered at once and sends leave within about a
 * microsecond of their time.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns/exsim/attack.h"
#include "util/clock.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/feed.h"
#include "netns/exsim/fill.h"
#include "netns/exsim/gen.h"
#include "netns/exsim/hostile.h"
#include "netns/exsim/report.h"
#include "netns/exsim/rereq.h"
#include "netns/exsim/sink.h"
#include "strategy/prices.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

#define ORDERS_PER_POLL	64
/* Close to a send, a recvmsg() would make it late: stop polling orders. */
#define POLL_GUARD_NS	3000
/* At --rate 0 there is no waiting: look at the order port this often. */
#define FLAT_OUT_POLL_NS 5000
#define END_OF_SESSION_COPIES 3
#define NETNS_RUN_DIR	"/var/run/netns"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The event loop's own state; the session's parts are reached through r. */
struct loop {
	struct exsim_run *r;
	uint64_t hb_ns;
	uint64_t spin_ns;
	bool progress;		/* stderr is a terminal */
	bool ended;		/* end of session sent: no more heartbeats */
	uint64_t next_progress;
	uint64_t last_serve;	/* last time the order and re-request ports were read */
};

static void progress(struct loop *L, uint64_t now)
{
	const struct fill_counters *n = &L->r->book->n;

	if (!L->progress || now < L->next_progress)
		return;
	L->next_progress = now + NS_PER_SEC;
	fprintf(stderr, "\rexsim: %.0f s  ticks %" PRIu64 "/%" PRIu64
		"  packets %" PRIu64 "  orders %" PRIu64 " (filled %" PRIu64
		", canceled %" PRIu64 ", rejected %" PRIu64 ")",
		(double)(now - L->r->t_start) / 1e9, L->r->feed->ticks_sent,
		L->r->total, L->r->feed->st.packets, L->r->sink->st.orders, n->executed,
		n->canceled, n->rejected);
	if (L->r->cfg->rate > 0 && hdr_count(&L->r->lag))
		fprintf(stderr, "  lag p99 %.1f us",
			hdr_value_at_percentile(&L->r->lag, 99) / 1e3);
	fputs("   ", stderr);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Orders first, then re-requests: both without blocking. */
static void serve_ports(struct loop *L)
{
	sink_poll(L->r->sink, ORDERS_PER_POLL);
	rereq_poll(L->r->rereq, REREQ_PER_POLL);
}

/*
 * Wait until @deadline.  Within spin_ns of a send, before (so it leaves on
 * time) or after it (when the orders it triggers come in), spin and read the
 * order port; otherwise sleep in ppoll() on the order port, whose wake-up a
 * virtual machine may delay by milliseconds.  Heartbeats go out after hb_ns without a
 * packet.  Returns the time, early on a signal.
 */
static uint64_t wait_until(struct loop *L, uint64_t deadline)
{
	struct feed *f = L->r->feed;

	for (;;) {
		uint64_t now = mono_ns(), left;

		/*
		 * Behind schedule the loop never waits: still read the ports every
		 * few microseconds, or orders (and their replies) pile up unread
		 * and the socket buffer drops them.
		 */
		if (now >= deadline || stop) {
			if (now - L->last_serve >= FLAT_OUT_POLL_NS) {
				serve_ports(L);
				L->last_serve = now;
			}
			return now;
		}
		if (now - f->last_send_ns >= L->hb_ns && !L->ended) {
			feed_heartbeat(f);
			continue;
		}
		progress(L, now);
		left = deadline - now;
		if (left > L->spin_ns && now - f->last_send_ns > L->spin_ns) {
			uint64_t nap = left - L->spin_ns;
			struct pollfd p[2] = {
				{ .fd = L->r->sink->fd, .events = POLLIN },
				{ .fd = L->r->rereq->fd, .events = POLLIN },	/* -1: ignored */
			};
			struct timespec ts;

			if (!L->ended)
				nap = min_u64(nap, f->last_send_ns + L->hb_ns - now);
			if (L->progress)
				nap = min_u64(nap, L->next_progress - now);
			ts.tv_sec = (time_t)(nap / NS_PER_SEC);
			ts.tv_nsec = (long)(nap % NS_PER_SEC);
			if (ppoll(p, 2, &ts, NULL) > 0)
				serve_ports(L);
		} else if (left > POLL_GUARD_NS) {
			serve_ports(L);
		} else {
			cpu_relax();
		}
	}
}

static void system_event(struct feed *f, char event)
{
	struct itch_msg m = { .type = 'S', .s.event = event };

	feed_send_msgs(f, &m, 1);
}

static int open_session(struct feed *f, const struct gen *g,
			struct fill_book *book, unsigned int nsym)
{
	static struct itch_msg msgs[2 + EXSIM_MAX_SYMBOLS];
	unsigned int i, n = 0;

	msgs[n++] = (struct itch_msg){ .type = 'S', .s.event = 'O' };
	msgs[n++] = (struct itch_msg){ .type = 'S', .s.event = 'S' };
	for (i = 0; i < nsym; i++)
		gen_directory(g, (uint16_t)(i + 1), &msgs[n++]);
	if (feed_send_msgs(f, msgs, n))
		return -1;
	system_event(f, 'Q');
	book->open = true;
	return 0;
}

static void publish(struct loop *L, struct gen *g, struct fill_book *book,
		    uint64_t dur_end)
{
	struct exsim_run *r = L->r;
	struct feed *f = L->r->feed;
	uint64_t last_poll = 0;

	feed_stage(f, g, r->total);
	while (!stop && f->nticks) {
		uint64_t now, sent;
		unsigned int k, j;

		if (f->period_ns > 0) {
			now = wait_until(L, feed_next_due(f));
			if (stop)
				break;
		} else {
			now = mono_ns();
			if (now - last_poll >= FLAT_OUT_POLL_NS) {
				serve_ports(L);
				progress(L, now);
				last_poll = now;
			}
		}
		if (dur_end && now >= dur_end)
			break;

		k = feed_due(f, now);
		sent = feed_send_ticks(f, k);
		for (j = 0; j < k; j++) {
			const struct feed_tick *t = &f->tick[j];

			fill_set_last(book, t->locate, t->price);
			if (f->period_ns > 0)
				hdr_record(&r->lag, (int64_t)(sent - t->intended));
		}
		if (!r->t_first)
			r->t_first = sent;
		r->t_last = sent;
		feed_consume(f, k);
		/* after consume: the poison frames take the next number */
		hostile_after_packet(L->r->hostile);
		attack_after_packet(L->r->attack);
		feed_stage(f, g, r->total);
	}
	feed_discard(f);
}

static void close_session(struct loop *L, struct fill_book *book)
{
	struct feed *f = L->r->feed;
	int i;

	system_event(f, 'M');
	book->open = false;
	system_event(f, 'E');
	system_event(f, 'C');
	feed_heartbeat(f);
	for (i = 0; i < END_OF_SESSION_COPIES; i++)
		feed_end_of_session(f);
}

/* Ticks to publish, from --count, --duration, --rate and the price file. */
static int plan_ticks(const struct exsim_cfg *c, uint64_t nprices, uint64_t *total)
{
	uint64_t n = c->count;

	if (c->prices_path) {
		if (c->count_set && c->count > nprices) {
			fprintf(stderr, "exsim: --count %" PRIu64 ": %s has only %" PRIu64
				" prices\n", c->count, c->prices_path, nprices);
			return -1;
		}
		n = c->count_set ? c->count : nprices;
	}
	if (c->duration_s > 0 && c->rate > 0) {
		double d = llround(c->rate * c->duration_s);

		if (d < 1) {
			fprintf(stderr, "exsim: --rate %g x --duration %g is less than one tick\n",
				c->rate, c->duration_s);
			return -1;
		}
		if (d > (double)EXSIM_MAX_TICKS) {
			fprintf(stderr, "exsim: --rate x --duration is over %" PRIu64 " ticks\n",
				(uint64_t)EXSIM_MAX_TICKS);
			return -1;
		}
		n = n && (c->count_set || c->prices_path) ? min_u64(n, (uint64_t)d) : (uint64_t)d;
	}
	*total = n;
	return 0;
}

/*
 * In a namespace made by 'ip netns add' (entered by 'ip netns exec' or
 * nsenter)?  Fails closed: anything else, the host's own network included,
 * is "no".  (/proc/1/ns/net, the obvious comparison, may not be readable.)
 */
static bool in_named_netns(void)
{
	struct stat self, named;
	struct dirent *d;
	bool found = false;
	DIR *dir;

	if (stat("/proc/self/ns/net", &self))
		return false;
	dir = opendir(NETNS_RUN_DIR);
	if (!dir)
		return false;
	while (!found && (d = readdir(dir))) {
		char path[512];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), NETNS_RUN_DIR "/%s", d->d_name);
		found = !stat(path, &named) && named.st_dev == self.st_dev &&
			named.st_ino == self.st_ino;
	}
	closedir(dir);
	return found;
}

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "exsim: --cpu %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct exsim_cfg cfg;
	static struct feed feed;
	static struct sink sink;
	static struct fill_book book;
	static struct gen gen;
	static struct exsim_run run;
	static struct rereq rereq;
	static struct hostile hostile;
	static struct attack attack;
	struct sigaction sa = { .sa_handler = on_signal };
	struct loop L = { 0 };
	uint32_t *prices = NULL;
	size_t nprices = 0;
	uint64_t now, dur_end = 0;
	char err[256];
	int ret = EXIT_RUNTIME, rc;

	rc = exsim_parse_args(&cfg, argc, argv);
	if (rc)
		return rc > 0 ? 0 : EXIT_USAGE;
	feed.fd = sink.fd = rereq.fd = hostile.pkt_fd = -1;

	if (cfg.prices_path) {
		if (prices_load(cfg.prices_path, &prices, &nprices, err, sizeof(err)) < 0) {
			fprintf(stderr, "exsim: --prices: %s\n", err);
			return EXIT_USAGE;
		}
		if (!nprices) {
			fprintf(stderr, "exsim: --prices: %s holds no prices\n", cfg.prices_path);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (plan_ticks(&cfg, nprices, &run.total)) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (cfg.feed_mcast && !cfg.host_netns && !in_named_netns()) {
		fprintf(stderr, "exsim: refusing to multicast the feed outside a named "
			"network namespace (it would leave on this host's own network); "
			"run it in the rig's exchange namespace (ip netns exec <prefix>-ex "
			"...) or pass --host-netns\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (cfg.hostile_per_1000 > 0 && (cfg.hostile_mask & HOSTILE_FRAMES) &&
	    !cfg.host_netns && !in_named_netns()) {
		fprintf(stderr, "exsim: refusing to send hostile frames (truncated_frame, "
			"bad_checksum, other_port, other_address) outside a named network "
			"namespace; run it in the rig, leave them out with "
			"--hostile-classes, or pass --host-netns\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (cfg.cpu >= 0 && pin_cpu(cfg.cpu))
		goto out;

	run.cfg = &cfg;
	run.feed = &feed;
	run.sink = &sink;
	run.book = &book;
	run.rereq = &rereq;
	run.hostile = &hostile;
	run.attack = &attack;
	hdr_reset(&run.lag);
	if (fill_init(&book, cfg.symbols, cfg.nsym, cfg.max_shares)) {
		fprintf(stderr, "exsim: out of memory\n");
		goto out;
	}
	gen_init(&gen, &cfg, prices, nprices);
	if (feed_open(&feed, &cfg, run.total,
		      cfg.rereq_port || cfg.hostile_per_1000 > 0, err, sizeof(err)) ||
	    sink_open(&sink, &cfg, &book, &feed, err, sizeof(err)) ||
	    rereq_open(&rereq, &cfg, &feed, err, sizeof(err)) ||
	    hostile_open(&hostile, &cfg, &feed, err, sizeof(err))) {
		fprintf(stderr, "exsim: %s\n", err);
		goto out;
	}
	attack_init(&attack, &cfg, &feed);

	/* Exact sleeps: the default 50 us timer slack would make every
	 * ppoll() wake-up late by up to that much. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	L.r = &run;
	L.hb_ns = (uint64_t)cfg.heartbeat_ms * NS_PER_MS;
	L.spin_ns = cfg.spin_ns;
	L.progress = !cfg.quiet && isatty(STDERR_FILENO);

	run.t_start = mono_ns();
	L.next_progress = run.t_start + NS_PER_SEC;
	attack_before_session(&attack);
	if (open_session(&feed, &gen, &book, cfg.nsym)) {
		fprintf(stderr, "exsim: sequence log full\n");
		goto out;
	}
	now = wait_until(&L, run.t_start + (uint64_t)cfg.warmup_ms * NS_PER_MS);
	feed_start_schedule(&feed, now);
	if (cfg.duration_s > 0 && cfg.rate == 0)
		dur_end = now + (uint64_t)(cfg.duration_s * 1e9);

	publish(&L, &gen, &book, dur_end);

	if (!stop)
		wait_until(&L, mono_ns() + (uint64_t)cfg.linger_ms * NS_PER_MS);
	close_session(&L, &book);
	L.ended = true;
	if (!stop)
		wait_until(&L, mono_ns() + (uint64_t)cfg.grace_ms * NS_PER_MS);
	sink_poll(&sink, UINT32_MAX);
	rereq_poll(&rereq, UINT32_MAX);
	run.t_end = mono_ns();
	run.interrupted = stop;
	if (L.progress)
		fputc('\n', stderr);

	report_text(&run, stdout);
	fflush(stdout);
	ret = 0;
	if (cfg.json_path && report_json(&run, cfg.json_path))
		ret = EXIT_RUNTIME;
	if (cfg.record_path && report_record(&run, cfg.record_path))
		ret = EXIT_RUNTIME;
	if (cfg.orders_log_path && report_orders(&run, cfg.orders_log_path))
		ret = EXIT_RUNTIME;
	if (cfg.fault_log_path && faults_write_log(&feed.fx, cfg.fault_log_path))
		ret = EXIT_RUNTIME;
out:
	hostile_close(&hostile);
	rereq_close(&rereq);
	sink_close(&sink);
	feed_close(&feed);
	fill_destroy(&book);
	free(prices);
	exsim_cfg_free(&cfg);
	return ret;
}
