#!/bin/sh
# Golden CLI tests.  Each tests/golden/<case>/ holds:
#   cmd        arguments to servesim, one shell line (run from the repo root)
#   stdout     expected standard output
#   stderr     expected standard error
#   exit       expected exit code
# usage: run.sh SERVESIM_BIN [regen]
bin=$1; mode=${2:-check}
here=$(dirname "$0")
mkdir -p build  # some cases write result files there
pass=0; fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in "$here"/*/; do
	[ -f "$d/cmd" ] || continue
	name=$(basename "$d")
	args=$(cat "$d/cmd")
	eval "\"./$bin\" $args" >"$tmp/out" 2>"$tmp/err.raw"; rc=$?
	# wall-clock figures vary run to run: mask them
	sed 's/simulated in [0-9.]* s wall/simulated in X s wall/' "$tmp/err.raw" >"$tmp/err"
	if [ "$mode" = regen ]; then
		cp "$tmp/out" "$d/stdout"; cp "$tmp/err" "$d/stderr"; echo "$rc" >"$d/exit"
		echo "regen $name (exit $rc)"; continue
	fi
	ok=1
	diff -u "$d/stdout" "$tmp/out" >"$tmp/d1" || ok=0
	diff -u "$d/stderr" "$tmp/err" >"$tmp/d2" || ok=0
	[ "$rc" = "$(cat "$d/exit")" ] || ok=0
	if [ $ok = 1 ]; then pass=$((pass + 1)); echo "ok   golden $name"
	else fail=$((fail + 1)); echo "FAIL golden $name (exit $rc, want $(cat "$d/exit"))"
		head -n 40 "$tmp/d1" "$tmp/d2"; fi
done
[ "$mode" = regen ] && exit 0
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
