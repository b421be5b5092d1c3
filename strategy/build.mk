# strategy/: the HMA/HMA3 kernels (batch reference and incremental), the
# trading rule, the GBM generator and the backtester (t2t-backtest).

STRATEGY_SRCS := strategy/hma_params.c strategy/hma_batch.c \
	strategy/hma_incr.c strategy/hma_lanes.c strategy/gbm.c strategy/prices.c \
	strategy/sweep.c strategy/inst_spec.c strategy/ticks.c strategy/trader.c

# The lanes' trade return must be the scalar rule's operations, not a fused
# multiply-add of them; their vector helpers are static and inlined, so the
# vector ABI GCC notes never meets another object.  (The position-
# independent copy for libt2t.so is api/build.mk's.)
LANES_FLAGS := -ffp-contract=off -Wno-psabi
$(BUILD)/strategy/hma_lanes.o: CFLAGS += $(LANES_FLAGS)
$(ASAN)/strategy/hma_lanes.o: ASAN_CFLAGS += $(LANES_FLAGS)

$(BUILD)/libstrategy.a: $(call objs,$(STRATEGY_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(ASAN)/libstrategy.a: $(call asan_objs,$(STRATEGY_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

# --itch reads day files through the order book (book/, proto/, zlib).
# --itch --paper runs the gateway's engine (libengine, gateway/build.mk).
$(BUILD)/t2t-backtest: $(BUILD)/strategy/backtest.o $(BUILD)/strategy/backtest_itch.o \
		$(BUILD)/strategy/backtest_paper.o $(BUILD)/libengine.a \
		$(BUILD)/libbook.a $(BUILD)/libstrategy.a $(BUILD)/libproto.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lz $(LDLIBS)

$(BUILD)/bench/bench_strategy: $(BUILD)/strategy/bench_strategy.o $(BUILD)/libstrategy.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

BINS += $(BUILD)/t2t-backtest $(BUILD)/bench/bench_strategy

STRATEGY_TESTS := test_hma_small test_hma_extremes test_hma_reference \
	test_hma_lanes test_gbm test_prices

STRATEGY_TEST_BINS := $(addprefix $(ASAN)/tests/unit/,$(STRATEGY_TESTS))

# Static pattern: scoped to these tests, so other parts' tests link their own libs.
$(STRATEGY_TEST_BINS): %: %.o $(ASAN)/libstrategy.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

UNIT_TESTS += $(STRATEGY_TEST_BINS)
INT_TESTS += tests/integration/backtest_cli.sh tests/integration/backtest_itch.sh

.PHONY: bench-strategy
bench-strategy: $(BUILD)/bench/bench_strategy
	./$(BUILD)/bench/bench_strategy
BENCHES += bench-strategy
