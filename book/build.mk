# book/: the order book of every stock locate, the execution tape, the day
# generator, and their tools.  Libraries: build/libbook.a (release) and
# build/asan/libbook.a (ASan+UBSan); programs that use them link libbook
# before libproto (day files, ITCH) and -lz.

BOOK_SRCS := book/table_mem.c book/book.c book/book_check.c book/daygen.c \
	book/daygen_admin.c
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
	$(wildcard tests/unit/test_book_*.c))

$(BOOK_UNIT_TESTS): $(ASAN)/tests/unit/%: $(ASAN)/tests/unit/%.o $(BOOK_ASAN_LIB) \
		$(ASAN)/libproto.a $(ASAN)/libstrategy.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lz $(LDLIBS)

UNIT_TESTS += $(BOOK_UNIT_TESTS)

# t2t-genday: a synthetic day file.
$(BUILD)/t2t-genday: $(BUILD)/book/tools/genday.o $(BOOK_LIB) $(BUILD)/libproto.a \
		$(BUILD)/libstrategy.a
	$(CC) $(CFLAGS) -o $@ $^ -lz $(LDLIBS)

BINS += $(BUILD)/t2t-genday
