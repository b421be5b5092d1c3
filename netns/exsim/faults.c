// SPDX-License-Identifier: MIT
/* Loss, duplication and reordering of feed packets (faults.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "netns/exsim/faults.h"
#include "netns/exsim/hostile.h"
#include "util/rng.h"

/* Salts that keep the three decision streams apart for one seed. */
#define SALT_DROP	UINT64_C(0x64726f7000000001)
#define SALT_DUP	UINT64_C(0x6475700000000002)
#define SALT_REORDER	UINT64_C(0x72656f7264000003)

/* P in [0, 1] as a threshold on a uniform 64-bit draw: P = 1 always hits. */
static uint64_t threshold(double p)
{
	if (p <= 0)
		return 0;
	if (p >= 1)
		return UINT64_MAX;
	return (uint64_t)fmin(ldexp(p, 64), 18446744073709549568.0);
}

static bool hit(uint64_t *rng, uint64_t thr)
{
	uint64_t r = splitmix64(rng);

	return thr == UINT64_MAX || r < thr;
}

int faults_init(struct faults *x, const struct fault_cfg *f, bool log)
{
	memset(x, 0, sizeof(*x));
	x->burst = f->drop_burst > 1 ? f->drop_burst : 1;
	/* Bursts keep the loss fraction: a burst starts rate / burst of the time. */
	x->drop_thr = threshold(f->drop_rate / x->burst);
	x->dup_thr = threshold(f->dup_rate);
	x->reorder_thr = threshold(f->reorder_rate);
	x->rng_drop = f->seed ^ SALT_DROP;
	x->rng_dup = f->seed ^ SALT_DUP;
	x->rng_reorder = f->seed ^ SALT_REORDER;
	x->drop_seqs = f->drop_seqs;
	x->ndrop = f->ndrop_seqs;
	x->active = x->drop_thr || x->dup_thr || x->reorder_thr || x->ndrop;
	if (log) {
		void *p = mmap(NULL, FAULT_LOG_CAP * sizeof(struct fault_rec),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED)
			return errno ? -errno : -EIO;
		x->log = p;
	}
	return 0;
}

void faults_destroy(struct faults *x)
{
	if (x->log)
		munmap(x->log, FAULT_LOG_CAP * sizeof(struct fault_rec));
	x->log = NULL;
}

void faults_log(struct faults *x, unsigned int kind, uint64_t seq, uint16_t count)
{
	struct fault_rec *r;

	if (!x->log)
		return;
	if (x->log_n == FAULT_LOG_CAP) {
		x->log_dropped++;
		return;
	}
	r = &x->log[x->log_n++];
	r->seq = seq;
	r->count = count;
	r->kind = (uint8_t)kind;
}

/* Does [seq, seq + count) hold one of --drop-seqs?  Packets come in
 * sequence order, so the list is walked once over the run. */
static bool listed(struct faults *x, uint64_t seq, uint16_t count)
{
	bool found = false;

	while (x->next_drop < x->ndrop && x->drop_seqs[x->next_drop] < seq + count) {
		if (x->drop_seqs[x->next_drop] >= seq)
			found = true;
		x->next_drop++;
	}
	return found;
}

unsigned int faults_verdict(struct faults *x, uint64_t seq, uint16_t count,
			    unsigned int ticks, bool random)
{
	bool drop = false, dup = false, hold = false;

	if (!x->active)
		return 0;
	if (listed(x, seq, count)) {
		drop = true;
		x->st.seq_dropped_packets++;
	}
	if (random) {
		/* All three drawn every time: streams stay independent. */
		bool d = hit(&x->rng_drop, x->drop_thr);
		bool u = hit(&x->rng_dup, x->dup_thr);
		bool r = hit(&x->rng_reorder, x->reorder_thr);

		if (x->burst_left) {
			x->burst_left--;
			drop = true;
		} else if (x->drop_thr && d) {
			x->burst_left = x->burst - 1;
			drop = true;
		}
		dup = x->dup_thr && u;
		hold = x->reorder_thr && r;
	}
	if (drop) {
		x->st.dropped_packets++;
		x->st.dropped_msgs += count;
		x->st.dropped_ticks += ticks;
		faults_log(x, FAULT_EV_DROP, seq, count);
		return FAULT_DROP;
	}
	return (dup ? FAULT_DUP : 0) | (hold && !x->holding ? FAULT_HOLD : 0);
}

const char *faults_event_name(unsigned int kind)
{
	switch (kind) {
	case FAULT_EV_DROP:
		return "drop";
	case FAULT_EV_DUP:
		return "dup";
	case FAULT_EV_REORDER:
		return "reorder";
	default:
		if (kind >= FAULT_EV_HOSTILE && kind < FAULT_EV_HOSTILE + HC_NCLASSES)
			return hostile_class_name(kind - FAULT_EV_HOSTILE);
		return "?";
	}
}

int faults_write_log(const struct faults *x, const char *path)
{
	FILE *o = fopen(path, "w");
	uint64_t i;
	int bad;

	if (!o) {
		fprintf(stderr, "t2t-exsim: --fault-log %s: %s\n", path, strerror(errno));
		return errno ? -errno : -EIO;
	}
	fputs("event,seq,count\n", o);
	for (i = 0; i < x->log_n; i++)
		fprintf(o, "%s,%" PRIu64 ",%u\n", faults_event_name(x->log[i].kind),
			x->log[i].seq, x->log[i].count);
	bad = ferror(o);
	if (fclose(o) || bad) {
		fprintf(stderr, "t2t-exsim: --fault-log %s: write error\n", path);
		return -1;
	}
	return 0;
}
