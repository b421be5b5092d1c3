# bench/floor/: the rig's floor, the bare responders the latency benchmark
# runs beside the gateway (bench/floor/README.md).

FLOOR_SRCS := bench/floor/main.c bench/floor/opts.c bench/floor/floor.c \
	bench/floor/xsk.c bench/floor/udp.c

$(BUILD)/t2t-floor: $(call objs,$(FLOOR_SRCS)) $(BUILD)/libnet.a $(BUILD)/libsteer.a \
		$(BUILD)/libproto.a $(BUILD)/liblatency.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lxdp -lbpf -lelf -lz $(LDLIBS)
BINS += $(BUILD)/t2t-floor

# The floor answers every tick with a valid order (a rig of its own).
INT_TESTS += tests/integration/floor_answers.sh

# Which tick is answered, with what order, and the replies (no network).
UNIT_TESTS += $(ASAN)/tests/unit/test_floor
$(ASAN)/tests/unit/test_floor: $(ASAN)/tests/unit/test_floor.o $(ASAN)/bench/floor/floor.o \
		$(ASAN)/libnet.a $(ASAN)/libproto.a $(ASAN)/liblatency.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lz $(LDLIBS)
