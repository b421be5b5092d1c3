// SPDX-License-Identifier: MIT
/*
 * Where the gateway's seen->decided goes.  The engine (frame parse, checksum
 * verify, MoldUDP64/ITCH decode, strategy, risk, order build, the own TCP's
 * segment: header, checksums and the copy kept for a retransmission)
 * runs on real frames of the demo's default book, on the gateway's hot CPU,
 * in regimes that add one ingredient of the live loop at a time:
 *
 *   hot       back to back: the code and data never leave L1
 *   paced     one packet every 100 us, the core spinning in between
 *   +kick     ... and a sendto() after each order: kernel work on this core,
 *             as the TX kick does on veth
 *   +warm     ... with the loop's idle-time warming (dry tick + prefetches)
 *   xcore     ... and the frame written by the other CPU just before, as the
 *             kernel does in copy mode (the descriptor and the frame lines
 *             cross between cores)
 *
 * For each regime: percentiles of seen->decided over the packets that made
 * an order (what the gateway's capture reports) and seen->done over all
 * packets.  Nothing touches the network beyond a loopback socket pair.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/clock.h"
#include "book/book_apply.h"
#include "book/fill.h"
#include "gateway/engine.h"
#include "gateway/warm.h"
#include "net/tcp.h"
#include "latency/clock_cost.h"
#include "latency/hdr.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "strategy/gbm.h"
#include "util/opt.h"

#define PACED_NS	100000		/* 10k packets/s, as the low-rate benchmark */
#define PACED_PKTS	30000
#define HOT_PKTS	300000
#define FRAME_ROOM	256
#define HOT_CPU		1
#define OTHER_CPU	0
#define MAX_REPS	20


struct feed {
	uint8_t (*frame)[FRAME_ROOM];
	uint16_t *len;
	size_t n;
};

struct regime {
	const char *name;
	uint64_t pace_ns;	/* 0: back to back */
	bool kick;		/* sendto() after each order */
	bool warm;		/* idle-time warming */
	bool xcore;		/* frame written by the other CPU */
};

static const struct regime regimes[] = {
	{ "hot (back to back)", 0, false, false, false },
	{ "paced 1 us", 1000, false, false, false },
	{ "paced 10 us", 10000, false, false, false },
	{ "paced 100 us", PACED_NS, false, false, false },
	{ "paced 100 us + kick", PACED_NS, true, false, false },
	{ "  ... + warm", PACED_NS, true, true, false },
	{ "xcore 100 us + kick", PACED_NS, true, false, true },
	{ "  ... + warm", PACED_NS, true, true, true },
};
#define R_NR (sizeof(regimes) / sizeof(regimes[0]))

struct result {
	struct hdr_hist decided;	/* packets with an order: seen->decided */
	struct hdr_hist done;		/* every packet: seen->done */
	/* --split: the order packets' seen->decided in three parts */
	struct hdr_hist parse, feed, build;
};

static bool split;
static uint64_t t_parsed, t_fed;

struct cfg {
	uint32_t reps;
	bool split;
	bool no_books;
};

static bool no_books;

#define C(f) OFF(struct cfg, f)

static const struct opt opts[] = {
	OPT("reps", 0, OPT_U32, C(reps), "N",
	    "repetitions of every regime; above 1, their medians close the output",
	    .min = 1, .max = MAX_REPS),
	OPT("split", 0, OPT_FLAG, C(split), NULL,
	    "also time parse+csum, decode+strategy and the order build apart (two "
	    "more clock reads per packet)"),
	OPT("no-books", 0, OPT_FLAG, C(no_books), NULL,
	    "no order books (t2t-gateway --books off): the prints go straight to the tape"),
	OPT_END,
};

static const struct opt_prog prog = {
	.name = "bench_engine",
	.usage = "[options]",
	.about =
"Where the gateway's seen->decided goes: the engine (frame parse, checksum\n"
"verify, MoldUDP64/ITCH decode, strategy, risk, order build, frame finish) on\n"
"real frames of the demo's default book, pinned to CPU 1, in regimes that add\n"
"one ingredient of the live loop at a time: back to back; one packet every\n"
"1, 10, 100 us; a sendto() after each order; idle-time warming; the frame\n"
"written by CPU 0 just before.  Percentiles of seen->decided (order packets)\n"
"and seen->done (all packets), ns.  One repetition takes about 16 s on the\n"
"2-vCPU VM and keeps both CPUs busy.\n",
	.more = "Exit status: 0 done, 1 a regime failed, 2 bad usage.\n",
	.opts = opts,
};

/* The gateway's defaults, whose book is make demo's: the feed trades it. */
static struct gw_cfg bench_cfg(void)
{
	struct gw_cfg c;

	gw_cfg_defaults(&c);
	/* Trade prints only: the book holds nothing, its size does not matter. */
	c.book.max_orders = 1 << 16;
	if (no_books)
		c.books = GW_BOOKS_OFF;
	return c;
}

static void sym8(char dst[8], const char *s)
{
	memset(dst, ' ', 8);
	memcpy(dst, s, strlen(s));
}

/* Packet 0: the stock directory; then one trade per packet, symbols in turn. */
static int feed_build(struct feed *f, size_t n_trades)
{
	struct frame_endpoint src = { .mac = { 2, 0, 0, 0, 0, 1 }, .ip = 0x0a000001, .port = 40000 };
	struct frame_endpoint dst = { .mac = { 1, 0, 0x5e, 0, 0, 1 }, .ip = 0xe9363601, .port = 26400 };
	struct frame_template t;
	char session[MOLD_SESSION_LEN];
	struct gw_cfg cfg = bench_cfg();
	unsigned int n_sym = cfg.n_inst;
	struct gbm g[GW_MAX_INST];
	struct mold_builder b;
	struct itch_msg m;
	uint64_t seq = 1;

	f->n = n_trades + 1;
	f->frame = calloc(f->n, FRAME_ROOM);
	f->len = calloc(f->n, sizeof(*f->len));
	if (!f->frame || !f->len)
		return -ENOMEM;
	frame_template_init(&t, &src, &dst, 1, 0);
	mold_session_set(session, "BENCH");
	for (unsigned int i = 0; i < n_sym; i++)
		gbm_init(&g[i], 42 + i);

	mold_builder_init(&b, f->frame[0] + FRAME_HDR_LEN, FRAME_ROOM - FRAME_HDR_LEN, session, seq);
	for (unsigned int i = 0; i < n_sym; i++) {
		memset(&m, 0, sizeof(m));
		m.type = 'R';
		m.locate = (uint16_t)(i + 1);
		sym8(m.r.stock, cfg.inst[i].symbol);
		if (mold_builder_append_itch(&b, &m) < 0)
			return -EINVAL;
		seq++;
	}
	f->len[0] = (uint16_t)frame_finish(&t, f->frame[0], mold_builder_finish(&b));

	for (size_t k = 1; k < f->n; k++) {
		unsigned int i = (unsigned int)((k - 1) % n_sym);

		memset(&m, 0, sizeof(m));
		m.type = 'P';
		m.locate = (uint16_t)(i + 1);
		m.p.side = 'B';
		m.p.shares = 100;
		sym8(m.p.stock, cfg.inst[i].symbol);
		m.p.price = gbm_next(&g[i]);
		mold_builder_init(&b, f->frame[k] + FRAME_HDR_LEN, FRAME_ROOM - FRAME_HDR_LEN,
				  session, seq++);
		if (mold_builder_append_itch(&b, &m) < 0)
			return -EINVAL;
		f->len[k] = (uint16_t)frame_finish(&t, f->frame[k], mold_builder_finish(&b));
	}
	return 0;
}

/* What the AF_XDP loop does with one frame, up to the order on the TX ring. */
struct stage {
	struct gw_engine e;
	struct tcp_conn *tcp;		/* the order connection, established */
	struct tcp_template peer;	/* the exchange's segments to it */
	uint32_t peer_seq;
	uint8_t tx[8][FRAME_ROOM] __attribute__((aligned(64)));
	uint8_t ctl[FRAME_ROOM];	/* the connection's own segments (its ACKs) */
	int kick_fd;
	struct sockaddr_in kick_to;
	struct warm *warm;
};

static const struct frame_endpoint gw_end = { { 2, 0, 0, 0, 0, 2 }, 0x0a000002, 40001 };
static const struct frame_endpoint ex_end = { { 2, 0, 0, 0, 0, 1 }, 0x0a000001, 26401 };

static uint8_t *ctl_frame(void *ctx, uint64_t *handle)
{
	struct stage *s = ctx;

	*handle = 0;
	return s->ctl;
}

static void ctl_send(void *ctx, uint64_t handle, uint32_t len)
{
	(void)ctx;
	(void)handle;
	(void)len;
}

/* A segment from the exchange, as a real frame, into the connection. */
static void peer_segment(struct stage *s, uint8_t flags, const uint8_t *opt, size_t opt_len)
{
	uint8_t frame[FRAME_ROOM];
	struct tcp_seg seg;
	size_t len;

	memcpy(frame + FRAME_TCP_HDR_LEN, opt, opt_len);
	len = tcp_frame_finish(&s->peer, frame, s->peer_seq, s->tcp->snd_nxt, flags, 65535,
			       opt_len, 0, 0);
	if (!frame_parse_tcp(frame, len, &seg))
		tcp_input(s->tcp, &seg, mono_ns());
}

/* The order connection, established by a handshake with a scripted exchange. */
static int open_stream(struct stage *s)
{
	static const uint8_t mss[4] = { TCP_OPT_MSS, 4, 0x05, 0xb4 };
	struct tcp_cfg c = {
		.local = gw_end, .remote = ex_end, .mss = 1460, .rcv_wnd = 65535,
		.rto_init_ns = NS_PER_SEC, .rto_min_ns = 50 * NS_PER_MS,
		.rto_max_ns = NS_PER_SEC, .max_retries = 8, .ack_delay_ns = 200000,
	};
	struct tcp_tx tx = { .frame = ctl_frame, .send = ctl_send, .ctx = s };

	s->tcp = aligned_alloc(64, (sizeof(*s->tcp) + 63) & ~(size_t)63);
	if (!s->tcp)
		return -ENOMEM;
	tcp_init(s->tcp, &c, &tx);
	tcp_template_init(&s->peer, &ex_end, &gw_end, 64);
	s->peer_seq = 5000;
	tcp_connect(s->tcp, gw_end.port, 1000, mono_ns());
	peer_segment(s, TCP_SYN | TCP_ACK, mss, sizeof(mss));
	s->peer_seq++;
	return tcp_is_established(s->tcp) ? 0 : -EPROTO;
}

/*
 * The exchange fills the order before the next tick comes (replies take
 * microseconds, ticks come microseconds apart at the paced rates), so that the instrument's
 * exposure is what it would be live.  Outside the timed part.
 */
static void fill(struct stage *s, const struct gw_order *rec)
{
	struct ouch_reply r = { .type = 'E', .timestamp = 1 };
	uint8_t buf[OUCH_REPLY_PKT_MAX];
	int len;

	order_token_encode(r.token, rec->md_seq, rec->order_no);
	r.executed.shares = rec->shares;
	r.executed.price = rec->price;
	r.executed.liquidity = 'R';
	len = ouch_encode_reply(buf, sizeof(buf), &r);
	if (len > 0) {
		struct gw_decision d;

		engine_on_reply(&s->e, buf + SOUP_HDR_LEN, (size_t)len - SOUP_HDR_LEN, 0, 0, &d);
	}
	/* The exchange's ACK of the order's bytes. */
	peer_segment(s, TCP_ACK, NULL, 0);
}

static unsigned int process(struct stage *s, const uint8_t *frame, size_t len,
			    uint64_t t_seen, uint64_t *t_decided)
{
	struct gw_decision dec[GW_MAX_DECISIONS];
	struct gw_order *recs[GW_MAX_DECISIONS];
	struct frame_udp u;
	unsigned int nd;

	if (frame_parse_udp(frame, len, &u) || frame_verify_checksums(&u))
		return 0;
	if (split)
		t_parsed = mono_ns();
	nd = engine_on_feed(&s->e, u.payload, u.payload_len, t_seen, t_seen, dec, 0);
	if (split)
		t_fed = mono_ns();
	for (unsigned int i = 0; i < nd; i++) {
		uint8_t *tx = s->tx[i & 7];
		uint64_t sum = engine_build_order(&s->e, &dec[i], t_seen, tx + FRAME_TCP_HDR_LEN,
						  &recs[i]);

		tcp_send_built(s->tcp, tx, OUCH_ENTER_PKT_LEN, sum, t_seen);
		*t_decided = mono_ns();
	}
	for (unsigned int i = 0; i < nd; i++)
		fill(s, recs[i]);
	return nd;
}

static void kick(struct stage *s)
{
	/* The gateway's kick runs veth's transmit and the peer's receive. */
	sendto(s->kick_fd, s->tx[0] + FRAME_TCP_HDR_LEN, OUCH_ENTER_PKT_LEN, 0,
	       (struct sockaddr *)&s->kick_to, sizeof(s->kick_to));
}

static void record(struct result *r, unsigned int nd, uint64_t t_seen,
		   uint64_t t_decided, uint64_t t_done)
{
	hdr_record(&r->done, (int64_t)(t_done - t_seen));
	if (nd) {
		hdr_record(&r->decided, (int64_t)(t_decided - t_seen));
		if (split) {
			hdr_record(&r->parse, (int64_t)(t_parsed - t_seen));
			hdr_record(&r->feed, (int64_t)(t_fed - t_parsed));
			hdr_record(&r->build, (int64_t)(t_decided - t_fed));
		}
	}
}

/* Spin until @until, as the RX loop does, warming if asked. */
static void idle_until(struct stage *s, uint64_t until, bool warm)
{
	uint64_t spins = 0;

	while (mono_ns() < until) {
		if (warm && !(++spins % 8)) {
			warm_run(s->warm);
			engine_warm(&s->e);
		}
	}
}

/* The other core publishes frame k into the shared slot; the hot core takes it. */
struct xcore {
	const struct feed *f;
	uint64_t pace_ns;
	size_t n;			/* frames to send: 1 .. n-1 */
	uint8_t *slot;			/* one "UMEM frame" per packet, reused */
	_Atomic uint64_t published;	/* frames written so far */
	_Atomic uint64_t consumed;	/* frames the hot core is done with */
	_Atomic int stop;
	int drain_fd;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *producer(void *arg)
{
	struct xcore *x = arg;
	uint64_t next = mono_ns() + x->pace_ns;
	char sink[256];

	pin(OTHER_CPU);
	for (size_t k = 1; k < x->n && !atomic_load(&x->stop); k++) {
		uint8_t *dst = x->slot + (k % 64) * FRAME_ROOM;

		/* Paced, but never ahead of the hot core: one frame in flight. */
		while (mono_ns() < next ||
		       atomic_load_explicit(&x->consumed, memory_order_acquire) < k - 1)
			while (recv(x->drain_fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
				;
		next = mono_ns() + x->pace_ns;
		memcpy(dst, x->f->frame[k], x->f->len[k]);
		atomic_store_explicit(&x->published, k, memory_order_release);
	}
	return NULL;
}

static int run_xcore(struct stage *s, const struct feed *f, struct result *r,
		     const struct regime *rg)
{
	struct xcore x = { .f = f, .pace_ns = rg->pace_ns, .drain_fd = -1 };
	bool warm = rg->warm;
	uint64_t t_decided = 0, spins = 0;
	pthread_t th;
	size_t k = 1, n = f->n < PACED_PKTS + 1 ? f->n : PACED_PKTS + 1;

	x.n = n;
	x.slot = aligned_alloc(4096, 64 * FRAME_ROOM);
	if (!x.slot)
		return -ENOMEM;
	x.drain_fd = s->kick_fd == -1 ? -1 : dup(s->kick_fd);	/* the peer's receive */
	if (pthread_create(&th, NULL, producer, &x)) {
		free(x.slot);
		return -EAGAIN;
	}
	while (k < n) {
		uint64_t t_seen;
		unsigned int nd;

		if (atomic_load_explicit(&x.published, memory_order_acquire) < k) {
			if (warm && !(++spins % 8)) {
				warm_run(s->warm);
				engine_warm(&s->e);
			}
			continue;
		}
		t_seen = mono_ns();
		nd = process(s, x.slot + (k % 64) * FRAME_ROOM, f->len[k], t_seen, &t_decided);
		record(r, nd, t_seen, t_decided, mono_ns());
		if (nd && rg->kick)
			kick(s);
		atomic_store_explicit(&x.consumed, k, memory_order_release);
		k++;
	}
	atomic_store(&x.stop, 1);
	pthread_join(th, NULL);
	if (x.drain_fd >= 0)
		close(x.drain_fd);
	free(x.slot);
	return 0;
}

static int run(const struct regime *rg, const struct feed *f, struct result *r)
{
	struct gw_cfg cfg = bench_cfg();
	struct stage *s;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	uint64_t t_decided = 0, next;
	size_t n = !rg->pace_ns ? f->n : (f->n < PACED_PKTS + 1 ? f->n : PACED_PKTS + 1);
	char err[256];
	int ret = -1;

	s = aligned_alloc(64, sizeof(*s));
	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	s->kick_fd = -1;
	if (engine_init(&s->e, &cfg, err, sizeof(err))) {
		fprintf(stderr, "bench_engine: %s\n", err);
		goto out;
	}
	orders_session_up(&s->e.ord, 0);
	if (open_stream(s)) {
		fprintf(stderr, "bench_engine: the order connection did not come up\n");
		goto out_engine;
	}
	/* A socket that sends to itself: every kick is a loopback receive too. */
	s->kick_fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (s->kick_fd < 0 || bind(s->kick_fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s->kick_fd, (struct sockaddr *)&a, &alen)) {
		perror("bench_engine: loopback socket");
		goto out_engine;
	}
	s->kick_to = a;
	if (rg->warm) {
		s->warm = malloc(sizeof(*s->warm));
		if (!s->warm || warm_init(s->warm, &cfg, &gw_end, &ex_end, err, sizeof(err))) {
			fprintf(stderr, "bench_engine: warm: %s\n", err);
			free(s->warm);
			s->warm = NULL;
			goto out_sock;
		}
	}
	hdr_reset(&r->decided);
	hdr_reset(&r->done);
	hdr_reset(&r->parse);
	hdr_reset(&r->feed);
	hdr_reset(&r->build);

	/* The stock directory, untimed. */
	process(s, f->frame[0], f->len[0], mono_ns(), &t_decided);
	if (rg->xcore) {
		ret = run_xcore(s, f, r, rg);
		goto out_warm;
	}
	next = mono_ns();
	for (size_t k = 1; k < n; k++) {
		uint64_t t_seen;
		unsigned int nd;

		if (rg->pace_ns) {
			char sink[256];

			/* Drain what the kicks delivered, then wait for the slot. */
			while (recv(s->kick_fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
				;
			next += rg->pace_ns;
			idle_until(s, next, rg->warm);
		}
		t_seen = mono_ns();
		nd = process(s, f->frame[k], f->len[k], t_seen, &t_decided);
		record(r, nd, t_seen, t_decided, mono_ns());
		if (nd && rg->kick)
			kick(s);
	}
	ret = 0;
out_warm:
	if (s->warm) {
		warm_destroy(s->warm);
		free(s->warm);
	}
out_sock:
	if (s->kick_fd >= 0)
		close(s->kick_fd);
out_engine:
	engine_destroy(&s->e);
out:
	free(s->tcp);
	free(s);
	return ret;
}

static void print_row(const char *name, const struct result *r)
{
	printf("| %-22s | %7llu | %5lld | %5lld | %6lld | %6lld | %5lld | %6lld |\n", name,
	       (unsigned long long)hdr_count(&r->decided),
	       (long long)hdr_value_at_percentile(&r->decided, 50),
	       (long long)hdr_value_at_percentile(&r->decided, 90),
	       (long long)hdr_value_at_percentile(&r->decided, 99),
	       (long long)hdr_value_at_percentile(&r->decided, 99.9),
	       (long long)hdr_value_at_percentile(&r->done, 50),
	       (long long)hdr_value_at_percentile(&r->done, 99));
	if (split)
		printf("|   parse+csum / decode+strategy / order: p50 %lld / %lld / %lld, p90 %lld / %lld / %lld\n",
		       (long long)hdr_value_at_percentile(&r->parse, 50),
		       (long long)hdr_value_at_percentile(&r->feed, 50),
		       (long long)hdr_value_at_percentile(&r->build, 50),
		       (long long)hdr_value_at_percentile(&r->parse, 90),
		       (long long)hdr_value_at_percentile(&r->feed, 90),
		       (long long)hdr_value_at_percentile(&r->build, 90));
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static const double pct[4] = { 50, 90, 99, 99.9 };
static int64_t rep_pct[R_NR][4][MAX_REPS];

/* Medians over the repetitions of each regime's percentiles. */
static void print_medians(int reps)
{
	printf("Medians over %d repetitions (seen->decided, order packets, ns):\n\n"
	       "| regime                 | p50   | p90   | p99    | p99.9  |\n"
	       "|------------------------|------:|------:|-------:|-------:|\n", reps);
	for (size_t rg = 0; rg < R_NR; rg++) {
		int64_t m[4];

		for (int q = 0; q < 4; q++) {
			int64_t v[MAX_REPS];

			memcpy(v, rep_pct[rg][q], sizeof(v[0]) * reps);
			qsort(v, reps, sizeof(v[0]), cmp_i64);
			m[q] = v[reps / 2];
		}
		printf("| %-22s | %5lld | %5lld | %6lld | %6lld |\n", regimes[rg].name,
		       (long long)m[0], (long long)m[1], (long long)m[2], (long long)m[3]);
	}
}

/* What one idle-time warming step costs, back to back (ns per call). */
static void warm_cost(const struct feed *f)
{
	struct gw_cfg cfg = bench_cfg();
	struct stage *s = aligned_alloc(64, sizeof(*s));
	uint64_t t_decided, t0, t1, t2;
	char err[256];
	int n = 20000;

	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	s->warm = malloc(sizeof(*s->warm));
	if (!s->warm || engine_init(&s->e, &cfg, err, sizeof(err)))
		goto out;
	orders_session_up(&s->e.ord, 0);
	if (open_stream(s) || warm_init(s->warm, &cfg, &gw_end, &ex_end, err, sizeof(err)))
		goto out_engine;
	process(s, f->frame[0], f->len[0], mono_ns(), &t_decided);
	for (int k = 1; k < 1000; k++)
		process(s, f->frame[k], f->len[k], mono_ns(), &t_decided);
	t0 = mono_ns();
	for (int i = 0; i < n; i++)
		warm_run(s->warm);
	t1 = mono_ns();
	for (int i = 0; i < n; i++)
		engine_warm(&s->e);
	t2 = mono_ns();
	printf("Warming, back to back: a dry tick (warm_run) %llu ns, engine_warm %llu ns.\n\n",
	       (unsigned long long)((t1 - t0) / n), (unsigned long long)((t2 - t1) / n));
	warm_destroy(s->warm);
out_engine:
	engine_destroy(&s->e);
out:
	free(s->tcp);
	free(s->warm);
	free(s);
}

/*
 * An order's TCP frame, hot: the Enter Order from the instrument's
 * template, then the own TCP's segment (header, IPv4 and TCP checksums from
 * the template's sums, the bytes kept for a retransmission), back to back
 * in batches of 64 between the exchange's ACKs (untimed).  The order log's
 * record is not part of it (the regimes above include it).  Target: 60 ns.
 */
#define FRAME_BATCH	64
#define FRAME_BATCHES	4000

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void order_frame_cost(void)
{
	static double per[FRAME_BATCHES];
	struct gw_cfg cfg = bench_cfg();
	struct stage *s = aligned_alloc(64, sizeof(*s));
	const struct gw_inst *in;
	char err[256];

	if (!s)
		return;
	memset(s, 0, sizeof(*s));
	if (engine_init(&s->e, &cfg, err, sizeof(err)))
		goto out;
	orders_session_up(&s->e.ord, 0);
	if (open_stream(s))
		goto out_engine;
	in = &s->e.inst[0];
	for (int b = 0; b < FRAME_BATCHES; b++) {
		uint64_t t0 = mono_ns();

		for (uint32_t i = 0; i < FRAME_BATCH; i++) {
			uint8_t *tx = s->tx[i & 7];
			uint32_t no = (uint32_t)b * FRAME_BATCH + i;
			uint64_t sum = ouch_order_tmpl_write(&in->tmpl, tx + FRAME_TCP_HDR_LEN, no, no,
							     i & 1 ? 'S' : 'B', 100, in->symbol,
							     1500000 + i);

			tcp_send_built(s->tcp, tx, OUCH_ENTER_PKT_LEN, sum, t0);
		}
		per[b] = (double)(mono_ns() - t0) / FRAME_BATCH;
		peer_segment(s, TCP_ACK, NULL, 0);
	}
	qsort(per, FRAME_BATCHES, sizeof(per[0]), cmp_double);
	printf("An order's TCP frame (Enter Order from the template, header, IPv4 and TCP checksums,\n"
	       "the bytes kept for a retransmission), back to back: p50 %.1f ns, p90 %.1f ns per order\n"
	       "(%d batches of %d; target 60 ns).\n\n", per[FRAME_BATCHES / 2],
	       per[FRAME_BATCHES * 9 / 10], FRAME_BATCHES, FRAME_BATCH);
out_engine:
	engine_destroy(&s->e);
out:
	free(s->tcp);
	free(s);
}

#define FILL_LOCATES	64	/* one order per locate in a batch */
#define FILL_LEVELS	5	/* levels each order walks */
#define FILL_DEPTH	40	/* asks per locate */
#define FILL_BATCHES	4000

static void fill_add(struct book *b, uint16_t loc, uint64_t ref, uint32_t price)
{
	struct itch_msg m = { .type = 'A', .locate = loc };
	struct tape_print p;
	uint8_t buf[64];
	int len;

	m.a.order_ref = ref;
	m.a.side = 'S';
	m.a.shares = 100;
	m.a.price = price;
	memcpy(m.a.stock, "BENCH   ", 8);
	len = itch_encode(buf, sizeof(buf), &m);
	book_apply(b, buf, (uint16_t)len, ref, &p);
}

/*
 * Deciding a paper fill (book/fill.h): a buy that walks FILL_LEVELS levels
 * of 100 shares within its limit, one per locate of a batch (so the batch
 * does not hit its own taken shares), given back after each batch.  The
 * book is larger than the batch touches: the lines are warm, as in a run
 * where the book follows the feed.
 */
static void paper_fill_cost(void)
{
	static double per[FILL_BATCHES];
	struct book_config bc = { .max_orders = 1u << 16, .track_all = true };
	static struct book_fill_exec ex[FILL_LOCATES][FILL_LEVELS];
	struct book *b = malloc(sizeof(*b));
	uint32_t best = 1000000, nexec = 0;
	uint64_t ref = 0;

	if (!b || book_init(b, &bc))
		goto out;
	for (uint16_t loc = 1; loc <= FILL_LOCATES; loc++)
		for (uint32_t l = 0; l < FILL_DEPTH; l++)
			fill_add(b, loc, ++ref, best + l * 100);
	for (int k = 0; k < FILL_BATCHES; k++) {
		uint64_t t0 = mono_ns();

		for (uint16_t loc = 1; loc <= FILL_LOCATES; loc++) {
			struct book_fill f = book_fill(b, loc, 'B', best + (FILL_LEVELS - 1) * 100,
						       FILL_LEVELS * 100, ex[loc - 1], FILL_LEVELS);

			nexec += f.nexec;
		}
		per[k] = (double)(mono_ns() - t0) / FILL_LOCATES;
		for (uint16_t loc = 1; loc <= FILL_LOCATES; loc++)
			book_fill_undo(b, ex[loc - 1], FILL_LEVELS);
	}
	if (nexec != (uint32_t)FILL_BATCHES * FILL_LOCATES * FILL_LEVELS) {
		fprintf(stderr, "bench_engine: paper fills walked %u levels, not %u\n", nexec,
			FILL_BATCHES * FILL_LOCATES * FILL_LEVELS);
		goto out_book;
	}
	qsort(per, FILL_BATCHES, sizeof(per[0]), cmp_double);
	printf("A paper fill (book/fill.h: a buy walking %d levels within its limit), back to back:\n"
	       "p50 %.1f ns, p90 %.1f ns per order (%d batches of %d; target 150 ns).\n\n",
	       FILL_LEVELS, per[FILL_BATCHES / 2], per[FILL_BATCHES * 9 / 10], FILL_BATCHES,
	       FILL_LOCATES);
out_book:
	book_destroy(b);
out:
	free(b);
}

/* What one clock read costs on the hot CPU (latency/clock_cost.c), p50. */
static int clock_cost_p50(void)
{
	static struct hdr_hist h;

	if (clock_cost_measure(HOT_CPU, 100000, &h))
		return -1;
	return (int)hdr_value_at_percentile(&h, 50);
}

int main(int argc, char **argv)
{
	static struct result res[R_NR];
	struct cfg c = { .reps = 1 };
	struct gw_cfg cfg;
	struct feed f;
	int reps, ret;

	ret = opt_parse(&prog, &c, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	reps = (int)c.reps;
	split = c.split;	/* process() and record() read it per packet */
	no_books = c.no_books;
	if (feed_build(&f, HOT_PKTS)) {
		fprintf(stderr, "bench_engine: cannot build the feed\n");
		return 1;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "bench_engine: mlockall: %s (continuing)\n", strerror(errno));
	pin(HOT_CPU);
	cfg = bench_cfg();
	printf("Engine seen->decided on CPU %d (ns; the gateway's default book:", HOT_CPU);
	for (unsigned int i = 0; i < cfg.n_inst; i++)
		printf(" %s:%u", cfg.inst[i].symbol, cfg.inst[i].length);
	printf(";\nclock read p50 %d ns, included once in every figure). Paced regimes: %d packets each.\n\n",
	       clock_cost_p50(), PACED_PKTS);
	warm_cost(&f);
	order_frame_cost();
	paper_fill_cost();
	for (int rep = 1; rep <= reps; rep++) {
		if (reps > 1)
			printf("Repetition %d of %d\n\n", rep, reps);
		printf("seen->decided of the packets that made an order (p50 .. p99.9), and\n"
		       "seen->done of every packet (all p50, all p99), ns:\n\n"
		       "| regime                 | packets | p50   | p90   | p99    | p99.9  | all p50 | all p99 |\n"
		       "|------------------------|--------:|------:|------:|-------:|-------:|------:|-------:|\n");
		for (size_t rg = 0; rg < R_NR; rg++) {
			if (run(&regimes[rg], &f, &res[rg])) {
				fprintf(stderr, "bench_engine: regime %s failed\n", regimes[rg].name);
				return 1;
			}
			print_row(regimes[rg].name, &res[rg]);
			for (int q = 0; q < 4; q++)
				rep_pct[rg][q][rep - 1] = hdr_value_at_percentile(&res[rg].decided, pct[q]);
			fflush(stdout);
		}
		printf("\n");
	}
	if (reps > 1)
		print_medians(reps);
	free(f.frame);
	free(f.len);
	return 0;
}
