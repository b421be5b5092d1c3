// SPDX-License-Identifier: MIT
/* Feed publisher: staged MoldUDP64 packets, stamped and sent on schedule. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "netns/exsim/feed.h"
#include "proto/be.h"

#define FEED_SNDBUF	(4 << 20)

/* Zeroed, pre-faulted memory: no page fault on the send path. */
static void *prefaulted(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int open_socket(struct feed *f, const struct exsim_cfg *c,
		       char *err, size_t errlen)
{
	char addr[INET_ADDRSTRLEN];
	int sndbuf = FEED_SNDBUF, zero = 0;

	inet_ntop(AF_INET, &c->feed.sin_addr, addr, sizeof(addr));
	f->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (f->fd < 0) {
		snprintf(err, errlen, "feed socket: %s", strerror(errno));
		return -1;
	}
	/* Root can exceed wmem_max; a burst must not block on the buffer. */
	if (setsockopt(f->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(f->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (c->feed_mcast) {
		unsigned char ttl = (unsigned char)c->ttl;

		/* No loopback copy: nothing in the exchange namespace reads
		 * the feed, and each copy would cost a second delivery. */
		if (setsockopt(f->fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) ||
		    setsockopt(f->fd, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof(zero))) {
			snprintf(err, errlen, "feed socket options: %s", strerror(errno));
			return -1;
		}
		if (c->mcast_if.s_addr != htonl(INADDR_ANY) &&
		    setsockopt(f->fd, IPPROTO_IP, IP_MULTICAST_IF, &c->mcast_if,
			       sizeof(c->mcast_if))) {
			char ifa[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &c->mcast_if, ifa, sizeof(ifa));
			snprintf(err, errlen, "--mcast-if %s: %s (no interface has it here?)",
				 ifa, strerror(errno));
			return -1;
		}
	}
	/* Connected: the route is looked up once, here, where a missing one
	 * gives a clear error instead of a failing first send. */
	if (connect(f->fd, (const struct sockaddr *)&c->feed, sizeof(c->feed))) {
		snprintf(err, errlen, "feed %s:%u: %s%s", addr, ntohs(c->feed.sin_port),
			 strerror(errno),
			 errno == ENETUNREACH ? " (no route: run inside the rig's exchange "
			 "namespace, e.g. 'ip netns exec t2t-ex ...', with the rig up)" : "");
		return -1;
	}
	return 0;
}

int feed_open(struct feed *f, const struct exsim_cfg *c, uint64_t tick_cap,
	      bool store, char *err, size_t errlen)
{
	/* A trade and at most ceil(noise) noise messages per tick. */
	unsigned int per_tick = 1 + (unsigned int)ceil(c->noise);

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	memcpy(f->session, c->session, MOLD_SESSION_LEN);
	f->stamp_mono = c->stamp_mono;
	f->rt_offset = realtime_offset();
	f->burst = c->burst;
	f->period_ns = c->rate > 0 ? 1e9 / c->rate : 0;
	f->max_ticks = c->max_per_packet && c->max_per_packet < FEED_MAX_TICKS ?
		       c->max_per_packet : FEED_MAX_TICKS;
	f->first_seq = 1;	/* a MoldUDP64 session starts at 1 */
	mold_builder_init(&f->b, f->pkt, sizeof(f->pkt), f->session, 1);
	hdr_reset(&f->send_ns);

	/* Seq 0 unused; system events, directory, ticks with their noise. */
	f->seq_cap = 1 + 16 + c->nsym + tick_cap * per_tick;
	f->tick_cap = tick_cap;
	f->seq_send = prefaulted(f->seq_cap * sizeof(uint64_t));
	f->seq_intended = prefaulted(f->seq_cap * sizeof(uint64_t));
	f->ticks = prefaulted(tick_cap * sizeof(struct tick_rec));
	if (!f->seq_send || !f->seq_intended || !f->ticks) {
		snprintf(err, errlen, "cannot allocate the send logs for %llu ticks "
			 "(%llu MiB): %s", (unsigned long long)tick_cap,
			 (unsigned long long)((f->seq_cap * 16 + tick_cap * 16) >> 20),
			 strerror(errno));
		return -1;
	}
	if (store && store_open(&f->store, f->seq_cap)) {
		snprintf(err, errlen, "cannot map the message store for re-requests "
			 "(%llu MiB): %s", (unsigned long long)(store_bytes_for(f->seq_cap) >> 20),
			 strerror(errno));
		return -1;
	}
	if (faults_init(&f->fx, c)) {
		snprintf(err, errlen, "fault log: %s", strerror(errno));
		return -1;
	}
	return open_socket(f, c, err, errlen);
}

void feed_close(struct feed *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->seq_send)
		munmap(f->seq_send, f->seq_cap * sizeof(uint64_t));
	if (f->seq_intended)
		munmap(f->seq_intended, f->seq_cap * sizeof(uint64_t));
	if (f->ticks)
		munmap(f->ticks, f->tick_cap * sizeof(struct tick_rec));
	store_close(&f->store);
	faults_destroy(&f->fx);
	f->fd = -1;
	f->seq_send = f->seq_intended = NULL;
	f->ticks = NULL;
}

void feed_start_schedule(struct feed *f, uint64_t t0)
{
	f->t0 = t0;
}

static uint64_t intended_time(const struct feed *f, uint64_t index)
{
	if (f->period_ns == 0)
		return 0;
	return f->t0 + (uint64_t)((double)(index - index % f->burst) * f->period_ns);
}

/* One datagram; a failure is counted and the feed goes on (a gap). */
static void send_datagram(struct feed *f, const uint8_t *buf, size_t len)
{
	int tries;

	for (tries = 0; tries < FEED_SEND_TRIES; tries++) {
		ssize_t n = send(f->fd, buf, len, 0);

		if (n == (ssize_t)len) {
			f->st.packets++;
			f->st.bytes += len;
			return;
		}
		if (n < 0 && (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)) {
			f->st.send_retries++;
			continue;
		}
		break;
	}
	f->st.send_errors++;
}

/* Send the held packet, if any, after the one that overtook it. */
static void release_held(struct feed *f)
{
	struct faults *x = &f->fx;

	if (!x->holding)
		return;
	x->holding = false;
	send_datagram(f, x->held, x->held_len);
	x->st.reordered_packets++;
	x->st.reordered_msgs += x->held_count;
	faults_log(x, FAULT_EV_REORDER, x->held_seq, x->held_count);
	if (x->held_dup) {
		send_datagram(f, x->held, x->held_len);
		x->st.dup_packets++;
		faults_log(x, FAULT_EV_DUP, x->held_seq, x->held_count);
	}
}

/* Keep every message of the packet just stamped, as it is about to leave. */
static void store_packet(struct feed *f, uint16_t nmsg)
{
	unsigned int i;

	if (!f->store.end)
		return;
	for (i = 0; i < nmsg; i++) {
		const uint8_t *m = f->pkt + f->msg_off[i];

		store_put(&f->store, m, be16_load(m - MOLD_BLOCK_HDR_LEN));
	}
}

/*
 * Send the first @nmsg staged messages (@len bytes, @ticks of them trades)
 * as one packet: the header's seq and count, then the stamp, then the
 * store, the fault verdict and send().  @random: the random faults apply.
 * Returns the stamp.
 */
static uint64_t emit(struct feed *f, uint16_t nmsg, size_t len,
		     unsigned int ticks, bool random)
{
	struct faults *x = &f->fx;
	uint64_t now, after, stamp;
	unsigned int i, v;

	be64_store(f->pkt + MOLD_OFF_SEQ, f->first_seq);
	be16_store(f->pkt + MOLD_OFF_COUNT, nmsg);
	now = mono_ns();
	stamp = f->stamp_mono ? now : tod_from_mono(now, f->rt_offset);
	for (i = 0; i < nmsg; i++)
		be48_store(f->pkt + f->msg_off[i] + ITCH_OFF_TIMESTAMP, stamp);
	store_packet(f, nmsg);
	v = faults_verdict(x, f->first_seq, nmsg, ticks, random);
	if (v & FAULT_HOLD) {
		memcpy(x->held, f->pkt, len);
		x->held_len = len;
		x->held_seq = f->first_seq;
		x->held_count = nmsg;
		x->held_dup = v & FAULT_DUP;
		x->holding = true;
	} else if (!(v & FAULT_DROP)) {
		send_datagram(f, f->pkt, len);
		after = mono_ns();
		hdr_record(&f->send_ns, (int64_t)(after - now));
		if (v & FAULT_DUP) {
			send_datagram(f, f->pkt, len);
			x->st.dup_packets++;
			faults_log(x, FAULT_EV_DUP, f->first_seq, nmsg);
		}
		release_held(f);
	}
	f->last_send_ns = now;

	f->st.data_packets++;
	f->st.messages += nmsg;
	for (i = 0; i < nmsg; i++)
		f->st.by_type[f->pkt[f->msg_off[i]]]++;
	if (nmsg > f->st.max_msgs)
		f->st.max_msgs = nmsg;
	return now;
}

/* Remove the first @nmsg messages (@len bytes of packet) from the stage. */
static void shift(struct feed *f, uint16_t nmsg, size_t len)
{
	size_t rest = f->b.len - len, cut = len - MOLD_HDR_LEN;
	unsigned int i;

	memmove(f->pkt + MOLD_HDR_LEN, f->pkt + len, rest);
	f->b.len = MOLD_HDR_LEN + rest;
	for (i = nmsg; i < f->b.count; i++)
		f->msg_off[i - nmsg] = (uint16_t)(f->msg_off[i] - cut);
	f->b.count = (uint16_t)(f->b.count - nmsg);
	f->first_seq += nmsg;
}

/* Append one message to the stage; the caller checked that it fits. */
static void stage_msg(struct feed *f, const struct itch_msg *m)
{
	uint16_t off = (uint16_t)(f->b.len + MOLD_BLOCK_HDR_LEN);

	if (mold_builder_append_itch(&f->b, m) > 0)
		f->msg_off[f->b.count - 1] = off;
}

void feed_stage(struct feed *f, struct gen *g, uint64_t total)
{
	while (f->nticks < f->max_ticks) {
		struct feed_tick *t;
		size_t need = 0;
		unsigned int i;

		if (!f->pending) {
			if (f->generated >= total)
				return;
			gen_next(g, &f->pend_tick);
			f->pend_n = 0;
			for (i = 0; i < f->pend_tick.noise; i++)
				gen_noise(g, &f->pend_tick, &f->pend_msg[f->pend_n++]);
			gen_trade(g, &f->pend_tick, &f->pend_msg[f->pend_n++]);
			f->pending = true;
			f->generated++;
		}
		for (i = 0; i < f->pend_n; i++)
			need += MOLD_BLOCK_HDR_LEN +
				(size_t)itch_codec_len(f->pend_msg[i].type);
		if (f->b.cap - f->b.len < need ||
		    f->b.count + f->pend_n > FEED_MAX_MSGS ||
		    f->first_seq + f->b.count + f->pend_n > f->seq_cap)
			return;

		for (i = 0; i < f->pend_n; i++)
			stage_msg(f, &f->pend_msg[i]);
		t = &f->tick[f->nticks++];
		t->index = f->pend_tick.index;
		t->seq = f->first_seq + f->b.count - 1;
		t->intended = intended_time(f, t->index);
		t->end_len = (uint16_t)f->b.len;
		t->end_msgs = f->b.count;
		t->locate = f->pend_tick.locate;
		t->price = f->pend_tick.price;
		t->shares = f->pend_tick.shares;
		f->pending = false;
	}
}

unsigned int feed_due(const struct feed *f, uint64_t now)
{
	unsigned int k = 0;

	if (f->period_ns == 0)
		return f->nticks;
	while (k < f->nticks && f->tick[k].intended <= now)
		k++;
	return k;
}

uint64_t feed_send_ticks(struct feed *f, unsigned int k)
{
	const struct feed_tick *last = &f->tick[k - 1];
	uint64_t now = emit(f, last->end_msgs, last->end_len, k, true);
	unsigned int j, m = 0;

	for (j = 0; j < k; j++) {
		struct feed_tick *t = &f->tick[j];

		if (!t->intended)
			t->intended = now;
		for (; m < t->end_msgs; m++) {
			f->seq_send[f->first_seq + m] = now;
			f->seq_intended[f->first_seq + m] = t->intended;
		}
		if (f->ticks_sent < f->tick_cap) {
			struct tick_rec *r = &f->ticks[f->ticks_sent++];

			r->seq = t->seq;
			r->price = t->price;
			r->shares = t->shares;
		}
	}
	if (k > f->st.max_ticks)
		f->st.max_ticks = (uint16_t)k;
	return now;
}

void feed_consume(struct feed *f, unsigned int k)
{
	const struct feed_tick *last = &f->tick[k - 1];
	uint16_t nmsg = last->end_msgs;
	size_t len = last->end_len, cut = len - MOLD_HDR_LEN;
	unsigned int j;

	shift(f, nmsg, len);
	for (j = k; j < f->nticks; j++) {
		struct feed_tick *t = &f->tick[j - k];

		*t = f->tick[j];
		t->end_len = (uint16_t)(t->end_len - cut);
		t->end_msgs = (uint16_t)(t->end_msgs - nmsg);
	}
	f->nticks -= k;
}

void feed_discard(struct feed *f)
{
	f->b.len = MOLD_HDR_LEN;
	f->b.count = 0;
	f->nticks = 0;
	f->pending = false;
}

/* Send every staged (non-tick) message as one packet. */
static void flush_msgs(struct feed *f)
{
	uint16_t n = f->b.count;
	uint64_t now, seq;

	if (!n)
		return;
	now = emit(f, n, f->b.len, 0, false);
	for (seq = f->first_seq; seq < f->first_seq + n; seq++) {
		f->seq_send[seq] = now;
		f->seq_intended[seq] = now;
	}
	shift(f, n, f->b.len);
}

int feed_send_msgs(struct feed *f, const struct itch_msg *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t need = MOLD_BLOCK_HDR_LEN + (size_t)itch_codec_len(m[i].type);

		if (f->first_seq + f->b.count + 1 > f->seq_cap)
			return -1;
		if (f->b.cap - f->b.len < need || f->b.count == FEED_MAX_MSGS)
			flush_msgs(f);
		stage_msg(f, &m[i]);
	}
	flush_msgs(f);
	return 0;
}

void feed_heartbeat(struct feed *f)
{
	uint8_t buf[MOLD_HDR_LEN];

	release_held(f);
	mold_encode_heartbeat(buf, sizeof(buf), f->session, f->first_seq);
	send_datagram(f, buf, sizeof(buf));
	f->st.heartbeats++;
	f->last_send_ns = mono_ns();
}

void feed_end_of_session(struct feed *f)
{
	uint8_t buf[MOLD_HDR_LEN];

	release_held(f);
	mold_encode_end_of_session(buf, sizeof(buf), f->session, f->first_seq);
	send_datagram(f, buf, sizeof(buf));
	f->st.end_of_session++;
	f->last_send_ns = mono_ns();
}
