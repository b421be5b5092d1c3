// SPDX-License-Identifier: MIT
/* The feed interface: where its IRQs may land, its queues, and irqbalance. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/checks.h"
#include "util/queue_list.h"

#define MAX_IRQS 64

struct irqs {
	long n[MAX_IRQS];
	unsigned int count;
};

static void add_irq(struct irqs *q, long irq)
{
	for (unsigned int i = 0; i < q->count; i++)
		if (q->n[i] == irq)
			return;
	if (q->count < MAX_IRQS)
		q->n[q->count++] = irq;
}

/* Every IRQ listed in DIR (a device's msi_irqs).  0, or -errno. */
static int add_dir(const struct hc_ctx *c, struct irqs *q, const char *fmt, const char *ifn)
{
	struct dirent *d;
	DIR *dir = hc_opendir(c->root, fmt, ifn);

	if (!dir)
		return -errno;
	while ((d = readdir(dir)))
		if (hc_dirent_num(d) >= 0)
			add_irq(q, hc_dirent_num(d));
	closedir(dir);
	return 0;
}

static int by_num(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* An IRQ's action names the interface: "eth0-TxRx-0", "eth0", not "eth01". */
static bool names_if(const char *name, const char *ifn)
{
	size_t len = strlen(ifn);

	for (const char *p = strstr(name, ifn); p; p = strstr(p + 1, ifn))
		if ((p == name || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)p[len]))
			return true;
	return false;
}

/*
 * The interface's IRQs: its PCI device's MSI vectors (a virtio NIC's are
 * its parent's), its legacy IRQ, and the lines of /proc/interrupts named
 * after it ("eth0-TxRx-0").
 */
static void find_irqs(const struct hc_ctx *c, const char *ifn, struct irqs *q)
{
	long legacy;

	if (add_dir(c, q, "/sys/class/net/%s/device/msi_irqs", ifn))
		add_dir(c, q, "/sys/class/net/%s/device/../msi_irqs", ifn);
	if (!q->count && !hc_read_long(c->root, &legacy, "/sys/class/net/%s/device/irq", ifn) &&
	    legacy > 0)
		add_irq(q, legacy);
	for (size_t i = 0; i < c->snap->n_irq; i++)
		if (isdigit((unsigned char)c->snap->irq[i].label[0]) &&
		    names_if(c->snap->irq[i].name, ifn))
			add_irq(q, atol(c->snap->irq[i].label));
	qsort(q->n, q->count, sizeof(q->n[0]), by_num);
}

static const char *irq_name(const struct hc_ctx *c, long irq)
{
	char label[16];

	snprintf(label, sizeof(label), "%ld", irq);
	for (size_t i = 0; i < c->snap->n_irq; i++)
		if (!strcmp(c->snap->irq[i].label, label))
			return c->snap->irq[i].name;
	return "?";
}

void hc_check_net_irqs(const struct hc_ctx *c, struct hc_finding *f)
{
	const char *ifn = c->cfg->ifname;
	char list[HC_TEXT] = "", nums[128] = "";
	enum hc_level level = HC_OK;
	struct irqs q = { .count = 0 };
	DIR *dir;

	if (!ifn) {
		hc_found(f, HC_UNKNOWN, "unknown: no feed interface given");
		return;
	}
	if (hc_no_cpu(c, f))
		return;
	dir = hc_opendir(c->root, "/sys/class/net/%s", ifn);
	if (!dir) {
		hc_found(f, HC_UNKNOWN, "unknown: no interface %s here (/sys/class/net/%s: %s)",
			 ifn, ifn, strerror(errno));
		return;
	}
	closedir(dir);
	dir = hc_opendir(c->root, "/sys/class/net/%s/device", ifn);
	if (!dir) {
		hc_found(f, HC_OK, "%s is virtual (no device): no IRQ of its own (on veth the "
			 "sender's CPU does the receive work)", ifn);
		return;
	}
	closedir(dir);
	find_irqs(c, ifn, &q);
	if (!q.count) {
		hc_found(f, HC_UNKNOWN, "unknown: no IRQ found for %s (no msi_irqs, none named "
			 "after it in /proc/interrupts)", ifn);
		return;
	}
	for (unsigned int i = 0; i < q.count; i++) {
		char aff[256], label[16];
		struct hc_cpus set;
		uint64_t fired = 0;
		bool may;

		snprintf(label, sizeof(label), "%ld", q.n[i]);
		if (c->delta)
			fired = hc_delta_irq(c->delta, label);
		if (hc_read(c->root, aff, sizeof(aff), "/proc/irq/%ld/smp_affinity_list", q.n[i]) < 0 ||
		    hc_cpus_parse_list(aff, &set)) {
			snprintf(aff, sizeof(aff), "?");
			memset(&set, 0, sizeof(set));
		}
		may = hc_cpus_has(&set, c->cpu);
		if (fired)
			level = HC_BAD;
		else if (may && level < HC_WARN)
			level = HC_WARN;
		hc_cat(list, sizeof(list), "%s%ld %s on %s", i ? ", " : "", q.n[i],
		       irq_name(c, q.n[i]), aff);
		if (fired)
			hc_cat(list, sizeof(list), " (%llu on CPU %d)", (unsigned long long)fired,
			       c->cpu);
		if (may || fired)
			hc_cat(nums, sizeof(nums), "%s%ld", nums[0] ? " " : "", q.n[i]);
	}
	if (level == HC_OK) {
		hc_found(f, HC_OK, "%s's IRQs stay off CPU %d: %s", ifn, c->cpu, list);
		return;
	}
	hc_found(f, level, "%s's IRQs %s CPU %d: %s", ifn,
		 level == HC_BAD ? "fired on" : "may land on", c->cpu, list);
	hc_fix(f, "for N in %s: echo %s > /proc/irq/$N/smp_affinity_list (isolcpus=managed_irq,"
	       "%d for managed ones): each IRQ and its NAPI softirq would take the loop's CPU "
	       "at a burst of packets", nums, c->others, c->cpu);
}

static unsigned int count_queues(DIR *dir, const char *prefix)
{
	unsigned int n = 0;
	struct dirent *d;

	rewinddir(dir);
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, prefix, strlen(prefix)))
			n++;
	return n;
}

/* The RX and TX queues of @ifn: the caller's count, else sysfs's.  0, or -errno. */
static int rx_tx_queues(const struct hc_ctx *c, const char *ifn, unsigned int *rx,
			unsigned int *tx)
{
	DIR *dir;

	if (c->cfg->rx_queues) {
		*rx = c->cfg->rx_queues;
		*tx = c->cfg->tx_queues ? c->cfg->tx_queues : *rx;
		return 0;
	}
	dir = hc_opendir(c->root, "/sys/class/net/%s/queues", ifn);
	if (!dir)
		return -errno;
	*rx = count_queues(dir, "rx-");
	*tx = count_queues(dir, "tx-");
	closedir(dir);
	return 0;
}

/* The lowest queue served, and "0-3" of the served ones. */
static unsigned int first_served(uint64_t serve, unsigned int rx, char *list, size_t len)
{
	uint64_t mask = serve ? serve : rx >= 64 ? ~0ull : (1ull << rx) - 1;

	queue_list_format(mask, list, len);
	return mask ? (unsigned int)__builtin_ctzll(mask) : 0;
}

void hc_check_net_queues(const struct hc_ctx *c, struct hc_finding *f)
{
	const char *ifn = c->cfg->ifname;
	uint64_t serve = c->cfg->serve;
	unsigned int rx, tx;
	char rps[64] = "", list[64];
	int ret;

	if (!ifn) {
		hc_found(f, HC_UNKNOWN, "unknown: no feed interface given");
		return;
	}
	ret = rx_tx_queues(c, ifn, &rx, &tx);
	if (ret) {
		hc_unknown(f, "the interface's queues", ret);
		return;
	}
	/* RPS hands the receive work of a queue to other CPUs: not to the loop's. */
	for (unsigned int i = 0; c->cpu >= 0 && i < rx; i++) {
		char mask[256];
		struct hc_cpus set;

		if (hc_read(c->root, mask, sizeof(mask), "/sys/class/net/%s/queues/rx-%u/rps_cpus",
			    ifn, i) >= 0 && !hc_cpus_parse_mask(mask, &set) &&
		    hc_cpus_has(&set, c->cpu))
			hc_cat(rps, sizeof(rps), "%srx-%u", rps[0] ? " " : "", i);
	}
	first_served(serve, rx, list, sizeof(list));
	if (c->cfg->xsk && rx < 64 && serve >> rx) {
		hc_found(f, HC_BAD, "%s has %u RX queue%s: --queues %s names queues it does not "
			 "have", ifn, rx, rx == 1 ? "" : "s", list);
		hc_fix(f, "--queues all, or queues of 0..%u: the gateway binds an AF_XDP socket to "
		       "each queue it serves", rx ? rx - 1 : 0);
		return;
	}
	if (c->cfg->xsk && rx > 1 && serve) {
		hc_found(f, HC_WARN, "%s has %u RX and %u TX queues; the gateway serves %s only: "
			 "a steered packet hashed to another queue is dropped in XDP (counted per "
			 "queue)", ifn, rx, tx, list);
		hc_fix(f, "steer every flow there (net.flows gives the rules) or serve every "
		       "queue (--queues all)");
	} else if (c->cfg->xsk && rx > 1) {
		hc_found(f, rps[0] ? HC_WARN : HC_OK, "%s has %u RX and %u TX queues; the gateway "
			 "serves all %u (an AF_XDP socket each, one loop)", ifn, rx, tx, rx);
	} else if (rps[0]) {
		hc_found(f, HC_WARN, "%s has %u RX and %u TX queues", ifn, rx, tx);
	} else {
		hc_found(f, HC_OK, "%s has %u RX and %u TX queue%s", ifn, rx, tx,
			 rx + tx > 2 ? "s" : "");
	}
	if (!rps[0]) {
		if (c->cpu >= 0 && f->level == HC_OK)
			hc_cat(f->found, sizeof(f->found), ", no RPS to CPU %d", c->cpu);
		return;
	}
	hc_cat(f->found, sizeof(f->found), "; RPS sends the receive work of %s to CPU %d",
	       rps, c->cpu);
	hc_cat(f->fix, sizeof(f->fix), "%secho 0 > /sys/class/net/%s/queues/rx-N/rps_cpus "
	       "(or a mask without CPU %d): the kernel's receive work for %s would run on "
	       "the loop's CPU", f->fix[0] ? "; " : "", ifn, c->cpu, ifn);
}

/*
 * Every flow the gateway steers, with the rule that puts it on the first
 * served queue: needed when only some queues are served, optional (one
 * queue to poll instead of every one) when all are.
 */
void hc_check_net_flows(const struct hc_ctx *c, struct hc_finding *f)
{
	const char *ifn = c->cfg->ifname;
	unsigned int rx, tx, q;
	char list[64], what[160], rule[192];
	int ret;

	if (!ifn || !c->cfg->n_flows) {
		hc_found(f, HC_UNKNOWN, "unknown: no feed interface or flows given");
		return;
	}
	if (!c->cfg->xsk) {
		hc_found(f, HC_OK, "kernel sockets take every flow from every queue of %s", ifn);
		return;
	}
	ret = rx_tx_queues(c, ifn, &rx, &tx);
	if (ret) {
		hc_unknown(f, "the interface's queues", ret);
		return;
	}
	q = first_served(c->cfg->serve, rx, list, sizeof(list));
	if (rx <= 1) {
		hc_found(f, HC_OK, "%s has one RX queue: every steered flow lands on it", ifn);
		return;
	}
	hc_found(f, c->cfg->serve ? HC_WARN : HC_OK, "%u flows steered into AF_XDP, each hashed "
		 "to a queue of its own by RSS:", c->cfg->n_flows);
	for (unsigned int i = 0; i < c->cfg->n_flows; i++) {
		hc_flow_describe(&c->cfg->flows[i], what, sizeof(what));
		hc_flow_rule(&c->cfg->flows[i], q, rule, sizeof(rule));
		hc_cat(f->found, sizeof(f->found), "%s %s", i ? "," : "", what);
		hc_cat(f->fix, sizeof(f->fix), "%s%s", i ? "; " : "", rule);
	}
	hc_cat(f->fix, sizeof(f->fix), " (or one queue: ethtool -L %s combined 1). %s", ifn,
	       c->cfg->serve ? "Needed: the gateway serves only queues " :
	       "Optional, as every queue is served; with them --queues ");
	hc_cat(f->fix, sizeof(f->fix), "%s", c->cfg->serve ? list : "");
	if (!c->cfg->serve)
		hc_cat(f->fix, sizeof(f->fix), "%u polls one ring instead of %u", q, rx);
}

void hc_check_irqbalance(const struct hc_ctx *c, struct hc_finding *f)
{
	char cpu[16];

	if (c->snap->task_err) {
		hc_unknown(f, "/proc", c->snap->task_err);
		return;
	}
	for (size_t i = 0; i < c->snap->n_task; i++) {
		const struct hc_task *t = &c->snap->task[i];

		if (t->pid != t->tid || strcmp(t->comm, "irqbalance"))
			continue;
		hc_found(f, HC_WARN, "irqbalance runs (pid %d)", t->pid);
		snprintf(cpu, sizeof(cpu), "%d", c->cpu);
		hc_fix(f, "stop it (systemctl stop irqbalance) or ban the loop's CPU "
		       "(IRQBALANCE_BANNED_CPULIST=%s): it moves IRQs every 10 s, onto that CPU "
		       "too", c->cpu >= 0 ? cpu : "N");
		return;
	}
	hc_found(f, HC_OK, "irqbalance is not running");
}

/*
 * The reverse-path filter drops, before any socket, a packet whose source
 * the host would not route back out of the interface it came in on: a
 * feed from a source off the interface's subnet (another server's, a
 * capture played back) with no route to it never reaches the kernel path,
 * and nothing in the gateway counts it.  The XDP hook sees packets before
 * the filter.  The kernel applies the larger of "all" and the interface's.
 */
void hc_check_rp_filter(const struct hc_ctx *c, struct hc_finding *f)
{
	const char *ifn = c->cfg->ifname, *how;
	long all, dev, mode;
	int ret;

	if (!ifn) {
		hc_found(f, HC_UNKNOWN, "unknown: no feed interface given");
		return;
	}
	ret = hc_read_long(c->root, &all, "/proc/sys/net/ipv4/conf/all/rp_filter");
	if (!ret)
		ret = hc_read_long(c->root, &dev, "/proc/sys/net/ipv4/conf/%s/rp_filter", ifn);
	if (ret) {
		hc_unknown(f, "the reverse-path filter (/proc/sys/net/ipv4/conf)", ret);
		return;
	}
	mode = all > dev ? all : dev;
	if (!mode) {
		hc_found(f, HC_OK, "the reverse-path filter is off on %s", ifn);
		return;
	}
	how = mode == 1 ? "strict" : "loose";
	if (c->cfg->xsk) {
		hc_found(f, HC_OK, "the reverse-path filter is %s on %s (rp_filter %ld), behind "
			 "the XDP hook", how, ifn, mode);
		return;
	}
	hc_found(f, HC_WARN, "the reverse-path filter is %s on %s (rp_filter %ld): a feed from "
		 "a source with no route back through %s is dropped before the socket, counted "
		 "nowhere in the gateway", how, ifn, mode, ifn);
	hc_fix(f, "a route to the feed's source through %s (ip route add SOURCE/32 dev %s), or "
	       "sysctl net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.%s.rp_filter=0", ifn, ifn, ifn);
}
