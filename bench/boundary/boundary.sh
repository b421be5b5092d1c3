#!/bin/bash
# make bench-boundary: python3-numba for the port it is measured against
# (installed here, not by make test), the days it reads (made once into
# build/bench-boundary/), then the table (bench/boundary/boundary.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! /usr/bin/python3 -c 'import numba' 2>/dev/null; then
	echo "bench-boundary: installing python3-numba" >&2
	apt-get install -y -qq --no-install-recommends python3-numba >/dev/null
fi
W=build/bench-boundary
mkdir -p "$W/days"
[ -s "$W/day16.bin" ] ||
	build/t2t-genday --messages 4000000 --symbols 16 --seed 9 -q -o "$W/day16.bin"
for s in 1 2 3 4 5 6 7 8; do
	[ -s "$W/days/day$s.bin" ] ||
		build/t2t-genday --messages 3000000 --symbols 16 --seed "$s" -q -o "$W/days/day$s.bin"
done
date -u '+%Y-%m-%d %H:%M UTC'; uname -r; nproc; uptime
git log -1 --format='commit %h' 2>/dev/null || true
exec /usr/bin/python3 bench/boundary/boundary.py "$W"
