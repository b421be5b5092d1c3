# book/: the order book of every stock locate, the execution tape, the day
# generator, and their tools.  Libraries: build/libbook.a (release) and
# build/asan/libbook.a (ASan+UBSan); programs that use them link libbook
# before libproto (day files, ITCH) and -lz.

BOOK_SRCS := book/book.c book/levels.c book/fill.c book/book_check.c book/daygen.c \
	book/daygen_msg.c book/daygen_flat.c book/daygen_real.c book/daygen_clock.c \
	book/daygen_admin.c book/dayshape.c book/dayshape_report.c book/feed_decoder.c \
	book/tick_ring.c book/stock_dir.c book/day_replay.c
BOOK_HDRS := $(wildcard book/*.h)

BOOK_LIB      := $(BUILD)/libbook.a
BOOK_ASAN_LIB := $(ASAN)/libbook.a

$(BOOK_LIB): $(call objs,$(BOOK_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(BOOK_ASAN_LIB): $(call asan_objs,$(BOOK_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

BINS += $(BOOK_LIB) $(BOOK_ASAN_LIB)

# Unit tests: cmocka, ASan+UBSan.
BOOK_UNIT_TESTS := $(patsubst tests/unit/%.c,$(ASAN)/tests/unit/%, \
	$(wildcard tests/unit/test_book_*.c)) $(ASAN)/tests/unit/test_feed_decoder

$(BOOK_UNIT_TESTS): $(ASAN)/tests/unit/%: $(ASAN)/tests/unit/%.o $(BOOK_ASAN_LIB) \
		$(ASAN)/libproto.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lz $(LDLIBS)

UNIT_TESTS += $(BOOK_UNIT_TESTS)

# t2t-genday: a synthetic day file.
$(BUILD)/t2t-genday: $(BUILD)/book/tools/genday.o $(BOOK_LIB) $(BUILD)/libproto.a \
		$(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lz $(LDLIBS)

BINS += $(BUILD)/t2t-genday

# libFuzzer target: arbitrary message streams against the reference model,
# the slow self-check after every message (clang, sources compiled in for
# coverage).  Run 30 s by tests/integration/book_fuzz.sh; make fuzz-book
# for FUZZ_SECONDS (600 by default).
BOOK_FUZZ := $(BUILD)/fuzz/fuzz_book
BOOK_FUZZ_FLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -D_GNU_SOURCE \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
BOOK_FUZZ_SRCS := book/book.c book/levels.c book/book_check.c proto/itch.c \
	proto/proto_err.c util/table_mem.c util/smaps.c

$(BOOK_FUZZ): tests/fuzz/fuzz_book.c tests/unit/book_model.h $(BOOK_FUZZ_SRCS) $(BOOK_HDRS) \
		$(wildcard proto/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(BOOK_FUZZ_FLAGS) tests/fuzz/fuzz_book.c $(BOOK_FUZZ_SRCS) -o $@

BINS += $(BOOK_FUZZ)
INT_TESTS += tests/integration/book_fuzz.sh

.PHONY: fuzz-book
fuzz: fuzz-book
fuzz-book: $(BOOK_FUZZ)
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/integration/book_fuzz.sh

# Benchmark: decode + book + tape over two generated days, from memory and
# from gzip: a flat day of 20 M messages, and a real-shaped one of 160 M
# (1.1 M live orders at its peak, books hundreds of levels deep: lookups
# that miss the caches).  The days are made once and kept in
# build/bench-book/, named after a checksum of the generator's sources so
# that a changed generator makes new ones.
DAYGEN_SUM := $(shell cat book/daygen*.c book/daygen*.h | cksum | cut -d' ' -f1)
BENCH_BOOK_DAY := $(BUILD)/bench-book/day-20M-k100-s42-$(DAYGEN_SUM).bin
BENCH_BOOK_REAL := $(BUILD)/bench-book/real-160M-s42-$(DAYGEN_SUM).bin

$(BUILD)/bench/bench_book: $(BUILD)/book/bench/bench_book.o $(BOOK_LIB) $(BUILD)/libproto.a \
		$(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lz $(LDLIBS)

BINS += $(BUILD)/bench/bench_book

$(BENCH_BOOK_DAY): | $(BUILD)/t2t-genday
	@mkdir -p $(@D)
	rm -f $(@D)/day-* $(@D)/real-*
	./$(BUILD)/t2t-genday --messages 20000000 --symbols 100 --seed 42 --gzip -q -o $@.gz
	./$(BUILD)/t2t-genday --messages 20000000 --symbols 100 --seed 42 -o $@

.PHONY: bench-book
# The real day: about 3 min to write (4.9 GB plain, its shape in .stats),
# then gzip -1.
$(BENCH_BOOK_REAL): $(BENCH_BOOK_DAY) | $(BUILD)/t2t-genday
	./$(BUILD)/t2t-genday --shape real --messages 160000000 --seed 42 --stats -o $@ >$@.stats
	gzip -1 -c $@ >$@.gz

bench-book: $(BUILD)/bench/bench_book $(BENCH_BOOK_DAY) $(BENCH_BOOK_REAL)
	./$(BUILD)/bench/bench_book --reps 3 $(BENCH_BOOK_DAY) $(BENCH_BOOK_DAY).gz
	@echo; echo "The real-shaped day ($(BENCH_BOOK_REAL).stats):"; echo
	./$(BUILD)/bench/bench_book --reps 3 --orders 2097152 $(BENCH_BOOK_REAL) $(BENCH_BOOK_REAL).gz
BENCHES += bench-book
