# Shared by the fault tests (sourced after exsim_lib.sh, not run): the
# tolerant receiver and the re-request client, and a few checks.

FRECV=./build/netns/fault_recv
RRCLIENT=./build/netns/rerequest_client

# start_fault_recv NAME [fault_recv options]: the tolerant receiver, as
# start_rx (exsim_lib.sh).
start_fault_recv() {
	start_rx "$FRECV" "$@"
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
