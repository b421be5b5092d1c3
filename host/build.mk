# host/: the host readiness report (t2t-gateway --check-host): what decides
# the tail on this host for the hot CPU and the feed interface, read from
# /proc and /sys (or a made-up tree under --host-root), never changed.

HOST_SRCS := host/read.c host/cpulist.c

$(BUILD)/libhost.a: $(call objs,$(HOST_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(ASAN)/libhost.a: $(call asan_objs,$(HOST_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

BINS += $(BUILD)/libhost.a $(ASAN)/libhost.a

# CPU lists and the command line (ASan+UBSan).
$(ASAN)/tests/unit/test_host_check: $(ASAN)/tests/unit/test_host_check.o $(ASAN)/libhost.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_host_check
