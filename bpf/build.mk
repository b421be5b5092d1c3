# bpf/: the XDP steering program (steer.bpf.c, built by the top Makefile's
# BPF rules) and its loader (steer.c), a library the gateway links.

$(BUILD)/libsteer.a: $(call objs,bpf/steer.c)
	$(AR) rcs $@ $^

$(ASAN)/libsteer.a: $(call asan_objs,bpf/steer.c)
	$(AR) rcs $@ $^
