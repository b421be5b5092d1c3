# The one harness every integration test sources (in the manner of
# xdp-tools' lib/testing/test_runner.sh): it owns the working directory, the
# scratch directory, the names of everything a test creates (namespaces,
# veths, monitor segments), the one formula for rig subnets, background
# processes, cleanup on any exit, the checks and the verdict.  A test file
# only defines its tests and hands over:
#
#	#!/bin/bash
#	# What these tests prove (one paragraph).
#	. "$(dirname "$0")/../lib.sh"
#	need build/t2t-exsim build/t2t-gateway
#
#	test_orders_reconcile() {
#		rig_up
#		...
#		check "positions reconciled" diff -q a b
#	}
#
#	run_tests "$@"
#
# run_tests runs every function named test_* in the order the file defines
# them (or only those named on the command line), each introduced by a
# "--- NAME" line and closed by "ok NAME" or "FAIL NAME"; a test fails when
# one of its checks failed or it returned non-zero.  The script exits 0
# only when every test passed.  Whatever happens (a failure, set -e, a
# signal), the EXIT trap stops the test's processes, takes its rigs down and
# removes its files.
#
# What a test gets:
#   T_NAME   the script's name (exsim_feed)
#   T_ID     a short tag unique to this run: a prefix of the name + the PID
#            (scripts/rig_names.sh); every namespace, veth and segment a
#            test makes is named from it
#   T_TMP    a scratch directory, removed at exit (KEEP_TMP=1 keeps it)
#   check NAME CMD...     run CMD; print "ok NAME" or "FAIL NAME"
#   fail MSG / ok MSG     a failure (or a pass) with a message
#   expect_eq WHAT GOT WANT, expect_ge WHAT GOT MIN
#   expect_exit STATUS TEXT CMD...  CMD exits STATUS with TEXT (a fixed
#                         string) on stderr
#   wait_for SECONDS CMD...   until CMD succeeds (1 if it never did)
#   bg NAME CMD...        CMD in the background, stopped when its test ends
#                         (or at exit, started outside a test); its PID in
#                         ${NAME}_pid (dots in NAME become _), stdout and
#                         stderr in $T_TMP/NAME.out and .err
#   at_exit CMD...        run CMD at exit (after the processes, before the rigs)
#   rig_up [TAG [OPTIONS]]  a rig of the test's own (netns/rig.sh), named
#                         T_ID + TAG (one or two characters), its RIG_*
#                         variables set, RIG the rig.sh command for it
#                         (RIG netem ...); down at exit.  The file's tests
#                         share it: the first call brings it up, the next
#                         ones only set the variables.  A second feed line:
#                         rig_up TAG --line-b "$(t_subnet TAGb)"
#   t_subnet TAG          the /24 a rig named TAG uses
#   rig_run TAG CMD...    CMD (paper-run.sh, soak.sh: they make their own
#                         rig) on the rig T_ID + TAG, down at exit whatever
#                         CMD did
#   need WHAT...          "root", a file that must be built (a path) or a
#                         command that must be installed (a name); jq always:
#                         or stop with FAIL
# and, on a rig, the programs under test:
#   gw_start NAME ARGS...  t2t-gateway in the gateway namespace on the rig's
#                         veth, feed and exchange, hot loop on CPU 1, JSON
#                         summary in $T_TMP/NAME.gw.json; returns once its
#                         hot loop runs (1 if it never did)
#   gw_wait NAME [SECONDS] its exit status (SIGTERM after SECONDS, default 30)
#   ex_start NAME ARGS...  exsim in the exchange namespace on the rig's feed,
#                         order and re-request ports, CPU 0, JSON summary in
#                         $T_TMP/NAME.ex.json; while the last gw_start's
#                         gateway runs (not a --paper one), its session
#                         starts once the gateway logged in (--wait-login)
#   ex_wait NAME           its exit status
#   j FILE FILTER          jq -r FILTER FILE
# the feed receivers in the gateway namespace (netns/tools/feed_recv.c,
# fault_recv.c) and the re-request client:
#   start_recv NAME OPTIONS..., start_fault_recv NAME OPTIONS...
#                          joined the rig's feed group; report in
#                          $T_TMP/NAME.out
#   wait_recv NAME         its exit status
#   kv FILE KEY            a value of a receiver's key=value report
#   summary NAME           its non-zero counters on one line
#   rr ARGS...             the re-request client, asking the exchange's server
# and the monitor (t2t-monwriter, t2t-monitor on a segment named MON_NAME,
# T_ID + "m" unless set):
#   writer_start ARGS...   a test writer; returns once the segment exists
#   monitor_start ARGS...  t2t-monitor on a free port (MON_PORT)
#   get PATH               curl PATH from it
# and a libFuzzer target:
#   fuzz_run NAME FUZZER [LIBFUZZER OPTIONS...] -- CORPUS_DIR...
#                          FUZZER for FUZZ_SECONDS (default 15), new inputs
#                          in a scratch corpus, a crash's input in
#                          build/fuzz/artifacts/ and FAIL; ok with the
#                          executions and coverage

set -uo pipefail
# The script's own path, read again by run_tests after the cd.
T_FILE=$(realpath "$0")
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
. scripts/rig_names.sh

T_NAME=$(basename "$0" .sh)
read -r T_ID _ < <(rig_names "$T_NAME")
T_TMP=$(mktemp -d "/tmp/t2t-$T_NAME.XXXXXX")
T_FAILS=0
T_RIGS=()
T_PIDS=()
T_AT_EXIT=()
T_CUR=
T_GW_PID=

# ---- checks ----

fail() {
	echo "FAIL: $*"
	T_FAILS=$((T_FAILS + 1))
}

# Always succeeds, so "cmd && ok ... || fail ..." never runs both.
ok() {
	echo "ok: $*"
}

check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok   $what"
	else
		echo "FAIL $what"
		T_FAILS=$((T_FAILS + 1))
	fi
}

expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1: $2"
	else
		fail "$1: got '$2', want '$3'"
	fi
}

expect_ge() {
	if [ "$2" -ge "$3" ] 2>/dev/null; then
		ok "$1: $2 (>= $3)"
	else
		fail "$1: got '$2', want at least $3"
	fi
}

expect_exit() {
	local want=$1 text=$2 rc
	shift 2
	"$@" >"$T_TMP/expect_exit.out" 2>"$T_TMP/expect_exit.err"
	rc=$?
	if [ "$rc" -eq "$want" ] && grep -qF -- "$text" "$T_TMP/expect_exit.err"; then
		ok "${*##*/} -> exit $rc: $(head -1 "$T_TMP/expect_exit.err")"
	else
		fail "${*##*/}: exit $rc, stderr '$(head -1 "$T_TMP/expect_exit.err")' (want exit $want and '$text')"
	fi
}

wait_for() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

need() {
	local w
	for w in "$@" jq; do
		case $w in
		root)
			[ "$(id -u)" -eq 0 ] ||
				{ echo "FAIL: $T_NAME must run as root (namespaces, XDP)"; exit 1; } ;;
		*/*)
			[ -x "$w" ] || { echo "FAIL: $w is not built (make build-all)"; exit 1; } ;;
		*)
			command -v "$w" >/dev/null ||
				{ echo "FAIL: $w is missing (scripts/deps.sh)"; exit 1; } ;;
		esac
	done
}

# ---- processes and cleanup ----

bg() {
	local name=$1
	shift
	"$@" >"$T_TMP/$name.out" 2>"$T_TMP/$name.err" &
	T_PIDS+=("$!")
	printf -v "${name//./_}_pid" '%s' "$!"
}

at_exit() {
	T_AT_EXIT+=("$*")
}

# t_stop FIRST: stop the processes bg started from T_PIDS[FIRST] on.  Only
# those still running as this shell's jobs: a PID that ended long ago may
# have been given to someone else's process since.
t_stop() {
	local first=$1 p i run
	run=" $(jobs -pr | tr '\n' ' ') "
	for p in "${T_PIDS[@]:first}"; do
		[[ $run == *" $p "* ]] && { kill -CONT "$p"; kill "$p"; } 2>/dev/null
	done
	for p in "${T_PIDS[@]:first}"; do
		[[ $run == *" $p "* ]] || continue
		# A process that ignores SIGTERM gets a second, then SIGKILL.
		for i in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	T_PIDS=("${T_PIDS[@]:0:first}")
}

t_cleanup() {
	local rc=$? i
	# An exit from inside a test (exit, a need that failed) ends the run: it
	# fails, whatever the status, so that no test is skipped in silence.
	if [ -n "$T_CUR" ]; then
		echo "FAIL $T_CUR (exited inside the test, status $rc)"
		[ "$rc" -ne 0 ] || rc=1
	fi
	t_stop 0
	for ((i = ${#T_AT_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${T_AT_EXIT[i]}" >/dev/null 2>&1
	done
	for ((i = ${#T_RIGS[@]} - 1; i >= 0; i--)); do
		./netns/rig.sh --prefix "${T_RIGS[i]%% *}" --subnet "${T_RIGS[i]#* }" down \
			>/dev/null 2>&1
	done
	rm -f /dev/shm/t2t-"$T_ID"*
	[ -n "${KEEP_TMP:-}" ] && echo "kept $T_TMP" || rm -rf "$T_TMP"
	exit "$rc"
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

# ---- rigs ----

t_subnet() {
	local subnet
	read -r _ subnet < <(rig_names "$T_NAME" "$1")
	echo "$subnet"
}

# t_rig TAG: the rig's prefix and subnet in T_RIG, and in T_RIGS (down at
# exit) unless there already; 1 when it was there.
t_rig() {
	local r
	T_RIG=$(rig_names "$T_NAME" "$1")
	for r in "${T_RIGS[@]}"; do
		[ "$r" = "$T_RIG" ] && return 1
	done
	T_RIGS+=("$T_RIG")
}

rig_up() {
	local tag=${1:-} new=0
	[ $# -gt 0 ] && shift
	t_rig "$tag" && new=1
	RIG=(./netns/rig.sh --prefix "${T_RIG%% *}" --subnet "${T_RIG#* }" "$@")
	if [ "$new" = 1 ]; then
		"${RIG[@]}" up >/dev/null || { echo "FAIL: rig ${T_RIG%% *} did not come up"; exit 1; }
	fi
	eval "$("${RIG[@]}" env)"
}

rig_run() {
	local tag=$1 cmd=$2
	shift 2
	t_rig "$tag"
	"$cmd" --prefix "${T_RIG%% *}" --subnet "${T_RIG#* }" "$@"
}

# ---- the gateway and the exchange simulator on a rig ----

gw_start() {
	local name=$1 i
	shift
	bg "$name.gw" nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --exchange "$RIG_IP_EX:$RIG_ORDER_PORT" \
		--cpu 1 -q --json "$T_TMP/$name.gw.json" "$@"
	T_GW_PID=$(t_pid "$name.gw")
	# A paper run logs in nowhere: nothing for the exchange to wait for.
	[[ " $* " == *" --paper "* ]] && T_GW_PID=
	for i in $(seq 100); do
		grep -q "hot loop on CPU" "$T_TMP/$name.gw.err" 2>/dev/null && return 0
		kill -0 "$(t_pid "$name.gw")" 2>/dev/null || break
		sleep 0.1
	done
	echo "FAIL: the gateway ($name) did not start: $(tail -2 "$T_TMP/$name.gw.err")"
	return 1
}

t_pid() {
	local v=${1//./_}_pid
	echo "${!v}"
}

gw_wait() {
	local pid i
	pid=$(t_pid "$1.gw")
	for ((i = 0; i < ${2:-30} * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null && echo "note: gateway $1 still running after ${2:-30} s; stopped"
	wait "$pid"
}

ex_start() {
	local name=$1 wait=()
	shift
	# A gateway already running logs in first: the feed waits for it.
	[ -n "$T_GW_PID" ] && kill -0 "$T_GW_PID" 2>/dev/null && wait=(--wait-login 5000)
	bg "$name.ex" ip netns exec "$RIG_NS_EX" build/t2t-exsim --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --cpu 0 -q "${wait[@]}" \
		--json "$T_TMP/$name.ex.json" "$@"
}

ex_wait() {
	wait "$(t_pid "$1.ex")"
}

j() {
	jq -r "$2" "$1"
}

# ---- the feed receivers and the re-request client, on a rig ----

# start_rx BIN NAME OPTIONS...: BIN (feed_recv, fault_recv) on the rig's
# feed group in the gateway namespace; returns once it has joined.
start_rx() {
	local bin=$1 name=$2
	shift 2
	# No stale "joined" from an earlier run of NAME: the redirect truncates
	# only once the child runs.
	rm -f "$T_TMP/$name.out"
	bg "$name" ip netns exec "$RIG_NS_GW" timeout 120 "$bin" "$@" "$RIG_GROUP" \
		"$RIG_FEED_PORT" "$RIG_IP_GW"
	wait_for 5 grep -qs '^joined$' "$T_TMP/$name.out" && return 0
	fail "${bin##*/} $name did not join: $(cat "$T_TMP/$name.err")"
	return 1
}

# The plain receiver (in order or it fails) and the tolerant one (gaps,
# duplicates, malformed packets counted; fills gaps by re-request).
start_recv() {
	start_rx build/tools/feed_recv "$@"
}

start_fault_recv() {
	start_rx build/tools/fault_recv "$@"
}

wait_recv() {
	wait "$(t_pid "$1")"
}

kv() {
	sed -n "s/^$2=//p" "$1"
}

summary() {
	grep -vE '=0$|^joined$' "$T_TMP/$1.out" | tr '\n' ' '
}

rr() {
	ip netns exec "$RIG_NS_GW" timeout 30 build/tools/rerequest_client "$@"
}

# ---- the monitor: a test writer and t2t-monitor ----

MON_NAME=${T_ID}m
MON_PORT=

writer_start() {
	bg writer build/t2t-monwriter --name "$MON_NAME" --quiet "$@"
	wait_for 10 test -e "/dev/shm/t2t-$MON_NAME"
}

# A free port on 127.0.0.1: a few tried at random.
monitor_start() {
	local try
	for try in 1 2 3 4 5 6 7 8; do
		MON_PORT=$((20000 + RANDOM % 20000))
		bg monitor build/t2t-monitor --name "$MON_NAME" --listen "127.0.0.1:$MON_PORT" "$@"
		wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$MON_PORT/api/state" && return 0
		{ kill -9 "$monitor_pid"; wait "$monitor_pid"; } 2>/dev/null
	done
	fail "t2t-monitor did not start: $(cat "$T_TMP/monitor.err")"
	return 1
}

get() {
	curl -sf --max-time 5 "http://127.0.0.1:$MON_PORT$1"
}

# ---- a libFuzzer target ----

fuzz_run() {
	local name=$1 fuzzer=$2 secs=${FUZZ_SECONDS:-15} arts=build/fuzz/artifacts w=$T_TMP
	local opts=() runs cov
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	mkdir -p "$w/corpus" "$arts"
	if ! "$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$arts/" "${opts[@]}" \
		"$w/corpus" "$@" >"$w/fuzz.log" 2>&1; then
		tail -40 "$w/fuzz.log"
		fail "$name: crashing input in $arts/"
		return 1
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/fuzz.log")
	cov=$(grep -o 'cov: [0-9]*' "$w/fuzz.log" | tail -1)
	ok "$runs executions in $secs s ran clean ($cov, $(ls "$w/corpus" | wc -l) new inputs)"
}

# ---- the run ----

run_tests() {
	local tests=("$@") t before pids failed=0 total=0
	if [ ${#tests[@]} -eq 0 ]; then
		mapfile -t tests < <(sed -n 's/^\(test_[A-Za-z0-9_]*\)() *{.*/\1/p' "$T_FILE")
		[ ${#tests[@]} -gt 0 ] || { echo "FAIL: no test_ function in $T_FILE"; exit 2; }
	fi
	for t in "${tests[@]}"; do
		declare -F "$t" >/dev/null || { echo "FAIL: no test named $t"; exit 2; }
	done
	for t in "${tests[@]}"; do
		echo "--- $t"
		before=$T_FAILS
		pids=${#T_PIDS[@]}
		T_CUR=$t
		if ! "$t"; then
			[ "$T_FAILS" -eq "$before" ] && T_FAILS=$((T_FAILS + 1))
		fi
		T_CUR=
		t_stop "$pids"
		total=$((total + 1))
		if [ "$T_FAILS" -eq "$before" ]; then
			echo "ok $t"
		else
			echo "FAIL $t"
			failed=$((failed + 1))
		fi
	done
	echo "$T_NAME: $((total - failed)) of $total tests passed"
	[ "$failed" -eq 0 ]
}
