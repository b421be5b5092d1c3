# bpf/: the XDP steering program (steer.bpf.c, built by the top Makefile's
# BPF rules) and its loader (steer.c), a library the gateway links.

$(BUILD)/libsteer.a: $(call objs,bpf/steer.c)
	$(AR) rcs $@ $^

$(ASAN)/libsteer.a: $(call asan_objs,bpf/steer.c)
	$(AR) rcs $@ $^

# What the hook costs per packet, with and without the A/B arbitration.
$(BUILD)/bench/bench_steer: $(BUILD)/bpf/bench_steer.o $(BUILD)/libsteer.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $^ -lbpf -lelf -lz $(LDLIBS)
$(BUILD)/bpf/bench_steer.o: $(BUILD)/bpf/steer.skel.h
BINS += $(BUILD)/bench/bench_steer

.PHONY: bench-steer
bench-steer: $(BUILD)/bench/bench_steer
	taskset -c 1 ./$(BUILD)/bench/bench_steer
BENCHES += bench-steer
