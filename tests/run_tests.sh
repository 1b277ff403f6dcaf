#!/bin/sh
# Run every unit test program, the golden CLI cases and the bad-input corpus
# (tests/bad/run.sh); print one summary.
# usage: run_tests.sh TESTBIN_DIR SERVESIM_BIN test_a test_b ...
dir=$1; bin=$2; shift 2
pass=0; fail=0; failed_suites=""
for t in "$@"; do
	out=$("$dir/$t" 2>&1); rc=$?
	line=$(printf '%s\n' "$out" | tail -n 1)
	p=$(printf '%s' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(printf '%s' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	if [ -z "$p" ]; then p=0; f=1; fi
	if [ $rc -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	if [ "$f" != 0 ]; then
		printf '%s\n' "$out" | grep -v '^ok ' ; failed_suites="$failed_suites $t"
	fi
	echo "unit $t: $p passed, $f failed"
	pass=$((pass + p)); fail=$((fail + f))
done
gout=$(sh tests/golden/run.sh "$bin" 2>&1); grc=$?
printf '%s\n' "$gout" | grep -v '^ok ' | sed '$d'
gline=$(printf '%s\n' "$gout" | tail -n 1)
gp=$(printf '%s' "$gline" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
gf=$(printf '%s' "$gline" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$gp" ]; then gp=0; gf=1; fi
if [ $grc -ne 0 ] && [ "$gf" = 0 ]; then gf=1; fi
echo "golden: $gp passed, $gf failed"
pass=$((pass + gp)); fail=$((fail + gf))
bout=$(sh tests/bad/run.sh "$bin" 2>&1); brc=$?
printf '%s\n' "$bout" | grep -v '^ok ' | sed '$d'
bline=$(printf '%s\n' "$bout" | tail -n 1)
bp=$(printf '%s' "$bline" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
bf=$(printf '%s' "$bline" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$bp" ]; then bp=0; bf=1; fi
if [ $brc -ne 0 ] && [ "$bf" = 0 ]; then bf=1; fi
echo "bad input: $bp passed, $bf failed"
pass=$((pass + bp)); fail=$((fail + bf))
[ -n "$failed_suites" ] && echo "failing unit suites:$failed_suites"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
