#!/bin/bash
# t2t-gateway --check-host on this machine reports what is true here: the
# test reads /proc and /sys itself and derives each expectation (isolation,
# nohz_full, rcu_nocbs, THP, hugepages, RT throttling with and without
# --fifo, the governor, timers, watchdog, irqbalance, the clock source, the
# interface's queues and IRQs), checks that the kernel threads it names on
# the hot CPU are kernel threads, and that the exit status is 3 exactly when
# a finding is bad.  --host-root reads another tree (an empty one: every
# finding unknown, status 0).  A normal run prints its warn and bad findings
# on stderr once its window is over, and never counts its own hot loop.
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway

GW=build/t2t-gateway
CPU=1
WIN=200		# ms: short, the sample is not what is asserted
KEYS="cpu.isolated cpu.nohz_full cpu.rcu_nocbs cpu.smt cpu.governor cpu.idle cpu.kthreads
cpu.tasks cpu.irqs cpu.ipis cpu.softirqs net.irqs net.queues net.flows net.rp_filter irqbalance
mem.thp
mem.hugepages
kernel.sched_rt_runtime_us kernel.timer_migration vm.stat_interval kernel.watchdog clocksource"

# The interface of the default route (lo when there is none: a virtual one).
IF=$(ip -o route show default 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == "dev") { print $(i + 1); exit } }')
IF=${IF:-lo}

# The level, and the whole line, of KEY's finding in FILE (default the last report).
level() { awk -v k="$1" '$2 == k { print $1 }' "${2:-$T_TMP/out}"; }
line() { awk -v k="$1" '$2 == k' "${2:-$T_TMP/out}"; }

# in_list CPU LIST: CPU is in a list of the kernel's format ("0-3,8").
in_list() {
	local part lo hi parts
	IFS=, read -ra parts <<<"$2"
	for part in "${parts[@]}"; do
		lo=${part%-*} hi=${part#*-}
		[[ $lo =~ ^[0-9]+$ && $hi =~ ^[0-9]+$ ]] || continue
		[ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ] && return 0
	done
	return 1
}

# The kernel's own parameters (what follows "--" is init's).
cmdline() { sed 's/ -- .*//' /proc/cmdline; }
param() { cmdline | tr ' ' '\n' | sed -n "s/^$1=//p" | tail -1; }

# expect_level KEY LEVEL [TEXT]: the finding has LEVEL (and TEXT, fixed).
expect_level() {
	local got l
	got=$(level "$1")
	l=$(line "$1")
	if [ "$got" = "$2" ] && { [ -z "${3:-}" ] || grep -qF -- "$3" <<<"$l"; }; then
		ok "$1: $2${3:+ ($3)}"
	else
		fail "$1: want $2${3:+ with '$3'}, got: $l"
	fi
}

check_host() {
	timeout 20 "$GW" --check-host --cpu "$CPU" -i "$IF" --check-host-window "$WIN" "$@" \
		>"$T_TMP/out" 2>"$T_TMP/err"
}

test_check_host_says_what_is_true_here() {
	local st=0 k iso nohz rt period thp defrag lvl total free gov n want irqs pid flags rp
	check_host || st=$?
	echo "note: on CPU $CPU (ps -eLo psr,comm): $(ps -eLo psr,comm | awk -v c="$CPU" \
		'$1 == c && $2 ~ /^(kdamond|kworker|ksoftirqd|rcu)/ { print $2 }' | sort -u | tr '\n' ' ')"
	sed 's/ -> .*//' "$T_TMP/out"

	for k in $KEYS; do
		[ "$(awk -v k="$k" '$2 == k' "$T_TMP/out" | wc -l)" = 1 ] || fail "no one line for $k"
	done
	check "no other line than the findings and the counts" \
		test "$(wc -l <"$T_TMP/out")" = "$(($(wc -w <<<"$KEYS") + 1))"
	check "nothing on stderr" test ! -s "$T_TMP/err"

	# isolation: what the kernel applied
	iso=$(cat /sys/devices/system/cpu/isolated 2>/dev/null)
	if in_list "$CPU" "$iso"; then
		expect_level cpu.isolated ok "CPU $CPU is isolated"
	else
		expect_level cpu.isolated bad "CPU $CPU is not isolated"
	fi
	if [ -r /sys/devices/system/cpu/nohz_full ]; then
		nohz=$(cat /sys/devices/system/cpu/nohz_full)
	else
		nohz=$(param nohz_full)
	fi
	if [ -r /sys/devices/system/cpu/nohz_full ] && in_list "$CPU" "$nohz"; then
		expect_level cpu.nohz_full ok
		expect_level cpu.rcu_nocbs ok
	else
		expect_level cpu.nohz_full warn "not nohz_full"
		if in_list "$CPU" "$(param rcu_nocbs)" || cmdline | tr ' ' '\n' | grep -qx rcu_nocbs; then
			expect_level cpu.rcu_nocbs ok
		else
			expect_level cpu.rcu_nocbs warn
		fi
	fi

	# transparent huge pages: always in either file is a warning
	thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
	defrag=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/defrag)
	lvl=ok
	{ [ "$thp" = always ] || { [ "$thp" != never ] && [ "$defrag" = always ]; }; } && lvl=warn
	expect_level mem.thp "$lvl" "enabled $thp, defrag $defrag"

	total=$(awk '/^HugePages_Total:/ { print $2 }' /proc/meminfo)
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	if [ "$total" -gt 0 ] && [ "$free" -gt 0 ]; then
		expect_level mem.hugepages ok "$total hugepages"
	elif [ "$total" -gt 0 ]; then
		expect_level mem.hugepages warn "all in use"
	else
		expect_level mem.hugepages warn "no hugepages"
	fi

	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
	period=$(cat /proc/sys/kernel/sched_rt_period_us)
	if [ "$rt" -lt 0 ] || [ "$rt" -ge "$period" ]; then
		expect_level kernel.sched_rt_runtime_us ok "off"
	else
		expect_level kernel.sched_rt_runtime_us ok "on ($rt of every $period us), but the loop is not SCHED_FIFO"
	fi

	if [ -r "/sys/devices/system/cpu/cpu$CPU/cpufreq/scaling_governor" ]; then
		gov=$(cat "/sys/devices/system/cpu/cpu$CPU/cpufreq/scaling_governor")
		[ "$gov" = performance ] && expect_level cpu.governor ok || expect_level cpu.governor warn "$gov"
	else
		expect_level cpu.governor unknown "no cpufreq for CPU $CPU"
	fi
	[ -d "/sys/devices/system/cpu/cpu$CPU/cpuidle" ] || expect_level cpu.idle unknown

	[ "$(cat /proc/sys/kernel/timer_migration)" = 0 ] &&
		expect_level kernel.timer_migration ok || expect_level kernel.timer_migration warn
	[ "$(cat /proc/sys/vm/stat_interval)" -ge 10 ] &&
		expect_level vm.stat_interval ok || expect_level vm.stat_interval warn
	if pgrep -x irqbalance >/dev/null; then
		expect_level irqbalance warn "irqbalance runs"
	else
		expect_level irqbalance ok "not running"
	fi
	# the reverse-path filter: the larger of all's and the interface's; off, or
	# behind the XDP hook (this run's path)
	rp=$(cat /proc/sys/net/ipv4/conf/all/rp_filter)
	[ "$(cat "/proc/sys/net/ipv4/conf/$IF/rp_filter")" -gt "$rp" ] &&
		rp=$(cat "/proc/sys/net/ipv4/conf/$IF/rp_filter")
	[ "$rp" = 0 ] && expect_level net.rp_filter ok "off on $IF" ||
		expect_level net.rp_filter ok "behind the XDP hook"
	case $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) in
	tsc | kvm-clock | arch_sys_counter | hyperv_clocksource_tsc_page | xen) expect_level clocksource ok ;;
	esac

	# the interface: its queues, and every IRQ of its device named
	n=$(ls "/sys/class/net/$IF/queues" | grep -c '^rx-')
	check "net.queues: $IF has $n RX queue(s)" grep -qF "$IF has $n RX" <<<"$(line net.queues)"
	# every flow named with its rule where the interface has several queues
	if [ "$n" -gt 1 ]; then
		check "net.flows: the feed's rule" grep -qF "ethtool -N $IF flow-type udp4 dst-ip" \
			<<<"$(grep -F net.flows "$T_TMP/out")"
	else
		expect_level net.flows ok "one RX queue"
	fi
	if [ ! -e "/sys/class/net/$IF/device" ]; then
		expect_level net.irqs ok "$IF is virtual"
	else
		irqs=$(ls "/sys/class/net/$IF/device/msi_irqs" 2>/dev/null || ls "/sys/class/net/$IF/device/../msi_irqs" 2>/dev/null)
		for n in $irqs; do
			grep -qE "[ :,]$n [^ ]+ on [0-9]" <<<"$(line net.irqs)" || fail "net.irqs: IRQ $n of $IF not named"
			if in_list "$CPU" "$(cat "/proc/irq/$n/smp_affinity_list")"; then
				[[ $(level net.irqs) =~ ^(warn|bad)$ ]] || fail "net.irqs: IRQ $n may land on CPU $CPU"
			fi
		done
		ok "net.irqs: $(wc -w <<<"$irqs") IRQ(s) of $IF: $(level net.irqs)"
	fi

	# the kernel threads named on the hot CPU are kernel threads (or gone since)
	for pid in $(line cpu.kthreads | sed 's/ -> .*//' | grep -o '\[[0-9]*\]' | tr -d '[]'); do
		[ -r "/proc/$pid/stat" ] || continue
		flags=$(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $7 }')
		[ $((flags & 0x200000)) -ne 0 ] || fail "cpu.kthreads names $pid, not a kernel thread"
	done
	[[ $(level cpu.kthreads) =~ ^(ok|warn|bad)$ ]] && ok "cpu.kthreads: $(level cpu.kthreads)" ||
		fail "cpu.kthreads: $(line cpu.kthreads)"

	# the counts line and the exit status agree with the lines
	want=0
	grep -q '^bad ' "$T_TMP/out" && want=3
	expect_eq "exit status (3: a finding is bad)" "$st" "$want"
	check "the counts add up" grep -qE "^host: $(grep -c '^ok ' "$T_TMP/out") ok, $(grep -c '^warn ' "$T_TMP/out") warn, $(grep -c '^bad ' "$T_TMP/out") bad, $(grep -c '^unknown ' "$T_TMP/out") unknown \(what ran on the hot CPU: over [0-9]+ ms\)" "$T_TMP/out"
}

test_fifo_under_rt_throttling_is_bad() {
	local rt period
	check_host --fifo --check-host-window 0
	rt=$(cat /proc/sys/kernel/sched_rt_runtime_us)
	period=$(cat /proc/sys/kernel/sched_rt_period_us)
	if [ "$rt" -lt 0 ] || [ "$rt" -ge "$period" ]; then
		expect_level kernel.sched_rt_runtime_us ok "off"
	else
		expect_level kernel.sched_rt_runtime_us bad "stops for $((period - rt)) us of every $period"
	fi
	expect_level cpu.kthreads unknown "no sample"
	check "no window: no sample in the counts" grep -q "no sample of what ran" "$T_TMP/out"
}

test_host_root_reads_another_tree() {
	local st=0
	mkdir -p "$T_TMP/empty" "$T_TMP/tree/proc" "$T_TMP/tree/sys/devices/system/cpu"
	check_host --host-root "$T_TMP/empty" || st=$?
	expect_eq "an empty tree: status" "$st" 0
	expect_eq "an empty tree: every finding unknown" "$(grep -c '^unknown ' "$T_TMP/out")" "$(wc -w <<<"$KEYS")"
	echo "isolcpus=domain,$CPU nohz_full=$CPU" >"$T_TMP/tree/proc/cmdline"
	echo "$CPU" >"$T_TMP/tree/sys/devices/system/cpu/isolated"
	echo "$CPU" >"$T_TMP/tree/sys/devices/system/cpu/nohz_full"
	check_host --host-root "$T_TMP/tree"
	expect_level cpu.isolated ok "CPU $CPU is isolated (isolated: $CPU; isolcpus=domain,$CPU)"
	expect_level cpu.rcu_nocbs ok "implied by nohz_full"
}

test_a_run_prints_its_findings_at_start() {
	local ns=$T_ID st=0 pid
	at_exit ip netns del "$ns"
	ip netns add "$ns" && ip -n "$ns" link set lo up &&
		ip -n "$ns" link add hcv0 type veth peer name hcv1 &&
		ip -n "$ns" addr add 10.79.0.2/24 dev hcv0 && ip -n "$ns" link set hcv0 up &&
		ip -n "$ns" link set hcv1 up || { fail "namespace $ns"; return 1; }
	# a paper run on the kernel path: no exchange needed; ip execs the
	# gateway, so $! is the gateway's PID
	ip netns exec "$ns" "$GW" --mode udp --paper -i hcv0 --exchange 10.79.0.1:26401 \
		--rerequest off --book-orders 1024 --duration 1.5 --check-host-window "$WIN" \
		--monitor off -q >"$T_TMP/brief.out" 2>"$T_TMP/brief.err"
	grep 'host: ' "$T_TMP/brief.err"
	expect_eq "by default, one line of host findings" "$(grep -c 'host: ' "$T_TMP/brief.err")" 1
	check "it counts them and names the bad ones" grep -qE "host: [0-9]+ bad, [0-9]+ warn, [0-9]+ ok, [0-9]+ unknown \(what ran on the hot CPU: over 2[0-9]{2} ms\)(; bad: [a-z_.]+(, [a-z_.]+)*)?; --check-host for the list$" "$T_TMP/brief.err"
	# -v: every warn and bad finding
	ip netns exec "$ns" "$GW" --mode udp --paper -i hcv0 --exchange 10.79.0.1:26401 \
		--rerequest off --book-orders 1024 --duration 1.5 --check-host-window "$WIN" \
		--monitor off -q -v >"$T_TMP/run.out" 2>"$T_TMP/run.err" &
	pid=$!
	wait "$pid" || st=$?
	expect_eq "the run's status" "$st" 0
	grep 'host: ' "$T_TMP/run.err" | sed 's/ -> .*//'
	check "the findings come after the start line" \
		awk '/hot loop on CPU/ { s = NR } /host: (warn|bad) / && !h { h = NR } END { exit !(s && h > s) }' "$T_TMP/run.err"
	check "only warn and bad findings" bash -c "! grep -qE 'host: (ok|unknown) ' '$T_TMP/run.err'"
	check "the counts, over the window" grep -qE "host: [0-9]+ ok, [0-9]+ warn, [0-9]+ bad, [0-9]+ unknown \(what ran on the hot CPU: over 2[0-9]{2} ms\)" "$T_TMP/run.err"
	check "the hot loop itself is not what ran on its CPU" \
		bash -c "! grep 'host: .* cpu.tasks' '$T_TMP/run.err' | sed 's/ -> .*//' | grep -q '\[$pid\]'"
	in_list "$CPU" "$(cat /sys/devices/system/cpu/isolated)" ||
		check "cpu.isolated said at start" grep -q "host: bad     cpu.isolated" "$T_TMP/run.err"
}

# A process started on the hot CPU after the start is named, with its fix.
test_a_process_on_the_hot_cpu_later_is_named() {
	local ns=${T_ID}s pid
	at_exit ip netns del "$ns"
	ip netns add "$ns" && ip -n "$ns" link set lo up &&
		ip -n "$ns" link add hcw0 type veth peer name hcw1 &&
		ip -n "$ns" addr add 10.79.1.2/24 dev hcw0 && ip -n "$ns" link set hcw0 up &&
		ip -n "$ns" link set hcw1 up || { fail "namespace $ns"; return 1; }
	ip netns exec "$ns" "$GW" --mode udp --paper -i hcw0 --exchange 10.79.1.1:26401 \
		--rerequest off --book-orders 1024 --duration 8 --check-host-window "$WIN" \
		--cpu "$CPU" --monitor off -q >"$T_TMP/gw.out" 2>"$T_TMP/gw.err" &
	pid=$!
	sleep 1
	# A process seen at both ends of a 2 s look: for 6 s it spans one.
	bg hog taskset -c "$CPU" timeout 6 sh -c 'while :; do :; done'
	wait "$pid"
	grep "hot loop's" "$T_TMP/gw.err" || true
	check "the hog is named, with the CPU, its share and the fix" \
		grep -qE "t2t-gateway: sh\[[0-9]+\] took [0-9]+ ms of CPU $CPU, the hot loop's, in 2 s: move it \(taskset -apc [0-9,-]+ [0-9]+\)" "$T_TMP/gw.err"
	expect_eq "said once" "$(grep -c "sh\[[0-9]*\] took" "$T_TMP/gw.err")" 1
}

run_tests "$@"
