# Shared by the fault tests (sourced after exsim_lib.sh, not run): the
# tolerant receiver and the re-request client, and a few checks.

FRECV=./build/netns/fault_recv
RRCLIENT=./build/netns/rerequest_client

# start_fault_recv NAME [fault_recv options]: the tolerant receiver in the
# gateway namespace, output in $TMP/NAME.out; returns once it has joined.
start_fault_recv() {
	local name=$1 pid
	shift
	rm -f "$TMP/$name.out"
	ip netns exec "$RIG_NS_GW" timeout 120 "$FRECV" "$@" "$RIG_GROUP" "$RIG_FEED_PORT" \
		"$RIG_IP_GW" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	pid=$!
	bg_pids+=("$pid")
	eval "${name}_pid=$pid"
	for _ in $(seq 50); do
		grep -qs '^joined$' "$TMP/$name.out" && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "FAIL: fault_recv did not join: $(cat "$TMP/$name.err")"
	exit 1
}

# wait_recv NAME: wait for a receiver started by start_fault_recv; its rc.
wait_recv() {
	local pid=${1}_pid
	wait "${!pid}"
}

# rr ARGS...: the re-request client in the gateway namespace, asking the
# exchange's server.
rr() {
	ip netns exec "$RIG_NS_GW" timeout 30 "$RRCLIENT" "$@"
}

# expect_ge WHAT GOT MIN
expect_ge() {
	if [ "$2" -ge "$3" ] 2>/dev/null; then
		ok "$1: $2 (>= $3)"
	else
		fail "$1: got '$2', want at least $3"
	fi
}

# summary NAME: the receiver's non-zero counters on one line, for messages.
summary() {
	grep -vE '=0$|^joined$' "$TMP/$1.out" | tr '\n' ' '
}
