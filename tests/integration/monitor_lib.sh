# Shared by the monitor's tests (sourced, not run): a test writer and a
# t2t-monitor of the test's own, a segment name from a prefix and the PID,
# everything started stopped and removed on exit whatever happens.
#
#   . tests/integration/monitor_lib.sh; mon_setup mt
#
# gives name (the segment's), tmp, fails, check NAME CMD..., writer_start
# ARGS... (sets writer_pid), monitor_start (sets port, monitor_pid), get
# PATH (curl from the monitor), wait_for CMD... (up to 10 s).

cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d /tmp/mon_test.XXXXXX)
fails=0
pids=()
name=

mon_cleanup() {
	local p
	for p in "${pids[@]}"; do
		{ kill -CONT "$p"; kill -9 "$p"; wait "$p"; } 2>/dev/null
	done
	[ -n "$name" ] && rm -f "/dev/shm/t2t-$name"
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"
}
trap mon_cleanup EXIT

check() {
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}

mon_setup() {
	name="$1$$"
}

# Until CMD succeeds, 10 s at most.
wait_for() {
	local i
	for i in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

writer_start() {
	build/t2t-monwriter --name "$name" --quiet "$@" &
	writer_pid=$!
	pids+=("$writer_pid")
	wait_for test -e "/dev/shm/t2t-$name"
}

# A free port on 127.0.0.1: try a few at random.
monitor_start() {
	local try
	for try in 1 2 3 4 5 6 7 8; do
		port=$((20000 + RANDOM % 20000))
		build/t2t-monitor --name "$name" --listen "127.0.0.1:$port" "$@" 2>>"$tmp/monitor.err" &
		monitor_pid=$!
		if wait_for curl -sf -o /dev/null "http://127.0.0.1:$port/api/state"; then
			pids+=("$monitor_pid")
			return 0
		fi
		{ kill -9 "$monitor_pid"; wait "$monitor_pid"; } 2>/dev/null
	done
	echo "cannot start t2t-monitor: $(cat "$tmp/monitor.err")"
	return 1
}

get() {
	curl -sf --max-time 5 "http://127.0.0.1:$port$1"
}
