// SPDX-License-Identifier: MIT
/*
 * t2t-exsim: the exchange simulator (netns/exsim/README.md).
 *
 * One thread.  The session, for the live sources: the opening (system
 * events O S, the stock directory, ..., Q) at once; --warmup; the units
 * (the day's messages, or GBM ticks) on their schedule; --linger; the
 * close (M E C); a heartbeat; end of session three times; --grace; the
 * order session's End of Session; --after-end; the summary.  A replay publishes its file on the file's schedule, then
 * --linger and the end of session.  Between sends it waits in
 * ppoll() on the order server (its epoll set: the listener and the
 * connections) and the re-request socket until --spin-us before the next
 * send time and
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

#include "netns/exsim/cpu_pick.h"
#include "netns/exsim/attack.h"
#include "netns/exsim/bookfill.h"
#include "netns/exsim/daysrc.h"
#include "netns/exsim/exsim.h"
#include "netns/exsim/feed.h"
#include "netns/exsim/fill.h"
#include "netns/exsim/gen.h"
#include "netns/exsim/genday.h"
#include "netns/exsim/hostile.h"
#include "netns/exsim/replay.h"
#include "netns/exsim/report.h"
#include "netns/exsim/rereq.h"
#include "netns/exsim/sink.h"
#include "strategy/prices.h"
#include "util/clock.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

#define ORDERS_PER_POLL	64
/* Close to a send, a recvmsg() would make it late: stop polling orders. */
#define POLL_GUARD_NS	3000
/* At --rate 0 there is no waiting: look at the order port this often. */
#define FLAT_OUT_POLL_NS 5000
#define END_OF_SESSION_COPIES 3
#define NETNS_RUN_DIR	"/var/run/netns"
/* Longest message the live sources write (ITCH 5.0's longest, I). */
#define LIVE_MSG_MAX	50

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
	fprintf(stderr, "\rt2t-exsim: %.0f s  units %" PRIu64 "/%" PRIu64
		"  packets %" PRIu64 "  orders %" PRIu64 " (filled %" PRIu64
		", canceled %" PRIu64 ", rejected %" PRIu64 ")",
		(double)(now - L->r->t_start) / 1e9, L->r->feed->units_sent,
		L->r->total, L->r->feed->st.packets, L->r->sink->st.orders, n->executed,
		n->canceled, n->rejected);
	if (L->r->feed->paced && hdr_count(&L->r->lag))
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
	sink_poll(L->r->sink, ORDERS_PER_POLL, mono_ns());
	rereq_poll(L->r->rereq, REREQ_PER_POLL);
}

/*
 * Wait until @deadline.  Within spin_ns of a send, before (so it leaves on
 * time) or after it (when the orders it triggers come in), spin and read the
 * order port; otherwise sleep in ppoll() on the order port, whose wake-up a
 * virtual machine may delay by milliseconds, never past the order server's
 * next timer (its heartbeats, timeouts, read pauses).  Heartbeats go out
 * after hb_ns without a packet.  Returns the time, early on a signal.
 */
static uint64_t wait_until(struct loop *L, uint64_t deadline)
{
	struct feed *f = L->r->feed;

	for (;;) {
		uint64_t now = mono_ns(), left, until;

		/* Delayed packets (line A's, line B's copies) leave when due. */
		feed_flush_lines(f, now, false);
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
		if (now >= f->last_send_ns + L->hb_ns && !L->ended) {
			feed_heartbeat(f);
			continue;
		}
		progress(L, now);
		if (sink_next_due(L->r->sink) <= now) {
			serve_ports(L);
			continue;
		}
		until = min_u64(deadline, feed_lines_due(f));
		left = until > now ? until - now : 0;
		if (left > L->spin_ns && now > f->last_send_ns + L->spin_ns) {
			uint64_t nap = left - L->spin_ns;
			struct pollfd p[2] = {
				{ .fd = sink_fd(L->r->sink), .events = POLLIN },
				{ .fd = L->r->rereq->fd, .events = POLLIN },	/* -1: ignored */
			};
			struct timespec ts;

			if (!L->ended)
				nap = min_u64(nap, f->last_send_ns + L->hb_ns - now);
			if (L->progress)
				nap = min_u64(nap, L->next_progress - now);
			nap = min_u64(nap, sink_next_due(L->r->sink) - now);
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

/* The GBM session's opening; market hours start with the Q (fill.h). */
static int open_session(struct feed *f, const struct gen *g, unsigned int nsym)
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
	return 0;
}

/* The source's units on their schedule (or flat out), until its part ends. */
static void publish(struct loop *L, uint64_t dur_end)
{
	struct exsim_run *r = L->r;
	struct feed *f = L->r->feed;
	uint64_t last_poll = 0;

	feed_stage(f);
	while (!stop && f->nunits) {
		uint64_t now, sent;
		unsigned int k, j;

		if (f->paced) {
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
		sent = feed_send_units(f, k);
		if (f->paced)
			for (j = 0; j < k; j++)
				hdr_record(&r->lag, (int64_t)(sent - f->unit[j].intended));
		if (!r->t_first)
			r->t_first = sent;
		r->t_last = sent;
		feed_consume(f, k);
		/* after consume: the poison frames take the next number */
		hostile_after_packet(L->r->hostile);
		attack_after_packet(L->r->attack);
		feed_stage(f);
	}
	feed_discard(f);
}

/*
 * The end: a heartbeat, then end of session, three times (no more
 * heartbeats); the order session ends after --grace (run_session()).
 */
static void end_session(struct loop *L)
{
	int i;

	feed_heartbeat(L->r->feed);
	for (i = 0; i < END_OF_SESSION_COPIES; i++)
		feed_end_of_session(L->r->feed);
	/* Delayed packets still waiting go now: nothing is left unsent. */
	feed_flush_lines(L->r->feed, mono_ns(), true);
	L->ended = true;
}

static void close_session(struct loop *L)
{
	struct feed *f = L->r->feed;

	system_event(f, 'M');
	system_event(f, 'E');
	system_event(f, 'C');
	end_session(L);
}

/* Ticks to publish, from --count, --duration, --rate and the price file. */
static int plan_ticks(const struct exsim_cfg *c, uint64_t nprices, uint64_t *total)
{
	uint64_t n = c->count;

	if (c->prices_path) {
		if (c->count_set && c->count > nprices) {
			fprintf(stderr, "t2t-exsim: --count %" PRIu64 ": %s has only %" PRIu64
				" prices\n", c->count, c->prices_path, nprices);
			return -1;
		}
		n = c->count_set ? c->count : nprices;
	}
	if (c->duration_s > 0 && c->rate > 0) {
		double d = llround(c->rate * c->duration_s);

		if (d < 1) {
			fprintf(stderr, "t2t-exsim: --rate %g x --duration %g is less than one tick\n",
				c->rate, c->duration_s);
			return -1;
		}
		if (d > (double)EXSIM_MAX_TICKS) {
			fprintf(stderr, "t2t-exsim: --rate x --duration is over %" PRIu64 " ticks\n",
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
		fprintf(stderr, "t2t-exsim: --cpu %d: %s\n", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

/* Everything one run owns; static: a few of them are large. */
struct sim {
	struct exsim_cfg cfg;
	struct feed feed;
	struct sink sink;
	struct fill_book book;
	struct bookfill bf;
	struct gen gen;
	struct daysrc day;
	struct replay replay;
	struct exsim_run run;
	struct rereq rereq;
	struct hostile hostile;
	struct attack attack;
	uint32_t *prices;
	size_t nprices;
};

/* The GBM session: opening, ticks, close. */
static int run_gbm(struct sim *S, struct loop *L)
{
	uint64_t now, dur_end = 0;

	if (open_session(&S->feed, &S->gen, S->cfg.nsym)) {
		fprintf(stderr, "t2t-exsim: sequence log full\n");
		return EXIT_RUNTIME;
	}
	now = wait_until(L, S->run.t_start + (uint64_t)S->cfg.warmup_ms * NS_PER_MS);
	feed_start_schedule(&S->feed, now);
	if (S->cfg.duration_s > 0 && S->cfg.rate == 0)
		dur_end = now + (uint64_t)(S->cfg.duration_s * 1e9);
	publish(L, dur_end);
	if (!stop)
		wait_until(L, mono_ns() + (uint64_t)S->cfg.linger_ms * NS_PER_MS);
	close_session(L);
	return 0;
}

/* The generated day: its opening at once, its body paced, its close. */
static int run_day(struct sim *S, struct loop *L)
{
	uint64_t now, dur_end = 0;

	feed_publish_part(&S->feed);
	daysrc_next_part(&S->day);
	feed_next_part(&S->feed);
	now = wait_until(L, S->run.t_start + (uint64_t)S->cfg.warmup_ms * NS_PER_MS);
	feed_start_schedule(&S->feed, now);
	if (S->cfg.duration_s > 0 && S->cfg.rate == 0)
		dur_end = now + (uint64_t)(S->cfg.duration_s * 1e9);
	publish(L, dur_end);
	if (!S->day.part_over)
		daysrc_cut(&S->day);
	if (!stop)
		wait_until(L, mono_ns() + (uint64_t)S->cfg.linger_ms * NS_PER_MS);
	daysrc_next_part(&S->day);
	feed_next_part(&S->feed);
	feed_publish_part(&S->feed);
	end_session(L);
	return 0;
}

/*
 * A day file at its own pace.  An error in the file stops it: what was
 * read before is published, then the end of session, then the error.
 */
static int run_replay(struct sim *S, struct loop *L)
{
	const char *miss;
	uint64_t now;

	S->feed.last_send_ns = S->run.t_start;	/* no heartbeat before the start */
	now = wait_until(L, S->run.t_start + (uint64_t)S->cfg.warmup_ms * NS_PER_MS);
	feed_start_schedule(&S->feed, now);
	publish(L, 0);
	if (S->replay.failed)
		fprintf(stderr, "t2t-exsim: --replay stopped: %s\n", S->replay.err);
	else if (!stop)
		wait_until(L, mono_ns() + (uint64_t)S->cfg.linger_ms * NS_PER_MS);
	end_session(L);
	if (S->replay.failed)
		return EXIT_RUNTIME;
	miss = itch_filter_missing(&S->replay.filt);
	if (miss && !stop) {
		int n = ITCH_SYMBOL_LEN;

		while (n > 1 && miss[n - 1] == ' ')
			n--;
		fprintf(stderr, "t2t-exsim: --symbols %.*s is not in the day's stock directory\n",
			n, miss);
		return EXIT_RUNTIME;
	}
	return 0;
}

/* Sizes of the logs and the store for the source (feed.h). */
static void plan_feed(const struct sim *S, struct feed_plan *p)
{
	const struct exsim_cfg *c = &S->cfg;
	bool store = c->rereq_port || c->hostile_per_1000 > 0;
	/* A trade and at most ceil(noise) noise messages per tick. */
	uint64_t per_tick = 1 + (uint64_t)ceil(c->noise);

	memset(p, 0, sizeof(*p));
	switch (c->source) {
	case EXSIM_SRC_GBM:
		/* Seq 0 unused; system events, directory, ticks with their noise. */
		p->seq_cap = 1 + 16 + c->nsym + S->run.total * per_tick;
		p->record_cap = c->record_path ? S->run.total : 0;
		break;
	case EXSIM_SRC_DAY:
		/* The day's messages, and a close of our own if it is cut. */
		p->seq_cap = 1 + 16 + S->run.total;
		p->record_cap = c->record_path ? S->run.total : 0;
		break;
	case EXSIM_SRC_REPLAY:
		p->seq_cap = UINT64_MAX;
		p->seq_win = c->window;
		p->store_bytes = store ? c->window * EXSIM_REPLAY_MSG_BYTES + STORE_MSG_MAX : 0;
		p->record_cap = c->record_path ? FEED_RECORD_RESERVE : 0;
		return;
	}
	p->seq_win = p->seq_cap;
	p->store_bytes = store ? p->seq_cap * LIVE_MSG_MAX + STORE_MSG_MAX : 0;
}

/* The source, the book the fills use, and the feed's view of both. */
static int open_source(struct sim *S, char *err, size_t errlen)
{
	struct exsim_cfg *c = &S->cfg;
	uint32_t orders = c->book_orders;
	int ret;

	if (c->source != EXSIM_SRC_GBM) {
		if (!orders && c->source == EXSIM_SRC_DAY && S->run.total < BOOK_DEFAULT_ORDERS)
			orders = (uint32_t)S->run.total;
		ret = bookfill_init(&S->bf, orders);
		if (ret) {
			snprintf(err, errlen, "the book (%u orders): %s",
				 orders ? orders : BOOK_DEFAULT_ORDERS, strerror(-ret));
			return -1;
		}
		S->run.bf = &S->bf;
	}
	if (fill_init(&S->book, c->max_shares, S->run.bf)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	switch (c->source) {
	case EXSIM_SRC_GBM:
		gen_init(&S->gen, c, S->prices, S->nprices);
		gen_plan(&S->gen, S->run.total, c->rate, c->burst);
		return 0;
	case EXSIM_SRC_DAY:
		return daysrc_open(&S->day, c, S->run.total, err, errlen);
	case EXSIM_SRC_REPLAY:
		if (replay_open(&S->replay, c, err, errlen))
			return -1;
		S->run.replay = &S->replay;
		return 0;
	}
	return -1;
}

static void set_source(struct sim *S)
{
	const struct exsim_cfg *c = &S->cfg;

	switch (c->source) {
	case EXSIM_SRC_GBM:
		feed_set_source(&S->feed, gen_feed_next, &S->gen, c->rate > 0, true);
		break;
	case EXSIM_SRC_DAY:
		feed_set_source(&S->feed, daysrc_next, &S->day, c->rate > 0, true);
		break;
	case EXSIM_SRC_REPLAY:
		/* The day's own timestamps go out as they are. */
		feed_set_source(&S->feed, replay_next, &S->replay, c->speed > 0, false);
		break;
	}
	feed_set_hook(&S->feed, fill_on_publish, &S->book);
}

/* The multicast feed and raw frames stay inside a rig's namespace. */
static int check_netns(const struct exsim_cfg *c)
{
	if (c->feed_mcast && !c->host_netns && !in_named_netns()) {
		fprintf(stderr, "t2t-exsim: refusing to multicast the feed outside a named "
			"network namespace (it would leave on this host's own network); "
			"run it in the rig's exchange namespace (ip netns exec <prefix>-ex "
			"...) or pass --host-netns\n");
		return -1;
	}
	if (c->hostile_per_1000 > 0 && (c->hostile_mask & HOSTILE_FRAMES) &&
	    !c->host_netns && !in_named_netns()) {
		fprintf(stderr, "t2t-exsim: refusing to send hostile frames (truncated_frame, "
			"bad_checksum, other_port, other_address) outside a named network "
			"namespace; run it in the rig, leave them out with "
			"--hostile-classes, or pass --host-netns\n");
		return -1;
	}
	return 0;
}

static int write_outputs(struct sim *S)
{
	const struct exsim_cfg *c = &S->cfg;
	int ret = 0;

	report_text(&S->run, stdout);
	fflush(stdout);
	if (c->json_path && report_json(&S->run, c->json_path))
		ret = EXIT_RUNTIME;
	if (c->record_path && report_record(&S->run, c->record_path))
		ret = EXIT_RUNTIME;
	if (c->orders_log_path && report_orders(&S->run, c->orders_log_path))
		ret = EXIT_RUNTIME;
	if (c->fault_log_path && faults_write_log(&S->feed.fx, c->fault_log_path))
		ret = EXIT_RUNTIME;
	return ret;
}

/* --prices, the tick plan, the namespace and the CPU: 0 or the exit status. */
static int check_run(struct sim *S)
{
	struct exsim_cfg *cfg = &S->cfg;
	char err[DAYFILE_ERR_LEN + 64];

	if (cfg->prices_path) {
		if (prices_load(cfg->prices_path, &S->prices, &S->nprices, err,
				sizeof(err)) < 0) {
			fprintf(stderr, "t2t-exsim: --prices: %s\n", err);
			return EXIT_USAGE;
		}
		if (!S->nprices) {
			fprintf(stderr, "t2t-exsim: --prices: %s holds no prices\n",
				cfg->prices_path);
			return EXIT_USAGE;
		}
	}
	if ((cfg->source != EXSIM_SRC_REPLAY && plan_ticks(cfg, S->nprices, &S->run.total)) ||
	    check_netns(cfg))
		return EXIT_USAGE;
	if (cfg->cpu == EXSIM_CPU_AUTO) {
		char why[96];

		cfg->cpu = cpu_pick(why, sizeof(why));
		if (cfg->cpu >= 0)
			fprintf(stderr, "t2t-exsim: on CPU %d, off the gateway's (%s; --cpu N or "
				"any to choose)\n", cfg->cpu, why);
		else
			fprintf(stderr, "t2t-exsim: not pinned: %s\n", why);
	}
	if (cfg->cpu >= 0 && pin_cpu(cfg->cpu))
		return EXIT_RUNTIME;
	return 0;
}

static void link_run(struct sim *S)
{
	S->run.cfg = &S->cfg;
	S->run.feed = &S->feed;
	S->run.sink = &S->sink;
	S->run.book = &S->book;
	S->run.rereq = &S->rereq;
	S->run.hostile = &S->hostile;
	S->run.attack = &S->attack;
	hdr_reset(&S->run.lag);
}

/* The source, then the sockets: 0 or the exit status. */
static int open_run(struct sim *S)
{
	struct exsim_cfg *cfg = &S->cfg;
	char err[DAYFILE_ERR_LEN + 64];
	struct feed_plan plan;

	if (open_source(S, err, sizeof(err))) {
		fprintf(stderr, "t2t-exsim: %s\n", err);
		/* A day the generator refuses is a usage error; a file, memory: run time. */
		return cfg->source == EXSIM_SRC_DAY && !S->day.g && S->book.sym ? EXIT_USAGE :
		       EXIT_RUNTIME;
	}
	plan_feed(S, &plan);
	if (feed_open(&S->feed, cfg, &plan, err, sizeof(err)) ||
	    sink_open(&S->sink, cfg, &S->book, &S->feed, err, sizeof(err)) ||
	    rereq_open(&S->rereq, cfg, &S->feed, err, sizeof(err)) ||
	    hostile_open(&S->hostile, cfg, &S->feed, err, sizeof(err))) {
		fprintf(stderr, "t2t-exsim: %s\n", err);
		return EXIT_RUNTIME;
	}
	set_source(S);
	attack_init(&S->attack, cfg, &S->feed);
	return 0;
}

static void init_loop(struct loop *L, struct sim *S)
{
	const struct exsim_cfg *cfg = &S->cfg;

	L->r = &S->run;
	L->hb_ns = (uint64_t)cfg->heartbeat_ms * NS_PER_MS;
	L->spin_ns = cfg->spin_ns;
	L->progress = !cfg->quiet && isatty(STDERR_FILENO);
}

/*
 * --wait-login: serve the ports until a client is logged in and has
 * acknowledged its Login Accepted, or the time is up: a feed started on the
 * Login Request alone would run unanswered while a lost Login Accepted waits
 * for its retransmission.
 */
static void wait_login(struct sim *S, struct loop *L)
{
	uint64_t end = mono_ns() + (uint64_t)S->cfg.wait_login_ms * NS_PER_MS;

	/* Nothing published yet: no feed heartbeats while waiting. */
	L->ended = true;
	while (!stop && !soup_srv_client_ready(&S->sink.srv) && mono_ns() < end)
		wait_until(L, mono_ns() + NS_PER_MS);
	L->ended = false;
}

/* The session of the source, --grace, the last orders: 0 or the exit status. */
static int run_session(struct sim *S, struct loop *L)
{
	int rc;

	if (S->cfg.wait_login_ms)
		wait_login(S, L);
	S->run.t_start = mono_ns();
	L->next_progress = S->run.t_start + NS_PER_SEC;
	attack_before_session(&S->attack);
	switch (S->cfg.source) {
	case EXSIM_SRC_GBM:
		rc = run_gbm(S, L);
		break;
	case EXSIM_SRC_DAY:
		rc = run_day(S, L);
		break;
	default:
		rc = run_replay(S, L);
		break;
	}
	/*
	 * Orders still on their way are served through --grace; then the
	 * order session ends too (End of Session), and its last words go out.
	 */
	if (!stop)
		wait_until(L, mono_ns() + (uint64_t)S->cfg.grace_ms * NS_PER_MS);
	sink_end(&S->sink, mono_ns());
	sink_poll(&S->sink, UINT32_MAX, mono_ns());
	if (!stop && S->cfg.after_end_ms)
		wait_until(L, mono_ns() + (uint64_t)S->cfg.after_end_ms * NS_PER_MS);
	rereq_poll(&S->rereq, UINT32_MAX);
	S->run.t_end = mono_ns();
	S->run.interrupted = stop;
	if (L->progress)
		fputc('\n', stderr);
	return rc;
}

static void close_run(struct sim *S)
{
	hostile_close(&S->hostile);
	rereq_close(&S->rereq);
	sink_close(&S->sink);
	feed_close(&S->feed);
	if (S->run.replay)
		replay_close(&S->replay);
	daysrc_close(&S->day);
	fill_destroy(&S->book);
	if (S->run.bf)
		bookfill_destroy(&S->bf);
	free(S->prices);
	exsim_cfg_free(&S->cfg);
}

int main(int argc, char **argv)
{
	static struct sim S;
	struct exsim_cfg *cfg = &S.cfg;
	struct sigaction sa = { .sa_handler = on_signal };
	struct loop L = { 0 };
	int ret, rc;

	rc = exsim_parse_args(cfg, argc, argv);
	if (rc)
		return rc > 0 ? 0 : EXIT_USAGE;
	if (cfg->gen_day_path) {
		ret = genday_run(cfg, stdout);
		exsim_cfg_free(cfg);
		return ret;
	}
	S.feed.fd = S.rereq.fd = S.hostile.pkt_fd = -1;
	sink_init_closed(&S.sink);

	ret = check_run(&S);
	if (ret)
		goto out;
	link_run(&S);
	ret = open_run(&S);
	if (ret)
		goto out;

	/* Exact sleeps: the default 50 us timer slack would make every
	 * ppoll() wake-up late by up to that much. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	init_loop(&L, &S);
	rc = run_session(&S, &L);
	ret = write_outputs(&S);
	if (rc)
		ret = rc;
out:
	close_run(&S);
	return ret;
}
