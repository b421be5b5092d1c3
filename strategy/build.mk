# strategy/: the HMA/HMA3 kernels (batch reference, incremental and in
# lanes), the trading rule, the GBM generator and the sweep: a library that
# includes nothing above it.  The backtester, a program, is in backtest/.

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

$(BUILD)/bench/bench_strategy: $(BUILD)/strategy/bench_strategy.o $(BUILD)/libstrategy.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

BINS += $(BUILD)/bench/bench_strategy

STRATEGY_TESTS := test_hma_small test_hma_extremes test_hma_reference \
	test_hma_lanes test_gbm test_prices

STRATEGY_TEST_BINS := $(addprefix $(ASAN)/tests/unit/,$(STRATEGY_TESTS))

# Static pattern: scoped to these tests, so other parts' tests link their own libs.
$(STRATEGY_TEST_BINS): %: %.o $(ASAN)/libstrategy.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

UNIT_TESTS += $(STRATEGY_TEST_BINS)

.PHONY: bench-strategy
bench-strategy: $(BUILD)/bench/bench_strategy
	./$(BUILD)/bench/bench_strategy
BENCHES += bench-strategy
