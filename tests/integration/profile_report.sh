#!/bin/bash
# The reports of make bench-profile (bench/profile_report.sh) on perf
# recordings made here of workloads whose answer is known:
#   - sched_report: a spinner pinned to CPU 1 shares it with a second one
#     pinned there too; the report counts the first one's times away and
#     names the second as what ran instead, with about half the CPU;
#   - kernel_report: dd copying one byte at a time on CPU 1 is in the
#     kernel by its read and write syscalls, and the report says so from
#     the call chains;
#   - cpu_report: dd listed with its kernel share.
. "$(dirname "$0")/../lib.sh"
need root perf taskset
. bench/profile_report.sh

# spin NAME: a shell loop whose process is named NAME, on CPU 1.
spin() {
	cp "$(command -v bash)" "$T_TMP/$1"
	bg "$1" taskset -c 1 "$T_TMP/$1" -c 'while :; do :; done'
}

test_sched_report_names_who_took_the_cpu() {
	local r away ms
	spin t2tspin
	spin t2tother
	sleep 0.2
	perf record -q -e sched:sched_switch -C 1 -o "$T_TMP/sched.data" -- sleep 2 \
		>"$T_TMP/perf.err" 2>&1 || { fail "perf record: $(cat "$T_TMP/perf.err")"; return 1; }
	r=$(sched_report "$T_TMP/sched.data" t2tspin 2)
	echo "$r" | sed 's/^/    /'
	away=$(sed -n 's/.*lost its CPU \([0-9]*\) times.*/\1/p' <<<"$r")
	expect_ge "the spinner lost its CPU" "${away:-0}" 10
	ms=$(awk -F'|' '$2 == " t2tother " { printf "%d", $4 }' <<<"$r")
	expect_ge "the other spinner ran instead, ms of 2,000" "${ms:-0}" 500
	check "the spinner itself is not listed as an intruder" bash -c "! grep -q '^| t2tspin ' <<<'$r'"
}

test_kernel_report_finds_the_syscalls() {
	local r
	bg dd taskset -c 1 dd if=/dev/zero of=/dev/null bs=1
	sleep 0.2
	perf record -q -F 2000 -g -C 1 -o "$T_TMP/cpu.data" -- sleep 2 >"$T_TMP/perf.err" 2>&1 ||
		{ fail "perf record: $(cat "$T_TMP/perf.err")"; return 1; }
	r=$(kernel_report "$T_TMP/cpu.data" dd)
	echo "$r" | sed 's/^/    /'
	check "dd's kernel time is under its read()s" grep -Eq '^\| syscall [^|]*read' <<<"$r"
	check "and its write()s" grep -Eq '^\| syscall [^|]*write' <<<"$r"
	r=$(cpu_report "$T_TMP/cpu.data" 1 dd)
	check "cpu_report lists dd in the kernel" grep -Eq 'dd +\[kernel\.kallsyms\]' <<<"$r"
}

run_tests "$@"
