# The exchange simulator (build/t2t-exsim).  Included from netns/build.mk.
# Libraries are named by path: proto/ and strategy/ build.mk are read after
# this file.

EXSIM_SRCS := netns/exsim/main.c netns/exsim/opts.c netns/exsim/gen.c \
	netns/exsim/feed.c netns/exsim/fill.c netns/exsim/sink.c \
	netns/exsim/report.c netns/exsim/store.c netns/exsim/faults.c \
	netns/exsim/hostile.c netns/exsim/rereq.c netns/exsim/attack.c netns/exsim/line_b.c netns/exsim/delayq.c \
	netns/exsim/bookfill.c netns/exsim/daysrc.c netns/exsim/replay.c \
	netns/exsim/genday.c netns/exsim/soup_server.c netns/exsim/soup_store.c \
	netns/exsim/soup_login.c netns/exsim/soup_fault.c netns/exsim/tokens.c \
	netns/exsim/cpu_pick.c
# libbook before libproto (day files, ITCH) and -lz.
EXSIM_LIBS := $(BUILD)/libbook.a $(BUILD)/libproto.a $(BUILD)/libstrategy.a \
	$(BUILD)/liblatency.a $(BUILD)/libutil.a

$(BUILD)/t2t-exsim: $(call objs,$(EXSIM_SRCS)) $(EXSIM_LIBS)
	$(CC) $^ -o $@ -lz $(LDLIBS)

BINS += $(BUILD)/t2t-exsim

# The fill models (last trade, published book), the sources (GBM ticks, the
# generated day, a replayed file) and the message store, ASan+UBSan.
EXSIM_UNIT := $(ASAN)/tests/unit/test_exsim_model $(ASAN)/tests/unit/test_exsim_bookfill \
	$(ASAN)/tests/unit/test_exsim_store $(ASAN)/tests/unit/test_exsim_sources
$(EXSIM_UNIT): $(ASAN)/tests/unit/%: $(ASAN)/tests/unit/%.o \
		$(call asan_objs,netns/exsim/fill.c netns/exsim/gen.c netns/exsim/bookfill.c \
			netns/exsim/store.c netns/exsim/daysrc.c netns/exsim/replay.c) \
		$(ASAN)/libbook.a $(ASAN)/libproto.a $(ASAN)/libstrategy.a $(ASAN)/libutil.a
	$(CC) -fsanitize=address,undefined $^ -o $@ -lcmocka -lz $(LDLIBS)
UNIT_TESTS += $(EXSIM_UNIT)

# The order session's pure parts: the sequenced store and the token set
# (test_exsim_soup_store), the login rules and the fault plan
# (test_exsim_soup_rules), ASan+UBSan.
EXSIM_SOUP_UNIT := $(ASAN)/tests/unit/test_exsim_soup_store $(ASAN)/tests/unit/test_exsim_soup_rules
$(EXSIM_SOUP_UNIT): $(ASAN)/tests/unit/%: $(ASAN)/tests/unit/%.o \
		$(call asan_objs,netns/exsim/soup_store.c netns/exsim/tokens.c \
			netns/exsim/soup_login.c netns/exsim/soup_fault.c) $(ASAN)/libproto.a
	$(CC) -fsanitize=address,undefined $^ -o $@ -lcmocka $(LDLIBS)
UNIT_TESTS += $(EXSIM_SOUP_UNIT)

# Where the simulator pins itself, over a made-up /proc, ASan+UBSan.
$(ASAN)/tests/unit/test_exsim_cpu_pick: $(ASAN)/tests/unit/test_exsim_cpu_pick.o \
		$(call asan_objs,netns/exsim/cpu_pick.c)
	$(CC) -fsanitize=address,undefined $^ -o $@ -lcmocka $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_exsim_cpu_pick

INT_TESTS += tests/integration/exsim_cli.sh tests/integration/exsim_feed.sh \
	tests/integration/exsim_orders.sh tests/integration/exsim_rerequest.sh \
	tests/integration/faults_feed.sh tests/integration/faults_hostile.sh \
	tests/integration/faults_netem.sh tests/integration/exsim_soak.sh \
	tests/integration/chaos_short.sh \
	tests/integration/exsim_replay.sh tests/integration/exsim_day.sh \
	tests/integration/exsim_soup.sh

# Publish rate with packing and pacing accuracy, on a rig of its own.
.PHONY: bench-exsim
bench-exsim: $(BUILD)/t2t-exsim $(BUILD)/tools/feed_recv
	./netns/bench_exsim.sh
BENCHES += bench-exsim

# Replay flat out from a gzip and a plain day, and the generator's speed.
# The day (3 M messages, 100 symbols) is made once with t2t-exsim --gen-day and
# kept in build/bench-replay/, named after a checksum of the generator.
BENCH_REPLAY_DAY := $(BUILD)/bench-replay/day-3M-k100-s42-$(DAYGEN_SUM).bin

$(BENCH_REPLAY_DAY): | $(BUILD)/t2t-exsim
	@mkdir -p $(@D)
	rm -f $(@D)/day-*
	./$(BUILD)/t2t-exsim --gen-day $@.gz --messages 3000000 --symbols 100 --seed 42 >/dev/null
	./$(BUILD)/t2t-exsim --gen-day $@ --messages 3000000 --symbols 100 --seed 42 >/dev/null

.PHONY: bench-replay
bench-replay: $(BUILD)/t2t-exsim $(BUILD)/tools/feed_recv $(BUILD)/t2t-backtest $(BENCH_REPLAY_DAY)
	./netns/bench_replay.sh $(BENCH_REPLAY_DAY) $(BENCH_REPLAY_DAY).gz
BENCHES += bench-replay

# The soak (not in make test): 60 s at 100,000 ticks/s over AF_XDP against
# the gateway; SOAK_ARGS passes options (scripts/soak.sh --help).
.PHONY: soak
soak: deps $(BUILD)/t2t-exsim $(BUILD)/t2t-gateway $(BUILD)/t2t-backtest
	./scripts/soak.sh $(SOAK_ARGS)

# The seeded chaos harness (scripts/chaos.sh): make chaos SEEDS=N; a short
# one runs in make test (tests/integration/chaos_short.sh).
SEEDS ?= 10
.PHONY: chaos
chaos: deps $(BUILD)/t2t-exsim $(BUILD)/t2t-gateway $(BUILD)/t2t-backtest
	./scripts/chaos.sh --seeds $(SEEDS) $(CHAOS_ARGS)
