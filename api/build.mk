# api/: libt2t.so, the strategy kernel, the books and the engine behind a
# small, stable C API (api/t2t_api.h), a library above the engine; the
# Python package over it (python/t2t) and t2t-research (Dask) use it.

API_SRCS := api/t2t.c api/pool.c api/sweep.c api/research.c api/paper.c api/capture.c

# Everything the library holds, compiled again position-independent with
# only the API's functions visible (build/pic/).  The lists are read from
# the other parts' build.mk, which make reads after this one: hence the
# second expansion.
PIC := $(BUILD)/pic
pic_objs = $(patsubst %.c,$(PIC)/%.o,$(1))
T2T_LIB_SRCS = $(API_SRCS) $(ENGINE_LIB_SRCS) $(BOOK_SRCS) $(STRATEGY_SRCS) \
	$(LATENCY_SRCS) $(PROTO_SRCS) $(UTIL_SRCS)

$(PIC)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(PIC)/strategy/hma_lanes.o: CFLAGS += $(LANES_FLAGS)

.SECONDEXPANSION:
$(BUILD)/libt2t.so: $$(call pic_objs,$$(T2T_LIB_SRCS))
	$(CC) $(CFLAGS) -shared -Wl,-soname,libt2t.so -Wl,-z,defs -o $@ $^ -lz -lpthread $(LDLIBS)

# The Dask program: a launcher that finds the tree's python/ and Debian's python3.
$(BUILD)/t2t-research: python/t2t-research.sh | $(BUILD)/libt2t.so
	install -m 755 $< $@

BINS += $(BUILD)/libt2t.so $(BUILD)/t2t-research

# The equivalence gate (tests/python, pytest) under make test.
INT_TESTS += tests/integration/python_t2t.sh

# make bench-boundary: the study's table with this kernel (bench/boundary/).
$(BUILD)/bench/bench_boundary: $(BUILD)/bench/boundary/boundary.o $(BUILD)/libt2t.so \
		$(BUILD)/libstrategy.a $(BUILD)/libutil.a
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libstrategy.a $(BUILD)/libutil.a \
		-L$(BUILD) -lt2t -Wl,-rpath,'$$ORIGIN/..' $(LDLIBS)
BINS += $(BUILD)/bench/bench_boundary

.PHONY: bench-boundary
bench-boundary: $(BUILD)/bench/bench_boundary $(BUILD)/libt2t.so $(BUILD)/t2t-research \
		$(BUILD)/t2t-backtest $(BUILD)/t2t-genday
	./bench/boundary/boundary.sh
BENCHES += bench-boundary
