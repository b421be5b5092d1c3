# proto/: wire-protocol library shared by the gateway and the exchange
# simulator (MoldUDP64/ITCH 5.0, OUCH 4.2, SoupBinTCP 3.0, Ethernet/IPv4/UDP
# frames).

PROTO_SRCS := proto/proto_err.c proto/itch.c proto/moldudp64.c \
	proto/order_token.c proto/ouch.c proto/frame.c proto/dayfile.c \
	proto/itch_filter.c proto/soupbin.c proto/soup_client.c proto/tcp_seg.c \
	proto/pcap.c proto/mold_merge.c
PROTO_HDRS := $(wildcard proto/*.h)

PROTO_LIB      := $(BUILD)/libproto.a
PROTO_ASAN_LIB := $(ASAN)/libproto.a

$(PROTO_LIB): $(call objs,$(PROTO_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(PROTO_ASAN_LIB): $(call asan_objs,$(PROTO_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

BINS += $(PROTO_LIB) $(PROTO_ASAN_LIB)

# Unit tests: cmocka, ASan+UBSan.
PROTO_UNIT_TESTS := $(patsubst tests/unit/%.c,$(ASAN)/tests/unit/%, \
	$(wildcard tests/unit/test_proto_*.c))

$(PROTO_UNIT_TESTS): $(ASAN)/tests/unit/%: $(ASAN)/tests/unit/%.o $(PROTO_ASAN_LIB)
	$(CC) -fsanitize=address,undefined $^ -o $@ -lcmocka -lz $(LDLIBS)

UNIT_TESTS += $(PROTO_UNIT_TESTS)

# Tools: pcap writer for the tshark check, raw frame sender/receiver for the
# kernel acceptance check.
PROTO_TOOLS := $(BUILD)/tools/proto-pcap $(BUILD)/tools/proto-frame-check

$(BUILD)/tools/proto-pcap: $(BUILD)/proto/tools/proto_pcap.o $(PROTO_LIB) $(BUILD)/libutil.a
	$(CC) $^ -o $@ -lz $(LDLIBS)

$(BUILD)/tools/proto-frame-check: $(BUILD)/proto/tools/proto_frame_check.o $(BUILD)/libbook.a \
		$(PROTO_LIB) $(BUILD)/libutil.a
	$(CC) $^ -o $@ -lz $(LDLIBS)

BINS += $(PROTO_TOOLS)

# t2t-pcap: a day file to a pcap of its feed, a capture to a day file.
PCAP_TOOL_SRCS := proto/tools/pcap/main.c proto/tools/pcap/day_to_pcap.c \
	proto/tools/pcap/pcap_to_day.c

$(BUILD)/t2t-pcap: $(call objs,$(PCAP_TOOL_SRCS)) $(PROTO_LIB) $(BUILD)/libutil.a
	$(CC) $^ -o $@ -lz $(LDLIBS)

BINS += $(BUILD)/t2t-pcap
# A capture played onto the rig with tcpreplay, traded in paper mode.
INT_TESTS += tests/integration/feed_capture.sh
INT_TESTS += tests/integration/proto_tshark.sh \
	tests/integration/proto_kernel_accept.sh \
	tests/integration/proto_fuzz.sh

# libFuzzer target: clang, sources compiled in so they carry coverage: the
# feed decoder (book/) with the book behind it.
PROTO_FUZZ := $(BUILD)/fuzz/fuzz_proto_feed
PROTO_FUZZ_FLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -D_GNU_SOURCE \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
PROTO_FUZZ_SRCS := $(PROTO_SRCS) book/feed_decoder.c book/tick_ring.c book/stock_dir.c \
	book/book.c book/levels.c util/table_mem.c util/smaps.c

$(PROTO_FUZZ): tests/fuzz/fuzz_proto_feed.c $(PROTO_FUZZ_SRCS) $(PROTO_HDRS) $(wildcard book/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(PROTO_FUZZ_FLAGS) tests/fuzz/fuzz_proto_feed.c $(PROTO_FUZZ_SRCS) -o $@ -lz

# The SoupBinTCP stream fuzzer: the reassembler read whole and in chunks,
# and the payload decoders.  Seeds: tests/fuzz/make_soup_seeds.sh.
SOUP_FUZZ := $(BUILD)/fuzz/fuzz_soup_stream

$(SOUP_FUZZ): tests/fuzz/fuzz_soup_stream.c proto/soupbin.c $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(CLANG) $(PROTO_FUZZ_FLAGS) tests/fuzz/fuzz_soup_stream.c proto/soupbin.c -o $@

BINS += $(SOUP_FUZZ)
INT_TESTS += tests/integration/soup_fuzz.sh

# Seed corpus writer (the checked-in corpus was made with it).
$(BUILD)/tools/proto-fuzz-seeds: $(BUILD)/tests/fuzz/make_seeds.o $(PROTO_LIB)
	$(CC) $^ -o $@ $(LDLIBS)

BINS += $(PROTO_FUZZ) $(BUILD)/tools/proto-fuzz-seeds

# Longer fuzz run: make fuzz (FUZZ_SECONDS=600 by default).
.PHONY: fuzz fuzz-proto fuzz-soup bench-proto
FUZZ_SECONDS ?= 600
fuzz: fuzz-proto fuzz-soup
fuzz-proto: $(PROTO_FUZZ)
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/integration/proto_fuzz.sh
fuzz-soup: $(SOUP_FUZZ)
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/integration/soup_fuzz.sh

# Benchmark: P-message decode rate and order-frame encode time.
$(BUILD)/bench/bench_proto: $(BUILD)/proto/bench/bench_proto.o $(BUILD)/libbook.a $(PROTO_LIB)
	$(CC) $^ -o $@ -lz $(LDLIBS)
BINS += $(BUILD)/bench/bench_proto

bench-proto: $(BUILD)/bench/bench_proto
	./$(BUILD)/bench/bench_proto

BENCHES += bench-proto
