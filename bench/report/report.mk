# bench/report/: what the latency benchmark's run leaves behind, turned into
# its table and JSON (t2t-latency-report), and the machine watcher the run
# keeps beside it (t2t-watch).

$(BUILD)/t2t-watch: $(call objs,bench/report/watch.c) $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
BINS += $(BUILD)/t2t-watch

REPORT_SRCS := bench/report/load.c bench/report/machine.c bench/report/view.c \
	bench/report/markdown.c bench/report/json.c bench/report/jflat.c

$(BUILD)/t2t-latency-report: $(call objs,$(REPORT_SRCS) bench/report/main.c) \
		$(BUILD)/liblatency.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lz $(LDLIBS)
BINS += $(BUILD)/t2t-latency-report

# The JSON reader, the machine log, sockperf's output, the pairing rule.
UNIT_TESTS += $(ASAN)/tests/unit/test_latency_report
$(ASAN)/tests/unit/test_latency_report: $(ASAN)/tests/unit/test_latency_report.o \
		$(call asan_objs,$(REPORT_SRCS)) $(ASAN)/liblatency.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lz $(LDLIBS)

# The report on a run directory made by hand, with known figures.
INT_TESTS += tests/integration/latency_report.sh
