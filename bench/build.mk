# bench/: benchmarks that need the whole system (rig, gateway, simulator).

include bench/floor/floor.mk bench/report/report.mk

# Tick-to-trade latency of the gateway's three paths against the rig's floor
# and sockperf on one rig, with the knobs' A/Bs; the table, JSON and plots
# land in build/bench/ (bench/latency-bench.sh runs, t2t-latency-report
# reports: bench/README.md).
BENCHES += bench-latency
.PHONY: bench-latency
bench-latency: $(BUILD)/t2t-gateway $(BUILD)/t2t-floor $(BUILD)/t2t-exsim $(BUILD)/t2t-backtest \
		$(BUILD)/t2t-capture $(BUILD)/t2t-watch $(BUILD)/t2t-latency-report
	./bench/latency-bench.sh

# The profile behind bench-latency's missed targets: perf on the hot CPU
# (who takes it from the loop, the TX kick's kernel send, kernel TCP's) and
# on the simulator's CPU at 1 M ticks/s; the sections go to the terminal.
BENCHES += bench-profile
.PHONY: bench-profile
bench-profile: $(BUILD)/t2t-gateway $(BUILD)/t2t-exsim $(BUILD)/t2t-backtest
	./bench/profile.sh
INT_TESTS += tests/integration/profile_report.sh

# A lost order's resend time under 3 % loss each way, own and kernel TCP, and
# the share of strategy changes traded at their print.
BENCHES += bench-tcp-loss
.PHONY: bench-tcp-loss
bench-tcp-loss: $(BUILD)/t2t-gateway $(BUILD)/t2t-exsim $(BUILD)/t2t-backtest
	./bench/tcp-loss.sh

# Two feed lines against one: wire-to-wire with line A lossy, B 30 us behind.
BENCHES += bench-lines
.PHONY: bench-lines
bench-lines: $(BUILD)/t2t-gateway $(BUILD)/t2t-exsim
	./bench/lines-bench.sh

# The gateway's throughput on a real-shaped open, books of every symbol.
BENCHES += bench-day-load
.PHONY: bench-day-load
bench-day-load: $(BUILD)/t2t-gateway $(BUILD)/t2t-exsim $(BUILD)/t2t-genday
	./bench/day-load.sh

# Where a real-shaped day's in-gateway latency goes: the gateway on the
# day with one ingredient changed at a time, the floor, GBM beside them.
BENCHES += bench-day-stages
.PHONY: bench-day-stages
bench-day-stages: $(BUILD)/t2t-gateway $(BUILD)/t2t-floor $(BUILD)/t2t-exsim $(BUILD)/t2t-backtest \
		$(BUILD)/t2t-capture $(BUILD)/t2t-genday
	./bench/day-stages.sh

# Paper fills against live orders on the same day: the in-gateway cost.
BENCHES += bench-paper
.PHONY: bench-paper
bench-paper: $(BUILD)/t2t-gateway $(BUILD)/t2t-exsim $(BUILD)/t2t-backtest
	./bench/paper-bench.sh

# What the book and the monitor cost the loop (seen->queued), in one run.
BENCHES += bench-gateway-ab
.PHONY: bench-gateway-ab
bench-gateway-ab: $(BUILD)/t2t-gateway $(BUILD)/t2t-exsim $(BUILD)/t2t-monitor
	./bench/gateway-ab.sh
