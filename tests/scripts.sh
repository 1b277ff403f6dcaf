#!/bin/sh
# scripts.sh - the self-tests of the data-preparation scripts (each takes
# --test, checks its own rules on made-up rows and prints "ok: ..." on
# success), run by make check when python3 is present (make deps installs
# it; check-docs needs it too).  Prints "ok NAME" per script and a summary.
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0
if ! command -v python3 >/dev/null 2>&1; then
	echo "scripts: python3 not found, the scripts' self-tests not run (make deps installs it)"
	echo "0 passed, 0 failed"
	exit 0
fi
for s in scripts/inferencex_pools.py scripts/mfu/derive.py scripts/mfu/derive_amd.py; do
	out=$(python3 "$s" --test 2>&1); rc=$?
	if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^ok'; then
		echo "ok   $s --test"; pass=$((pass + 1))
	else
		echo "FAIL $s --test (exit $rc)"; printf '%s\n' "$out" | tail -n 20; fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
