// SPDX-License-Identifier: MIT
/*
 * t2t-pcap --from-day: a day file's messages as the Ethernet frames of a
 * MoldUDP64 feed, in a pcap.  Message n of the day is sequence number n,
 * as the simulator's --replay publishes it; its bytes go as they are
 * (malformed blocks and empty ones included: the receiver counts them, as
 * it would on the wire).  A packet takes messages until the next one does
 * not fit the MTU, the --per-packet count is reached, or (--pack-ns) the
 * next one is stamped too long after the packet's first; it is stamped when
 * its last message is due, on the day's clock (--speed), or at a packet
 * rate (--rate).  Then --ends End of Session packets.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/progress.h"
#include "proto/be.h"
#include "proto/dayfile.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/pcap.h"
#include "proto/tools/pcap/pcap_tool.h"
#include "util/json.h"

/* 2026-01-01 00:00:00 UTC: the day a capture's clock starts on by default. */
#define PT_DEFAULT_DATE_S	1767225600ull
/* Between the last packet and each End of Session after it. */
#define PT_END_GAP_NS		1000000ull

struct packer {
	const struct pt_cfg *c;
	struct pcap_writer w;
	struct frame_template t;
	struct mold_builder b;
	bool open;		/* b holds a packet being filled */
	size_t budget;		/* MoldUDP64 bytes a packet may carry */
	/* the day's clock */
	bool have_ts;
	uint64_t ts_first;	/* the first stamped message's */
	uint64_t last_off;	/* ns after ts_first (speed applied) of the last stamped one */
	uint64_t pkt_first_ts;	/* ITCH stamp of the packet's first message */
	bool pkt_have_ts;
	/* the capture's clock */
	bool started;
	uint64_t start_ns;
	uint64_t first_ns, last_ns;
	uint64_t packets, msgs, ends;
	uint8_t frame[FRAME_HDR_LEN + 9000];
};

static uint64_t msg_ts(const uint8_t *m, uint16_t len, bool *ok)
{
	*ok = len >= ITCH_OFF_TIMESTAMP + 6;
	return *ok ? be48_load(m + ITCH_OFF_TIMESTAMP) : 0;
}

/*
 * A message's offset on the day's clock, as the simulator's replay paces
 * it: stamped below the first, or not stamped, it goes with the one before.
 */
static void note_ts(struct packer *p, const uint8_t *m, uint16_t len)
{
	bool ok;
	uint64_t ts = msg_ts(m, len, &ok);

	if (!ok)
		return;
	if (!p->have_ts) {
		p->have_ts = true;
		p->ts_first = ts;
	}
	if (ts >= p->ts_first)
		p->last_off = (uint64_t)llround((double)(ts - p->ts_first) / p->c->speed);
}

/* The time of the packet written next: monotonic, whatever the day says. */
static uint64_t next_time(struct packer *p)
{
	const struct pt_cfg *c = p->c;
	uint64_t t;

	if (!p->started) {
		p->started = true;
		p->start_ns = c->start ? (uint64_t)llround(c->start * 1e9) :
			PT_DEFAULT_DATE_S * 1000000000ull + (p->have_ts ? p->ts_first : 0);
	}
	if (c->rate)
		t = p->start_ns + (uint64_t)llround((double)p->packets * 1e9 / c->rate);
	else
		t = p->start_ns + p->last_off;
	if (p->packets && t < p->last_ns)
		t = p->last_ns;
	return t;
}

static int write_frame(struct packer *p, size_t payload, uint64_t t)
{
	size_t len = frame_finish(&p->t, p->frame, payload);

	if (pcap_write(&p->w, t, p->frame, (uint32_t)len)) {
		fprintf(stderr, PT_NAME ": %s\n", p->w.err);
		return -1;
	}
	if (!p->packets)
		p->first_ns = t;
	p->last_ns = t;
	p->packets++;
	return 0;
}

static int flush(struct packer *p)
{
	if (!p->open)
		return 0;
	p->open = false;
	return write_frame(p, mold_builder_finish(&p->b), next_time(p));
}

/* Room in the open packet for a message of @len under every limit. */
static bool fits(const struct packer *p, const uint8_t *m, uint16_t len)
{
	const struct pt_cfg *c = p->c;
	bool ok;
	uint64_t ts;

	if (p->b.len + MOLD_BLOCK_HDR_LEN + len > p->budget || p->b.count >= MOLD_COUNT_MAX)
		return false;
	if (c->per_packet && p->b.count >= c->per_packet)
		return false;
	ts = msg_ts(m, len, &ok);
	if (c->pack_ns && ok && p->pkt_have_ts && ts > p->pkt_first_ts + c->pack_ns)
		return false;
	return true;
}

static int add(struct packer *p, const char *day, uint64_t seq, const uint8_t *m, uint16_t len)
{
	uint8_t *dst;
	bool ok;

	if (MOLD_HDR_LEN + MOLD_BLOCK_HDR_LEN + (size_t)len > p->budget) {
		fprintf(stderr, PT_NAME ": %s: message %llu is %u bytes long: a packet of --mtu %u "
			"carries at most %zu\n", day, (unsigned long long)seq, len, p->c->mtu,
			p->budget - MOLD_HDR_LEN - MOLD_BLOCK_HDR_LEN);
		return -1;
	}
	if (p->open && !fits(p, m, len) && flush(p))
		return -1;
	if (!p->open) {
		mold_builder_init(&p->b, p->frame + FRAME_HDR_LEN, p->budget, p->c->session, seq);
		p->open = true;
		p->pkt_first_ts = msg_ts(m, len, &ok);
		p->pkt_have_ts = ok;
	}
	note_ts(p, m, len);
	if (len) {
		dst = mold_builder_reserve(&p->b, len);
		memcpy(dst, m, len);
	} else {
		/*
		 * An empty block goes out as the day has it, as the simulator's
		 * replay sends it; the builder refuses one, so it is put by hand.
		 */
		be16_store(p->b.buf + p->b.len, 0);
		p->b.len += MOLD_BLOCK_HDR_LEN;
		p->b.count++;
	}
	p->msgs++;
	return 0;
}

static int write_ends(struct packer *p)
{
	uint64_t t = p->packets ? p->last_ns : next_time(p);

	for (uint32_t i = 0; i < p->c->ends; i++) {
		int n = mold_encode_end_of_session(p->frame + FRAME_HDR_LEN, p->budget,
						   p->c->session, p->msgs + 1);

		t += PT_END_GAP_NS;
		if (n < 0 || write_frame(p, (size_t)n, t))
			return -1;
		p->ends++;
	}
	return 0;
}

static void ip_str(char *buf, size_t n, uint32_t ip)
{
	snprintf(buf, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

static void summary(const struct packer *p)
{
	const struct pt_cfg *c = p->c;
	char g[16], s[16];
	uint64_t tod0 = p->first_ns % 86400000000000ull, span = p->last_ns - p->first_ns;

	ip_str(g, sizeof(g), c->group);
	ip_str(s, sizeof(s), c->src_ip);
	fprintf(stderr, PT_NAME ": %s -> %s: %llu messages in %llu packets (%llu ends of "
		"session) of session %.*s to %s:%u from %s:%u, %llu bytes\n", c->from_day, c->out,
		(unsigned long long)p->msgs, (unsigned long long)(p->packets - p->ends),
		(unsigned long long)p->ends, pt_session_len(c->session), c->session, g, c->port, s, c->src_port,
		(unsigned long long)p->w.bytes);
	fprintf(stderr, PT_NAME ": packets from %02llu:%02llu:%02llu.%06llu UTC over %.6f s (%s)\n",
		(unsigned long long)(tod0 / 3600000000000ull),
		(unsigned long long)(tod0 / 60000000000ull % 60),
		(unsigned long long)(tod0 / 1000000000ull % 60),
		(unsigned long long)(tod0 / 1000 % 1000000), (double)span / 1e9,
		c->rate ? "at the packet rate" : "at the ITCH timestamps' pace");
}

static int write_json(const struct packer *p)
{
	const struct pt_cfg *c = p->c;
	FILE *f = fopen(c->json, "w");
	int err;

	if (!f) {
		fprintf(stderr, PT_NAME ": %s: %s\n", c->json, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"day\": ");
	json_str(f, c->from_day);
	fprintf(f, ", \"pcap\": ");
	json_str(f, c->out);
	fprintf(f, ", \"session\": ");
	json_strn(f, c->session, MOLD_SESSION_LEN);
	fprintf(f, ", \"messages\": %llu, \"packets\": %llu, \"ends\": %llu, \"bytes\": %llu, "
		"\"first_ns\": %llu, \"last_ns\": %llu}\n", (unsigned long long)p->msgs,
		(unsigned long long)(p->packets - p->ends), (unsigned long long)p->ends,
		(unsigned long long)p->w.bytes, (unsigned long long)p->first_ns,
		(unsigned long long)p->last_ns);
	err = ferror(f);
	if (fclose(f) || err) {
		fprintf(stderr, PT_NAME ": %s: write failed\n", c->json);
		return -1;
	}
	return 0;
}

int pt_day_to_pcap(const struct pt_cfg *c)
{
	struct pcap_writer_cfg wc = { .nsec = c->nsec };
	struct frame_endpoint src = { .ip = c->src_ip, .port = c->src_port };
	struct frame_endpoint dst = { .ip = c->group, .port = c->port };
	static struct packer p;
	struct dayfile_reader rd;
	struct progress pr;
	const uint8_t *m;
	uint64_t seq;
	uint16_t len;
	int ret, status = 1;

	memset(&p, 0, sizeof(p));
	p.c = c;
	p.budget = c->mtu - FRAME_IP4_LEN - FRAME_UDP_LEN;
	memcpy(src.mac, c->src_mac, 6);
	memcpy(dst.mac, c->dst_mac, 6);
	frame_template_init(&p.t, &src, &dst, (uint8_t)c->ttl, 0);
	if (dayfile_open(&rd, c->from_day, 0)) {
		fprintf(stderr, PT_NAME ": %s\n", rd.err);
		return 1;
	}
	if (pcap_writer_open(&p.w, c->out, &wc)) {
		fprintf(stderr, PT_NAME ": %s\n", p.w.err);
		goto out_day;
	}
	progress_init(&pr, PT_NAME, c->quiet);
	while ((ret = dayfile_next(&rd, &m, &len, &seq)) == 1) {
		if (add(&p, c->from_day, seq, m, len))
			goto out_pcap;
		progress_step(&pr, seq, "messages");
	}
	progress_done(&pr);
	if (ret < 0) {
		fprintf(stderr, PT_NAME ": %s\n", rd.err);
		goto out_pcap;
	}
	if (flush(&p) || write_ends(&p))
		goto out_pcap;
	status = 0;
out_pcap:
	if (pcap_writer_close(&p.w) && !status) {
		fprintf(stderr, PT_NAME ": %s\n", p.w.err);
		status = 1;
	}
	if (!status && c->json && write_json(&p))
		status = 1;
	if (status)
		pt_remove_output(c->out);
	else if (!c->quiet)
		summary(&p);
out_day:
	dayfile_close(&rd);
	return status;
}
