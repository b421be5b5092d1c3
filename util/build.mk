# util/: what every program shares below everything else: the one clock
# (clock.h, header only) and command lines from a table (opt.[ch]).

UTIL_SRCS := util/opt.c

$(BUILD)/libutil.a: $(call objs,$(UTIL_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(ASAN)/libutil.a: $(call asan_objs,$(UTIL_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

BINS += $(BUILD)/libutil.a $(ASAN)/libutil.a

UNIT_TESTS += $(ASAN)/tests/unit/test_opt
$(ASAN)/tests/unit/test_opt: $(ASAN)/tests/unit/test_opt.o $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
