// SPDX-License-Identifier: MIT
/* MoldUDP64 re-request server (rereq.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "netns/exsim/rereq.h"
#include "proto/be.h"

#define REREQ_SNDBUF	(4 << 20)
#define SEND_TRIES	1000

int rereq_open(struct rereq *q, const struct exsim_cfg *c, const struct feed *f,
	       char *err, size_t errlen)
{
	struct sockaddr_in a = c->order;
	int sndbuf = REREQ_SNDBUF;
	char addr[INET_ADDRSTRLEN];

	memset(q, 0, sizeof(*q));
	q->fd = -1;
	q->feed = f;
	q->port = c->rereq_port;
	q->max_count = c->rereq_max;
	q->rate = c->rereq_rate / 1e9;
	q->burst = c->rereq_burst;
	q->one_packet = !c->rereq_all;
	q->tokens = q->burst;
	q->refill_ns = mono_ns();
	if (!c->rereq_port)
		return 0;

	a.sin_port = htons(c->rereq_port);
	inet_ntop(AF_INET, &a.sin_addr, addr, sizeof(addr));
	q->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (q->fd < 0) {
		snprintf(err, errlen, "re-request socket: %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	if (setsockopt(q->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(q->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (bind(q->fd, (const struct sockaddr *)&a, sizeof(a))) {
		snprintf(err, errlen, "re-request port %s:%u: %s%s", addr, c->rereq_port,
			 strerror(errno), errno == EADDRINUSE ?
			 " (another exsim here? use --rerequest-port, 0 = off)" : "");
		return errno ? -errno : -EIO;
	}
	return 0;
}

void rereq_close(struct rereq *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}

static void send_packet(struct rereq *q, size_t len, const struct sockaddr_in *to)
{
	int tries;

	for (tries = 0; tries < SEND_TRIES; tries++) {
		if (sendto(q->fd, q->tx, len, 0, (const struct sockaddr *)to,
			   sizeof(*to)) == (ssize_t)len) {
			q->st.packets++;
			q->st.bytes += len;
			return;
		}
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			break;
	}
	q->st.send_errors++;
}

/* How many of messages [seq, seq + n) one packet holds. */
static uint64_t fit_one_packet(const struct msg_store *s, uint64_t seq, uint64_t n)
{
	size_t room = MOLD_MTU_BUDGET - MOLD_HDR_LEN;
	uint64_t k;

	for (k = 0; k < n; k++) {
		uint16_t len = 0;

		if (!store_get(s, seq + k, &len) || (size_t)len + MOLD_BLOCK_HDR_LEN > room)
			break;
		room -= (size_t)len + MOLD_BLOCK_HDR_LEN;
	}
	return k ? k : 1;
}

/* Messages [seq, seq + n), packed, as many packets as it takes. */
static void answer(struct rereq *q, uint64_t seq, uint64_t n,
		   const struct sockaddr_in *to)
{
	const struct msg_store *s = &q->feed->store;
	struct mold_builder b;
	uint64_t end = seq + n;

	mold_builder_init(&b, q->tx, sizeof(q->tx), q->feed->session, seq);
	for (; seq < end; seq++) {
		uint16_t len = 0;
		const uint8_t *m = store_get(s, seq, &len);
		uint8_t *dst;

		if (!m)
			break;
		dst = mold_builder_reserve(&b, len);
		if (!dst) {
			send_packet(q, mold_builder_finish(&b), to);
			mold_builder_init(&b, q->tx, sizeof(q->tx), q->feed->session, seq);
			dst = mold_builder_reserve(&b, len);
		}
		memcpy(dst, m, len);
		q->st.messages++;
	}
	if (b.count)
		send_packet(q, mold_builder_finish(&b), to);
}

static void refill(struct rereq *q)
{
	uint64_t now = mono_ns();

	if (q->rate > 0) {
		q->tokens += (double)(now - q->refill_ns) * q->rate;
		if (q->tokens > q->burst)
			q->tokens = q->burst;
	}
	q->refill_ns = now;
}

static void serve(struct rereq *q, size_t len, const struct sockaddr_in *from)
{
	const struct feed *f = q->feed;
	uint64_t published = f->store.n, n;
	struct mold_rerequest r;
	uint16_t mlen;

	if (mold_decode_rerequest(q->rx, len, &r) < 0) {
		q->st.malformed++;
		goto refused;
	}
	if (memcmp(r.session, f->session, MOLD_SESSION_LEN)) {
		q->st.wrong_session++;
		goto refused;
	}
	if (r.count == 0) {
		q->st.zero_count++;
		goto refused;
	}
	if (r.seq == 0) {
		q->st.bad_seq++;
		goto refused;
	}
	if (r.seq >= f->seq_cap) {
		q->st.beyond_store++;
		goto refused;
	}
	if (r.seq > published) {
		q->st.future++;
		goto refused;
	}
	if (!store_get(&f->store, r.seq, &mlen)) {
		q->st.expired++;	/* older than the window a replay keeps */
		goto refused;
	}
	n = r.count;
	if (n > q->max_count) {
		n = q->max_count;
		q->st.clipped++;
	}
	if (r.seq + n - 1 > published) {
		n = published - r.seq + 1;
		q->st.truncated++;
	}
	if (q->one_packet)
		n = fit_one_packet(&f->store, r.seq, n);
	if (q->rate > 0) {
		refill(q);
		if (q->tokens < (double)n) {
			q->st.rate_limited++;
			goto refused;
		}
		q->tokens -= (double)n;
	}
	q->st.served++;
	answer(q, r.seq, n, from);
	return;
refused:
	q->st.refused++;
}

unsigned int rereq_poll(struct rereq *q, unsigned int max)
{
	unsigned int done = 0;

	if (q->fd < 0)
		return 0;
	while (done < max) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(q->fd, q->rx, sizeof(q->rx), MSG_DONTWAIT | MSG_TRUNC,
				     (struct sockaddr *)&from, &fl);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		done++;
		q->st.datagrams++;
		if (from.sin_family != AF_INET || fl < sizeof(from)) {
			q->st.malformed++;
			q->st.refused++;
			continue;
		}
		/* MSG_TRUNC: n is the datagram's real length, so an oversized
		 * one is malformed, not a 64-byte prefix. */
		serve(q, (size_t)n, &from);
	}
	return done;
}
