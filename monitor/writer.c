// SPDX-License-Identifier: MIT
/* Making, publishing and removing the monitor segment; the window ring. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/hist.h"
#include "monitor/writer.h"
#include "util/clock.h"

/* Copies a stage's histogram may take before a tick gives up on its slot. */
#define TICK_TRIES 100000

int mon_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= MON_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

int mon_path(const char *name, char *buf, size_t len)
{
	if (!mon_name_ok(name))
		return -EINVAL;
	if ((size_t)snprintf(buf, len, "%s/%s%s", MON_DIR, MON_PREFIX, name) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* A writer that is still there holds the name: pid alive, segment not closed. */
static int held_by_live_writer(const char *path, int32_t *pid)
{
	struct mon_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, &h, sizeof(h));
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h.magic, MON_MAGIC, 8) ||
	    h.version != MON_VERSION || (h.flags & MON_F_CLOSED) || h.pid == getpid())
		return 0;
	*pid = h.pid;
	return kill(h.pid, 0) == 0 || errno == EPERM;
}

static int check_cfg(const struct mon_cfg *c, char *err, size_t errlen)
{
	if (!c->name || !mon_name_ok(c->name))
		return snprintf(err, errlen, "monitor: bad segment name '%s' (1 to %d of "
				"A-Z a-z 0-9 _ . -)", c->name ? c->name : "",
				MON_NAME_MAX - 1), -EINVAL;
	if (c->n_counters > MON_MAX_COUNTERS || c->n_symbols > MON_MAX_SYMBOLS)
		return snprintf(err, errlen, "monitor: %u counters, %u symbols: at most %d and %d",
				c->n_counters, c->n_symbols, MON_MAX_COUNTERS,
				MON_MAX_SYMBOLS), -EINVAL;
	for (unsigned int i = 0; i < c->n_counters; i++) {
		const struct mon_counter_def *d = &c->counters[i];

		if (!d->group[0] || !d->name[0] || strchr(d->group, '.') ||
		    strlen(d->group) + strlen(d->name) + 2 > MON_COUNTER_NAME ||
		    d->kind > MON_FLAG || d->unit > MON_UNIT_NS)
			return snprintf(err, errlen, "monitor: counter %s.%s: empty, dotted group, too "
					"long or bad kind", d->group, d->name), -EINVAL;
	}
	for (unsigned int i = 0; i < c->n_symbols; i++) {
		size_t n = strlen(c->symbols[i]);

		if (!n || n > 8)
			return snprintf(err, errlen, "monitor: symbol '%s': 1 to 8 characters",
					c->symbols[i]), -EINVAL;
	}
	return 0;
}

/* Everything but the values, before anyone can see the file. */
static void fill(struct mon_segment *s, const struct mon_cfg *c)
{
	struct mon_header *h = &s->hdr;

	h->version = MON_VERSION;
	h->header_size = sizeof(*h);
	h->size = sizeof(*s);
	h->pid = getpid();
	h->start_mono_ns = mono_ns();
	h->start_real_ns = real_ns();
	h->heartbeat_ns = h->start_mono_ns;
	snprintf(h->name, sizeof(h->name), "%s", c->name);
	snprintf(h->writer, sizeof(h->writer), "%s", c->writer ? c->writer : "");
	h->n_counters = c->n_counters;
	h->n_symbols = c->n_symbols;
	h->n_stages = MON_STAGES;
	h->win_slots = MON_WIN_SLOTS;
	h->n_events = MON_EVENTS;
	h->hdr_sub_bits = HDR_SUB_BITS;
	h->hdr_max_msb = HDR_MAX_MSB;
	h->hdr_buckets = HDR_BUCKETS;
	h->off_counter_names = offsetof(struct mon_segment, counter_names);
	h->off_counters = offsetof(struct mon_segment, counters);
	h->off_symbols = offsetof(struct mon_segment, sym);
	h->off_stages = offsetof(struct mon_segment, stage);
	h->off_window = offsetof(struct mon_segment, window);
	h->off_events = offsetof(struct mon_segment, events);
	for (unsigned int i = 0; i < c->n_symbols; i++)
		snprintf(h->symbols[i], MON_SYMBOL_LEN, "%s", c->symbols[i]);
	for (unsigned int i = 0; i < MON_STAGES; i++)
		snprintf(h->stages[i], MON_STAGE_NAME, "%s", stage_names[i]);
	for (unsigned int i = 0; i < c->n_counters; i++) {
		const struct mon_counter_def *d = &c->counters[i];

		snprintf(s->counter_names[i].name, MON_COUNTER_NAME, "%s.%s", d->group, d->name);
		s->counter_names[i].kind = d->kind;
		s->counter_names[i].unit = d->unit;
	}
	s->counters.t_ns = h->start_mono_ns;
	for (unsigned int i = 0; i < MON_STAGES; i++)
		hdr_reset(&s->stage[i].h);
	for (unsigned int j = 0; j < MON_WIN_SLOTS; j++)
		for (unsigned int i = 0; i < MON_STAGES; i++)
			hdr_reset(&s->window.slot[j].h[i]);
	/* Last: a reader that checks the magic sees everything above. */
	memcpy(h->magic, MON_MAGIC, 8);
}

int mon_create(struct mon_writer *w, const struct mon_cfg *c, char *err, size_t errlen)
{
	char tmp[sizeof(w->path) + 32];
	int32_t pid;
	void *p;
	int ret;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	ret = check_cfg(c, err, errlen);
	if (ret)
		return ret;
	mon_path(c->name, w->path, sizeof(w->path));
	if (held_by_live_writer(w->path, &pid))
		return snprintf(err, errlen, "monitor: %s is in use by process %d; "
				"give another name", w->path, pid), -EBUSY;

	/* Built under a private name, then renamed: readers see all or nothing. */
	snprintf(tmp, sizeof(tmp), "%s/.%s%s.%d.tmp", MON_DIR, MON_PREFIX, c->name, getpid());
	unlink(tmp);
	w->fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "monitor: cannot create %s: %s", tmp, strerror(errno));
		return ret;
	}
	fchmod(w->fd, 0644);	/* readers need not be root; the umask may say otherwise */
	if (ftruncate(w->fd, sizeof(struct mon_segment))) {
		ret = -errno;
		snprintf(err, errlen, "monitor: cannot size %s: %s", tmp, strerror(errno));
		goto fail;
	}
	p = mmap(NULL, sizeof(struct mon_segment), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_POPULATE, w->fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		snprintf(err, errlen, "monitor: cannot map %s: %s", tmp, strerror(errno));
		goto fail;
	}
	w->seg = p;
	/* Touch every page for writing now: no fault in the hot loop later. */
	memset(w->seg, 0, sizeof(*w->seg));
	fill(w->seg, c);
	if (rename(tmp, w->path)) {
		ret = -errno;
		snprintf(err, errlen, "monitor: cannot publish %s: %s", w->path, strerror(errno));
		munmap(w->seg, sizeof(*w->seg));
		w->seg = NULL;
		goto fail;
	}
	return 0;
fail:
	close(w->fd);
	w->fd = -1;
	unlink(tmp);
	return ret;
}

void mon_destroy(struct mon_writer *w)
{
	struct stat mine, named;

	if (!w->seg)
		return;
	mon_st(&w->seg->hdr.flags, mon_own(&w->seg->hdr.flags) | MON_F_CLOSED);
	/* Remove the name only while it is still this segment's. */
	if (!fstat(w->fd, &mine) && !stat(w->path, &named) && mine.st_ino == named.st_ino &&
	    mine.st_dev == named.st_dev)
		unlink(w->path);
	munmap(w->seg, sizeof(*w->seg));
	close(w->fd);
	w->seg = NULL;
	w->fd = -1;
}

unsigned int mon_record_order(struct mon_writer *w, const struct order_times *t,
			      uint8_t outcome, uint8_t flags)
{
	int64_t v[STAGE_NR];
	unsigned int mask = order_stages(t, outcome, flags, v, NULL);

	for (unsigned int i = 0; i < STAGE_NR; i++)
		if (mask & (1u << i))
			mon_record_stage(w, i, v[i]);
	return mask;
}

void mon_tick(struct mon_writer *w, uint64_t now)
{
	struct mon_window *win = &w->seg->window;
	uint64_t n = mon_own(&win->ticks);
	struct mon_win_slot *s = &win->slot[n % MON_WIN_SLOTS];
	uint64_t t = now;

	seq_write_begin(&s->seq);
	for (unsigned int i = 0; i < MON_STAGES; i++)
		/* A slot no copy could be made for is marked unused. */
		if (mon_hist_copy(&s->h[i], &w->seg->stage[i].h, &w->seg->stage[i].seq,
				  TICK_TRIES))
			t = 0;
	mon_st(&s->t_ns, t);
	seq_write_end(&s->seq);
	mon_st(&win->ticks, n + 1);
	mon_st(&w->seg->hdr.heartbeat_ns, now);
}
