// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <string.h>

#include "gateway/queues.h"
#include "net/order_conn.h"
#include "util/queue_list.h"

#define CLASS_NAME_(id, s) [id] = s,
static const char *const steer_class_names[STEER_CLASS_NR] = { STEER_CLASS_NAMES(CLASS_NAME_) };

/* The port serving (slot, queue), or NULL. */
static const struct xsk_port *port_of(const struct xsk_queues *q, unsigned int slot,
				      unsigned int queue)
{
	for (unsigned int i = 0; i < q->n; i++)
		if (xsk_queues_slot(q, i) == slot && q->port[i].queue == queue)
			return &q->port[i];
	return NULL;
}

static void read_row(struct gw_queue *r, const struct steer_queue_stats *qs,
		     const struct xsk_port *p)
{
	for (unsigned int c = 0; c < STEER_CLASS_NR; c++) {
		r->steered[c] = qs->steered[r->slot][r->queue][c];
		r->unserved[c] = qs->unserved[r->slot][r->queue][c];
		r->dropped += r->unserved[c];
	}
	r->served = p != NULL;
	if (!p)
		return;
	r->received = __atomic_load_n(&p->rx_packets, __ATOMIC_RELAXED);
	xsk_port_kernel_stats(p, &r->st);
	r->napi_id = busy_poll_napi_id(p->fd);
	r->dropped += r->st.rx_dropped + r->st.rx_invalid_descs;
	r->ring_full = r->st.rx_ring_full + r->st.rx_fill_ring_empty_descs +
		       __atomic_load_n(&p->fill_short, __ATOMIC_RELAXED);
}

void gw_queues_read(const struct xsk_path *x, struct gw_queues *out)
{
	struct steer_queue_stats qs;

	memset(out, 0, sizeof(*out));
	if (xdp_steer_queue_stats(&x->steer, &qs))
		memset(&qs, 0, sizeof(qs));
	for (unsigned int s = 0; s < STEER_MAX_IFS; s++)
		for (unsigned int q = 0; q < x->q.queues[s] && q < STEER_MAX_QUEUES; q++) {
			struct gw_queue *r = &out->q[out->n++];

			r->slot = s;
			r->queue = q;
			read_row(r, &qs, port_of(&x->q, s, q));
			for (unsigned int c = 0; c < STEER_CLASS_NR; c++)
				out->unserved += r->unserved[c];
		}
}

unsigned int gw_flows(const struct gw_opts *o, uint32_t local_ip, struct hc_flow *out)
{
	uint16_t first = o->session.local.port ? o->session.local.port : OC_FIRST_PORT;
	unsigned int n = 0;

	out[n++] = (struct hc_flow){ .kind = HC_FLOW_FEED, .ifname = o->ifname,
				     .saddr = o->feed_source, .daddr = o->feed_group,
				     .dport = o->feed_port };
	if (o->line_b_if)
		out[n++] = (struct hc_flow){ .kind = HC_FLOW_FEED_B, .ifname = o->line_b_if,
					     .saddr = o->feed_b_source, .daddr = o->feed_b_group,
					     .dport = o->feed_b_port };
	if (o->rerequest_port)
		out[n++] = (struct hc_flow){ .kind = HC_FLOW_RETRANS, .ifname = o->ifname,
					     .saddr = o->rerequest_ip, .daddr = local_ip,
					     .dport = o->retrans_port };
	/* On the kernel's TCP the connection is the kernel's, not steered. */
	if (!o->eng.paper.on && o->session.stack == OC_STACK_OWN)
		out[n++] = (struct hc_flow){ .kind = HC_FLOW_ORDERS, .ifname = o->ifname,
					     .saddr = o->exch_ip, .sport = o->exch_port,
					     .daddr = local_ip, .dport = first,
					     .dport_last = (uint16_t)(first + OC_PORT_SPAN - 1) };
	return n;
}

const struct hc_flow *gw_flow_of(const struct hc_flow *f, unsigned int n, unsigned int slot,
				 unsigned int cls)
{
	enum hc_flow_kind want = cls == STEER_CLASS_FEED ? (slot ? HC_FLOW_FEED_B : HC_FLOW_FEED) :
				 cls == STEER_CLASS_RETRANS ? HC_FLOW_RETRANS : HC_FLOW_ORDERS;

	for (unsigned int i = 0; i < n; i++)
		if (f[i].kind == want)
			return &f[i];
	return NULL;
}

/* "0-3" of the queues served on slot @s. */
static void served_list(const struct xsk_queues *q, unsigned int s, char *buf, size_t len)
{
	uint64_t mask = 0;

	for (unsigned int i = 0; i < q->n; i++)
		if (xsk_queues_slot(q, i) == s)
			mask |= 1ull << q->port[i].queue;
	queue_list_format(mask, buf, len);
}

void gw_queues_describe(const struct xsk_path *x, const struct gw_opts *o, char *buf,
			size_t len)
{
	char list[128];
	size_t off;

	served_list(&x->q, 0, list, sizeof(list));
	off = (size_t)snprintf(buf, len, "%s queue%s %s of %u", o->ifname,
			       x->q.n_if[0] == 1 ? "" : "s", list, x->q.queues[0]);
	if (x->line_b && off < len) {
		served_list(&x->q, 1, list, sizeof(list));
		off += (size_t)snprintf(buf + off, len - off, ", line B %s queue%s %s of %u",
					o->line_b_if, x->q.n_if[1] == 1 ? "" : "s", list,
					x->q.queues[1]);
	}
	if (off < len)
		snprintf(buf + off, len - off, " (an AF_XDP socket each, one UMEM); orders and "
			 "re-requests leave on %s queue %u's TX ring", o->ifname, x->q.tx->queue);
}

/* The advice for one class that arrived on a queue with no socket. */
static void advise(FILE *out, const char *lead, const struct gw_opts *o, unsigned int slot,
		   unsigned int queue, unsigned int cls, uint64_t n, const struct xsk_path *x,
		   const struct hc_flow *flows, unsigned int n_flows)
{
	const struct hc_flow *f = gw_flow_of(flows, n_flows, slot, cls);
	const char *ifn = slot ? o->line_b_if : o->ifname;
	char what[160], rule[192];

	if (f)
		hc_flow_describe(f, what, sizeof(what));
	else
		snprintf(what, sizeof(what), "%s", steer_class_names[cls]);
	fprintf(out, "%s%" PRIu64 " packets of the %s arrived on %s queue %u, which the gateway "
		"does not serve, and were dropped in XDP%s: serve it (--queues all, or add %u to "
		"--queues)", lead, n, what, ifn, queue,
		cls == STEER_CLASS_TCP ? " (the kernel would have reset the connection)" : "",
		queue);
	if (f && x->q.n_if[slot]) {
		unsigned int to = 0;

		for (unsigned int i = 0; i < x->q.n; i++)
			if (xsk_queues_slot(&x->q, i) == slot) {
				to = x->q.port[i].queue;
				break;
			}
		hc_flow_rule(f, to, rule, sizeof(rule));
		fprintf(out, ", or steer the flow to a served queue: %s", rule);
	}
	fputc('\n', out);
}

void gw_queues_summary(FILE *out, const struct xsk_path *x, const struct gw_opts *o,
		       const struct hc_flow *flows, unsigned int n_flows)
{
	static struct gw_queues t;
	char desc[384];

	gw_queues_read(x, &t);
	gw_queues_describe(x, o, desc, sizeof(desc));
	fprintf(out, "queues   %s\n", desc);
	fprintf(out, "  %-4s %-15s %5s %6s %10s %10s %8s %8s %9s %9s\n", "line", "interface",
		"queue", "served", "received", "feed", "retrans", "orders", "dropped",
		"ring_full");
	for (unsigned int i = 0; i < t.n; i++) {
		const struct gw_queue *r = &t.q[i];

		fprintf(out, "  %-4s %-15s %5u %6s %10" PRIu64 " %10" PRIu64 " %8" PRIu64
			" %8" PRIu64 " %9" PRIu64 " %9" PRIu64 "\n", r->slot ? "B" : "A",
			r->slot ? o->line_b_if : o->ifname, r->queue, r->served ? "yes" : "no",
			r->received, r->steered[STEER_CLASS_FEED] + r->unserved[STEER_CLASS_FEED],
			r->steered[STEER_CLASS_RETRANS] + r->unserved[STEER_CLASS_RETRANS],
			r->steered[STEER_CLASS_TCP] + r->unserved[STEER_CLASS_TCP], r->dropped,
			r->ring_full);
	}
	for (unsigned int i = 0; i < t.n; i++)
		for (unsigned int c = 0; c < STEER_CLASS_NR; c++)
			if (t.q[i].unserved[c])
				advise(out, "  UNSERVED: ", o, t.q[i].slot, t.q[i].queue, c,
				       t.q[i].unserved[c], x, flows, n_flows);
}

void gw_queues_json(FILE *out, const struct xsk_path *x)
{
	static struct gw_queues t;

	gw_queues_read(x, &t);
	fprintf(out, "  \"tx_queue\": %u,\n  \"queue_table\": [", x->q.tx->queue);
	for (unsigned int i = 0; i < t.n; i++) {
		const struct gw_queue *r = &t.q[i];

		fprintf(out, "%s\n    {\"line\": \"%s\", \"queue\": %u, \"served\": %s, "
			"\"received\": %" PRIu64, i ? "," : "", r->slot ? "b" : "a", r->queue,
			r->served ? "true" : "false", r->received);
		for (unsigned int c = 0; c < STEER_CLASS_NR; c++)
			fprintf(out, ", \"%s\": %" PRIu64 ", \"unserved_%s\": %" PRIu64,
				steer_class_names[c], r->steered[c], steer_class_names[c],
				r->unserved[c]);
		fprintf(out, ", \"napi_id\": %u", r->napi_id);
		fprintf(out, ", \"dropped\": %" PRIu64 ", \"ring_full\": %" PRIu64
			", \"rx_dropped\": %llu, \"rx_invalid\": %llu, \"rx_ring_full\": %llu"
			", \"fill_ring_empty\": %llu}", r->dropped, r->ring_full,
			(unsigned long long)r->st.rx_dropped,
			(unsigned long long)r->st.rx_invalid_descs,
			(unsigned long long)r->st.rx_ring_full,
			(unsigned long long)r->st.rx_fill_ring_empty_descs);
	}
	fprintf(out, "%s],\n", t.n ? "\n  " : "");
}

void gw_queues_watch(FILE *out, const struct xsk_path *x, const struct gw_opts *o,
		     const struct hc_flow *flows, unsigned int n_flows,
		     struct gw_queues_seen *seen)
{
	static struct gw_queues t;

	gw_queues_read(x, &t);
	if (!t.unserved)
		return;
	for (unsigned int i = 0; i < t.n; i++) {
		const struct gw_queue *r = &t.q[i];

		for (unsigned int c = 0; c < STEER_CLASS_NR; c++) {
			if (!r->unserved[c] || seen->said[r->slot][r->queue][c])
				continue;
			seen->said[r->slot][r->queue][c] = true;
			advise(out, "t2t-gateway: UNSERVED QUEUE: ", o, r->slot, r->queue, c,
			       r->unserved[c], x, flows, n_flows);
		}
	}
}
