#!/bin/sh
# Run every test given (unit test binaries and integration scripts), keep
# going past failures, and close with one line: "N passed, M failed".
set -u

pass=0
fail=0
failed=""
for t in "$@"; do
	echo "=== $t"
	start=$(date +%s)
	if "./$t"; then
		pass=$((pass + 1))
		echo "=== ok   $t ($(( $(date +%s) - start )) s)"
	else
		fail=$((fail + 1))
		failed="$failed $t"
		echo "=== FAIL $t ($(( $(date +%s) - start )) s)"
	fi
done
echo
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
