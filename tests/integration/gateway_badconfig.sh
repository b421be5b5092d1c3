#!/bin/bash
# Bad configuration fails at start with one clear line and a non-zero exit,
# before anything is attached: unknown interface, bad addresses, a CPU that
# does not exist, an HMA length out of range, an unwritable output file,
# malformed flags, an exchange off the interface's network.  Runs in a
# namespace of its own (no rig needed).
. "$(dirname "$0")/../lib.sh"
need root build/t2t-gateway

GW=build/t2t-gateway
NS=$T_ID

# ns: the namespace the gateway is started in (made once).
ns() {
	[ -e "/var/run/netns/$NS" ] && return 0
	at_exit ip netns del "$NS"
	ip netns add "$NS" && ip -n "$NS" link set lo up
}

# expect NAME STATUS TEXT ARGS...: exit status, the text (a regex), and one
# line only.
expect() {
	local name=$1 want=$2 text=$3 st lines
	shift 3
	timeout 10 ip netns exec "$NS" "$GW" "$@" >"$T_TMP/out" 2>"$T_TMP/err"
	st=$?
	lines=$(grep -vc '^Try ' "$T_TMP/err")
	if [ "$st" -eq "$want" ] && grep -q -- "$text" "$T_TMP/err" && [ "$lines" -eq 1 ]; then
		ok "$name"
	else
		fail "$name (status $st, stderr: $(cat "$T_TMP/err"))"
	fi
}

test_bad_options_refused_in_one_line() {
	local ncpu
	ns || { fail "namespace $NS"; return 1; }
	ncpu=$(nproc)
	expect "unknown interface" 1 "no interface 'nosuch0' here" -i nosuch0
	expect "unknown interface (udp)" 1 "no interface 'nosuch0' here" -i nosuch0 --mode udp
	expect "bad feed address" 2 "--feed wants GROUP:PORT" --feed 239.1.1:26400
	expect "bad exchange address" 2 "--exchange wants IP:PORT" --exchange 10.0.0.300:1
	expect "bad port" 2 "--exchange wants IP:PORT" --exchange 10.0.0.1:70000
	expect "bad MAC" 2 "--exchange-mac wants" --exchange-mac 02:00:00:00:00
	expect "CPU that does not exist" 2 "this machine has CPUs 0..$((ncpu - 1))" --cpu "$ncpu"
	expect "length out of range" 2 "HMA length 300 out of range \[6, 256\]" --symbol AAPL:300
	expect "length too small" 2 "HMA length 5 out of range" --symbol AAPL:5:100
	expect "symbol too long" 2 "symbol must be 1 to 8 characters" --symbol ABCDEFGHI:20
	expect "unit out of range" 2 "unit must be 1 to" --symbol AAPL:20:0
	expect "unwritable JSON" 1 "cannot write /nonexistent/dir/s.json" --json /nonexistent/dir/s.json
	expect "unwritable orders file" 1 "cannot write /nonexistent/o.csv" --orders-out /nonexistent/o.csv
	expect "bad mode" 2 "--mode is xdp or udp" --mode dpdk
	expect "bad rate limit" 2 "--max-rate" --max-rate fast
	expect "unknown flag" 2 "unknown option .--frobnicate." --frobnicate
	expect "bad login" 2 "--login wants USER:PASSWORD" --login nocolon
	expect "login too long" 2 "--login wants USER:PASSWORD" --login ABCDEFG:x
	expect "session too long" 2 "--soup-session wants at most 10" --soup-session ABCDEFGHIJK
	expect "bad order stack" 2 "--order-stack is own or kernel" --order-stack dpdk
	expect "own TCP on the kernel path" 2 "--order-stack own needs the AF_XDP path" \
		--mode udp --order-stack own
	expect "RTO bounds" 2 "--tcp-rto-min must not be above --tcp-rto-max" \
		--tcp-rto-min 500 --tcp-rto-max 100
	expect "bad reconnect" 2 "--reconnect wants MS" --reconnect soon
	expect "stray argument" 2 "unexpected argument" extra
}

# A network that is not the default rig's: without --exchange, both paths
# say to pass it (a veth pair inside the namespace).
test_exchange_off_the_network_says_pass_exchange() {
	ns || { fail "namespace $NS"; return 1; }
	ip -n "$NS" link add bcdum0 type veth peer name bcdum1 &&
		ip -n "$NS" addr add 10.77.0.2/24 dev bcdum0 && ip -n "$NS" link set bcdum0 up ||
		{ fail "the veth pair in $NS"; return 1; }
	expect "exchange off this network" 1 "not on bcdum0's network 10.77.0.0/24: pass --exchange" \
		-i bcdum0
	expect "exchange unreachable (udp)" 1 "is not reachable from this namespace (no route): pass --exchange" \
		-i bcdum0 --mode udp
}

test_help_exits_0_and_lists_the_options() {
	local help_rc=0 help_text
	# Captured first, then searched: "--help | grep -q" under pipefail fails
	# whenever grep exits before the gateway has written all of its help.
	help_text=$(timeout 5 "$GW" --help 2>&1) || help_rc=$?
	check "--help exits 0 and lists the options" \
		eval '[ "$help_rc" -eq 0 ] && grep -q -- "--max-pos" <<<"$help_text" && grep -q -- "--mode" <<<"$help_text"'
}

run_tests "$@"
