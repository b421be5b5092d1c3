# util/: what every program shares below everything else: the one clock
# (clock.h, header only) and a kernel receive stamp on it (rx_stamp.h), command lines from a table (opt.[ch]) and a
# string as JSON (json.[ch]), prefaulted memory on the largest pages there are
# (table_mem.[ch]) and how much of a mapping got them (smaps.[ch]), the program's code on a 2 MB page (huge_text.[ch]),
# SipHash-2-4 (siphash.h, header only).

UTIL_SRCS := util/opt.c util/json.c util/table_mem.c util/smaps.c util/huge_text.c \
	util/queue_list.c

$(BUILD)/libutil.a: $(call objs,$(UTIL_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(ASAN)/libutil.a: $(call asan_objs,$(UTIL_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

BINS += $(BUILD)/libutil.a $(ASAN)/libutil.a

# Unit tests: the option table, the JSON string, the clock, SipHash (ASan+UBSan).
UTIL_TESTS := $(ASAN)/tests/unit/test_opt $(ASAN)/tests/unit/test_json $(ASAN)/tests/unit/test_clock \
	$(ASAN)/tests/unit/test_siphash
$(UTIL_TESTS): %: %.o $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
UNIT_TESTS += $(UTIL_TESTS)

# The code moved onto a 2 MB page: linked 2 MB aligned it moves, linked as
# usual it refuses; one source, two links.
$(ASAN)/tests/unit/test_huge_text: $(ASAN)/tests/unit/test_huge_text.o $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) $(HUGE_TEXT_LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
$(ASAN)/tests/unit/test_huge_text_unaligned: $(ASAN)/tests/unit/test_huge_text.o $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_huge_text $(ASAN)/tests/unit/test_huge_text_unaligned
