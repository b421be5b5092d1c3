#!/bin/bash
# Side-by-side summary of paper-run results: scripts/paper-summary.sh DIR PATH...
# Reads DIR/PATH.gw.json (gateway) and DIR/PATH.ex.json (exchange simulator).
set -euo pipefail
dir=$1
shift
paths=("$@")

row() {	# row LABEL JQ-ON-GATEWAY|ex:JQ-ON-EXSIM
	local label=$1 q=$2 v
	printf '| %-34s' "$label"
	for p in "${paths[@]}"; do
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
printf '|\n|%s' "$(printf -- '-%.0s' {1..36})"
for _ in "${paths[@]}"; do printf '|%s' "$(printf -- '-%.0s' {1..16})"; done
printf '|\n'
row "messages published" "ex:.messages"
row "messages decoded" ".feed.messages"
row "prints (ticks) of its symbols" ".feed.ticks_ours"
row "orders sent" ".orders.sent"
row "fills / cancels / rejects" '"\(.orders.filled) / \(.orders.canceled) / \(.orders.rejected)"'
row "paper: whole / part / none" 'if .paper then "\(.paper.filled) / \(.paper.partial) / \(.paper.canceled)" else "-" end'
row "total PnL (\$, marked at last)" '[.symbols[].pnl] | add / 10000'
row "positions" '[.symbols[] | "\(.symbol) \(.position)"] | join(" ")'
for stage in "hook->queued" "hook->sent" "seen->decided"; do
	for pc in p50 p99 p99.9 p99.99 max; do
		row "$stage $pc (us)" "(.latency_ns[\"$stage\"][\"$pc\"] // 0) / 1000 | . * 1000 | round / 1000"
	done
done
for pc in p50 p99 p99_9 p99_99 max; do
	row "wire-to-wire $pc (us)" "ex:(.wire_to_wire_ns.$pc // 0) / 1000 | . * 1000 | round / 1000"
done
