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
