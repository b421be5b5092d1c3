# bench/: benchmarks that need the whole system (rig, gateway, simulator).

include bench/floor/floor.mk bench/report/report.mk

# Tick-to-trade latency of the three paths against sockperf on one rig; the
# table, JSON and plots land in build/bench/ (bench/latency-bench.sh).
BENCHES += bench-latency
.PHONY: bench-latency
bench-latency: $(BUILD)/t2t-gateway $(BUILD)/exsim $(BUILD)/backtest $(BUILD)/t2t-capture
	./bench/latency-bench.sh
