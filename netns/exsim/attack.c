// SPDX-License-Identifier: MIT
/* Attacks on the feed session (attack.h). */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netns/exsim/attack.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "util/rng.h"

#define ATTACK_SALT	UINT64_C(0x61747461636b2121)
#define SEND_TRIES	1000

void attack_init(struct attack *a, const struct exsim_cfg *c, struct feed *f)
{
	memset(a, 0, sizeof(*a));
	a->cfg = c;
	a->feed = f;
	a->rng = c->fault_seed ^ ATTACK_SALT;
}

static void send_pkt(struct attack *a, const uint8_t *buf, size_t len, uint64_t *counter)
{
	for (int tries = 0; tries < SEND_TRIES; tries++) {
		if (send(a->feed->fd, buf, len, 0) == (ssize_t)len) {
			(*counter)++;
			return;
		}
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			break;
	}
	a->st.send_errors++;
}

/* A well-formed packet of another session: one trade at 0.0001. */
static size_t junk_session_packet(struct attack *a, uint8_t *buf, size_t cap)
{
	struct itch_msg m = { .type = 'P', .locate = 1 };
	char session[MOLD_SESSION_LEN];
	struct mold_builder b;

	mold_session_set(session, ATTACK_SESSION);
	m.p.side = 'B';
	m.p.shares = 100;
	memcpy(m.p.stock, a->cfg->symbols[0], ITCH_SYMBOL_LEN);
	m.p.price = 1;
	mold_builder_init(&b, buf, cap, session, 1000 + splitmix64(&a->rng) % 1000000);
	mold_builder_append_itch(&b, &m);
	return mold_builder_finish(&b);
}

/* The opening's first messages, from another address, with a false directory. */
static void spoof(struct attack *a)
{
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr = a->cfg->spoof_from };
	uint8_t buf[MOLD_MTU_BUDGET];
	struct mold_builder b;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    connect(fd, (const struct sockaddr *)&a->cfg->feed, sizeof(a->cfg->feed))) {
		a->st.send_errors++;
		goto out;
	}
	mold_builder_init(&b, buf, sizeof(buf), a->feed->session, 1);
	mold_builder_append_itch(&b, &(struct itch_msg){ .type = 'S', .s.event = 'O' });
	mold_builder_append_itch(&b, &(struct itch_msg){ .type = 'S', .s.event = 'S' });
	for (unsigned int i = 0; i < a->cfg->nsym; i++) {
		struct itch_msg m = { .type = 'R', .locate = (uint16_t)(i + 1) };

		memcpy(m.r.stock, "SPOOFED ", ITCH_SYMBOL_LEN);
		if (mold_builder_append_itch(&b, &m) < 0)
			break;
	}
	if (send(fd, buf, mold_builder_finish(&b), 0) > 0)
		a->st.spoofed++;
	else
		a->st.send_errors++;
out:
	if (fd >= 0)
		close(fd);
}

void attack_before_session(struct attack *a)
{
	uint8_t buf[256];

	if (a->cfg->spoof_from.s_addr)
		spoof(a);
	for (uint32_t i = 0; i < a->cfg->junk_first; i++) {
		size_t len;

		if (i & 1) {
			len = junk_session_packet(a, buf, sizeof(buf));
		} else {
			len = MOLD_HDR_LEN + splitmix64(&a->rng) % (sizeof(buf) - MOLD_HDR_LEN);
			for (size_t k = 0; k < len; k++)
				buf[k] = (uint8_t)splitmix64(&a->rng);
		}
		send_pkt(a, buf, len, &a->st.junk);
	}
}

void attack_after_packet(struct attack *a)
{
	uint8_t buf[MOLD_HDR_LEN];
	uint64_t next = feed_next_seq(a->feed);

	a->packets++;
	if (a->packets == a->cfg->stale_end_at) {
		mold_encode_end_of_session(buf, sizeof(buf), a->feed->session,
					   next > ATTACK_STALE_BEHIND ? next - ATTACK_STALE_BEHIND : 1);
		send_pkt(a, buf, sizeof(buf), &a->st.stale_end);
	}
	if (a->packets == a->cfg->far_heartbeat_at) {
		mold_encode_heartbeat(buf, sizeof(buf), a->feed->session, next + ATTACK_FAR_AHEAD);
		send_pkt(a, buf, sizeof(buf), &a->st.far_heartbeat);
	}
}
