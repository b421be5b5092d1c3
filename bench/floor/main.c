// SPDX-License-Identifier: MIT
/*
 * t2t-floor: set up, pin, answer ticks until the end of session (or a
 * signal, or --duration), then write the capture log and the summary.  The
 * loop runs on the main thread: there is no status line to keep off its core.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/floor/floor.h"
#include "util/clock.h"

static struct floor fl;

static void on_signal(int sig)
{
	(void)sig;
	fl.stop = 1;
}

static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

int main(int argc, char **argv)
{
	struct floor_xsk *x = NULL;
	struct floor_udp *u = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	struct floor_opts o;
	char err[256], extra[1024] = "";
	uint64_t t0;
	int ret;

	ret = floor_opts_parse(&o, argc, argv);
	if (ret)
		return ret == 1 ? 0 : 2;
	/* Nothing the loop touches may page-fault later. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "t2t-floor: note: mlockall failed (%s)\n", strerror(errno));
	ret = floor_init(&fl, &o, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "t2t-floor: %s\n", err);
		return 1;
	}
	if (o.mode == FLOOR_XDP)
		ret = floor_xsk_open(&x, &o, &fl, err, sizeof(err));
	else
		ret = floor_udp_open(&u, &o, &fl, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "t2t-floor: %s\n", err);
		goto out;
	}
	if (pin(o.cpu))
		fprintf(stderr, "t2t-floor: warning: cannot pin to CPU %d\n", o.cpu);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fprintf(stderr, "t2t-floor: %s on %s, hot loop on CPU %d\n", floor_path_name(&o),
		o.ifname, o.cpu);
	t0 = mono_ns();
	if (x)
		floor_xsk_run(x, &fl);
	else
		floor_udp_run(u, &fl);
	if (x)
		floor_xsk_json(x, extra, sizeof(extra));
	else
		floor_udp_json(u, extra, sizeof(extra));
	/* The sockets' kernel counters are read; now detach before the slow part. */
	floor_xsk_close(x);
	floor_udp_close(u);
	x = NULL;
	u = NULL;
	ret = floor_report(&fl, extra, (double)(mono_ns() - t0) / 1e9);
out:
	floor_xsk_close(x);
	floor_udp_close(u);
	floor_destroy(&fl);
	return ret ? 1 : 0;
}
