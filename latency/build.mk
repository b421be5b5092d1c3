# Latency: HDR histograms, the capture log (writer, reader, t2t-capture tool)
# and the clock-read cost.
# Release and ASan+UBSan archives, so tools and unit tests can both link it.

LATENCY_SRCS := latency/hdr.c latency/capture.c latency/clock_cost.c latency/order_rec.c

$(BUILD)/liblatency.a: $(call objs,$(LATENCY_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(ASAN)/liblatency.a: $(call asan_objs,$(LATENCY_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

UNIT_TESTS += $(ASAN)/tests/unit/test_hdr
$(ASAN)/tests/unit/test_hdr: $(ASAN)/tests/unit/test_hdr.o $(ASAN)/liblatency.a
	$(CC) -fsanitize=address,undefined $^ -o $@ -lcmocka $(LDLIBS)

# Cost of hdr_record() (and of the queries) on this machine.
BENCHES += bench-hdr
.PHONY: bench-hdr
bench-hdr: $(BUILD)/bench/bench_hdr
	./$<

$(BUILD)/bench/bench_hdr: $(BUILD)/latency/bench_hdr.o $(BUILD)/liblatency.a
	$(CC) $^ -o $@ $(LDLIBS)
BINS += $(BUILD)/bench/bench_hdr

# The capture log reader: percentile tables, CSV, merge, plot data.
$(BUILD)/t2t-capture: $(BUILD)/latency/capture_tool.o $(BUILD)/liblatency.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lz $(LDLIBS)
BINS += $(BUILD)/t2t-capture

UNIT_TESTS += $(ASAN)/tests/unit/test_capture
$(ASAN)/tests/unit/test_capture: $(ASAN)/tests/unit/test_capture.o $(ASAN)/liblatency.a
	$(CC) -fsanitize=address,undefined $^ -o $@ -lcmocka -lz $(LDLIBS)

# The reader tool on hand-made files (format, merge, errors, plots) and the
# gateway's capture log end to end on a rig.
INT_TESTS += tests/integration/capture_tool.sh tests/integration/capture_gateway.sh
