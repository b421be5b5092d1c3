// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gateway/host.h"
#include "gateway/queues.h"
#include "net/netif.h"

/* How often the hot CPU is looked at after the start, and what counts. */
#define WATCH_NS	(2ull * 1000 * 1000 * 1000)
#define WATCH_STEP_NS	(50 * 1000 * 1000)
#define WATCH_MIN_NS	(20ull * 1000 * 1000)	/* 1 % of the window */

static void host_cfg(struct hc_cfg *c, const struct gw_opts *o)
{
	uint8_t mac[6];
	uint32_t ip = 0;
	char err[160];

	memset(c, 0, sizeof(*c));
	c->root = o->host_root;
	c->cpu = o->cpu;
	c->ifname = o->ifname;
	c->xsk = o->mode == GW_MODE_XDP;
	c->serve = o->queues;
	/*
	 * The queues as the interface's own namespace counts them; a made-up
	 * tree (--host-root) is read as it stands.
	 */
	if (!o->host_root && netif_queues(o->ifname, &c->rx_queues, &c->tx_queues))
		c->rx_queues = c->tx_queues = 0;
	if (netif_addr(o->ifname, &ip, mac, err, sizeof(err)))
		ip = 0;
	c->n_flows = gw_flows(o, ip, c->flows);
	c->fifo = o->fifo;
	c->spins = o->mode == GW_MODE_XDP || o->udp_recv == GW_UDP_SPIN;
	/* The gateway's own threads (the hot loop itself) are not what preempts it. */
	c->exclude_pid = getpid();
	c->window_ns = o->check_host_window_ns;
}

int gw_host_check(const struct gw_opts *o)
{
	struct hc_report rep;
	struct hc_cfg cfg;

	host_cfg(&cfg, o);
	if (hc_run(&cfg, &rep)) {
		fprintf(stderr, "t2t-gateway: --check-host: out of memory\n");
		return 1;
	}
	hc_print(stdout, "", &rep, HC_OK);
	hc_print_counts(stdout, "host: ", &rep);
	return rep.count[HC_BAD] ? GW_HOST_BAD_EXIT : 0;
}

/* Sleep @ns in steps, so that a run that stops is not held up.  false once stopped. */
static bool nap(const struct gw_host *h, uint64_t ns)
{
	for (uint64_t t = 0; t < ns && !*h->cfg.stop; t += WATCH_STEP_NS) {
		struct timespec ts = { 0, WATCH_STEP_NS };

		nanosleep(&ts, NULL);
	}
	return !*h->cfg.stop;
}

/* Was @pid said already?  Remember it if not. */
static bool said_before(struct gw_host *h, int pid)
{
	for (unsigned int i = 0; i < sizeof(h->said) / sizeof(h->said[0]); i++)
		if (h->said[i] == pid)
			return true;
	h->said[h->n_said++ % (sizeof(h->said) / sizeof(h->said[0]))] = pid;
	return false;
}

/*
 * What the start's report cannot see: a process started later on the hot
 * CPU (a simulator run by hand, a build).  Every WATCH_NS, the other
 * processes' threads that took the CPU from the loop (a thread is seen
 * when it lived through the whole look); the one that took most, once, in
 * one line with the fix.  Kernel threads are the start
 * report's (bound ones cannot be moved).
 */
static void watch_hot_cpu(struct gw_host *h)
{
	const char *root = h->cfg.root ? h->cfg.root : "";
	struct hc_snap a = { 0 }, b = { 0 };

	if (h->cfg.cpu < 0 || hc_snap_take(root, h->cfg.cpu, &a))
		return;
	while (nap(h, WATCH_NS)) {
		struct hc_delta d = { 0 };

		if (hc_snap_take(root, h->cfg.cpu, &b))
			break;
		if (!hc_delta_make(&a, &b, h->cfg.cpu, h->cfg.exclude_pid, &d)) {
			for (size_t i = 0; i < d.n_ran; i++) {
				const struct hc_ran *r = &d.ran[i];

				if (r->t.kthread || r->ns < WATCH_MIN_NS)
					continue;
				if (!said_before(h, r->t.pid))
					fprintf(stderr, "t2t-gateway: %s[%d] took %.0f ms of CPU %d, the "
						"hot loop's, in %.0f s: move it (taskset -apc %s %d) or "
						"isolate CPU %d (--check-host)\n", r->t.comm, r->t.pid,
						(double)r->ns / 1e6, h->cfg.cpu, WATCH_NS / 1e9,
						h->others, r->t.pid, h->cfg.cpu);
				break;
			}
			hc_delta_free(&d);
		}
		hc_snap_free(&a);
		a = b;
		memset(&b, 0, sizeof(b));
	}
	hc_snap_free(&a);
	hc_snap_free(&b);
}

/* "0,2-3": the online CPUs but @cpu, for taskset. */
static void others(int cpu, char *buf, size_t len)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	size_t off = 0;

	buf[0] = '\0';
	for (long c = 0; c < n && off < len; c++)
		if (c != cpu)
			off += (size_t)snprintf(buf + off, len - off, "%s%ld", off ? "," : "", c);
	if (!buf[0])
		snprintf(buf, len, "%d", cpu);
}

static void *host_thread(void *arg)
{
	struct gw_host *h = arg;

	if (hc_run(&h->cfg, &h->rep)) {
		fprintf(stderr, "t2t-gateway: host: out of memory for the report\n");
		return NULL;
	}
	/* One line, unless asked for the list: a start must not flood the terminal. */
	if (h->verbose) {
		hc_print(stderr, "t2t-gateway: host: ", &h->rep, HC_WARN);
		hc_print_counts(stderr, "t2t-gateway: host: ", &h->rep);
	} else {
		hc_print_brief(stderr, "t2t-gateway: host: ", &h->rep);
	}
	watch_hot_cpu(h);
	return NULL;
}

void gw_host_start(struct gw_host *h, const struct gw_opts *o, const volatile int *stop)
{
	int ret;

	memset(h, 0, sizeof(*h));
	host_cfg(&h->cfg, o);
	h->verbose = o->verbose;
	h->cfg.stop = stop;
	others(o->cpu, h->others, sizeof(h->others));
	ret = pthread_create(&h->th, NULL, host_thread, h);
	if (ret) {
		fprintf(stderr, "t2t-gateway: host: no report (%s)\n", strerror(ret));
		return;
	}
	h->started = true;
}

void gw_host_join(struct gw_host *h)
{
	if (h->started)
		pthread_join(h->th, NULL);
	h->started = false;
}
