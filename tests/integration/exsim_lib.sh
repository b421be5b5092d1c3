# Shared by the exsim integration tests (sourced, not run): a rig of the
# test's own, named after its PID and torn down on exit whatever happens,
# background processes stopped, and the check helpers.
#
# The sourcing script sets P (rig prefix) and SUBNET before calling rig_up.

cd "$(dirname "$0")/../.." || exit 1
EXSIM=./build/exsim
RECV=./build/netns/feed_recv
CLIENT=./build/netns/order_client
TMP=$(mktemp -d)
failures=0
bg_pids=()

fail() {
	echo "FAIL: $*"
	failures=$((failures + 1))
}

# ok always succeeds, so "check && ok ... || fail ..." never runs both.
ok() {
	echo "ok: $*"
}

rig() {
	./netns/rig.sh --prefix "$P" --subnet "$SUBNET" "$@"
}

cleanup() {
	local p
	for p in "${bg_pids[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "${P:-}" ] && rig down >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

need() {
	local f
	[ "$(id -u)" -eq 0 ] || { echo "FAIL: must run as root"; exit 1; }
	for f in "$@"; do
		[ -x "$f" ] || { echo "FAIL: $f not built (make build-all)"; exit 1; }
	done
	command -v jq >/dev/null || { echo "FAIL: jq missing (scripts/deps.sh)"; exit 1; }
}

rig_up() {
	rig up >/dev/null || { echo "FAIL: rig up"; exit 1; }
	eval "$(rig env)"
}

# start_rx BIN NAME [options]: receiver BIN (feed_recv or fault_recv) on the
# feed group in the gateway namespace, output in $TMP/NAME.out; returns once
# it has joined the group.
start_rx() {
	local bin=$1 name=$2 pid
	shift 2
	rm -f "$TMP/$name.out"	# no stale "joined" (the redirect truncates late)
	ip netns exec "$RIG_NS_GW" timeout 120 "$bin" "$@" "$RIG_GROUP" "$RIG_FEED_PORT" \
		"$RIG_IP_GW" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	pid=$!
	bg_pids+=("$pid")
	eval "${name}_pid=$pid"
	for _ in $(seq 50); do
		grep -qs '^joined$' "$TMP/$name.out" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "FAIL: $(basename "$bin") did not join: $(cat "$TMP/$name.err")"
	exit 1
}

# start_recv NAME [feed_recv options]: the plain kernel receiver.
start_recv() {
	start_rx "$RECV" "$@"
}

# kv FILE KEY: a value from feed_recv's key=value report.
kv() {
	sed -n "s/^$2=//p" "$1"
}

# jv FILE FILTER: a value from exsim's --json summary.
jv() {
	jq -r "$2" "$1"
}

# expect_eq WHAT GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1: $2"
	else
		fail "$1: got '$2', want '$3'"
	fi
}

finish() {
	[ "$failures" -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
	echo "all $1 checks passed"
}
