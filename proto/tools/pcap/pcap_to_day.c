// SPDX-License-Identifier: MIT
/*
 * t2t-pcap --from-pcap: the day file of the feed's messages in a capture.
 * Each record is an Ethernet frame (one 802.1Q or 802.1ad tag allowed);
 * the IPv4/UDP datagrams to the feed's group and port (and, if asked, to
 * the re-request answers' port), from the feed's source if one is given,
 * go to the merge (proto/mold_merge.h), which writes the session's
 * messages in sequence order, each once, into the day file.  Everything
 * else is counted by what it is.  A hole is an error that names the
 * numbers missing and where the capture goes on; no file is left then.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/be.h"
#include "proto/dayfile.h"
#include "proto/frame.h"
#include "proto/mold_merge.h"
#include "proto/pcap.h"
#include "proto/proto_err.h"
#include "proto/tools/pcap/pcap_tool.h"
#include "util/json.h"
#include "util/progress.h"

#define ETH_P_8021Q	0x8100
#define ETH_P_8021AD	0x88a8
#define IPPROTO_UDP_	17

struct extract {
	const struct pt_cfg *c;
	struct pcap_reader rd;
	struct dayfile_writer dw;
	struct mold_merge mm;
	bool write_failed;
	/* the records, by what they are */
	uint64_t feed;		/* datagrams to the feed (or the answers' port) */
	uint64_t answers;	/* of those, to the answers' port */
	uint64_t other_source;	/* to the feed from another sender: not taken */
	uint64_t other_udp;	/* UDP to somewhere else */
	uint64_t other;		/* not IPv4 UDP: ARP, IPv6, TCP, ... */
	uint64_t fragments;
	uint64_t snapped;	/* cut by the snaplen before the datagram's end */
	uint64_t broken;	/* headers that do not hold */
	uint64_t bad_csum;	/* taken: see summary() */
	uint64_t vlan;
	uint8_t untagged[PCAP_SNAPLEN_MAX];
};

static int emit(void *ctx, uint64_t seq, const uint8_t *msg, uint16_t len)
{
	struct extract *x = ctx;

	(void)seq;
	if (dayfile_write(&x->dw, msg, len)) {
		x->write_failed = true;
		return -EIO;
	}
	return 0;
}

/* The frame without its VLAN tag (one, of either kind), in x->untagged. */
static const uint8_t *untag(struct extract *x, const uint8_t *f, size_t *len)
{
	uint16_t type;

	if (*len < FRAME_ETH_LEN + 4)
		return f;
	type = be16_load(f + FRAME_OFF_ETHERTYPE);
	if (type != ETH_P_8021Q && type != ETH_P_8021AD)
		return f;
	memcpy(x->untagged, f, FRAME_OFF_ETHERTYPE);
	memcpy(x->untagged + FRAME_OFF_ETHERTYPE, f + FRAME_OFF_ETHERTYPE + 4,
	       *len - FRAME_OFF_ETHERTYPE - 4);
	*len -= 4;
	x->vlan++;
	return x->untagged;
}

static bool ours(const struct extract *x, const struct frame_udp *u, bool *answer)
{
	const struct pt_cfg *c = x->c;

	*answer = false;
	if (u->dst_ip == c->group && u->dst_port == c->port)
		return true;
	*answer = c->retrans_port && u->dst_port == c->retrans_port;
	return *answer;
}

/* One record.  0, or the merge's error. */
static int record(struct extract *x, const struct pcap_record *rec)
{
	size_t len = rec->caplen;
	const uint8_t *f = untag(x, rec->data, &len);
	bool snapped = rec->caplen < rec->len, answer;
	struct frame_ip4 ip;
	struct frame_udp u;
	int ret;

	ret = frame_parse_ip4(f, len, &ip);
	if (ret == PROTO_E_ETHERTYPE || (!ret && ip.proto != IPPROTO_UDP_)) {
		x->other++;
		return 0;
	}
	if (ret == PROTO_E_FRAGMENT) {
		x->fragments++;
		return 0;
	}
	if (!ret)
		ret = frame_parse_udp_ip4(&ip, &u);
	if (ret) {
		if (snapped)
			x->snapped++;
		else
			x->broken++;
		return 0;
	}
	if (!ours(x, &u, &answer)) {
		x->other_udp++;
		return 0;
	}
	if (x->c->feed_source && u.src_ip != x->c->feed_source) {
		x->other_source++;
		return 0;
	}
	x->feed++;
	x->answers += answer;
	x->bad_csum += frame_verify_checksums(&u) != 0;
	return mold_merge_packet(&x->mm, u.payload, u.payload_len, rec->index);
}

static void ip_str(char *buf, size_t n, uint32_t ip)
{
	snprintf(buf, n, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

/* Where the capture goes on after a hole, or why nothing does. */
static void hole_error(const struct extract *x, const struct mold_merge_hole *h, bool full)
{
	const struct mold_merge *m = &x->mm;
	unsigned long long a = h->first, b = h->first + h->count - 1;

	fprintf(stderr, PT_NAME ": %s: a hole: sequence numbers %llu..%llu (%llu messages) of "
		"session %.*s are in no packet of the capture", x->c->from_pcap, a, b,
		(unsigned long long)h->count, pt_session_len(m->cfg.session), m->cfg.session);
	if (full)
		fprintf(stderr, ", and holding the %llu packets after it passed --hold-mb %llu\n",
			(unsigned long long)m->nheld, (unsigned long long)x->c->hold_mb);
	else if (h->before_held && h->first == 1)
		fprintf(stderr, ": it starts at %llu (record %llu), after the session began\n",
			(unsigned long long)h->held_first, (unsigned long long)h->held_tag);
	else if (h->before_held)
		fprintf(stderr, "; it goes on at %llu (record %llu)\n",
			(unsigned long long)h->held_first, (unsigned long long)h->held_tag);
	else if (h->said_by_end)
		fprintf(stderr, ": its end of session says %llu came before it, its last is %llu\n",
			b, a - 1);
	else
		fprintf(stderr, ": a heartbeat says %llu came before it, its last is %llu\n",
			b, a - 1);
	fprintf(stderr, PT_NAME ": no day file written (%llu messages up to the hole)\n",
		(unsigned long long)m->cnt.msgs);
}

static void summary(const struct extract *x)
{
	const struct mold_merge_counters *n = &x->mm.cnt;
	const struct pt_cfg *c = x->c;
	char g[16];

	ip_str(g, sizeof(g), c->group);
	fprintf(stderr, PT_NAME ": %s -> %s: %llu messages (1..%llu) of session %.*s%s\n",
		c->from_pcap, c->out, (unsigned long long)n->msgs, (unsigned long long)n->msgs,
		pt_session_len(x->mm.cfg.session), x->mm.cfg.session, x->mm.end_next ? ", to its end of session" :
		", no end of session in the capture");
	fprintf(stderr, PT_NAME ": %llu records: %llu datagrams to %s:%u%s (%llu data, %llu "
		"heartbeats, %llu ends of session; %llu packets again, %llu messages had already, "
		"%llu ahead of a hole filled later, %llu of other sessions, %llu malformed, %llu "
		"messages after the end), %llu from another source, %llu other UDP, %llu not "
		"IPv4 UDP, %llu fragments, %llu cut by the snaplen, %llu broken\n",
		(unsigned long long)x->rd.records, (unsigned long long)x->feed, g, c->port,
		c->retrans_port ? " and the answers' port" : "", (unsigned long long)n->data,
		(unsigned long long)n->heartbeats, (unsigned long long)n->ends,
		(unsigned long long)n->dup_packets, (unsigned long long)n->dup_msgs,
		(unsigned long long)n->held, (unsigned long long)n->other_session,
		(unsigned long long)n->malformed, (unsigned long long)n->after_end,
		(unsigned long long)x->other_source, (unsigned long long)x->other_udp,
		(unsigned long long)x->other, (unsigned long long)x->fragments,
		(unsigned long long)x->snapped, (unsigned long long)x->broken);
	if (x->bad_csum)
		/* a capture on the sender, before its NIC's checksum offload, shows them */
		fprintf(stderr, PT_NAME ": note: %llu datagrams with a bad IPv4 or UDP checksum "
			"were taken; a receiver (the gateway) drops them: tcprewrite --fixcsum\n",
			(unsigned long long)x->bad_csum);
}

static int write_json(const struct extract *x)
{
	const struct mold_merge_counters *n = &x->mm.cnt;
	FILE *f = fopen(x->c->json, "w");
	int err;

	if (!f) {
		fprintf(stderr, PT_NAME ": %s: %s\n", x->c->json, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"pcap\": ");
	json_str(f, x->c->from_pcap);
	fprintf(f, ", \"day\": ");
	json_str(f, x->c->out);
	fprintf(f, ", \"session\": ");
	json_strn(f, x->mm.cfg.session, MOLD_SESSION_LEN);
	fprintf(f, ", \"messages\": %llu, \"end_of_session\": %s, \"records\": %llu, "
		"\"truncated\": %llu, \"cut\": %s, \"feed\": %llu, \"answers\": %llu, "
		"\"data\": %llu, \"heartbeats\": %llu, \"ends\": %llu, \"dup_packets\": %llu, "
		"\"dup_msgs\": %llu, \"held\": %llu, \"held_bytes_max\": %llu, "
		"\"other_session\": %llu, \"malformed\": %llu, \"after_end\": %llu, "
		"\"other_source\": %llu, \"other_udp\": %llu, \"other\": %llu, "
		"\"fragments\": %llu, \"snapped\": %llu, \"broken\": %llu, \"bad_csum\": %llu, "
		"\"vlan\": %llu}\n",
		(unsigned long long)n->msgs, x->mm.end_next ? "true" : "false",
		(unsigned long long)x->rd.records, (unsigned long long)x->rd.truncated,
		x->rd.cut ? "true" : "false", (unsigned long long)x->feed,
		(unsigned long long)x->answers, (unsigned long long)n->data,
		(unsigned long long)n->heartbeats, (unsigned long long)n->ends,
		(unsigned long long)n->dup_packets, (unsigned long long)n->dup_msgs,
		(unsigned long long)n->held, (unsigned long long)n->held_bytes_max,
		(unsigned long long)n->other_session, (unsigned long long)n->malformed,
		(unsigned long long)n->after_end, (unsigned long long)x->other_source,
		(unsigned long long)x->other_udp, (unsigned long long)x->other,
		(unsigned long long)x->fragments, (unsigned long long)x->snapped,
		(unsigned long long)x->broken, (unsigned long long)x->bad_csum,
		(unsigned long long)x->vlan);
	err = ferror(f);
	if (fclose(f) || err) {
		fprintf(stderr, PT_NAME ": %s: write failed\n", x->c->json);
		return -1;
	}
	return 0;
}

/* Read every record into the merge.  0, or 1 after saying why not. */
static int read_all(struct extract *x)
{
	struct mold_merge_hole h;
	struct pcap_record rec;
	struct progress pr;
	uint64_t n = 0;
	int ret;

	if (x->rd.linktype != PCAP_LINKTYPE_ETHERNET) {
		fprintf(stderr, PT_NAME ": %s: link type %u: only Ethernet (1) captures are read "
			"(tcpdump -i IFACE, not -i any)\n", x->c->from_pcap, x->rd.linktype);
		return 1;
	}
	progress_init(&pr, PT_NAME, x->c->quiet);
	while ((ret = pcap_next(&x->rd, &rec)) == 1) {
		progress_step(&pr, ++n, "packets");
		ret = record(x, &rec);
		if (ret == -ENOBUFS) {
			mold_merge_finish(&x->mm, &h);
			hole_error(x, &h, true);
			return 1;
		}
		if (ret) {
			fprintf(stderr, PT_NAME ": %s\n", x->write_failed ? x->dw.err :
				"out of memory for the packets held ahead of a hole");
			return 1;
		}
	}
	progress_done(&pr);
	if (ret < 0) {
		fprintf(stderr, PT_NAME ": %s\n", x->rd.err);
		return 1;
	}
	if (x->rd.cut && !x->c->quiet)
		/* tcpdump stopped mid-write leaves one; what came before is whole */
		fprintf(stderr, PT_NAME ": note: %s\n", x->rd.err);
	if (!x->mm.adopted || !x->mm.cnt.data) {
		char g[16], sess[32] = "";

		ip_str(g, sizeof(g), x->c->group);
		if (x->c->session_given)
			snprintf(sess, sizeof(sess), " of session %.*s",
				 pt_session_len(x->c->session), x->c->session);
		fprintf(stderr, PT_NAME ": %s: no MoldUDP64 data packet%s to %s:%u in the capture "
			"(%llu records, %llu datagrams there)\n", x->c->from_pcap, sess, g,
			x->c->port, (unsigned long long)x->rd.records,
			(unsigned long long)x->feed);
		return 1;
	}
	if (mold_merge_finish(&x->mm, &h)) {
		hole_error(x, &h, false);
		return 1;
	}
	return 0;
}

int pt_pcap_to_day(const struct pt_cfg *c)
{
	struct mold_merge_cfg mc = { .pinned = c->session_given, .max_held = c->hold_mb << 20,
				     .emit = emit };
	static struct extract x;
	size_t n = strlen(c->out);
	int status;

	memset(&x, 0, sizeof(x));
	x.c = c;
	mc.ctx = &x;
	memcpy(mc.session, c->session, MOLD_SESSION_LEN);
	mold_merge_init(&x.mm, &mc);
	if (pcap_open(&x.rd, c->from_pcap)) {
		fprintf(stderr, PT_NAME ": %s\n", x.rd.err);
		return 1;
	}
	if (dayfile_writer_open(&x.dw, c->out, n > 3 && !strcmp(c->out + n - 3, ".gz"))) {
		fprintf(stderr, PT_NAME ": %s\n", x.dw.err);
		pcap_close(&x.rd);
		return 1;
	}
	status = read_all(&x);
	if (dayfile_writer_close(&x.dw) && !status) {
		fprintf(stderr, PT_NAME ": %s\n", x.dw.err);
		status = 1;
	}
	if (!status && c->json && write_json(&x))
		status = 1;
	if (status)
		pt_remove_output(c->out);
	else if (!c->quiet)
		summary(&x);
	mold_merge_free(&x.mm);
	pcap_close(&x.rd);
	return status;
}
