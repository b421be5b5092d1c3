#!/bin/bash
# Side-by-side summary of paper-run results: scripts/paper-summary.sh DIR PATH...
# Reads DIR/PATH.gw.json (gateway) and DIR/PATH.ex.json (exchange simulator).
set -euo pipefail
dir=$1
shift
paths=("$@")

# row LABEL JQ-ON-GATEWAY|ex:JQ-ON-EXSIM|live:ROW: a live: row is "-" for a
# paper run, which sends nothing (no send, no wire to wire).
row() {
	local label=$1 q=$2 v
	printf '| %-34s' "$label"
	for p in "${paths[@]}"; do
		local q=$2
		if [[ $q == live:* ]]; then
			q=${q#live:}
			if jq -e '.paper' "$dir/$p.gw.json" >/dev/null 2>&1; then
				printf '| %14s ' "-"
				continue
			fi
		fi
		if [[ $q == ex:* ]]; then
			v=$(jq -r "${q#ex:}" "$dir/$p.ex.json" 2>/dev/null || echo "?")
		else
			v=$(jq -r "$q" "$dir/$p.gw.json" 2>/dev/null || echo "?")
		fi
		printf '| %14s ' "$v"
	done
	printf '|\n'
}


printf '| %-34s' ""
for p in "${paths[@]}"; do printf '| %14s ' "$p"; done
printf '|\n|%s' "$(printf -- '-%.0s' {1..35})"
for _ in "${paths[@]}"; do printf '|%s' "$(printf -- '-%.0s' {1..16})"; done
printf '|\n'
row "messages published" "ex:.messages"
row "messages decoded" ".feed.messages"
row "prints (ticks) of its symbols" ".feed.ticks_ours"
row "orders sent" ".orders.sent"
row "orders filled/canceled/rejected" '"\(.orders.filled) / \(.orders.canceled) / \(.orders.rejected)"'
row "executions" '"\(.orders.executions)"'
row "paper: whole / part / none" 'if .paper then "\(.paper.filled) / \(.paper.partial) / \(.paper.canceled)" else "-" end'
row "total PnL (\$, marked at last)" '[.symbols[].pnl] | add / 10000'
# A row per symbol: the cells stay as wide as the others.
for sym in $(jq -r '.symbols[].symbol' "$dir/${paths[0]}.gw.json" 2>/dev/null); do
	row "position $sym (shares)" ".symbols[] | select(.symbol == \"$sym\") | .position"
done
for stage in "hook->queued" "hook->sent" "seen->decided"; do
	live=
	[ "$stage" = "hook->sent" ] && live=live:
	for pc in p50 p99 p99.9 p99.99 max; do
		row "$stage $pc (us)" "$live(.latency_ns[\"$stage\"][\"$pc\"] // 0) / 1000 | . * 1000 | round / 1000"
	done
done
for pc in p50 p99 p99_9 p99_99 max; do
	row "wire-to-wire $pc (us)" "live:ex:(.wire_to_wire_ns.$pc // 0) / 1000 | . * 1000 | round / 1000"
done
