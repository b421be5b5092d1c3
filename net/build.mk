# net/: the network below the programs that send orders (the gateway and
# the rig's floor): the AF_XDP socket and its UMEM, what an interface and
# its neighbour are, busy polling, and the order session's own TCP client.

NET_SRCS := net/xsk_area.c net/xsk_port.c net/xsk_queues.c net/netif.c net/busy_poll.c net/tcp.c net/order_conn.c \
	net/xsk_session.c net/xsk_dry.c

$(BUILD)/libnet.a: $(call objs,$(NET_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

$(ASAN)/libnet.a: $(call asan_objs,$(NET_SRCS))
	@mkdir -p $(@D)
	$(AR) rcs $@ $^

BINS += $(BUILD)/libnet.a $(ASAN)/libnet.a

# The own TCP client against a peer played by the test (no network).
$(ASAN)/tests/unit/test_tcp: $(ASAN)/tests/unit/test_tcp.o $(ASAN)/libnet.a $(ASAN)/libproto.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_tcp

# The own stack's connections: random local ports, RFC 6528 ISNs.
$(ASAN)/tests/unit/test_order_conn_own: $(ASAN)/tests/unit/test_order_conn_own.o \
		$(ASAN)/libnet.a $(ASAN)/libproto.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_order_conn_own

# The dry session: the live send on rings of plain memory, no socket.
$(ASAN)/tests/unit/test_xsk_dry: $(ASAN)/tests/unit/test_xsk_dry.o $(ASAN)/libnet.a \
		$(ASAN)/libsteer.a $(ASAN)/libproto.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lxdp -lbpf -lelf -lz $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_xsk_dry

# The order session on the kernel's TCP against a server played by the test
# on loopback (a network namespace of its own when root).
$(ASAN)/tests/unit/test_order_conn_kernel: $(ASAN)/tests/unit/test_order_conn_kernel.o \
		$(ASAN)/libnet.a $(ASAN)/libproto.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_order_conn_kernel

# The per-queue sockets on one UMEM, on a veth pair of several queues in a
# network namespace of the test's own (root).
$(ASAN)/tests/unit/test_xsk_queues: $(ASAN)/tests/unit/test_xsk_queues.o $(ASAN)/libnet.a \
		$(ASAN)/libsteer.a $(ASAN)/libutil.a
	$(CC) $(ASAN_CFLAGS) -o $@ $^ -lcmocka -lxdp -lbpf -lelf -lz $(LDLIBS)
UNIT_TESTS += $(ASAN)/tests/unit/test_xsk_queues

# The tcp_input() fuzzer (libFuzzer, ASan+UBSan): a live connection driven
# segment by segment, its invariants checked after each.  Run 15 s by
# tests/integration/tcp_fuzz.sh in make test; make fuzz-tcp for longer.
TCP_FUZZ := $(BUILD)/fuzz/fuzz_tcp_input
TCP_FUZZ_SRCS := net/tcp.c proto/tcp_seg.c proto/frame.c proto/proto_err.c

$(TCP_FUZZ): tests/fuzz/fuzz_tcp_input.c $(TCP_FUZZ_SRCS) $(wildcard net/*.h proto/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(PROTO_FUZZ_FLAGS) tests/fuzz/fuzz_tcp_input.c $(TCP_FUZZ_SRCS) -o $@

BINS += $(TCP_FUZZ)
INT_TESTS += tests/integration/tcp_fuzz.sh

.PHONY: fuzz-tcp
fuzz: fuzz-tcp
fuzz-tcp: $(TCP_FUZZ)
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/integration/tcp_fuzz.sh
