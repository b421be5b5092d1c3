# Sourced: the report functions of bench/profile.sh, each over one perf
# recording (tests/integration/profile_report.sh checks them on recordings
# of its own).

# sched_report DATA COMM SECS: from a sched_switch recording of one CPU over
# SECS seconds, how often and how long COMM (the first task of that name
# switched out: the loop pinned there) lost the CPU, and what ran instead.
sched_report() {
	perf script -i "$1" --ns -F time,trace 2>/dev/null | awk -v comm="$2" -v secs="$3" '
	function field(k,   i) {
		for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2)
		return ""
	}
	{
		t = $1; sub(":", "", t); t *= 1e6	# us
		pc = field("prev_comm"); pp = field("prev_pid"); nc = field("next_comm"); np = field("next_pid")
		if (hot == "" && pc == comm) hot = pp
		# a stretch counts when its two ends agree on the task (the one
		# switched in, then out): perf may lose a switch, and a stretch
		# around the lost one has no known owner
		if (last != "" && pp == cpid && pp != hot) { ran[pc] += t - last; runs[pc]++ }
		cpid = np
		if (pp == hot) { out_at = t; first = nc }
		if (np == hot && out_at != "") {
			g = t - out_at; n++; total += g; if (g > max) { max = g; maxby = first }
			if (g < 10) b1++; else if (g < 100) b2++; else if (g < 1000) b3++; else b4++
			out_at = ""
		}
		last = t
	}
	END {
		if (hot == "") { print "no switch of " comm " seen"; exit }
		printf "the loop (" comm ", pid %s) lost its CPU %d times in %d s: %.2f ms in all (%.3f %% of the time), the longest %.0f us (%s)\n", hot, n, secs, total / 1000, total / secs / 1e4, max, maxby
		printf "each time away: < 10 us %d, 10-100 us %d, 100 us-1 ms %d, >= 1 ms %d\n\n", b1, b2, b3, b4
		print "| who ran instead | runs | ms on the CPU |"
		print "|---|---:|---:|"
		for (c in ran) printf "| %s | %d | %.3f |\n", c, runs[c], ran[c] / 1000 | "sort -t\"|\" -k4 -rn | head -12"
	}'
}

# kernel_report DATA COMM: COMM's samples in the kernel by how it got there
# (a syscall, an interrupt) and, within, the softirq it ran on the way out
# or the function it was in.  A VM has no PMU: cpu-clock fires only with
# interrupts on, so a flat profile puts most kernel time on pvm_irq_enable;
# the call chains still say whose it was.
kernel_report() {
	echo "$2 in the kernel, by entry (syscall or interrupt), then what ran under it:"
	echo
	echo "| entry | under it | samples | % of $2's samples |"
	echo "|---|---|---:|---:|"
	perf script -i "$1" --comm "$2" -F ip,sym,dso 2>/dev/null | awk '
	function flush(   k) {
		if (nf == 0) return
		all++
		if (kern) {
			k = entry " | " (soft != "" ? "softirq " soft : leaf)
			cnt[k]++
		}
		nf = 0; kern = 0; entry = "other"; soft = ""; leaf = ""; sys = 0
	}
	BEGIN { entry = "other" }
	/^$/ { flush(); next }
	{
		sym = $2; dso = $NF
		if (nf == 0) { kern = (dso == "([kernel.kallsyms])"); leaf = sym }
		nf++
		if (sym ~ /^__x64_sys_/) { entry = "syscall " substr(sym, 11) }
		# a syscall whose sys_ frame is inlined or already left (its way
		# back): the libc function that made it names it
		else if (sym ~ /^entry_SYSCALL/) sys = 1
		else if (sys == 1 && dso != "([kernel.kallsyms])") { sys = 2; if (entry == "other") entry = "syscall " sym }
		else if (sym ~ /^asm_(sysvec|exc)_/ && entry == "other") entry = "interrupt " substr(sym, 5)
		if (sym == "net_rx_action" || sym == "run_timer_softirq" || sym == "rcu_core" ||
		    sym == "net_tx_action" || sym == "run_rebalance_domains")
			soft = sym
	}
	END {
		flush()
		for (k in cnt) printf "| %s | %d | %.2f |\n", k, cnt[k], 100 * cnt[k] / all | "sort -t\"|\" -k4 -rn | head -12"
	}'
	echo
}

# cpu_report DATA CPU COMM...: where CPU's samples went: by program and
# kernel or not, then the functions (self time) of COMM.
cpu_report() {
	local data=$1 cpu=$2 comm
	shift 2
	echo "samples on CPU $cpu by program and where (user or kernel):"
	echo '```'
	perf report -i "$data" --stdio --no-children --sort comm,dso -q -g none --percent-limit 0.5 2>/dev/null |
		sed '/^$/d' | head -15
	echo '```'
	for comm in "$@"; do
		echo "$comm, functions by self time (>= 1 %):"
		echo '```'
		perf report -i "$data" --stdio --no-children --comm "$comm" --sort sym -q -g none \
			--percent-limit 1 2>/dev/null | sed '/^$/d' | head -25
		echo '```'
		kernel_report "$data" "$comm"
	done
}
