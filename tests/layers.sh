#!/bin/sh
# layers.sh - the one-way rules of DESIGN.md's "Layout" that an include
# shows: results are formatted in src/report/ alone, and only src/cmd/
# (and main.c) call it, so no other library folder includes a report/
# header (plan -> report was an arrow running back up, issue 27).
# usage: tests/layers.sh   (from the repository root)
pass=0; fail=0
for d in src/*/; do
	case $d in src/report/ | src/cmd/) continue ;; esac
	hits=$(grep -ln '#include "report/' "$d"*.[ch] "$d"*/*.[ch] 2>/dev/null)
	if [ -z "$hits" ]; then
		echo "ok   ${d%/} includes no report/ header"
		pass=$((pass + 1))
	else
		echo "FAIL ${d%/} includes report/ headers: $(echo $hits)"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
