# Sourced by the scripts and tests that compare a paper run's fills with
# t2t-backtest --itch --paper's (scripts/paper-run.sh, feed_capture.sh).
#
# gw_paper_orders ORDERS_CSV: the gateway's orders (--orders-out), one
# "seq,symbol,side,shares,filled,cash" line each, the strategy changes it
# listed untraded left out: t2t-backtest --paper's CSV without its header.
gw_paper_orders() {
	awk -F, 'NR > 1 && $15 != "U" { print $2 "," $3 "," $4 "," $5 "," $17 "," $18 }' "$1"
}
