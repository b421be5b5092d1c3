# Latency capture library: HDR histograms (and, later, the capture log).
# Release and ASan+UBSan archives, so tools and unit tests can both link it.

LATENCY_SRCS := latency/hdr.c

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
bench-hdr: $(BUILD)/latency/bench_hdr
	./$<

$(BUILD)/latency/bench_hdr: $(BUILD)/latency/bench_hdr.o $(BUILD)/liblatency.a
	$(CC) $^ -o $@ $(LDLIBS)
