# Tick-to-trade gateway: top-level build.
#
# One non-recursive make.  Each part of the tree adds its sources, tools and
# tests in its own build.mk, so that parts can grow without touching this file.
# Two flavours of every object: release (build/) and ASan+UBSan (build/asan/),
# the latter used by the unit tests.

BUILD    := build
ASAN     := $(BUILD)/asan
CC       := gcc
CLANG    := clang

WARN     := -Wall -Wextra -Werror
CPPFLAGS := -I. -I$(BUILD) -D_GNU_SOURCE -MMD -MP
CFLAGS   := -std=gnu11 -O2 -g $(WARN)
ASAN_CFLAGS := -std=gnu11 -O1 -g $(WARN) -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
LDLIBS   := -lm
# Segments 2 MB aligned, so that a program's code owns its 2 MB range and
# can move onto a huge page (util/huge_text.h).
HUGE_TEXT_LDFLAGS := -Wl,-z,max-page-size=0x200000

# Helpers for the build.mk files.
objs      = $(patsubst %.c,$(BUILD)/%.o,$(1))
asan_objs = $(patsubst %.c,$(ASAN)/%.o,$(1))

BINS        :=
UNIT_TESTS  :=
# The harness every integration test sources is tested first; then that the
# tree keeps its layers (docs/architecture.md §1) and that the documents
# name what it has.
INT_TESTS   := tests/integration/harness_selftest.sh tests/integration/layers.sh \
	tests/integration/docs_names.sh
BENCHES     :=

.PHONY: all deps test unit-test integration-test demo bench clean
# The packages first, then the build: as two prerequisites of one target,
# make -j would compile against headers still being installed.
all: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) build-all

include $(sort $(wildcard */build.mk))

# Where programs land: build/t2t-<name> for what a user runs, build/tools/
# for the test tools, build/bench/ for the benchmarks.  Their link rules do
# not make the folder, so every program there waits for it.
$(filter $(BUILD)/tools/%,$(BINS)): | $(BUILD)/tools
$(filter $(BUILD)/bench/%,$(BINS)): | $(BUILD)/bench
$(BUILD)/tools $(BUILD)/bench:
	mkdir -p $@

.PHONY: build-all
build-all: $(BINS) $(UNIT_TESTS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(ASAN)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ASAN_CFLAGS) -c $< -o $@

# BPF programs, in the manner of libbpf-bootstrap: x.bpf.c beside its loader
# x.c.  The program is built CO-RE against the running kernel's BTF into
# $(BUILD)/x.bpf.o, bpftool makes the skeleton $(BUILD)/x.skel.h, and the
# loader includes it as "x.skel.h" from the tree's root.
BPF_PROGS  := $(patsubst %.bpf.c,%,$(wildcard */*.bpf.c */*/*.bpf.c))
BPF_CFLAGS := -O2 -g -target bpf -mcpu=v3 -Wall -Werror -D__BPF__ -MMD -MP \
	-I. -I$(BUILD) -I/usr/include/$(shell uname -m)-linux-gnu

$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	bpftool btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: %.bpf.c $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	bpftool gen skeleton $< name $(notdir $*)_bpf > $@.tmp && mv $@.tmp $@

.SECONDARY: $(BPF_PROGS:%=$(BUILD)/%.bpf.o)
$(foreach p,$(BPF_PROGS),$(eval $(BUILD)/$(p).o $(ASAN)/$(p).o: $(BUILD)/$(p).skel.h))

deps:
	@./scripts/deps.sh

# The build that runs before tests, the demo and benchmarks uses every CPU
# (nothing else runs yet), unless the caller gave -j itself.  (Each recipe
# names $(MAKE) itself: only then does make pass its jobserver down.)
BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

# Unit tests (cmocka, ASan+UBSan build) then integration tests (root, own
# namespaces).  The runner prints one closing line: "N passed, M failed".
test: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) build-all
	@./scripts/run-tests.sh $(UNIT_TESTS) $(INT_TESTS)

unit-test: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) build-all
	@./scripts/run-tests.sh $(UNIT_TESTS)

integration-test: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) build-all
	@./scripts/run-tests.sh $(INT_TESTS)

demo: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) build-all
	@./scripts/demo.sh

# Every benchmark a part registers; each prints its own figures.
bench: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) build-all
	@for b in $(BENCHES); do $(MAKE) --no-print-directory $$b || exit 1; done

clean:
	rm -rf $(BUILD)

# make print-VAR: a variable of the build, for scripts and tests.
print-%:
	@echo $($*)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
