// SPDX-License-Identifier: MIT
/* The floor responders' shared part: order log, replies, the reports. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bench/floor/floor.h"
#include "latency/capture.h"
#include "latency/clock_cost.h"
#include "latency/hdr.h"
#include "util/clock.h"

const char *floor_path_name(const struct floor_opts *o)
{
	return o->mode == FLOOR_XDP ? "floor_xdp" : "floor_udp";
}

/*
 * --answer-seqs FILE: t2t-backtest's orders (md_seq,symbol,side,shares, a
 * header line first), in the order the feed carries them.  Read whole
 * before the loop starts; mlockall keeps it resident.
 */
static int load_wants(struct floor *f, const char *path, char *err, size_t errlen)
{
	struct floor_want *w = NULL, *nw;
	uint32_t n = 0, cap = 0;
	unsigned long line = 0;
	char buf[256];
	FILE *in = fopen(path, "r");
	int ret = -EINVAL;

	if (!in) {
		snprintf(err, errlen, "--answer-seqs %s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(buf, sizeof(buf), in)) {
		char sym[16], side;
		unsigned long long seq;
		unsigned int shares;
		size_t k;

		if (++line == 1 && !isdigit((unsigned char)buf[0]))
			continue;	/* the header */
		if (sscanf(buf, "%llu,%15[^,],%c,%u", &seq, sym, &side, &shares) != 4 ||
		    (side != 'B' && side != 'S' && side != 'T') || !shares ||
		    strlen(sym) > 8 || !seq) {
			snprintf(err, errlen, "--answer-seqs %s:%lu: not md_seq,symbol,side,shares",
				 path, line);
			goto out;
		}
		if (n && seq <= w[n - 1].seq) {
			snprintf(err, errlen, "--answer-seqs %s:%lu: sequence number %llu after %"
				 PRIu64 ": the list must ascend", path, line, seq, w[n - 1].seq);
			goto out;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			nw = realloc(w, (size_t)cap * sizeof(*w));
			if (!nw) {
				snprintf(err, errlen, "--answer-seqs %s: out of memory", path);
				ret = -ENOMEM;
				goto out;
			}
			w = nw;
		}
		w[n].seq = seq;
		w[n].shares = shares;
		w[n].side = side;
		k = strlen(sym);
		memcpy(w[n].stock, sym, k);
		memset(w[n].stock + k, ' ', 8 - k);
		n++;
	}
	if (ferror(in) || !n) {
		snprintf(err, errlen, "--answer-seqs %s: %s", path,
			 ferror(in) ? strerror(errno) : "no orders in it");
		goto out;
	}
	f->want = w;
	f->n_want = n;
	w = NULL;
	ret = 0;
out:
	free(w);
	fclose(in);
	return ret;
}

int floor_init(struct floor *f, const struct floor_opts *o, char *err, size_t errlen)
{
	struct ouch_enter_order proto = {
		.tif = OUCH_TIF_IOC,
		.display = 'Y',
		.capacity = 'P',
		.iso = 'N',
		.cross_type = 'N',
		.customer_type = 'R',
	};
	size_t size = (size_t)o->max_orders * sizeof(struct floor_rec);

	memset(f, 0, sizeof(*f));
	f->o = o;
	memcpy(proto.firm, "FLOR", 4);
	ouch_order_tmpl_init(&f->ouch, &proto);
	/* Populated now: the hot loop must not take a page fault on a record. */
	f->log.rec = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (f->log.rec == MAP_FAILED) {
		f->log.rec = NULL;
		snprintf(err, errlen, "order log of %u orders: %s", o->max_orders,
			 strerror(errno));
		return -ENOMEM;
	}
	f->log.cap = o->max_orders;
	if (o->answer_seqs) {
		int ret = load_wants(f, o->answer_seqs, err, errlen);

		if (ret) {
			floor_destroy(f);
			return ret;
		}
	}
	f->since_answer = o->answer_every - 1;	/* the first tick is answered */
	if (o->duration > 0)
		f->deadline_ns = mono_ns() + (uint64_t)(o->duration * 1e9);
	return 0;
}

void floor_destroy(struct floor *f)
{
	if (f->log.rec)
		munmap(f->log.rec, (size_t)f->log.cap * sizeof(struct floor_rec));
	f->log.rec = NULL;
	free((void *)f->want);
	f->want = NULL;
}

void floor_on_end(struct floor *f, uint64_t now)
{
	if (f->ended)
		return;
	f->ended = true;
	if (f->o->exit_on_end)
		f->end_ns = now + (uint64_t)(f->o->grace * 1e9);
}

static void session_msg(void *ctx, const struct soup_msg *m, uint64_t now)
{
	(void)now;
	floor_on_reply(ctx, m->data, m->len);
}

/* The floor answers whenever the session is up; nothing is resent. */
const struct order_conn_ops floor_session_ops = { .on_msg = session_msg };

void floor_on_reply(struct floor *f, const uint8_t *msg, size_t len)
{
	struct ouch_reply r;
	struct floor_rec *rec;
	uint64_t seq;
	uint32_t no;

	f->st.replies++;
	if (ouch_decode_reply(msg, len, &r) < 0 || order_token_decode(r.token, &seq, &no) ||
	    no >= f->log.n || f->log.rec[no].md_seq != seq) {
		f->st.reply_bad++;
		return;
	}
	rec = &f->log.rec[no];
	switch (r.type) {
	case 'A':	/* its Timestamp is the order's kernel arrival (rig convention) */
		rec->t.t_ack = r.timestamp;
		rec->outcome = ORDER_ACCEPTED;
		break;
	case 'J':
		rec->t.t_ack = r.timestamp;
		rec->outcome = ORDER_REJECTED;
		break;
	case 'E':
		rec->outcome = ORDER_FILLED;
		break;
	case 'C':
		if (rec->outcome != ORDER_FILLED)
			rec->outcome = ORDER_CANCELED;
		break;
	}
}

static void symbol_of(const struct floor_rec *r, char out[9])
{
	int n = 8;

	memcpy(out, r->stock, 8);
	while (n > 0 && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

static int write_capture(struct floor *f, const struct hdr_hist *clk)
{
	const struct floor_opts *o = f->o;
	char host[256] = "?", date[32] = "?";
	struct capture_writer w;
	struct capture_meta m;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	gethostname(host, sizeof(host) - 1);
	if (gmtime_r(&now, &tm))
		strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	capture_meta_init(&m, floor_path_name(o));
	capture_meta_set(&m, "iface", "%s", o->ifname);
	if (o->mode == FLOOR_XDP)
		capture_meta_set(&m, "xdp_mode", "%s", o->xdp_generic ? "generic" : "drv");
	capture_meta_set(&m, "host", "%s", host);
	capture_meta_set(&m, "date", "%s", date);
	capture_meta_set(&m, "hot_cpu", "%d", o->cpu);
	/* A replayed day carries its own time of day: no send time to recover. */
	capture_meta_set(&m, "feed_clock", "%s", f->want ? "day" : "mono");
	capture_meta_set(&m, "ticks", "%" PRIu64, f->st.ticks);
	capture_meta_set(&m, "orders", "%u", f->log.n);
	capture_meta_set(&m, "orders_overwritten", "0");
	capture_meta_set(&m, "busy_poll", "%u/%u/%s", o->busy_poll.usec, o->busy_poll.budget,
			 o->busy_poll.prefer ? "prefer" : "-");
	if (hdr_count(clk)) {
		capture_meta_set(&m, "clock_read_ns_min", "%" PRId64, hdr_min(clk));
		capture_meta_set(&m, "clock_read_ns_p50", "%" PRId64, hdr_value_at_percentile(clk, 50));
		capture_meta_set(&m, "clock_read_ns_p99", "%" PRId64, hdr_value_at_percentile(clk, 99));
	}
	for (unsigned int i = 0; i < o->n_capture_notes; i++) {
		const char *kv = o->capture_note[i], *eq = strchr(kv, '=');
		char key[CAPTURE_KEY_LEN];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
		capture_meta_set(&m, key, "%s", eq + 1);
	}
	ret = capture_open(&w, o->capture, &m);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < f->log.n; i++) {
		const struct floor_rec *r = &f->log.rec[i];
		struct capture_rec c = {
			.order_no = i,
			.md_seq = r->md_seq,
			.side = r->side,
			.shares = r->shares,
			.price = r->price,
			.outcome = r->outcome,
			.t = r->t,
			.exch_ts = r->ts48,
		};

		symbol_of(r, c.symbol);
		/* The feed stamps this host's monotonic clock, low 48 bits. */
		if (r->t.t_hook && !f->want)
			c.t.t_send = itch_ts_recover(r->ts48, r->t.t_hook);
		capture_write(&w, &c);
	}
	return capture_close(&w);
}

static int write_json(struct floor *f, const struct hdr_hist *clk, const char *extra,
		      double elapsed_s)
{
	const struct floor_stats *s = &f->st;
	uint64_t acked = 0;
	FILE *out = fopen(f->o->json, "w");

	if (!out)
		return -errno;
	for (uint32_t i = 0; i < f->log.n; i++)
		acked += f->log.rec[i].t.t_ack != 0;
	fprintf(out, "{\n  \"path\": \"%s\",\n  \"elapsed_s\": %.6f,\n"
		"  \"packets\": %" PRIu64 ",\n  \"feed_packets\": %" PRIu64 ",\n"
		"  \"ticks\": %" PRIu64 ",\n  \"skipped\": %" PRIu64 ",\n"
		"  \"answer_every\": %u,\n  \"answer_seqs\": %u,\n  \"want_missed\": %" PRIu64
		",\n  \"want_bad\": %" PRIu64 ",\n  \"no_tick\": %" PRIu64 ",\n  \"not_up\": %" PRIu64 ",\n"
		"  \"orders\": {\"sent\": %" PRIu64 ", \"send_failed\": %" PRIu64
		", \"logged\": %u, \"acked\": %" PRIu64 ", \"log_full\": %" PRIu64 "},\n"
		"  \"replies\": %" PRIu64 ",\n  \"reply_bad\": %" PRIu64 ",\n"
		"  \"other\": %" PRIu64 ",\n  \"kicks\": %" PRIu64 ",\n"
		"  \"ended\": %s,\n  \"clock_read_ns\": {\"min\": %" PRId64 ", \"p50\": %" PRId64
		", \"p99\": %" PRId64 "}%s%s\n}\n",
		floor_path_name(f->o), elapsed_s, s->packets, s->feed_packets, s->ticks,
		s->skipped, f->o->answer_every, f->n_want, s->want_missed, s->want_bad, s->no_tick, s->not_up, s->ticks - s->send_failed, s->send_failed, f->log.n, acked,
		s->log_full, s->replies, s->reply_bad, s->other, s->kicks,
		f->ended ? "true" : "false", hdr_min(clk), hdr_value_at_percentile(clk, 50),
		hdr_value_at_percentile(clk, 99), extra[0] ? ",\n" : "", extra);
	if (fclose(out))
		return -errno;
	return 0;
}

int floor_session_json(const struct order_conn *oc, char *buf, size_t len)
{
	const struct soup_client_stats *s = &oc->soup.st;

	return snprintf(buf, len, "  \"session\": {\"state\": \"%s\", \"stack\": \"%s\", "
			"\"connections\": %" PRIu64 ", \"logins\": %" PRIu64 ", \"accepted\": %"
			PRIu64 ", \"rejects\": %" PRIu64 ", \"replies\": %" PRIu64
			", \"retransmissions\": %" PRIu64 ", \"send_fail\": %" PRIu64 "}",
			oc_state_names[oc->state], oc->cfg.stack == OC_STACK_OWN ? "own" : "kernel",
			oc->st.attempts, s->logins, s->accepted, s->rejected, s->seq_msgs,
			oc->tcp ? oc->tcp->st.retrans_segs : 0, oc->st.send_fail);
}

int floor_report(struct floor *f, const char *extra_json, double elapsed_s)
{
	static struct hdr_hist clk;
	int ret = 0, r;

	hdr_reset(&clk);
	if (clock_cost_measure(f->o->cpu, 100000, &clk))
		hdr_reset(&clk);
	if (f->o->capture && (r = write_capture(f, &clk))) {
		fprintf(stderr, "t2t-floor: capture %s: %s\n", f->o->capture, strerror(-r));
		ret = r;
	}
	if (f->o->json && (r = write_json(f, &clk, extra_json, elapsed_s))) {
		fprintf(stderr, "t2t-floor: %s: %s\n", f->o->json, strerror(-r));
		ret = r;
	}
	if (!f->o->quiet)
		fprintf(stderr, "t2t-floor: %s: %" PRIu64 " packets, %" PRIu64 " ticks answered "
			"(%" PRIu64 " failed), %" PRIu64 " replies (%" PRIu64 " unmatched), "
			"%.1f s\n", floor_path_name(f->o), f->st.packets, f->st.ticks,
			f->st.send_failed, f->st.replies, f->st.reply_bad, elapsed_s);
	return ret;
}
