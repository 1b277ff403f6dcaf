#!/bin/sh
# Run every unit test program, the golden CLI cases, the bad-input corpus
# (tests/bad/run.sh), the include layers (tests/layers.sh), the README/docs
# examples and links (tests/docs/run.sh) and the link checker's own test
# (tests/docs/links.sh --self-test), the memory plan beside the engines' logs
# (eval/memory/check.sh) and
# `servesim serve` against live clients (tests/serve/run.sh); print one summary.
# usage: run_tests.sh TESTBIN_DIR SERVESIM_BIN test_a test_b ...
dir=$1; bin=$2; shift 2
pass=0; fail=0; failed_suites=""

# tally OUTPUT RC: p and f from OUTPUT's last line "N passed, M failed"
# (a missing line or a non-zero exit with no failure counts one failure).
tally() {
	line=$(printf '%s\n' "$1" | tail -n 1)
	p=$(printf '%s' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	f=$(printf '%s' "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	if [ -z "$p" ]; then p=0; f=1; fi
	if [ "$2" -ne 0 ] && [ "$f" = 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f))
}

for t in "$@"; do
	out=$("$dir/$t" 2>&1); rc=$?
	tally "$out" $rc
	if [ "$f" != 0 ]; then
		printf '%s\n' "$out" | grep -v '^ok ' ; failed_suites="$failed_suites $t"
	fi
	echo "unit $t: $p passed, $f failed"
done

# suite LABEL SCRIPT ARGS...: a script printing "ok ..." lines and a summary.
suite() {
	label=$1; shift
	out=$(sh "$@" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -v '^ok ' | sed '$d'
	tally "$out" $rc
	echo "$label: $p passed, $f failed"
}
suite golden tests/golden/run.sh "$bin"
suite layers tests/layers.sh
suite "bad input" tests/bad/run.sh "$bin"
suite "docs examples" tests/docs/run.sh "$bin"
suite "docs link checker" tests/docs/links.sh --self-test
suite serve tests/serve/run.sh "$bin" "$dir/serve_client"
suite scripts tests/scripts.sh
suite "memory logs" eval/memory/check.sh "$bin" --check
# the property test: PROP_CASES random configurations (tests/prop/prop.c)
abs=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
out=$("$dir/property" "$abs" "${PROP_CASES:-40}" "${PROP_SEED:-1}" 2>&1); rc=$?
printf '%s\n' "$out" | grep -v '^ok ' | sed '$d'
tally "$out" $rc
echo "property: $p passed, $f failed"
[ -n "$failed_suites" ] && echo "failing unit suites:$failed_suites"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
