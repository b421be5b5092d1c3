// SPDX-License-Identifier: MIT
/*
 * Idle-time warming must change nothing that is real: engine_warm() only
 * reads the live engine, and the dry ticks of warm_run() trade a shadow
 * engine of their own.  They must also run the whole per-tick path (the
 * shadow's strategy turns, so risk checks run and orders reach the sink
 * the loop gave, decided at the print), or the code they are there to
 * keep warm is not the code a tick runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gateway/engine_hot.h"
#include "gateway/warm.h"
#include "net/xsk_port.h"
#include "proto/moldudp64.h"

/* The gateway's defaults (make demo's book), with smaller buffers. */
static struct gw_cfg cfg(void)
{
	struct gw_cfg c;

	gw_cfg_defaults(&c);
	c.orders.log_size = 1 << 10;
	c.tick_ring = 1 << 10;
	c.gap.hold = 16;
	c.book.max_orders = 1 << 12;
	return c;
}

static void test_engine_warm_reads_only(void **state)
{
	struct gw_cfg c = cfg();
	struct gw_engine *e = calloc(1, sizeof(*e)), *before = malloc(sizeof(*e));
	char err[128];

	(void)state;
	assert_non_null(e);
	assert_non_null(before);
	assert_int_equal(engine_init(e, &c, err, sizeof(err)), 0);
	e->inst[0].locate = 3;		/* as if the directory had named it */
	memcpy(before, e, sizeof(*e));
	for (int i = 0; i < 1000; i++)
		engine_warm(e);
	assert_memory_equal(before, e, sizeof(*e));
	engine_destroy(e);
	free(before);
	free(e);
}

/* The loop's sink, as the AF_XDP loop's dry send: each order built. */
struct sink_seen {
	struct warm *w;
	uint64_t orders;
	uint64_t calls_during_run;
};

static void count_sink(void *ctx, const struct gw_decision *d, unsigned int n, uint64_t t)
{
	struct sink_seen *s = ctx;
	uint8_t buf[128];
	struct gw_order *rec;

	for (unsigned int i = 0; i < n; i++) {
		engine_build_order(&s->w->shadow, &d[i], t, buf, &rec);
		s->orders++;
	}
	s->calls_during_run++;
}

static void test_dry_ticks_trade_the_shadow_only(void **state)
{
	struct gw_cfg c = cfg();
	struct frame_endpoint src = { .ip = 0x0a000002, .port = 40001 };
	struct frame_endpoint dst = { .ip = 0x0a000001, .port = 40002 };
	struct gw_engine *e = calloc(1, sizeof(*e)), *before = malloc(sizeof(*e));
	struct warm *w = malloc(sizeof(*w));
	struct sink_seen seen = { .w = w };
	uint64_t decided = 0;
	char err[128];

	(void)state;
	assert_non_null(e);
	assert_non_null(before);
	assert_non_null(w);
	assert_int_equal(engine_init(e, &c, err, sizeof(err)), 0);
	assert_int_equal(warm_init(w, &c, count_sink, &seen, &src, &dst, err, sizeof(err)), 0);
	memcpy(before, e, sizeof(*e));

	for (int i = 0; i < 2 * WARM_PRICES; i++) {
		uint64_t calls = seen.calls_during_run;
		bool d = warm_run(w, (uint64_t)i);

		/* It says it decided exactly when its order went to the sink. */
		assert_int_equal(d, seen.calls_during_run == calls + 1);
		decided += d;
	}

	assert_int_equal(w->runs, 2 * WARM_PRICES);
	/* Every dry tick decoded: none fell out at the checksum or the parse. */
	assert_int_equal(w->shadow.st.ticks_ours, 2 * WARM_PRICES);
	assert_int_equal(w->shadow.gap.st.episodes, 0);
	/*
	 * The shadow's strategy turned, and its decisions went through the
	 * risk checks to the sink, each one order.
	 */
	assert_true(w->shadow.inst[0].strat.sar.trades > 10);
	assert_true(w->decided > 10);
	assert_int_equal(w->decided, decided);
	assert_int_equal(seen.orders, decided);
	assert_int_equal(w->shadow.ord.st.orders, decided);
	/* ... deciding at the print, through the live runs' copy of that code. */
	assert_true(w->shadow.dec.stepped);
	/* The live engine saw none of it. */
	assert_memory_equal(before, e, sizeof(*e));

	warm_destroy(w);
	engine_destroy(e);
	free(w);
	free(before);
	free(e);
}

/*
 * The TX side's warming reads the port, the next free frame and the TX
 * ring's next slot, and writes none of them.
 */
static void test_port_warm_tx_reads_only(void **state)
{
	enum { FRAMES = 4, RING = 8, FRAME = 2048 };
	uint8_t *area = calloc(FRAMES, FRAME), *area_before = malloc(FRAMES * FRAME);
	struct xdp_desc *ring = calloc(RING, sizeof(*ring));
	uint64_t free_stack[FRAMES] = { 0, FRAME, 2 * FRAME, 3 * FRAME };
	uint32_t producer = 5, consumer = 3;
	struct xsk_port p, before;

	(void)state;
	assert_non_null(area);
	assert_non_null(area_before);
	assert_non_null(ring);
	memset(&p, 0, sizeof(p));
	p.area = area;
	p.tx_free = free_stack;
	p.tx_free_n = FRAMES;
	p.tx.producer = &producer;
	p.tx.consumer = &consumer;
	p.tx.ring = ring;
	p.tx.mask = RING - 1;
	p.tx.size = RING;
	p.tx.cached_prod = producer;
	for (int i = 0; i < FRAMES * FRAME; i++)
		area[i] = (uint8_t)i;
	memcpy(area_before, area, FRAMES * FRAME);
	memcpy(&before, &p, sizeof(p));

	xsk_port_warm_tx(&p);
	p.tx_free_n = 0;	/* an empty pool: nothing of the area is read */
	xsk_port_warm_tx(&p);
	p.tx_free_n = FRAMES;

	assert_memory_equal(&before, &p, sizeof(p));
	assert_memory_equal(area_before, area, FRAMES * FRAME);
	assert_int_equal(producer, 5);
	assert_int_equal(consumer, 3);
	free(ring);
	free(area_before);
	free(area);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_warm_reads_only),
		cmocka_unit_test(test_dry_ticks_trade_the_shadow_only),
		cmocka_unit_test(test_port_warm_tx_reads_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
