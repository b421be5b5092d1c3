# host/: the host readiness report (t2t-gateway --check-host): what decides
# the tail on this host for the hot CPU and the feed interface, read from
# /proc and /sys (or a made-up tree under --host-root), never changed.

HOST_SRCS := host/check.c host/check_cpu.c host/check_load.c host/check_net.c \
	host/check_mem.c host/check_kernel.c host/sample.c host/read.c host/cpulist.c \
	host/flows.c

$(BUILD)/libhost.a: $(call objs,$(HOST_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(ASAN)/libhost.a: $(call asan_objs,$(HOST_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

BINS += $(BUILD)/libhost.a $(ASAN)/libhost.a

# Every check against made-up /proc and /sys trees (ASan+UBSan).
$(ASAN)/tests/unit/test_host_check: $(ASAN)/tests/unit/test_host_check.o $(ASAN)/libhost.a \
		$(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_host_check
