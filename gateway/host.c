// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gateway/host.h"
#include "gateway/queues.h"
#include "net/netif.h"

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
	return NULL;
}

void gw_host_start(struct gw_host *h, const struct gw_opts *o, const volatile int *stop)
{
	int ret;

	memset(h, 0, sizeof(*h));
	host_cfg(&h->cfg, o);
	h->verbose = o->verbose;
	h->cfg.stop = stop;
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
