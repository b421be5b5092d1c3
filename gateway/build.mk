# gateway/: the AF_XDP gateway and its kernel-UDP fallback.

# The engine and its parts: what the unit tests and bench_engine link too.
ENGINE_SRCS := gateway/engine.c gateway/gap.c gateway/inst.c gateway/risk.c \
	gateway/orders.c gateway/paper.c

# The engine is a library too: t2t-backtest --paper and libt2t run it on
# day files (paper_day.c, which the gateway itself has no use for).
ENGINE_LIB_SRCS := $(ENGINE_SRCS) gateway/paper_day.c
$(BUILD)/libengine.a: $(call objs,$(ENGINE_LIB_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

GATEWAY_SRCS := gateway/main.c gateway/opts.c $(ENGINE_SRCS) gateway/session.c \
	gateway/xsk_path.c gateway/udp_path.c gateway/report.c gateway/warm.c gateway/mon.c \
	gateway/host.c gateway/queues.c

$(BUILD)/t2t-gateway: $(call objs,$(GATEWAY_SRCS)) $(BUILD)/libnet.a $(BUILD)/libsteer.a $(BUILD)/libmonitor.a \
		$(BUILD)/libhost.a \
		$(BUILD)/libbook.a $(BUILD)/libproto.a \
		$(BUILD)/libutil.a $(BUILD)/libstrategy.a $(BUILD)/liblatency.a
	$(CC) $(CFLAGS) $(HUGE_TEXT_LDFLAGS) -o $@ $^ -lxdp -lbpf -lelf -lz -lpthread $(LDLIBS)

BINS += $(BUILD)/t2t-gateway

# Unit tests of the engine and its parts (no network), under ASan+UBSan.
ENGINE_TESTS := $(addprefix $(ASAN)/tests/unit/,test_engine test_gap test_orders test_risk \
	test_paper)
$(ENGINE_TESTS): %: %.o $(call asan_objs,$(ENGINE_SRCS)) $(ASAN)/libbook.a \
		$(ASAN)/libproto.a $(ASAN)/libstrategy.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lz $(LDLIBS)
UNIT_TESTS += $(ENGINE_TESTS)

INT_TESTS += tests/integration/gateway_passthrough.sh tests/integration/gateway_e2e.sh \
	tests/integration/gateway_badconfig.sh tests/integration/gateway_risk.sh \
	tests/integration/gateway_gaps.sh tests/integration/gateway_hostile.sh \
	tests/integration/gateway_overload.sh tests/integration/gateway_session.sh \
	tests/integration/gateway_monitor.sh tests/integration/gateway_lines.sh \
	tests/integration/gateway_clocks.sh tests/integration/gateway_soup.sh \
	tests/integration/gateway_paper.sh tests/integration/gateway_hostcheck.sh \
	tests/integration/gateway_queues.sh tests/integration/gateway_tcp_hostile.sh

# The counter table (gateway/counters.h) against what report_collect()
# writes from it; the AF_XDP path's BPF and socket reads are stubbed in the
# test, so no loader and no root.
$(ASAN)/tests/unit/test_counters: $(ASAN)/tests/unit/test_counters.o $(ASAN)/gateway/report.o \
		$(ASAN)/gateway/queues.o $(ASAN)/libhost.a \
		$(call asan_objs,$(ENGINE_SRCS)) $(ASAN)/libnet.a $(ASAN)/libbook.a \
		$(ASAN)/libproto.a $(ASAN)/libstrategy.a $(ASAN)/liblatency.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lxdp -lbpf -lelf -lz -lpthread $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_counters

# The XDP program run on crafted frames (BPF_PROG_TEST_RUN; root).
$(ASAN)/tests/unit/test_steer_bpf.o: $(BUILD)/bpf/steer.skel.h
$(ASAN)/tests/unit/test_steer_bpf: $(ASAN)/tests/unit/test_steer_bpf.o $(ASAN)/libsteer.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lbpf -lelf -lz -lpthread $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_steer_bpf

# Where seen->decided goes: the engine on the hot CPU, hot, paced, after a
# kernel send, warmed, and with the frame written by the other core.
$(BUILD)/bench/bench_engine: $(BUILD)/gateway/bench_engine.o $(BUILD)/gateway/bench_feed.o \
		$(call objs,$(ENGINE_SRCS)) \
		$(BUILD)/gateway/warm.o $(BUILD)/libnet.a $(BUILD)/libbook.a $(BUILD)/libproto.a \
		$(BUILD)/libstrategy.a $(BUILD)/liblatency.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lpthread -lz $(LDLIBS)
BINS += $(BUILD)/bench/bench_engine

.PHONY: bench-engine
bench-engine: $(BUILD)/bench/bench_engine $(BUILD)/t2t-genday
	bash -c '. scripts/demo_day.sh && demo_day && \
		exec ./$(BUILD)/bench/bench_engine --reps 3 --day "$$DEMO_DAY"'
BENCHES += bench-engine

# bench_engine's day feed: packets of one timestamp, pauses, errors.
$(ASAN)/tests/unit/test_bench_feed: $(ASAN)/tests/unit/test_bench_feed.o \
		$(ASAN)/gateway/bench_feed.o $(ASAN)/libproto.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lz $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_bench_feed

# Idle-time warming reads the live engine only and trades a shadow.
$(ASAN)/tests/unit/test_warm: $(ASAN)/tests/unit/test_warm.o $(ASAN)/gateway/warm.o \
		$(call asan_objs,$(ENGINE_SRCS)) $(ASAN)/libbook.a $(ASAN)/libproto.a \
		$(ASAN)/libstrategy.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lz $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_warm

# The whole queue matrix (not make test, which runs a cell of each kind):
# 4 and 8 queues x XPS or hash with loss x both order stacks x both XDP
# modes x one or two lines, 32 runs of about 5 s.
.PHONY: queues-matrix
queues-matrix: deps $(BUILD)/t2t-gateway $(BUILD)/t2t-exsim $(BUILD)/t2t-backtest
	./tests/integration/gateway_queues_matrix.sh
