// SPDX-License-Identifier: MIT
/*
 * gateway: the tick-to-trade gateway.  The main thread sets everything up,
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
#include "gateway/engine.h"
#include "gateway/mon.h"
#include "gateway/opts.h"
#include "gateway/path.h"
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

int main(int argc, char **argv)
{
	static struct gw_engine engine;
	static struct gw_mon mon;
	struct xsk_path xp;
	struct udp_path up;
	struct gw_opts o;
	struct gw_report rep = { 0 };
	struct hot h = { 0 };
	struct sigaction sa = { 0 };
	uint64_t t0, prev_ticks = 0, last_status, last_mon = 0;
	int stale_reported = 0;
	pthread_t th;
	char err[256];
	int ret;

	ret = opts_parse(&o, argc, argv);
	if (ret)
		return ret == 1 ? 0 : 2;

	/* Output files are written at exit: find out now that they cannot be. */
	{
		const char *outs[] = { o.json, o.orders_out, o.capture };

		for (unsigned int i = 0; i < sizeof(outs) / sizeof(outs[0]); i++) {
			FILE *f;

			if (!outs[i])
				continue;
			f = fopen(outs[i], "a");
			if (!f) {
				fprintf(stderr, "t2t-gateway: cannot write %s: %s\n", outs[i],
					strerror(errno));
				return 1;
			}
			fclose(f);
		}
	}

	if (geteuid() != 0 && o.mode == GW_MODE_XDP) {
		fprintf(stderr, "t2t-gateway: AF_XDP needs root (CAP_NET_ADMIN, CAP_BPF, "
			"CAP_IPC_LOCK); run as root or use --mode udp\n");
		return 1;
	}
	/* Nothing the hot loop touches may page-fault later. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "t2t-gateway: note: mlockall failed (%s); memory not locked\n",
			strerror(errno));

	ret = engine_init(&engine, &o.eng, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "t2t-gateway: %s\n", err);
		return 1;
	}
	if (o.mode == GW_MODE_XDP) {
		ret = xsk_path_open(&xp, &o, err, sizeof(err));
		h.x = rep.x = &xp;
	} else {
		ret = udp_path_open(&up, &o, err, sizeof(err));
		h.u = rep.u = &up;
	}
	if (ret) {
		fprintf(stderr, "t2t-gateway: %s\n", err);
		engine_destroy(&engine);
		return 1;
	}
	if (h.x && !xp.port.hugepages)
		fprintf(stderr, "t2t-gateway: note: no 2 MB hugepages reserved "
			"(/proc/sys/vm/nr_hugepages); UMEM on 4 KB pages\n");
	/* What absorbs a stall, and what it costs. */
	fprintf(stderr, "t2t-gateway: memory: ");
	if (h.x)
		fprintf(stderr, "UMEM %.1f MB (RX ring %u packets), ",
			(double)xp.port.area_size / 1048576, o.ring_size);
	fprintf(stderr, "hold area %.1f MB (%u packets), order log %.1f MB (%u orders)",
		(double)o.eng.gap.hold * GAP_HOLD_MTU / 1048576, o.eng.gap.hold,
		(double)(engine.ord.mask + 1) * sizeof(struct gw_order) / 1048576,
		engine.ord.mask + 1);
	if (engine.book) {
		char pages[64];

		book_describe_pages(engine.book, pages, sizeof(pages));
		fprintf(stderr, ", books %.1f MB on %s pages (%u orders)", (double)
			engine.book->mem.size / 1048576, pages, engine.book->max_orders);
	}
	fputc('\n', stderr);

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	ctl.exit_on_end = o.exit_on_end;
	ctl.grace_ns = (uint64_t)(o.grace * 1e9);

	h.o = &o;
	h.e = &engine;
	rep.o = &o;
	rep.e = &engine;
	if (!o.monitor || strcmp(o.monitor, "off")) {
		const char *name = o.monitor ? o.monitor : o.ifname;

		ret = gw_mon_open(&mon, name, &rep, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "t2t-gateway: %s (--monitor NAME names another, "
				"--monitor off publishes none)\n", err);
			goto teardown_paths;
		}
		ctl.mon = &mon;
	}
	fprintf(stderr, "t2t-gateway: %s path on %s, %u instrument(s), hot loop on CPU %d; "
		"Ctrl-C to stop\n", path_name(&o), o.ifname, o.eng.n_inst, o.cpu);
	t0 = last_status = mono_ns();
	ret = pthread_create(&th, NULL, hot_loop, &h);
	if (ret) {
		fprintf(stderr, "t2t-gateway: cannot start the hot loop: %s\n", strerror(ret));
		ctl.stop = 1;
		goto teardown;
	}

	/*
	 * Keep this thread (and the status line) off the hot loop's CPU: with
	 * nothing else runnable there, the loop is never preempted by us.
	 */
	if (o.cpu >= 0) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		cpu_set_t set;

		CPU_ZERO(&set);
		for (long c = 0; c < ncpu; c++)
			if (c != o.cpu)
				CPU_SET(c, &set);
		if (CPU_COUNT(&set))
			sched_setaffinity(0, sizeof(set), &set);
	}

	while (!h.done && !ctl.stop) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		if (h.err[0]) {
			fprintf(stderr, "t2t-gateway: warning: %s\n", h.err);
			h.err[0] = '\0';
		}
		if (o.duration > 0 && since(t0) >= o.duration)
			ctl.stop = 1;
		/* The hot loop cannot log: say it here when the session went stale. */
		if (engine.gap.stale && !stale_reported) {
			stale_reported = 1;
			fprintf(stderr, "t2t-gateway: feed session STALE at sequence %" PRIu64
				": %s; no more orders for it\n", engine.dec.next_seq,
				engine.gap.why);
		}
		/* The kill switch: polled here, enforced by the hot loop per order. */
		if (!engine.risk.killed && (kill_requested ||
				       (o.kill_file && access(o.kill_file, F_OK) == 0))) {
			engine.risk.killed = 1;
			fprintf(stderr, "t2t-gateway: KILL SWITCH engaged (%s): no new orders from now on\n",
				kill_requested ? "SIGUSR1" : o.kill_file);
		}
		if (ctl.mon && mono_ns() - last_mon >= GW_MON_PERIOD_NS) {
			last_mon = mono_ns();
			gw_mon_poll(ctl.mon, last_mon, false);
		}
		if (!o.quiet && mono_ns() - last_status >= 1000000000ull) {
			report_status(stderr, &rep, (double)(mono_ns() - last_status) / 1e9,
				      &prev_ticks);
			last_status = mono_ns();
		}
	}
	ctl.stop = 1;
	pthread_join(th, NULL);
teardown:
	rep.elapsed_s = since(t0);
	/* Report needs the socket's kernel counters: read them before closing. */
	if (report_build(&rep))
		fprintf(stderr, "t2t-gateway: out of memory for the latency report\n");
	report_summary(stdout, &rep);
	if (o.json && (ret = report_json(o.json, &rep)))
		fprintf(stderr, "t2t-gateway: %s: %s\n", o.json, strerror(-ret));
	if (o.orders_out && (ret = report_orders_csv(o.orders_out, &rep)))
		fprintf(stderr, "t2t-gateway: %s: %s\n", o.orders_out, strerror(-ret));
	report_free(&rep);
	if (ctl.mon) {
		/* The run's last state stays readable until the segment closes. */
		gw_mon_poll(ctl.mon, mono_ns(), true);
		gw_mon_close(ctl.mon);
	}
	ret = 0;
teardown_paths:
	if (h.x)
		xsk_path_close(&xp);
	else
		udp_path_close(&up);
	engine_destroy(&engine);
	return ret ? 1 : 0;
}
