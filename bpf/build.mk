# bpf/: the XDP steering program, built CO-RE with clang against the running
# kernel's BTF, and its bpftool-generated skeleton for the gateway.

BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror -D__BPF__ \
	-I. -I$(BUILD)/bpf -I/usr/include/$(shell uname -m)-linux-gnu

$(BUILD)/bpf/vmlinux.h:
	@mkdir -p $(@D)
	bpftool btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/steer.bpf.o: bpf/steer.bpf.c bpf/steer.h $(BUILD)/bpf/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf/steer.skel.h: $(BUILD)/bpf/steer.bpf.o
	bpftool gen skeleton $< name steer_bpf > $@.tmp && mv $@.tmp $@
