# Sourced by the scripts and tests that start the gateway in the background.
#
# gw_wait_ready ERRFILE PID: wait up to 10 s for the gateway (PID, stderr in
# ERRFILE) to say its hot loop runs; 0 when it did, 1 when it exited or did
# not say so in time.  The line is printed once everything is attached.
gw_wait_ready() {
	local _
	for _ in $(seq 100); do
		grep -q "hot loop on CPU" "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	grep -q "hot loop on CPU" "$1" 2>/dev/null
}

# gw_wait_exit PID SECONDS WHO: give the gateway (PID) up to SECONDS to stop
# by itself after the end of session; then stop it with SIGTERM, saying so
# on stderr as WHO.  Returns the gateway's exit status.
gw_wait_exit() {
	local _
	for _ in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		echo "$3: gateway still running $2 s after the end; stopping it" >&2
		kill "$1"
	fi
	wait "$1"
}
