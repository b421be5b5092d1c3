#!/bin/bash
# Parity of the gateway's orders with the backtester's on the same ticks.
#
#   scripts/parity.sh [--exact] BACKTEST.csv GATEWAY_ORDERS.csv GATEWAY.json
#
# GATEWAY_ORDERS.csv is --orders-out: every order, then every strategy
# change not traded at its tick (kind U, state untraded_REASON).
#
# The backtester's orders are the strategy's changes of position, one per
# changing tick (md_seq,symbol,side,shares).  The gateway sizes each order
# from the target and its exposure (gateway/inst.h), so, tick by tick:
#   - an order of kind S (the strategy changed here) equals the backtester's
#     order at that tick: same side, same shares;
#   - an order of kind A is the strategy's change resized because orders
#     were in flight: same tick and side as the backtester's;
#   - a backtester order with no gateway order at its tick must be in the
#     gateway's list of untraded changes (late tick, orders in flight, a
#     risk limit), each with its reason;
#   - orders of kind R (restores) make up for what was not traded, at later
#     ticks, and are only counted here;
#   - an order of kind Y made up a change left covered by orders in flight,
#     when a reply ended one of them: it carries that change's tick, its
#     side is the change's, and the change is listed untraded (covered).
# Anything else fails.  --exact also fails on any A, R or untraded change:
# the gateway sent exactly the backtester's orders.  One line counts them;
# the last says "parity: ok" or "parity: FAIL (why)", as the exit status
# does.
set -euo pipefail

exact=0
if [ "${1:-}" = --exact ]; then
	exact=1
	shift
fi
[ $# -eq 3 ] || { echo "usage: $0 [--exact] BACKTEST.csv GATEWAY_ORDERS.csv GATEWAY.json" >&2; exit 2; }
bt=$1 gw=$2 json=$3
lost=$(jq '.orders.log_overwritten + .orders.untraded_overwritten' "$json")
if [ "$lost" != 0 ]; then
	echo "the gateway's order log overflowed ($lost records gone): raise --order-log"
	echo "parity: FAIL (the order log overflowed)"
	exit 1
fi

st=0
awk -F, -v exact="$exact" '
FNR == 1 { file++ }
file == 1 && FNR > 1 { bt[$1 "," $2] = $3 "," $4; nbt++ }
file == 2 && FNR > 1 && $15 == "U" { untraded[++nu] = $2 "," $3 "," $4 "," substr($7, 10); next }
file == 2 && FNR > 1 {
	key = $2 "," $3; kind = $15
	if (kind == "R") { restores++; next }
	if (kind == "Y") { onreply[key] = $4; next }
	if (!(key in bt)) { bad++; if (bad <= 5) printf "  no strategy change at %s (gateway order %s %s kind %s)\n", key, $4, $5, kind; next }
	split(bt[key], b, ",")
	if (b[1] != $4 || (kind == "S" && b[2] != $5)) {
		bad++; if (bad <= 5) printf "  %s: backtester %s, gateway %s %s kind %s\n", key, bt[key], $4, $5, kind; next
	}
	done[key] = 1
	if (kind == "S") same++; else resized++
}
END {
	for (i = 1; i <= nu; i++) {
		split(untraded[i], u, ",")
		key = u[1] "," u[2]
		if (!(key in bt) || substr(bt[key], 1, 1) != u[3]) {
			bad++; if (bad <= 5) printf "  untraded %s names no strategy change\n", untraded[i]; continue
		}
		if (key in done) { bad++; if (bad <= 5) printf "  %s both traded and untraded\n", key; continue }
		if (key in onreply) {
			if (u[4] != "covered" || onreply[key] != u[3]) {
				bad++; if (bad <= 5) printf "  %s: made up on a reply, but untraded %s %s\n", key, u[4], u[3]
				continue
			}
			done[key] = 1; traded_on_reply++; continue
		}
		done[key] = 1; why[u[4]]++; nun++
	}
	for (k in bt) if (!(k in done)) { bad++; if (bad <= 5) printf "  backtester order %s,%s neither traded nor listed untraded\n", k, bt[k] }
	reasons = ""
	for (w in why) reasons = reasons sprintf(" %s %d", w, why[w])
	for (k in onreply) if (!(k in done)) { bad++; if (bad <= 5) printf "  order made up on a reply at %s names no covered change\n", k }
	printf "%d strategy orders: %d exactly, %d resized, %d traded on the reply that uncovered them, %d untraded%s; %d restores",
		nbt, same, resized, traded_on_reply, nun, (reasons == "" ? "" : " (" substr(reasons, 2) ")"), restores
	if (bad) { printf "; %d unexplained\nparity: FAIL (%d unexplained)\n", bad, bad; exit 1 }
	if (exact && (resized || nun || restores || traded_on_reply)) {
		printf "; not exact\nparity: FAIL (not exact: --exact)\n"; exit 1
	}
	printf "\nparity: ok\n"
}' "$bt" "$gw" || st=$?
exit "$st"
