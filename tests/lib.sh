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
#	need build/exsim build/t2t-gateway
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
#   T_ID     a short tag unique to this run: a prefix of the name + the PID;
#            every namespace, veth and segment a test makes is named from it
#   T_TMP    a scratch directory, removed at exit (KEEP_TMP=1 keeps it)
#   check NAME CMD...     run CMD; print "ok NAME" or "FAIL NAME"
#   fail MSG / ok MSG     a failure (or a pass) with a message
#   expect_eq WHAT GOT WANT, expect_ge WHAT GOT MIN
#   wait_for SECONDS CMD...   until CMD succeeds (1 if it never did)
#   bg NAME CMD...        CMD in the background, stopped at exit; its PID in
#                         ${NAME}_pid (dots in NAME become _), stdout and
#                         stderr in $T_TMP/NAME.out and .err
#   at_exit CMD...        run CMD at exit (after the processes, before the rigs)
#   rig_up [TAG [OPTIONS]]  a rig of the test's own (netns/rig.sh), named
#                         T_ID + TAG, its RIG_* variables set, RIG the
#                         rig.sh command for it (RIG netem ...); down at exit.
#                         A second feed line: rig_up TAG --line-b "$(t_subnet TAGb)"
#   t_subnet TAG          the /24 a rig named TAG uses
#   need FILE...          root, the files built, jq: or stop with FAIL
# and, on a rig, the programs under test:
#   gw_start NAME ARGS...  t2t-gateway in the gateway namespace on the rig's
#                         veth, feed and exchange, hot loop on CPU 1, JSON
#                         summary in $T_TMP/NAME.gw.json; returns once its
#                         hot loop runs (1 if it never did)
#   gw_wait NAME [SECONDS] its exit status (SIGTERM after SECONDS, default 30)
#   ex_start NAME ARGS...  exsim in the exchange namespace on the rig's feed,
#                         order and re-request ports, CPU 0, JSON summary in
#                         $T_TMP/NAME.ex.json
#   ex_wait NAME           its exit status
#   j FILE FILTER          jq -r FILTER FILE

set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

T_NAME=$(basename "$0" .sh)
# A name's first three letters and the PID: short enough for interface
# names (15 characters with the rig's suffixes), unique per run.
T_ID=$(printf '%.3s' "${T_NAME//_/}")$$
T_TMP=$(mktemp -d "/tmp/t2t-$T_NAME.XXXXXX")
T_FAILS=0
T_RIGS=()
T_PIDS=()
T_AT_EXIT=()

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
	local f
	[ "$(id -u)" -eq 0 ] || { echo "FAIL: $T_NAME must run as root (namespaces, XDP)"; exit 1; }
	for f in "$@"; do
		[ -x "$f" ] || { echo "FAIL: $f is not built (make build-all)"; exit 1; }
	done
	command -v jq >/dev/null || { echo "FAIL: jq is missing (scripts/deps.sh)"; exit 1; }
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

t_cleanup() {
	local p i
	for p in "${T_PIDS[@]}"; do
		{ kill -CONT "$p"; kill "$p"; } 2>/dev/null
	done
	for p in "${T_PIDS[@]}"; do
		# A process that ignores SIGTERM gets a second, then SIGKILL.
		for i in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for ((i = ${#T_AT_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${T_AT_EXIT[i]}" >/dev/null 2>&1
	done
	for ((i = ${#T_RIGS[@]} - 1; i >= 0; i--)); do
		./netns/rig.sh --prefix "${T_RIGS[i]%% *}" --subnet "${T_RIGS[i]#* }" down \
			>/dev/null 2>&1
	done
	rm -f /dev/shm/t2t-"$T_ID"*
	[ -n "${KEEP_TMP:-}" ] && echo "kept $T_TMP" || rm -rf "$T_TMP"
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

# ---- rigs ----

# 10.X.Y.0/24: X from the tag (100..199), Y from the PID, so that two runs,
# or two rigs of one run, never share a subnet.
t_subnet() {
	local salt
	salt=$(printf '%s' "$T_NAME$1" | cksum | cut -d' ' -f1)
	echo "10.$((100 + salt % 100)).$((($$ + salt / 100) % 250)).0/24"
}

rig_up() {
	local tag=${1:-} prefix subnet
	[ $# -gt 0 ] && shift
	prefix=$T_ID$tag
	subnet=$(t_subnet "$tag")
	T_RIGS+=("$prefix $subnet")
	RIG=(./netns/rig.sh --prefix "$prefix" --subnet "$subnet" "$@")
	"${RIG[@]}" up >/dev/null || { echo "FAIL: rig $prefix did not come up"; exit 1; }
	eval "$("${RIG[@]}" env)"
}

# ---- the gateway and the exchange simulator on a rig ----

gw_start() {
	local name=$1 i
	shift
	bg "$name.gw" nsenter --net="$RIG_NETNS_GW" build/t2t-gateway -i "$RIG_IF_GW" \
		--feed "$RIG_GROUP:$RIG_FEED_PORT" --exchange "$RIG_IP_EX:$RIG_ORDER_PORT" \
		--cpu 1 -q --json "$T_TMP/$name.gw.json" "$@"
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
	local name=$1
	shift
	bg "$name.ex" ip netns exec "$RIG_NS_EX" build/exsim --feed "$RIG_GROUP" \
		--feed-port "$RIG_FEED_PORT" --order-port "$RIG_ORDER_PORT" \
		--rerequest-port "$RIG_REREQUEST_PORT" --cpu 0 -q \
		--json "$T_TMP/$name.ex.json" "$@"
}

ex_wait() {
	wait "$(t_pid "$1.ex")"
}

j() {
	jq -r "$2" "$1"
}

# ---- the run ----

run_tests() {
	local tests=("$@") t before failed=0 total=0
	if [ ${#tests[@]} -eq 0 ]; then
		mapfile -t tests < <(sed -n 's/^\(test_[A-Za-z0-9_]*\)() *{.*/\1/p' "$0")
	fi
	for t in "${tests[@]}"; do
		declare -F "$t" >/dev/null || { echo "FAIL: no test named $t"; exit 2; }
		echo "--- $t"
		before=$T_FAILS
		if ! "$t"; then
			[ "$T_FAILS" -eq "$before" ] && T_FAILS=$((T_FAILS + 1))
		fi
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
