#!/bin/bash
# The dashboard (t2t-monitor's /) in headless Chromium, fed by
# t2t-monwriter: tests/browser/dashboard.cjs checks what a person sees
# (positions table, charts drawn, latency table, no console error, nothing
# fetched from outside) and keeps a screenshot, build/monitor/dashboard.png.
# playwright-core comes from tests/browser/package-lock.json (npm ci, once);
# the browser is Debian's /usr/bin/chromium (scripts/deps.sh).
set -uo pipefail
. "$(dirname "$0")/monitor_lib.sh"
mon_setup mdash

for tool in node npm /usr/bin/chromium; do
	command -v "$tool" >/dev/null || { echo "FAIL $tool missing"; exit 1; }
done
# npm ci when node_modules is missing or older than the lock file.
stamp=tests/browser/node_modules/.package-lock.json
if [ ! -e "$stamp" ] || [ tests/browser/package-lock.json -nt "$stamp" ]; then
	echo "     npm ci in tests/browser"
	(cd tests/browser && timeout 300 npm ci --no-audit --no-fund --loglevel=error) ||
		{ echo "FAIL npm ci"; exit 1; }
fi

writer_start --rate 1000 --duration 120
monitor_start || exit 1
sleep 2		# some history before the page opens
mkdir -p build/monitor
timeout 120 node tests/browser/dashboard.cjs "http://127.0.0.1:$port/" build/monitor/dashboard.png \
	AAPL,MSFT,NVDA
check "dashboard in Chromium" test $? -eq 0
check "screenshot kept" test -s build/monitor/dashboard.png

echo "monitor_dashboard: $fails failed"
[ "$fails" -eq 0 ]
