# monitor/: the shared-memory view of a running gateway (layout.h), its
# writer and reader library, t2t-top, t2t-monitor (HTTP: Prometheus, JSON,
# dashboard) and t2t-monwriter (a writer without a gateway, for tests).
# Release and ASan+UBSan archives like the other parts, and a
# ThreadSanitizer flavour (build/tsan/) for the seqlock test only.

MONITOR_SRCS := monitor/writer.c monitor/reader.c monitor/hist.c monitor/snap.c \
	monitor/sbuf.c monitor/prom.c monitor/json.c monitor/price.c

$(BUILD)/libmonitor.a: $(call objs,$(MONITOR_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(ASAN)/libmonitor.a: $(call asan_objs,$(MONITOR_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

BINS += $(BUILD)/libmonitor.a $(ASAN)/libmonitor.a

MON_LIBS := $(BUILD)/libmonitor.a $(BUILD)/liblatency.a $(BUILD)/libutil.a
MON_ASAN_LIBS := $(ASAN)/libmonitor.a $(ASAN)/liblatency.a $(ASAN)/libutil.a

# The writer without a gateway: plausible values, paced or flat out.
$(BUILD)/t2t-monwriter: $(BUILD)/monitor/tools/monwriter.o $(MON_LIBS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
BINS += $(BUILD)/t2t-monwriter
# The terminal view.
$(BUILD)/t2t-top: $(BUILD)/monitor/tools/top.o $(MON_LIBS)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
BINS += $(BUILD)/t2t-top

# Unit tests: layout, round trips, window, events, the version check (ASan+UBSan).
UNIT_TESTS += $(ASAN)/tests/unit/test_mon
$(ASAN)/tests/unit/test_mon: $(ASAN)/tests/unit/test_mon.o $(MON_ASAN_LIBS)
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

# The seqlock protocol under ThreadSanitizer: a flavour of its own, for
# this test only (build/tsan/).
TSAN := $(BUILD)/tsan
TSAN_CFLAGS := -std=gnu11 -O1 -g $(WARN) -fno-omit-frame-pointer -fsanitize=thread

$(TSAN)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(TSAN_CFLAGS) -c $< -o $@

MON_TSAN_OBJS := $(patsubst %.c,$(TSAN)/%.o,monitor/writer.c monitor/reader.c \
	monitor/hist.c latency/hdr.c latency/order_rec.c)

UNIT_TESTS += $(TSAN)/tests/unit/test_mon_seqlock
$(TSAN)/tests/unit/test_mon_seqlock: $(TSAN)/tests/unit/test_mon_seqlock.o $(MON_TSAN_OBJS)
	$(CC) $(TSAN_CFLAGS) -o $@ $^ -lpthread $(LDLIBS)

# The HTTP side: /metrics, /api/state and the dashboard, its files built in.
WEB_FILES := monitor/web/index.html monitor/web/app.js monitor/web/chart.js \
	monitor/web/style.css
$(BUILD)/monitor/web_assets.o: monitor/web_assets.S $(WEB_FILES)
	@mkdir -p $(@D)
	$(CC) -c $< -o $@

$(BUILD)/t2t-monitor: $(BUILD)/monitor/tools/monitor.o $(BUILD)/monitor/web_assets.o $(MON_LIBS)
	$(CC) $(CFLAGS) -o $@ $^ -lmicrohttpd -lpthread $(LDLIBS)
BINS += $(BUILD)/t2t-monitor

# The views against t2t-monwriter: /metrics through promtool and agreeing
# with /api/state, the version refusal, t2t-top (--once, live in tmux,
# reattach), the dashboard in headless Chromium (npm ci in tests/browser
# when needed).
INT_TESTS += tests/integration/monitor_metrics.sh tests/integration/monitor_top.sh

# What the writer API costs per call, with and without a reader (CPU 1 / 0).
$(BUILD)/bench/bench_monitor: $(BUILD)/monitor/bench/bench_monitor.o $(MON_LIBS)
	$(CC) $(CFLAGS) -o $@ $^ -lpthread $(LDLIBS)
BINS += $(BUILD)/bench/bench_monitor

BENCHES += bench-monitor
.PHONY: bench-monitor
bench-monitor: $(BUILD)/bench/bench_monitor
	./$<
