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
 * and with --day, on a day file as a replay at x1 sends it (gateway/bench_feed.h),
 * with the gateway's default book kept:
 *
 *   day, hot             back to back
 *   day, recorded + kick the day's own pauses (cut to 100 us) and a kick
 *   ... + warm           ... with the idle-time warming: the live loop
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
#include "gateway/bench_feed.h"
#include "gateway/engine_hot.h"
#include "gateway/warm.h"
#include "net/tcp.h"
#include "latency/clock_cost.h"
#include "latency/hdr.h"
#include "proto/be.h"
#include "proto/frame.h"
#include "proto/itch.h"
#include "proto/moldudp64.h"
#include "strategy/gbm.h"
#include "util/opt.h"

#define PACED_NS	100000		/* 10k packets/s, as the low-rate benchmark */
#define PACED_PKTS	30000
#define HOT_PKTS	300000
#define FRAME_ROOM	256
#define SLOT_ROOM	2048	/* an xcore slot: a frame of the MTU */
#define HOT_CPU		1
#define OTHER_CPU	0
#define MAX_REPS	20
/* A day's quiet stretches, cut to what the GBM regimes wait between packets. */
#define DAY_GAP_MAX_NS	PACED_NS

struct regime {
	const char *name;
	uint64_t pace_ns;	/* 0: back to back */
	bool kick;		/* sendto() after each order */
	bool warm;		/* idle-time warming */
	bool xcore;		/* frame written by the other CPU */
	bool day;		/* the --day feed, paced as recorded (gaps cut to pace_ns) */
};

static const struct regime regimes[] = {
	{ "hot (back to back)", 0, false, false, false, false },
	{ "paced 1 us", 1000, false, false, false, false },
	{ "paced 10 us", 10000, false, false, false, false },
	{ "paced 100 us", PACED_NS, false, false, false, false },
	{ "paced 100 us + kick", PACED_NS, true, false, false, false },
	{ "  ... + warm", PACED_NS, true, true, false, false },
	{ "xcore 100 us + kick", PACED_NS, true, false, true, false },
	{ "  ... + warm", PACED_NS, true, true, true, false },
	{ "day, hot", 0, false, false, false, true },
	{ "day, recorded + kick", DAY_GAP_MAX_NS, true, false, false, true },
	{ "  ... + warm", DAY_GAP_MAX_NS, true, true, false, true },
};
#define R_NR (sizeof(regimes) / sizeof(regimes[0]))

/* The live loop's regime: paced, kicked and warmed, the frame from this core. */
static bool regime_live(const struct regime *rg)
{
	return rg->pace_ns && rg->kick && rg->warm && !rg->xcore;
}

static bool regime_runs(size_t rg, bool day, bool live_only)
{
	if (regimes[rg].day && !day)
		return false;
	return !live_only || regime_live(&regimes[rg]);
}

/* The yardstick of the closing ratio on one feed. */
static size_t regime_live_of(bool day)
{
	size_t rg = 0;

	while (!regime_live(&regimes[rg]) || regimes[rg].day != day)
		rg++;
	return rg;
}

struct result {
	struct hdr_hist decided;	/* packets with an order: seen->decided */
	struct hdr_hist done;		/* every packet: seen->done */
	/* --split: the order packets' seen->decided in three parts */
	struct hdr_hist parse, feed, build;
	char pages[64];			/* a day regime's book: what backs it */
	struct hdr_hist msgs;		/* messages in the packets that made an order */
};

static bool split;
static uint64_t t_parsed, t_fed;

struct cfg {
	uint32_t reps;
	bool split;
	bool no_books;
	const char *day;
	uint32_t day_frames;
	uint32_t book_orders;
	bool live_only;
	bool touch_orders;
	bool touch_frames;
};

static bool no_books;
static uint32_t day_book_orders;

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
	OPT("day", 0, OPT_STR, C(day), "FILE",
	    "also run the day regimes on this day file (BinaryFILE, gzip or plain; "
	    "make bench-engine gives the demo's), the gateway's default book and symbols"),
	OPT("day-frames", 0, OPT_U32, C(day_frames), "N",
	    "the day's first N packets only (0: all)", .def = "0"),
	OPT("book-orders", 0, OPT_U32, C(book_orders), "N",
	    "the day regimes' order table, in live orders (t2t-gateway --book-orders)",
	    .min = 16, .max = BOOK_MAX_ORDERS, .def = "2097152"),
	OPT("live-only", 0, OPT_FLAG, C(live_only), NULL,
	    "only the live loop's regime (paced + kick + warm) on each feed: an A/B in "
	    "a quarter of the time"),
	OPT("touch-orders", 0, OPT_FLAG, C(touch_orders), NULL,
	    "before each day packet, untimed, look up the orders it executes or cancels "
	    "(what no live loop knows in advance), reading the frame to find them"),
	OPT("touch-frames", 0, OPT_FLAG, C(touch_frames), NULL,
	    "before each day packet, untimed, read its frame's lines: against "
	    "--touch-orders, the order lookup's share"),
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
"2-vCPU VM and keeps both CPUs busy.\n"
"With --day, the same engine also trades a day file replayed as a replay at\n"
"x1 sends it (the messages of one timestamp in one packet, the pauses as\n"
"recorded, cut to 100 us), with the day's book, so that the day's prints and\n"
"the GBM ones are timed in one run; the closing line compares their p50.\n",
	.more = "Exit status: 0 done, 1 a regime failed, 2 bad usage.\n",
	.opts = opts,
};

/* The gateway's defaults, whose book is make demo's: the feed trades it. */
static struct gw_cfg bench_cfg(const struct regime *rg)
{
	struct gw_cfg c;

	gw_cfg_defaults(&c);
	/* GBM trades prints only: the book holds nothing, its size does not matter. */
	c.book.max_orders = rg && rg->day ? day_book_orders : 1 << 16;
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
static int feed_build(struct bench_feed *f, size_t n_trades)
{
	struct frame_template t;
	char session[MOLD_SESSION_LEN];
	struct gw_cfg cfg = bench_cfg(NULL);
	unsigned int n_sym = cfg.n_inst;
	struct gbm g[GW_MAX_INST];
	struct mold_builder b;
	struct itch_msg m;
	uint64_t seq = 1;
	uint8_t *fr;

	memset(f, 0, sizeof(*f));
	bench_feed_template(&t);
	mold_session_set(session, "BENCH");
	for (unsigned int i = 0; i < n_sym; i++)
		gbm_init(&g[i], 42 + i);

	fr = bench_feed_room(f);
	if (!fr)
		return -ENOMEM;
	mold_builder_init(&b, fr + FRAME_HDR_LEN, BENCH_FEED_PAYLOAD, session, seq);
	for (unsigned int i = 0; i < n_sym; i++) {
		memset(&m, 0, sizeof(m));
		m.type = 'R';
		m.locate = (uint16_t)(i + 1);
		sym8(m.r.stock, cfg.inst[i].symbol);
		if (mold_builder_append_itch(&b, &m) < 0)
			return -EINVAL;
		seq++;
	}
	if (bench_feed_push(f, (uint16_t)frame_finish(&t, fr, mold_builder_finish(&b)), 0))
		return -ENOMEM;

	for (size_t k = 0; k < n_trades; k++) {
		unsigned int i = (unsigned int)(k % n_sym);

		memset(&m, 0, sizeof(m));
		m.type = 'P';
		m.locate = (uint16_t)(i + 1);
		m.p.side = 'B';
		m.p.shares = 100;
		sym8(m.p.stock, cfg.inst[i].symbol);
		m.p.price = gbm_next(&g[i]);
		fr = bench_feed_room(f);
		if (!fr)
			return -ENOMEM;
		mold_builder_init(&b, fr + FRAME_HDR_LEN, BENCH_FEED_PAYLOAD, session, seq++);
		if (mold_builder_append_itch(&b, &m) < 0)
			return -EINVAL;
		if (bench_feed_push(f, (uint16_t)frame_finish(&t, fr, mold_builder_finish(&b)), 0))
			return -ENOMEM;
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

/*
 * --touch-orders: the resting orders a day packet's executions, cancels and
 * deletes name, looked up before the packet is timed: what no live loop can
 * know in advance.  It reads the frame to find them: against --touch-frames
 * (the frame's lines alone), the difference is the order lookup's share.
 */
static bool touch_orders, touch_frames;
static volatile uint32_t touched_sink;

static void touch_named_orders(const struct book *b, const uint8_t *frame, size_t len)
{
	const uint8_t *p = frame + FRAME_HDR_LEN + MOLD_HDR_LEN, *end = frame + len;

	while (end - p >= MOLD_BLOCK_HDR_LEN) {
		uint16_t ml = be16_load(p);
		const uint8_t *m = p + MOLD_BLOCK_HDR_LEN;

		if (ml > end - m)
			break;
		if (ml > ITCH_E_OFF_ORDER_REF + 8 && b->tracked[be16_load(m + ITCH_OFF_LOCATE)] &&
		    (m[0] == 'E' || m[0] == 'C' || m[0] == 'X' || m[0] == 'D'))
			touched_sink += order_probe(&b->orders, be64_load(m + ITCH_E_OFF_ORDER_REF))->shares;
		p = m + ml;
	}
}

/* One idle turn's warming, as the AF_XDP loop's. */
static void warm_step(struct stage *s)
{
	warm_run(s->warm, mono_ns());
	engine_warm(&s->e);
	/* The live loop's xsk_session_warm(): the order stream, the TX frame. */
	tcp_warm(s->tcp);
	touch_lines(s->tx[0], 128);
}

/* Spin until @until, as the RX loop does, warming if asked. */
static void idle_until(struct stage *s, uint64_t until, bool warm)
{
	uint64_t spins = 0;

	while (mono_ns() < until)
		if (warm && !(++spins % 8))
			warm_step(s);
}

/* The other core publishes frame k into the shared slot; the hot core takes it. */
struct xcore {
	const struct bench_feed *f;
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
		uint8_t *dst = x->slot + (k % 64) * SLOT_ROOM;

		/* Paced, but never ahead of the hot core: one frame in flight. */
		while (mono_ns() < next ||
		       atomic_load_explicit(&x->consumed, memory_order_acquire) < k - 1)
			while (recv(x->drain_fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
				;
		next = mono_ns() + x->pace_ns;
		memcpy(dst, bench_feed_frame(x->f, k), x->f->len[k]);
		atomic_store_explicit(&x->published, k, memory_order_release);
	}
	return NULL;
}

static int run_xcore(struct stage *s, const struct bench_feed *f, struct result *r,
		     const struct regime *rg)
{
	struct xcore x = { .f = f, .pace_ns = rg->pace_ns, .drain_fd = -1 };
	bool warm = rg->warm;
	uint64_t t_decided = 0, spins = 0;
	pthread_t th;
	size_t k = 1, n = f->n < PACED_PKTS + 1 ? f->n : PACED_PKTS + 1;

	x.n = n;
	x.slot = aligned_alloc(4096, 64 * SLOT_ROOM);
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
			if (warm && !(++spins % 8))
				warm_step(s);
			continue;
		}
		t_seen = mono_ns();
		nd = process(s, x.slot + (k % 64) * SLOT_ROOM, f->len[k], t_seen, &t_decided);
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

static int run(const struct regime *rg, const struct bench_feed *f, struct result *r)
{
	struct gw_cfg cfg = bench_cfg(rg);
	struct stage *s;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	uint64_t t_decided = 0, next;
	size_t n = !rg->pace_ns || rg->day ? f->n : (f->n < PACED_PKTS + 1 ? f->n : PACED_PKTS + 1);
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
		if (!s->warm || warm_init(s->warm, &cfg, NULL, NULL, &gw_end, &ex_end, err, sizeof(err))) {
			fprintf(stderr, "bench_engine: warm: %s\n", err);
			free(s->warm);
			s->warm = NULL;
			goto out_sock;
		}
	}
	if (rg->day && s->e.book)
		book_describe_pages(s->e.book, r->pages, sizeof(r->pages));
	hdr_reset(&r->decided);
	hdr_reset(&r->msgs);
	hdr_reset(&r->done);
	hdr_reset(&r->parse);
	hdr_reset(&r->feed);
	hdr_reset(&r->build);

	/* The stock directory, untimed. */
	process(s, bench_feed_frame(f, 0), f->len[0], mono_ns(), &t_decided);
	if (rg->xcore) {
		ret = run_xcore(s, f, r, rg);
		goto out_warm;
	}
	next = mono_ns();
	for (size_t k = 1; k < n; k++) {
		const uint8_t *frame = bench_feed_frame(f, k);
		uint64_t t_seen;
		unsigned int nd;

		if (rg->pace_ns) {
			char sink[256];

			/* Drain what the kicks delivered, then wait for the slot. */
			while (recv(s->kick_fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
				;
			next += rg->day ? f->gap_ns[k] : rg->pace_ns;
			idle_until(s, next, rg->warm);
		}
		if (touch_frames && rg->day)
			touch_lines(frame, f->len[k]);
		if (touch_orders && rg->day && s->e.book)
			touch_named_orders(s->e.book, frame, f->len[k]);
		t_seen = mono_ns();
		nd = process(s, frame, f->len[k], t_seen, &t_decided);
		record(r, nd, t_seen, t_decided, mono_ns());
		if (nd)
			hdr_record(&r->msgs, be16_load(frame + FRAME_HDR_LEN + MOLD_OFF_COUNT));
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
	if (r->pages[0])
		printf("|   its book on %s pages; messages in an order's packet: p50 %lld, p90 %lld, max %lld\n",
		       r->pages, (long long)hdr_value_at_percentile(&r->msgs, 50),
		       (long long)hdr_value_at_percentile(&r->msgs, 90), (long long)hdr_max(&r->msgs));
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
static int64_t median_of(size_t rg, int q, int reps)
{
	int64_t v[MAX_REPS];

	memcpy(v, rep_pct[rg][q], sizeof(v[0]) * reps);
	qsort(v, reps, sizeof(v[0]), cmp_i64);
	return v[reps / 2];
}

static void print_medians(int reps, bool day, bool live_only)
{
	printf("Medians over %d repetitions (seen->decided, order packets, ns):\n\n"
	       "| regime                 | p50   | p90   | p99    | p99.9  |\n"
	       "|------------------------|------:|------:|-------:|-------:|\n", reps);
	for (size_t rg = 0; rg < R_NR; rg++) {
		int64_t m[4];

		if (!regime_runs(rg, day, live_only))
			continue;
		for (int q = 0; q < 4; q++)
			m[q] = median_of(rg, q, reps);
		printf("| %-22s | %5lld | %5lld | %6lld | %6lld |\n", regimes[rg].name,
		       (long long)m[0], (long long)m[1], (long long)m[2], (long long)m[3]);
	}
}

/* The day's prints against the GBM ones, both as the live loop runs them. */
static void print_day_ratio(int reps)
{
	int64_t d = median_of(regime_live_of(true), 0, reps);
	int64_t g = median_of(regime_live_of(false), 0, reps);

	printf("\nseen->decided p50, paced + kick + warm: the day %lld ns, GBM %lld ns: "
	       "day / GBM %.2f x, day - GBM %lld ns (median%s of %d repetition%s).\n",
	       (long long)d, (long long)g, g ? (double)d / (double)g : 0.0, (long long)(d - g),
	       reps > 1 ? "s" : "", reps, reps > 1 ? "s" : "");
}

/* What one idle-time warming step costs, back to back (ns per call). */
static void warm_cost(const struct bench_feed *f)
{
	struct gw_cfg cfg = bench_cfg(NULL);
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
	if (open_stream(s) || warm_init(s->warm, &cfg, NULL, NULL, &gw_end, &ex_end, err, sizeof(err)))
		goto out_engine;
	process(s, bench_feed_frame(f, 0), f->len[0], mono_ns(), &t_decided);
	for (int k = 1; k < 1000; k++)
		process(s, bench_feed_frame(f, k), f->len[k], mono_ns(), &t_decided);
	t0 = mono_ns();
	for (int i = 0; i < n; i++)
		warm_run(s->warm, mono_ns());
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
	struct gw_cfg cfg = bench_cfg(NULL);
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
	struct bench_feed f, day = { 0 };
	char err[640];
	int reps, ret;

	ret = opt_parse(&prog, &c, argc, argv, NULL);
	if (ret)
		return ret == 1 ? 0 : 2;
	reps = (int)c.reps;
	split = c.split;	/* process() and record() read it per packet */
	no_books = c.no_books;
	day_book_orders = c.book_orders;
	touch_orders = c.touch_orders;
	touch_frames = c.touch_frames;
	if (feed_build(&f, HOT_PKTS)) {
		fprintf(stderr, "bench_engine: cannot build the feed\n");
		return 1;
	}
	if (c.day && bench_feed_day(&day, c.day, c.day_frames, DAY_GAP_MAX_NS, err, sizeof(err))) {
		fprintf(stderr, "bench_engine: --day: %s\n", err);
		bench_feed_free(&f);
		return 2;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		fprintf(stderr, "bench_engine: mlockall: %s (continuing)\n", strerror(errno));
	pin(HOT_CPU);
	cfg = bench_cfg(NULL);
	printf("Engine seen->decided on CPU %d (ns; the gateway's default book:", HOT_CPU);
	for (unsigned int i = 0; i < cfg.n_inst; i++)
		printf(" %s:%u", cfg.inst[i].symbol, cfg.inst[i].length);
	printf(";\nclock read p50 %d ns, included once in every figure). Paced regimes: %d packets each.\n\n",
	       clock_cost_p50(), PACED_PKTS);
	if (c.day)
		printf("The day: %s, %zu packets of %llu messages, %.1f s paced (pauses cut to %d us); "
		       "its order table holds %u orders.\n\n", c.day, day.n,
		       (unsigned long long)day.messages, (double)day.paced_ns / 1e9,
		       DAY_GAP_MAX_NS / 1000, day_book_orders);
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
			if (!regime_runs(rg, c.day != NULL, c.live_only))
				continue;
			if (run(&regimes[rg], regimes[rg].day ? &day : &f, &res[rg])) {
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
		print_medians(reps, c.day != NULL, c.live_only);
	if (c.day)
		print_day_ratio(reps);
	bench_feed_free(&f);
	bench_feed_free(&day);
	return 0;
}
