// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/hist.h"
#include "monitor/reader.h"
#include "monitor/seqlock.h"
#include "util/clock.h"

#define BAD(...) (snprintf(err, errlen, __VA_ARGS__), -EPROTO)

int mon_check_header(const struct mon_header *h, uint64_t file_size, const char *path,
		     char *err, size_t errlen)
{
	if (file_size < 12 || memcmp(h->magic, MON_MAGIC, 8))
		return BAD("%s is not a t2t monitor segment (no magic)", path);
	/* The version first: past it, no field is known to mean anything. */
	if (h->version != MON_VERSION)
		return BAD("%s has layout version %u; this program reads version %d only "
			   "(use the tools built with the writer)", path, h->version,
			   MON_VERSION);
	if (file_size < sizeof(struct mon_segment) || h->header_size != sizeof(*h) ||
	    h->size != sizeof(struct mon_segment))
		return BAD("%s: version %d but its sizes differ (header %u, segment %llu, "
			   "file %llu; expected %zu, %zu)", path, MON_VERSION, h->header_size,
			   (unsigned long long)h->size, (unsigned long long)file_size,
			   sizeof(*h), sizeof(struct mon_segment));
	if (h->hdr_sub_bits != HDR_SUB_BITS || h->hdr_max_msb != HDR_MAX_MSB ||
	    h->hdr_buckets != HDR_BUCKETS)
		return BAD("%s: histograms of another bucket layout (%u sub-bits, %u buckets; "
			   "this program: %d, %u)", path, h->hdr_sub_bits, h->hdr_buckets,
			   HDR_SUB_BITS, (unsigned int)HDR_BUCKETS);
	if (h->n_counters > MON_MAX_COUNTERS || h->n_symbols > MON_MAX_SYMBOLS ||
	    h->n_stages != MON_STAGES || h->win_slots != MON_WIN_SLOTS ||
	    h->n_events != MON_EVENTS ||
	    h->off_counter_names != offsetof(struct mon_segment, counter_names) ||
	    h->off_counters != offsetof(struct mon_segment, counters) ||
	    h->off_symbols != offsetof(struct mon_segment, sym) ||
	    h->off_stages != offsetof(struct mon_segment, stage) ||
	    h->off_window != offsetof(struct mon_segment, window) ||
	    h->off_events != offsetof(struct mon_segment, events))
		return BAD("%s: version %d but its geometry differs (counts or offsets)",
			   path, MON_VERSION);
	return 0;
}

int mon_open(struct mon_reader *r, const char *name, char *err, size_t errlen)
{
	struct stat st;
	void *p;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (mon_path(name, r->path, sizeof(r->path)))
		return snprintf(err, errlen, "bad segment name '%s'", name), -EINVAL;
	r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
		return ret;
	}
	if (fstat(r->fd, &st)) {
		ret = -errno;
		goto fail;
	}
	if ((uint64_t)st.st_size < sizeof(struct mon_header)) {
		snprintf(err, errlen, "%s is not a t2t monitor segment (%lld bytes)", r->path,
			 (long long)st.st_size);
		close(r->fd);
		r->fd = -1;
		return -EPROTO;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, r->fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto fail;
	}
	ret = mon_check_header(p, (uint64_t)st.st_size, r->path, err, errlen);
	if (ret) {
		munmap(p, (size_t)st.st_size);
		close(r->fd);
		r->fd = -1;
		return ret;
	}
	r->seg = p;
	memcpy(&r->hdr, &r->seg->hdr, sizeof(r->hdr));
	r->dev = st.st_dev;
	r->ino = st.st_ino;
	return 0;
fail:
	snprintf(err, errlen, "%s: %s", r->path, strerror(-ret));
	close(r->fd);
	r->fd = -1;
	return ret;
}

void mon_close(struct mon_reader *r)
{
	if (r->seg && r->fd >= 0)
		munmap((void *)r->seg, sizeof(*r->seg));
	if (r->fd >= 0)
		close(r->fd);
	r->seg = NULL;
	r->fd = -1;
}

void mon_attach(struct mon_reader *r, const struct mon_segment *seg)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->seg = seg;
	memcpy(&r->hdr, &seg->hdr, sizeof(r->hdr));
}

bool mon_replaced(const struct mon_reader *r)
{
	struct stat st;

	if (r->fd < 0)
		return false;
	/* Ours rename a new file into place; one rewritten in place shows here. */
	if (mon_ld(&r->seg->hdr.start_real_ns) != r->hdr.start_real_ns)
		return true;
	if (stat(r->path, &st))
		return true;
	return st.st_ino != r->ino || st.st_dev != r->dev;
}

bool mon_writer_alive(const struct mon_reader *r)
{
	if (mon_ld(&r->seg->hdr.flags) & MON_F_CLOSED)
		return false;
	return kill(r->hdr.pid, 0) == 0 || errno == EPERM;
}

uint64_t mon_heartbeat(const struct mon_reader *r)
{
	return mon_ld(&r->seg->hdr.heartbeat_ns);
}

int mon_find_one(char *name, size_t len, char *why, size_t whylen)
{
	DIR *d = opendir(MON_DIR);
	char list[256] = "";
	struct dirent *e;
	size_t off = 0;
	int n = 0;

	if (d) {
		while ((e = readdir(d))) {
			const char *s = e->d_name + strlen(MON_PREFIX);

			if (strncmp(e->d_name, MON_PREFIX, strlen(MON_PREFIX)) || !mon_name_ok(s))
				continue;
			if (!n)
				snprintf(name, len, "%s", s);
			if (off < sizeof(list))
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
							n ? ", " : "", s);
			n++;
		}
		closedir(d);
	}
	if (n == 1)
		return 1;
	if (!n)
		snprintf(why, whylen, "no gateway is running: no segment %s/%s* (a run removes "
			 "its own when it ends; start one, or use --name for one still to come)",
			 MON_DIR, MON_PREFIX);
	else
		snprintf(why, whylen, "%d gateways are running (%s): choose one with --name", n,
			 list);
	return n ? -E2BIG : 0;
}

int mon_read_counters(const struct mon_reader *r, uint64_t *v, uint64_t *t_ns)
{
	const struct mon_counters *c = &r->seg->counters;
	unsigned int n = r->hdr.n_counters;

	for (unsigned int tries = 0; tries < MON_TRIES; tries++) {
		uint32_t s = seq_read_begin(&c->seq);

		if (s & 1) {
			cpu_relax();
			continue;
		}
		*t_ns = mon_ld(&c->t_ns);
		for (unsigned int i = 0; i < n; i++)
			v[i] = mon_ld(&c->v[i]);
		if (!seq_read_retry(&c->seq, s))
			return 0;
	}
	return -EAGAIN;
}

int mon_read_symbol(const struct mon_reader *r, unsigned int k, struct mon_sym *out)
{
	const struct mon_symbol *b = &r->seg->sym[k % MON_MAX_SYMBOLS];

	for (unsigned int tries = 0; tries < MON_TRIES; tries++) {
		uint32_t s = seq_read_begin(&b->seq);

		if (s & 1) {
			cpu_relax();
			continue;
		}
		out->t_ns = mon_ld(&b->t_ns);
		out->strat_pos = mon_ld(&b->strat_pos);
		out->position = mon_ld(&b->position);
		out->cash = mon_ld(&b->cash);
		out->pnl = mon_ld(&b->pnl);
		out->target = mon_ld(&b->target);
		out->bid = mon_ld(&b->bid);
		out->ask = mon_ld(&b->ask);
		out->last_price = mon_ld(&b->last_price);
		out->last_size = mon_ld(&b->last_size);
		out->ticks = mon_ld(&b->ticks);
		out->orders = mon_ld(&b->orders);
		out->fills = mon_ld(&b->fills);
		out->cancels = mon_ld(&b->cancels);
		out->rejects = mon_ld(&b->rejects);
		if (!seq_read_retry(&b->seq, s))
			return 0;
	}
	return -EAGAIN;
}

int mon_read_stage(const struct mon_reader *r, unsigned int stage, struct hdr_hist *h)
{
	const struct mon_stage *s = &r->seg->stage[stage % MON_STAGES];

	return mon_hist_copy(h, &s->h, &s->seq, MON_TRIES);
}

int mon_read_window(const struct mon_reader *r, uint64_t now, uint64_t age_ns,
		    struct hdr_hist h[MON_STAGES], uint64_t *t_ns)
{
	const struct mon_window *w = &r->seg->window;
	uint64_t head = mon_ld(&w->ticks);

	/* Slot head % SLOTS may be the one being written: the others, newest first. */
	for (uint64_t k = 1; k < MON_WIN_SLOTS && k <= head; k++) {
		const struct mon_win_slot *sl = &w->slot[(head - k) % MON_WIN_SLOTS];

		for (unsigned int tries = 0; tries < MON_TRIES; tries++) {
			uint32_t s = seq_read_begin(&sl->seq);
			uint64_t t;
			int bad = 0;

			if (s & 1) {
				cpu_relax();
				continue;
			}
			t = mon_ld(&sl->t_ns);
			if (!t || t > now || now - t < age_ns) {
				if (seq_read_retry(&sl->seq, s))
					continue;
				break;		/* too new (or unused): an older one */
			}
			for (unsigned int i = 0; i < MON_STAGES && !bad; i++) {
				hdr_reset(&h[i]);
				bad = mon_hist_copy(&h[i], &sl->h[i], &sl->seq, 1);
			}
			if (bad || seq_read_retry(&sl->seq, s))
				continue;
			*t_ns = t;
			return 0;
		}
	}
	return -ENOENT;
}

unsigned int mon_read_events(const struct mon_reader *r, uint64_t since,
			     struct mon_event *out, unsigned int max, uint64_t *next)
{
	const struct mon_events *e = &r->seg->events;
	uint64_t h1 = mon_ld(&e->head), h2, from = since, valid;
	unsigned int n = 0;

	if (h1 > MON_EVENTS && from < h1 - MON_EVENTS)
		from = h1 - MON_EVENTS;
	if (from > h1)			/* another segment's numbers */
		from = h1 > max ? h1 - max : 0;
	if (h1 - from > max)
		from = h1 - max;
	for (uint64_t j = from; j < h1; j++) {
		const struct mon_event *ev = &e->ev[j % MON_EVENTS];
		struct mon_event *o = &out[n++];

		o->t_ns = mon_ld(&ev->t_ns);
		o->order_no = mon_ld(&ev->order_no);
		o->price = mon_ld(&ev->price);
		o->shares = mon_ld(&ev->shares);
		o->kind = mon_ld(&ev->kind);
		o->sym = mon_ld(&ev->sym);
		o->side = mon_ld(&ev->side);
	}
	/*
	 * Event j shares its slot with j + MON_EVENTS, which the writer may have
	 * started once head reached it: keep only what the re-read proves intact.
	 */
	h2 = mon_ld(&e->head);
	valid = h2 >= MON_EVENTS ? h2 - MON_EVENTS + 1 : 0;
	if (from < valid) {
		unsigned int drop = valid - from > n ? n : (unsigned int)(valid - from);

		memmove(out, out + drop, (n - drop) * sizeof(*out));
		n -= drop;
	}
	*next = h1;
	return n;
}
