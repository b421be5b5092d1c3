// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns/exsim/line_b.h"
#include "strategy/gbm.h"
#include "util/clock.h"

#define JITTER_SALT	UINT64_C(0x6a6974746572)

int line_b_open(struct line_b *l, const struct exsim_cfg *c, int (*open_sock)(
		const struct exsim_cfg *, const struct sockaddr_in *, char *, size_t),
		char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->fd = -1;
	if (!c->line_b.sin_port)
		return 0;
	if (faults_init(&l->fx, &c->fb, false)) {
		snprintf(err, errlen, "line B faults: %s", strerror(errno));
		return -1;
	}
	/* Prefaulted: the publishing loop must not take page faults. */
	l->q = mmap(NULL, LINE_B_QUEUE * sizeof(*l->q), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (l->q == MAP_FAILED) {
		l->q = NULL;
		snprintf(err, errlen, "line B queue: %s", strerror(errno));
		return -1;
	}
	l->delay_ns = c->b_delay_ns;
	l->jitter_ns = c->b_jitter_ns;
	l->rng = c->fb.seed ^ JITTER_SALT;
	l->fd = open_sock(c, &c->line_b, err, errlen);
	if (l->fd < 0) {
		line_b_close(l);
		return -1;
	}
	return 0;
}

void line_b_close(struct line_b *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->q)
		munmap(l->q, LINE_B_QUEUE * sizeof(*l->q));
	faults_destroy(&l->fx);
	l->q = NULL;
	l->fd = -1;
}

static void send_one(struct line_b *l, const uint8_t *pkt, size_t len)
{
	for (int tries = 0; tries < 4; tries++) {
		ssize_t n = send(l->fd, pkt, len, 0);

		if (n == (ssize_t)len) {
			l->st.packets++;
			l->st.bytes += len;
			return;
		}
		if (n >= 0 || (errno != ENOBUFS && errno != EAGAIN && errno != EINTR))
			break;
	}
	l->st.send_errors++;
}

static void enqueue(struct line_b *l, const uint8_t *pkt, size_t len, uint64_t due)
{
	struct line_b_slot *s;

	if (l->n == LINE_B_QUEUE) {
		l->st.queue_full++;
		send_one(l, pkt, len);
		return;
	}
	s = &l->q[(l->head + l->n) % LINE_B_QUEUE];
	s->due = due;
	s->len = (uint16_t)len;
	memcpy(s->pkt, pkt, len);
	l->n++;
}

void line_b_copy(struct line_b *l, const uint8_t *pkt, size_t len, uint64_t seq,
		 uint16_t count, unsigned int units, bool random, uint64_t now)
{
	uint64_t due = now + l->delay_ns;
	unsigned int v;

	if (l->fd < 0 || len > MOLD_MTU_BUDGET)
		return;
	if (l->jitter_ns)
		due += gbm_splitmix64(&l->rng) % (l->jitter_ns + 1);
	v = count ? faults_verdict(&l->fx, seq, count, units, random) : 0;
	if (v & FAULT_DROP)
		return;
	if ((v & FAULT_HOLD) && !l->holding) {
		l->held.len = (uint16_t)len;
		memcpy(l->held.pkt, pkt, len);
		l->holding = true;
		l->fx.st.reordered_packets++;
		l->fx.st.reordered_msgs += count;
		return;
	}
	enqueue(l, pkt, len, due);
	if (v & FAULT_DUP) {
		enqueue(l, pkt, len, due);
		l->fx.st.dup_packets++;
	}
	/* The one held back goes right after the one that overtook it. */
	if (l->holding) {
		enqueue(l, l->held.pkt, l->held.len, due);
		l->holding = false;
	}
}

void line_b_flush(struct line_b *l, uint64_t now, bool all)
{
	if (all && l->holding) {
		enqueue(l, l->held.pkt, l->held.len, now);
		l->holding = false;
	}
	while (l->n && (all || l->q[l->head].due <= now)) {
		struct line_b_slot *s = &l->q[l->head];

		if (now > s->due && now - s->due > l->st.max_late_ns)
			l->st.max_late_ns = now - s->due;
		send_one(l, s->pkt, s->len);
		l->head = (l->head + 1) % LINE_B_QUEUE;
		l->n--;
	}
}
