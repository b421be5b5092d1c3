// SPDX-License-Identifier: MIT
/*
 * t2t-gateway: the tick-to-trade gateway.  The main thread sets everything up,
 * starts the hot loop on its own pinned thread, prints a status line once a
 * second, and at the end tears down (XDP detached first) and reports.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/huge_text.h"
#include "gateway/engine.h"
#include "gateway/host.h"
#include "gateway/mon.h"
#include "gateway/opts.h"
#include "gateway/path.h"
#include "gateway/queues.h"
#include "gateway/report.h"

static struct run_ctl ctl;
static volatile sig_atomic_t kill_requested;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		kill_requested = 1;
	else
		ctl.stop = 1;
}

struct hot {
	const struct gw_opts *o;
	struct gw_engine *e;
	struct xsk_path *x;
	struct udp_path *u;
	volatile int done;
	char err[160];
};

static void *hot_loop(void *arg)
{
	struct hot *h = arg;

	if (h->o->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(h->o->cpu, &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
			snprintf(h->err, sizeof(h->err), "cannot pin to CPU %d", h->o->cpu);
	}
	if (h->o->fifo) {
		struct sched_param sp = { .sched_priority = 50 };

		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
			snprintf(h->err, sizeof(h->err), "SCHED_FIFO refused");
	}
	if (h->x)
		xsk_path_run(h->x, h->e, &ctl);
	else
		udp_path_run(h->u, h->e, &ctl);
	h->done = 1;
	return NULL;
}

static double since(uint64_t t0)
{
	return (double)(mono_ns() - t0) / 1e9;
}

/* Everything one run of the gateway owns, set up and torn down by main(). */
struct run {
	struct gw_opts o;
	struct gw_engine engine;
	struct gw_mon mon;
	struct xsk_path xp;
	struct udp_path up;
	struct gw_report rep;
	struct hot h;
	struct gw_host host;
	uint64_t t0;
};

/* Output files are written at exit: find out now that they cannot be. */
static int check_outputs(const struct gw_opts *o)
{
	const char *outs[] = { o->json, o->orders_out, o->capture };

	for (unsigned int i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
		FILE *f;

		if (!outs[i])
			continue;
		f = fopen(outs[i], "a");
		if (!f) {
			fprintf(stderr, "t2t-gateway: cannot write %s: %s\n", outs[i],
				strerror(errno));
			return -1;
		}
		fclose(f);
	}
	return 0;
}

/*
 * The code onto a 2 MB page, before anything is locked or any thread runs:
 * an order's send after a quiet spell then finds its code's TLB entry.
 */
static void move_code(const struct gw_opts *o)
{
	struct huge_text t;
	char err[160];

	if (o->no_huge_text)
		return;
	if (huge_text_remap(&t, err, sizeof(err))) {
		fprintf(stderr, "t2t-gateway: note: code left on 4 KB pages: %s\n", err);
		return;
	}
	if (t.huge_bytes < t.size)
		fprintf(stderr, "t2t-gateway: note: code copied to a %zu MB range, %zu MB of "
			"it on huge pages (THP off, or no free 2 MB page: "
			"/sys/kernel/mm/transparent_hugepage/enabled)\n",
			t.size >> 20, t.huge_bytes >> 20);
}

/* What absorbs a stall, and what it costs. */
static void print_memory(const struct run *r)
{
	const struct gw_engine *e = &r->engine;

	if (r->h.x && !r->xp.q.area.hugepages) {
		char pages[64];

		table_mem_describe(&r->xp.q.area.mem, pages, sizeof(pages));
		fprintf(stderr, "t2t-gateway: note: no 2 MB hugepages reserved "
			"(/proc/sys/vm/nr_hugepages); UMEM on %s pages\n", pages);
	}
	fprintf(stderr, "t2t-gateway: memory: ");
	if (r->h.x)
		fprintf(stderr, "UMEM %.1f MB (RX ring %u packets x %u queue%s), ",
			(double)r->xp.q.area.size / 1048576, r->o.ring_size, r->xp.q.n,
			r->xp.q.n == 1 ? "" : "s");
	fprintf(stderr, "hold area %.1f MB (%u packets), order log %.1f MB (%u orders)",
		(double)r->o.eng.gap.hold * GAP_HOLD_MTU / 1048576, r->o.eng.gap.hold,
		(double)(e->ord.mask + 1) * sizeof(struct gw_order) / 1048576, e->ord.mask + 1);
	if (e->book) {
		char pages[64];

		book_describe_pages(e->book, pages, sizeof(pages));
		fprintf(stderr, ", books %.1f MB on %s pages (%u orders)",
			(double)e->book->mem.size / 1048576, pages, e->book->max_orders);
	}
	fputc('\n', stderr);
}

/* The engine, the path, the monitor segment.  0, or -1 after saying why. */
static int open_run(struct run *r)
{
	char err[256];
	int ret;

	if (engine_init(&r->engine, &r->o.eng, err, sizeof(err))) {
		fprintf(stderr, "t2t-gateway: %s\n", err);
		return -1;
	}
	if (r->o.mode == GW_MODE_XDP) {
		ret = xsk_path_open(&r->xp, &r->o, err, sizeof(err));
		r->h.x = r->rep.x = &r->xp;
	} else {
		ret = udp_path_open(&r->up, &r->o, err, sizeof(err));
		r->h.u = r->rep.u = &r->up;
	}
	if (ret) {
		fprintf(stderr, "t2t-gateway: %s\n", err);
		goto fail_engine;
	}
	print_memory(r);
	if (r->h.x) {
		char desc[384];

		gw_queues_describe(&r->xp, &r->o, desc, sizeof(desc));
		fprintf(stderr, "t2t-gateway: AF_XDP on %s\n", desc);
	}
	r->h.o = r->rep.o = &r->o;
	r->h.e = r->rep.e = &r->engine;
	if (!r->o.monitor || strcmp(r->o.monitor, "off")) {
		const char *name = r->o.monitor ? r->o.monitor : r->o.ifname;

		if (gw_mon_open(&r->mon, name, &r->rep, err, sizeof(err))) {
			fprintf(stderr, "t2t-gateway: %s (--monitor NAME names another, "
				"--monitor off publishes none)\n", err);
			goto fail_path;
		}
		ctl.mon = &r->mon;
	}
	return 0;
fail_path:
	if (r->h.x)
		xsk_path_close(&r->xp);
	else
		udp_path_close(&r->up);
fail_engine:
	engine_destroy(&r->engine);
	return -1;
}

static void close_run(struct run *r)
{
	if (ctl.mon) {
		/* The run's last state stays readable until the segment closes. */
		gw_mon_poll(ctl.mon, mono_ns(), true);
		gw_mon_close(ctl.mon);
	}
	if (r->h.x)
		xsk_path_close(&r->xp);
	else
		udp_path_close(&r->up);
	engine_destroy(&r->engine);
}

/*
 * Keep this thread (and the status line) off the hot loop's CPU: with
 * nothing else runnable there, the loop is never preempted by us.
 */
static void leave_hot_cpu(int cpu)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	for (long c = 0; c < ncpu; c++)
		if (c != cpu)
			CPU_SET(c, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

/* What the order session did since the main thread last looked. */
struct session_seen {
	uint64_t accepted, lost, refused, rejected, ended;
	bool refusing;		/* said once per streak of refused connections */
	struct session_alerts alerts;
};

static const struct order_conn *session_of(const struct run *r)
{
	return r->h.x ? &r->xp.xs.oc : &r->up.oc;
}

/* The session's events, one line each, as the hot loop cannot print. */
static void watch_session(const struct run *r, struct session_seen *seen)
{
	const struct order_conn *oc = session_of(r);
	const struct soup_client_stats *s;
	uint64_t lost = 0;

	if (r->o.eng.paper.on)
		return;
	s = &oc->soup.st;
	for (int i = 0; i < OC_LOST_NR; i++)
		if (i != OC_LOST_REFUSED)
			lost += oc->st.lost[i];
	if (lost != seen->lost) {
		seen->lost = lost;
		fprintf(stderr, "t2t-gateway: order session: connection lost (%s); no orders "
			"until the next login\n", oc_lost_names[oc->last_lost]);
	}
	if (oc->st.lost[OC_LOST_REFUSED] != seen->refused) {
		seen->refused = oc->st.lost[OC_LOST_REFUSED];
		if (!seen->refusing)
			fprintf(stderr, "t2t-gateway: order session: the exchange refused the "
				"connection (nothing listens at --exchange?); trying again\n");
		seen->refusing = true;
	}
	if (s->accepted != seen->accepted) {
		seen->refusing = false;
		seen->accepted = s->accepted;
		fprintf(stderr, "t2t-gateway: order session: logged in to %.10s (login %" PRIu64
			", next reply %" PRIu64 ")\n", oc->soup.session, s->accepted,
			oc->soup.next_seq);
	}
	if (s->rejected != seen->rejected) {
		seen->rejected = s->rejected;
		fprintf(stderr, "t2t-gateway: order session: login REJECTED by the exchange (%s); "
			"no orders will be sent\n", oc->soup.reject_reason == SOUP_REJECT_NO_SESSION ?
			"session not available: check --soup-session" :
			"not authorized: check --login USER:PASSWORD");
	}
	report_session_alerts(stderr, oc, &seen->alerts);
	if (s->ends != seen->ended) {
		seen->ended = s->ends;
		fprintf(stderr, "t2t-gateway: order session: the exchange ended the session "
			"(End of Session); no more orders\n");
	}
}

/*
 * The main thread while the hot loop runs: what the loop cannot do itself
 * (log, read the kill file, the monitor's counters, the status line).
 */
static void supervise(struct run *r)
{
	struct gw_engine *e = &r->engine;
	uint64_t prev_ticks = 0, last_status = r->t0, last_mon = 0, last_queues = 0;
	struct session_seen seen = { 0 };
	static struct gw_queues_seen queues_seen;
	bool stale_reported = false;

	while (!r->h.done && !ctl.stop) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		if (r->h.err[0]) {
			fprintf(stderr, "t2t-gateway: warning: %s\n", r->h.err);
			r->h.err[0] = '\0';
		}
		if (r->o.duration > 0 && since(r->t0) >= r->o.duration)
			ctl.stop = 1;
		watch_session(r, &seen);
		/* A steered flow on a queue nobody reads: said within a second. */
		if (r->h.x && mono_ns() - last_queues >= NS_PER_SEC / 2) {
			last_queues = mono_ns();
			gw_queues_watch(stderr, &r->xp, &r->o, r->xp.flows, r->xp.n_flows,
					&queues_seen);
		}
		if (e->gap.stale && !stale_reported) {
			stale_reported = true;
			fprintf(stderr, "t2t-gateway: feed session STALE at sequence %" PRIu64
				": %s; no more orders for it\n", e->dec.next_seq, e->gap.why);
		}
		/* The kill switch: polled here, enforced by the hot loop per order. */
		if (!e->risk.killed && (kill_requested ||
					(r->o.kill_file && access(r->o.kill_file, F_OK) == 0))) {
			e->risk.killed = 1;
			fprintf(stderr, "t2t-gateway: KILL SWITCH engaged (%s): no new orders "
				"from now on\n", kill_requested ? "SIGUSR1" : r->o.kill_file);
		}
		if (ctl.mon && mono_ns() - last_mon >= GW_MON_PERIOD_NS) {
			last_mon = mono_ns();
			gw_mon_poll(ctl.mon, last_mon, false);
		}
		if (!r->o.quiet && mono_ns() - last_status >= NS_PER_SEC) {
			report_status(stderr, &r->rep, (double)(mono_ns() - last_status) / 1e9,
				      &prev_ticks);
			last_status = mono_ns();
		}
	}
}

/* Report needs the socket's kernel counters: called before the path closes. */
static void report_run(struct run *r)
{
	int ret;

	r->rep.elapsed_s = since(r->t0);
	if (report_build(&r->rep))
		fprintf(stderr, "t2t-gateway: out of memory for the latency report\n");
	report_summary(stdout, &r->rep);
	if (r->o.json && (ret = report_json(r->o.json, &r->rep)))
		fprintf(stderr, "t2t-gateway: %s: %s\n", r->o.json, strerror(-ret));
	if (r->o.orders_out && (ret = report_orders_csv(r->o.orders_out, &r->rep)))
		fprintf(stderr, "t2t-gateway: %s: %s\n", r->o.orders_out, strerror(-ret));
	report_free(&r->rep);
}

int main(int argc, char **argv)
{
	static struct run r;
	struct sigaction sa = { .sa_handler = on_signal };
	pthread_t th;
	int ret;

	ret = opts_parse(&r.o, argc, argv);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (r.o.check_host) {
		leave_hot_cpu(r.o.cpu);
		return gw_host_check(&r.o);
	}
	if (check_outputs(&r.o))
		return 1;
	if (geteuid() != 0 && r.o.mode == GW_MODE_XDP) {
		fprintf(stderr, "t2t-gateway: AF_XDP needs root (CAP_NET_ADMIN, CAP_BPF, "
			"CAP_IPC_LOCK); run as root or use --mode udp\n");
		return 1;
	}
	move_code(&r.o);
	/* Nothing the hot loop touches may page-fault later. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "t2t-gateway: note: mlockall failed (%s); memory not locked\n",
			strerror(errno));
	if (open_run(&r))
		return 1;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	ctl.exit_on_end = r.o.exit_on_end;
	ctl.grace_ns = (uint64_t)(r.o.grace * 1e9);
	fprintf(stderr, "t2t-gateway: %s path on %s, %u instrument(s), hot loop on CPU %d; "
		"Ctrl-C to stop\n", path_name(&r.o), r.o.ifname, r.o.eng.n_inst, r.o.cpu);
	r.t0 = mono_ns();
	ret = pthread_create(&th, NULL, hot_loop, &r.h);
	if (ret) {
		fprintf(stderr, "t2t-gateway: cannot start the hot loop: %s\n", strerror(ret));
	} else {
		leave_hot_cpu(r.o.cpu);
		gw_host_start(&r.host, &r.o, &ctl.stop);
		supervise(&r);
		ctl.stop = 1;
		pthread_join(th, NULL);
		gw_host_join(&r.host);
	}
	report_run(&r);
	close_run(&r);
	return 0;
}
