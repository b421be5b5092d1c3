// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "netns/exsim/delayq.h"
#include "util/rng.h"

int delayq_open(struct delayq *d, int fd, uint64_t delay_ns, uint64_t jitter_ns,
		uint64_t seed, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->fd = fd;
	d->delay_ns = delay_ns;
	d->jitter_ns = jitter_ns;
	d->rng = seed;
	/* Prefaulted: the publishing loop must not take page faults. */
	d->q = mmap(NULL, DELAYQ_SLOTS * sizeof(*d->q), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (d->q == MAP_FAILED) {
		d->q = NULL;
		snprintf(err, errlen, "delay queue: %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	return 0;
}

void delayq_close(struct delayq *d)
{
	if (d->q)
		munmap(d->q, DELAYQ_SLOTS * sizeof(*d->q));
	d->q = NULL;
}

uint64_t delayq_when(struct delayq *d, uint64_t now)
{
	uint64_t due = now + d->delay_ns;

	if (d->jitter_ns)
		due += splitmix64(&d->rng) % (d->jitter_ns + 1);
	return due;
}

static void send_one(struct delayq *d, const uint8_t *pkt, size_t len)
{
	for (int tries = 0; tries < 4; tries++) {
		ssize_t n = send(d->fd, pkt, len, 0);

		if (n == (ssize_t)len) {
			d->st.packets++;
			d->st.bytes += len;
			return;
		}
		if (n >= 0 || (errno != ENOBUFS && errno != EAGAIN && errno != EINTR))
			break;
	}
	d->st.send_errors++;
}

void delayq_put(struct delayq *d, const uint8_t *pkt, size_t len, uint64_t due)
{
	struct delayq_slot *s;

	if (d->n == DELAYQ_SLOTS) {
		d->st.queue_full++;
		send_one(d, pkt, len);
		return;
	}
	s = &d->q[(d->head + d->n) % DELAYQ_SLOTS];
	s->due = due;
	s->len = (uint16_t)len;
	memcpy(s->pkt, pkt, len);
	d->n++;
}

void delayq_flush(struct delayq *d, uint64_t now, bool all)
{
	while (d->n && (all || d->q[d->head].due <= now)) {
		struct delayq_slot *s = &d->q[d->head];

		if (now > s->due && now - s->due > d->st.max_late_ns)
			d->st.max_late_ns = now - s->due;
		send_one(d, s->pkt, s->len);
		d->head = (d->head + 1) % DELAYQ_SLOTS;
		d->n--;
	}
}
