// SPDX-License-Identifier: MIT
/* A capture log's orders and their stages (t2t_api.h, latency/capture.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/t2t_int.h"
#include "latency/capture.h"
#include "latency/order_rec.h"

_Static_assert(T2T_STAGES == STAGE_NR, "t2t_capture_rec carries every stage");

const char *t2t_stage_name(unsigned int stage)
{
	return stage < STAGE_NR ? stage_names[stage] : NULL;
}

const char *t2t_outcome_name(unsigned int outcome)
{
	return outcome < ORDER_OUTCOME_NR ? order_outcome_names[outcome] : NULL;
}

static void convert(const struct capture_rec *r, struct t2t_capture_rec *o)
{
	int64_t v[STAGE_NR];
	unsigned int mask = order_stages(&r->t, r->outcome, r->flags, v, NULL);

	memset(o, 0, sizeof(*o));
	o->order_no = r->order_no;
	o->md_seq = r->md_seq;
	memcpy(o->symbol, r->symbol, sizeof(o->symbol));
	o->side = r->side;
	o->outcome = r->outcome;
	o->flags = r->flags;
	o->shares = r->shares;
	o->price = r->price;
	o->t_send = r->t.t_send;
	o->t_hook = r->t.t_hook;
	o->t_seen = r->t.t_seen;
	o->t_decided = r->t.t_decided;
	o->t_queued = r->t.t_queued;
	o->t_sent = r->t.t_sent;
	o->t_ack = r->t.t_ack;
	o->exch_ts = r->exch_ts;
	for (unsigned int s = 0; s < STAGE_NR; s++)
		o->stage_ns[s] = mask & (1u << s) ? v[s] : -1;
}

int t2t_read_capture(t2t *h, const char *path, struct t2t_capture_rec *recs, size_t cap,
		     size_t *n)
{
	struct capture_reader rd;
	struct capture_rec r;
	size_t count = 0;
	int ret;

	if (!h)
		return T2T_EINVAL;
	h->err[0] = '\0';
	if (!path || !n || (!recs && cap))
		return t2t_fail(h, T2T_EINVAL, "a NULL argument");
	if (capture_reader_open(&rd, path)) {
		FILE *f = fopen(path, "rb");

		ret = t2t_fail(h, f ? T2T_EFORMAT : T2T_EIO, "%s", rd.err);
		if (f)
			fclose(f);
		return ret;
	}
	while ((ret = capture_read(&rd, &r)) == 1) {
		if (count < cap)
			convert(&r, &recs[count]);
		count++;
	}
	if (ret < 0)
		t2t_fail(h, T2T_EFORMAT, "%s", rd.err);
	capture_reader_close(&rd);
	if (ret < 0)
		return T2T_EFORMAT;
	*n = count;
	if (count > cap)
		return t2t_fail(h, T2T_ESPACE, "%zu orders: the array holds %zu", count, cap);
	return T2T_OK;
}
