// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netns/exsim/line_b.h"

#define JITTER_SALT	UINT64_C(0x6a6974746572)

int line_b_open(struct line_b *l, const struct exsim_cfg *c, int (*open_sock)(
		const struct exsim_cfg *, const struct sockaddr_in *, char *, size_t),
		char *err, size_t errlen)
{
	int ret;

	memset(l, 0, sizeof(*l));
	l->fd = -1;
	if (!c->line_b.sin_port)
		return 0;
	if (faults_init(&l->fx, &c->fb, false)) {
		snprintf(err, errlen, "line B faults: %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	ret = open_sock(c, &c->line_b, err, errlen);
	if (ret >= 0) {
		l->fd = ret;
		ret = delayq_open(&l->dq, l->fd, c->b_delay_ns, c->b_jitter_ns,
				  c->fb.seed ^ JITTER_SALT, err, errlen);
	}
	if (ret < 0)
		line_b_close(l);
	return ret < 0 ? ret : 0;
}

void line_b_close(struct line_b *l)
{
	delayq_close(&l->dq);
	if (l->fd >= 0)
		close(l->fd);
	faults_destroy(&l->fx);
	l->fd = -1;
}

void line_b_copy(struct line_b *l, const uint8_t *pkt, size_t len, uint64_t seq,
		 uint16_t count, unsigned int units, bool random, uint64_t now)
{
	uint64_t due;
	unsigned int v;

	if (l->fd < 0 || len > MOLD_MTU_BUDGET)
		return;
	due = delayq_when(&l->dq, now);
	v = count ? faults_verdict(&l->fx, seq, count, units, random) : 0;
	if (v & FAULT_DROP)
		return;
	if ((v & FAULT_HOLD) && !l->holding) {
		l->held_len = (uint16_t)len;
		memcpy(l->held, pkt, len);
		l->holding = true;
		l->fx.st.reordered_packets++;
		l->fx.st.reordered_msgs += count;
		return;
	}
	delayq_put(&l->dq, pkt, len, due);
	if (v & FAULT_DUP) {
		delayq_put(&l->dq, pkt, len, due);
		l->fx.st.dup_packets++;
	}
	/* The one held back goes right after the one that overtook it. */
	if (l->holding) {
		delayq_put(&l->dq, l->held, l->held_len, due);
		l->holding = false;
	}
}

void line_b_flush(struct line_b *l, uint64_t now, bool all)
{
	if (l->fd < 0)
		return;
	if (all && l->holding) {
		delayq_put(&l->dq, l->held, l->held_len, now);
		l->holding = false;
	}
	delayq_flush(&l->dq, now, all);
}
