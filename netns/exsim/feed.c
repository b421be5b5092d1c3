// SPDX-License-Identifier: MIT
/* Feed publisher: staged MoldUDP64 packets, stamped and sent on schedule. */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
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

/* A socket connected to @dst (line A's group, or line B's); -1 with err. */
static int open_socket(const struct exsim_cfg *c, const struct sockaddr_in *dst,
		       char *err, size_t errlen)
{
	char addr[INET_ADDRSTRLEN];
	int sndbuf = FEED_SNDBUF, zero = 0, fd, ret;

	inet_ntop(AF_INET, &dst->sin_addr, addr, sizeof(addr));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "feed socket: %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	/* Root can exceed wmem_max; a burst must not block on the buffer. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if ((ntohl(dst->sin_addr.s_addr) >> 28) == 0xE) {
		unsigned char ttl = (unsigned char)c->ttl;

		/* No loopback copy: nothing in the exchange namespace reads
		 * the feed, and each copy would cost a second delivery. */
		if (setsockopt(fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl)) ||
		    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &zero, sizeof(zero))) {
			snprintf(err, errlen, "feed socket options: %s", strerror(errno));
			goto fail;
		}
		/* --mcast-if names line A's interface; line B's group has its route. */
		if (dst == &c->feed && c->mcast_if.s_addr != htonl(INADDR_ANY) &&
		    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &c->mcast_if,
			       sizeof(c->mcast_if))) {
			char ifa[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &c->mcast_if, ifa, sizeof(ifa));
			snprintf(err, errlen, "--mcast-if %s: %s (no interface has it here?)",
				 ifa, strerror(errno));
			goto fail;
		}
	}
	/* Connected: the route is looked up once, here, where a missing one
	 * gives a clear error instead of a failing first send. */
	if (connect(fd, (const struct sockaddr *)dst, sizeof(*dst))) {
		snprintf(err, errlen, "feed %s:%u: %s%s", addr, ntohs(dst->sin_port),
			 strerror(errno),
			 errno == ENETUNREACH ? " (no route: run inside the rig's exchange "
			 "namespace, e.g. 'ip netns exec t2t-ex ...', with the rig up)" : "");
		goto fail;
	}
	return fd;
fail:
	ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/* Reserved; pre-faulted while small, else faulted in as it fills. */
static void *reserved(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		       (bytes <= STORE_POPULATE_MAX ? MAP_POPULATE : 0), -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int feed_open(struct feed *f, const struct exsim_cfg *c, const struct feed_plan *p,
	      char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	memcpy(f->session, c->session, MOLD_SESSION_LEN);
	f->stamp_mono = c->stamp_mono;
	f->rt_offset = realtime_offset();
	f->max_units = c->max_per_packet && c->max_per_packet < FEED_MAX_UNITS ?
		       c->max_per_packet : FEED_MAX_UNITS;
	f->first_seq = 1;	/* a MoldUDP64 session starts at 1 */
	f->src_state = 1;
	f->stamp = true;
	mold_builder_init(&f->b, f->pkt, sizeof(f->pkt), f->session, 1);
	hdr_reset(&f->send_ns);

	f->seq_cap = p->seq_cap;
	f->seq_win = p->seq_win;
	f->seq_send = prefaulted(f->seq_win * sizeof(uint64_t));
	f->seq_intended = prefaulted(f->seq_win * sizeof(uint64_t));
	if (!f->seq_send || !f->seq_intended) {
		snprintf(err, errlen, "cannot allocate the send logs for %llu sequence numbers "
			 "(%llu MiB): %s", (unsigned long long)f->seq_win,
			 (unsigned long long)((f->seq_win * 16) >> 20), strerror(errno));
		return errno ? -errno : -EIO;
	}
	if (p->record_cap) {
		f->rec_cap = p->record_cap;
		f->rec = reserved(f->rec_cap * sizeof(*f->rec));
		if (!f->rec) {
			snprintf(err, errlen, "cannot reserve the record (%llu MiB): %s",
				 (unsigned long long)((f->rec_cap * sizeof(*f->rec)) >> 20),
				 strerror(errno));
			return errno ? -errno : -EIO;
		}
	}
	if (p->store_bytes && store_open(&f->store, f->seq_win, p->store_bytes)) {
		snprintf(err, errlen, "cannot map the message store for re-requests "
			 "(%llu MiB): %s",
			 (unsigned long long)(store_bytes_for(f->seq_win, p->store_bytes) >> 20),
			 strerror(errno));
		return errno ? -errno : -EIO;
	}
	if (faults_init(&f->fx, &c->fa, c->fault_log_path != NULL)) {
		snprintf(err, errlen, "fault log: %s", strerror(errno));
		return errno ? -errno : -EIO;
	}
	f->fd = open_socket(c, &c->feed, err, errlen);
	if (f->fd < 0)
		return f->fd;
	if ((c->a_delay_ns || c->a_jitter_ns) &&
	    delayq_open(&f->adq, f->fd, c->a_delay_ns, c->a_jitter_ns,
			c->fa.seed ^ UINT64_C(0x6c696e652d61), err, errlen))
		return -1;
	return line_b_open(&f->lb, c, open_socket, err, errlen);
}

void feed_close(struct feed *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->seq_send)
		munmap(f->seq_send, f->seq_win * sizeof(uint64_t));
	if (f->seq_intended)
		munmap(f->seq_intended, f->seq_win * sizeof(uint64_t));
	if (f->rec)
		munmap(f->rec, f->rec_cap * sizeof(*f->rec));
	store_close(&f->store);
	faults_destroy(&f->fx);
	delayq_close(&f->adq);
	line_b_close(&f->lb);
	f->fd = -1;
	f->seq_send = f->seq_intended = NULL;
	f->rec = NULL;
}

void feed_set_source(struct feed *f, feed_next_fn next, void *src, bool paced, bool stamp)
{
	f->next = next;
	f->src = src;
	f->src_state = 1;
	f->paced = paced;
	f->stamp = stamp;
}

void feed_set_hook(struct feed *f, feed_hook_fn hook, void *ctx)
{
	f->hook = hook;
	f->hook_ctx = ctx;
}

void feed_start_schedule(struct feed *f, uint64_t t0)
{
	f->t0 = t0;
}

/*
 * One datagram; a failure is counted and the feed goes on (a gap).  With
 * line A's delay it is counted as sent when handed to the delay queue,
 * which sends it in time (its own counters say how that went).
 */
static void send_datagram(struct feed *f, const uint8_t *buf, size_t len)
{
	int tries;

	if (f->adq.q && len <= MOLD_MTU_BUDGET) {
		delayq_put(&f->adq, buf, len, delayq_when(&f->adq, mono_ns()));
		f->st.packets++;
		f->st.bytes += len;
		return;
	}
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

	if (!store_enabled(&f->store))
		return;
	for (i = 0; i < nmsg; i++) {
		const uint8_t *m = f->pkt + f->msg_off[i];

		store_put(&f->store, m, be16_load(m - MOLD_BLOCK_HDR_LEN));
	}
}

static void record_print(struct feed *f, uint64_t seq, const uint8_t *m, uint64_t now)
{
	struct print_rec *r;

	if (f->rec_n == f->rec_cap) {
		f->rec_dropped++;
		return;
	}
	r = &f->rec[f->rec_n++];
	r->seq = seq;
	r->send_ns = now;
	r->price = be32_load(m + ITCH_P_OFF_PRICE);
	r->shares = be32_load(m + ITCH_P_OFF_SHARES);
	r->locate = be16_load(m + ITCH_OFF_LOCATE);
	memcpy(r->stock, m + ITCH_P_OFF_STOCK, ITCH_SYMBOL_LEN);
}

/* After the packet: count, record and hand on every message in it. */
static void published(struct feed *f, uint16_t nmsg, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < nmsg; i++) {
		const uint8_t *m = f->pkt + f->msg_off[i];
		uint16_t len = be16_load(m - MOLD_BLOCK_HDR_LEN);
		uint64_t seq = f->first_seq + i;

		f->st.by_type[len ? m[ITCH_OFF_TYPE] : 0]++;
		if (f->rec && len == ITCH_LEN_P && m[ITCH_OFF_TYPE] == 'P')
			record_print(f, seq, m, now);
		if (f->hook)
			f->hook(f->hook_ctx, seq, m, len);
	}
}

/*
 * Send the first @nmsg staged messages (@len bytes, @units of them units)
 * as one packet: the header's seq and count, then the stamp, then the
 * store, the fault verdict and send(), then the record and the hook.
 * @random: the random faults apply.  Returns the send time.
 */
static uint64_t emit(struct feed *f, uint16_t nmsg, size_t len,
		     unsigned int units, bool random)
{
	struct faults *x = &f->fx;
	uint64_t now, after, stamp;
	unsigned int i, v;

	be64_store(f->pkt + MOLD_OFF_SEQ, f->first_seq);
	be16_store(f->pkt + MOLD_OFF_COUNT, nmsg);
	now = mono_ns();
	if (f->stamp) {
		stamp = f->stamp_mono ? now : tod_from_mono(now, f->rt_offset);
		for (i = 0; i < nmsg; i++)
			be48_store(f->pkt + f->msg_off[i] + ITCH_OFF_TIMESTAMP, stamp);
	}
	store_packet(f, nmsg);
	line_b_copy(&f->lb, f->pkt, len, f->first_seq, nmsg, units, random, now);
	v = faults_verdict(x, f->first_seq, nmsg, units, random);
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
	if (nmsg > f->st.max_msgs)
		f->st.max_msgs = nmsg;
	published(f, nmsg, now);
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

/*
 * Append one message of @len bytes to the stage; the caller checked that
 * it fits.  Written by hand, not by the builder: a replay carries a day's
 * blocks as they are, an empty or malformed one included.
 */
static void stage_raw(struct feed *f, const uint8_t *m, uint16_t len)
{
	uint8_t *blk = f->pkt + f->b.len;

	be16_store(blk, len);
	memcpy(blk + MOLD_BLOCK_HDR_LEN, m, len);
	f->msg_off[f->b.count++] = (uint16_t)(f->b.len + MOLD_BLOCK_HDR_LEN);
	f->b.len += MOLD_BLOCK_HDR_LEN + len;
}

void feed_stage(struct feed *f)
{
	while (f->nunits < f->max_units) {
		const struct feed_unit *u = &f->pend;
		struct feed_slot *t;
		size_t need = 0;
		unsigned int i;
		const uint8_t *m;

		if (!f->pending) {
			if (f->src_state != 1)
				return;
			memset(&f->pend, 0, offsetof(struct feed_unit, buf));
			f->src_state = f->next(f->src, &f->pend);
			if (f->src_state != 1)
				return;
			f->pending = true;
			f->generated++;
		}
		need = (size_t)u->n * MOLD_BLOCK_HDR_LEN + u->bytes;
		if (f->b.cap - f->b.len < need ||
		    f->b.count + u->n > FEED_MAX_MSGS ||
		    f->first_seq + f->b.count + u->n > f->seq_cap)
			return;

		for (i = 0, m = u->buf; i < u->n; m += u->len[i], i++)
			stage_raw(f, m, u->len[i]);
		t = &f->unit[f->nunits++];
		t->index = f->generated - 1;
		t->intended = f->paced ? f->t0 + u->offset_ns : 0;
		t->end_len = (uint16_t)f->b.len;
		t->end_msgs = f->b.count;
		f->pending = false;
	}
}

unsigned int feed_due(const struct feed *f, uint64_t now)
{
	unsigned int k = 0;

	if (!f->paced)
		return f->nunits;
	while (k < f->nunits && f->unit[k].intended <= now)
		k++;
	return k;
}

static uint64_t send_units(struct feed *f, unsigned int k, bool random)
{
	const struct feed_slot *last = &f->unit[k - 1];
	uint64_t now = emit(f, last->end_msgs, last->end_len, k, random);
	unsigned int j, m = 0;

	for (j = 0; j < k; j++) {
		struct feed_slot *t = &f->unit[j];

		if (!t->intended)
			t->intended = now;
		for (; m < t->end_msgs; m++) {
			uint64_t i = (f->first_seq + m) % f->seq_win;

			f->seq_send[i] = now;
			f->seq_intended[i] = t->intended;
		}
	}
	if (k > f->st.max_units)
		f->st.max_units = (uint16_t)k;
	return now;
}

uint64_t feed_send_units(struct feed *f, unsigned int k)
{
	f->units_sent += k;
	return send_units(f, k, true);
}

void feed_consume(struct feed *f, unsigned int k)
{
	const struct feed_slot *last = &f->unit[k - 1];
	uint16_t nmsg = last->end_msgs;
	size_t len = last->end_len, cut = len - MOLD_HDR_LEN;
	unsigned int j;

	shift(f, nmsg, len);
	for (j = k; j < f->nunits; j++) {
		struct feed_slot *t = &f->unit[j - k];

		*t = f->unit[j];
		t->end_len = (uint16_t)(t->end_len - cut);
		t->end_msgs = (uint16_t)(t->end_msgs - nmsg);
	}
	f->nunits -= k;
}

void feed_discard(struct feed *f)
{
	f->b.len = MOLD_HDR_LEN;
	f->b.count = 0;
	f->nunits = 0;
	f->pending = false;
}

int feed_publish_part(struct feed *f)
{
	bool paced = f->paced;

	f->paced = false;
	for (;;) {
		feed_stage(f);
		if (!f->nunits)
			break;
		send_units(f, f->nunits, false);
		feed_consume(f, f->nunits);
	}
	f->paced = paced;
	return f->src_state < 0 ? -1 : 0;
}

/* Send every staged (non-unit) message as one packet. */
static void flush_msgs(struct feed *f)
{
	uint16_t n = f->b.count;
	uint64_t now, seq;

	if (!n)
		return;
	now = emit(f, n, f->b.len, 0, false);
	for (seq = f->first_seq; seq < f->first_seq + n; seq++) {
		f->seq_send[seq % f->seq_win] = now;
		f->seq_intended[seq % f->seq_win] = now;
	}
	shift(f, n, f->b.len);
}

int feed_send_msgs(struct feed *f, const struct itch_msg *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint8_t buf[64];
		int len = itch_encode(buf, sizeof(buf), &m[i]);

		if (len <= 0 || f->first_seq + f->b.count + 1 > f->seq_cap)
			return -1;
		if (f->b.cap - f->b.len < MOLD_BLOCK_HDR_LEN + (size_t)len ||
		    f->b.count == FEED_MAX_MSGS)
			flush_msgs(f);
		stage_raw(f, buf, (uint16_t)len);
	}
	flush_msgs(f);
	return 0;
}

void feed_heartbeat(struct feed *f)
{
	uint8_t buf[MOLD_HDR_LEN];

	release_held(f);
	mold_encode_heartbeat(buf, sizeof(buf), f->session, f->first_seq);
	line_b_copy(&f->lb, buf, sizeof(buf), f->first_seq, 0, 0, false, mono_ns());
	send_datagram(f, buf, sizeof(buf));
	f->st.heartbeats++;
	f->last_send_ns = mono_ns();
}

void feed_end_of_session(struct feed *f)
{
	uint8_t buf[MOLD_HDR_LEN];

	release_held(f);
	mold_encode_end_of_session(buf, sizeof(buf), f->session, f->first_seq);
	line_b_copy(&f->lb, buf, sizeof(buf), f->first_seq, 0, 0, false, mono_ns());
	send_datagram(f, buf, sizeof(buf));
	f->st.end_of_session++;
	f->last_send_ns = mono_ns();
}
