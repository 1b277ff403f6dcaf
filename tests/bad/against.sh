#!/bin/sh
# tests/bad/against.sh - does every bad-input case catch a defect?  Builds an
# older commit (default 3dc9ccc, where issue 15's reliability campaign found
# its defects) from `git archive` in a temporary folder (no worktree is
# registered, nothing in this checkout changes), runs the bad-input corpus
# (tests/bad/run.sh, this checkout's) against it and against this checkout's
# servesim, and reports per case: FIXED (fails there, passes here), SAME (passes
# on both: a case that guards behaviour the old build already had) or BROKEN
# (fails here).  Then, per defect of issue 15, the cases that show it; a
# defect with none is listed as uncovered.  Exit 1 when a case fails here or a
# defect is uncovered.
# usage: tests/bad/against.sh [COMMIT]   (from the repository root; a few
# minutes: two ASan builds and two runs of the corpus under ASan)
set -u
old=${1:-3dc9ccc}
root=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/servesim-against.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# Both sides are built as `make check-asan` builds them (ASan + UBSan, no
# recovery): some defects (float-to-integer overflow, NULL passed to libc)
# only show as a sanitizer report.
asan() { make -j2 BUILD=build-asan BIN=build-asan/servesim \
	EXTRA_CFLAGS="-O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	LDLIBS="-lcjson -lyaml -lgsl -lgslcblas -lz -lmicrohttpd -lm -pthread -fsanitize=address,undefined" build-asan/servesim; }
echo "against: building this checkout (build-asan/servesim)"
asan > "$tmp/build-new.log" 2>&1 || { tail -20 "$tmp/build-new.log"; exit 1; }
mkdir -p "$tmp/old" && git archive "$old" | tar -x -C "$tmp/old" || exit 1
echo "against: building $old in $tmp/old"
(cd "$tmp/old" && asan > "$tmp/build.log" 2>&1) || { tail -20 "$tmp/build.log"; exit 1; }
echo "against: running the corpus ($(grep -c '^t ' tests/bad/run.sh) cases) on $old and on this checkout"
# the old build hangs on some cases and allocates tens of GB on one: a
# shorter time limit, and ASan's RSS and allocation caps (this machine is shared)
BAD_TIMEOUT=20 ASAN_OPTIONS=hard_rss_limit_mb=3000:malloc_limit_mb=3000 \
	sh tests/bad/run.sh "$tmp/old/build-asan/servesim" > "$tmp/old.txt" 2>&1
sh tests/bad/run.sh build-asan/servesim > "$tmp/new.txt" 2>&1
status() { # status FILE CASE -> ok | FAIL
	if grep -q "^ok $2\$" "$1"; then echo ok; else echo FAIL; fi
}
fixed=0 same=0 broken=0
: > "$tmp/fixed"
for c in $(sed -n 's/^t \([^ ]*\) .*/\1/p' tests/bad/run.sh); do
	o=$(status "$tmp/old.txt" "$c") n=$(status "$tmp/new.txt" "$c")
	if [ "$n" = FAIL ]; then
		broken=$((broken + 1)); echo "BROKEN $c"
	elif [ "$o" = FAIL ]; then
		fixed=$((fixed + 1)); echo "$c" >> "$tmp/fixed"
		echo "FIXED  $c: on $old $(grep -A1 "^FAIL bad/$c:" "$tmp/old.txt" | head -1 | sed "s|^FAIL bad/$c: ||" | cut -c1-150)"
	else
		same=$((same + 1)); echo "SAME   $c"
	fi
done
echo "against: $fixed fail on $old and pass now, $same pass on both, $broken fail now"

# Issue 15's defects and the cases that show them (the bench-* cases are
# not among them: the serving-benchmark reader came after 3dc9ccc, so they
# fail there as "not an experiment"; they guard its range checks) (a case name, or a prefix
# ending in '*').  A defect is covered when one of its cases is FIXED.
uncovered=0
while IFS='|' read -r id what cases; do
	[ -z "$id" ] && continue
	hit=""
	for p in $cases; do
		case $p in
		*\*) hit="$hit $(grep "^${p%\*}" "$tmp/fixed" | tr '\n' ' ')" ;;
		*) grep -qx "$p" "$tmp/fixed" && hit="$hit $p" ;;
		esac
	done
	hit=$(echo $hit)
	if [ -n "$hit" ]; then echo "defect $id ($what): $hit"
	else uncovered=$((uncovered + 1)); echo "defect $id ($what): UNCOVERED"; fi
done <<'EOF'
1a|--step-log replaces the workload|out-step-log-is-workload
1b|calibrate -o replaces the experiment|out-calibrate-into-input
1c|--requests-out replaces the trace CSV|out-requests-is-trace
1d|a symlink given as output is replaced|out-link-kept
1e|a FIFO given as output is replaced|out-fifo-direct
1f|outputs get mode 0600 whatever the umask|out-umask-mode
1g|SIGINT leaves temp files|out-sigint-no-temp out-sigterm-no-temp
2a|run > /dev/full exits 0|write-run-stdout-full write-run-json-stdout-full
2b|eval and trace > /dev/full exit 0|write-eval-stdout-full write-trace-stdout-full
2c|--step-log on a full disk exits 0|write-step-log-full
2d|write error does not name the file|write-step-log-full write-requests-full
2e|--requests-out DIR fails only after the simulation|out-requests-is-folder
3a|trace arrival 1e300 gives garbage|trace-arrival-1e300
3b|prompt 1e20 gives garbage|trace-prompt-1e20 spec-prompt-1e20 flag-prompt-1e20
3c|rate 1e-300 simulates negative seconds|spec-rate-1e-300 flag-rate-1e-300
3d|GuideLLM prompt_tokens 1e61 imported as INT64_MIN|guidellm-prompt-1e61
3e|JSON rate 1e999 runs as inf req/s|spec-rate-1e999
4a|uniform_count 1e9 req/s x 1000 s OOM|spec-uniform-count-1e12
4b|poisson_count 1e30 hangs|spec-poisson-count-1e30
4c|gamma cv 1e-300 loops forever|spec-gamma-cv-1e-300
4d|gamma cv 1e300 yields 0 requests, exit 0|spec-gamma-cv-1e300
4e|closed loop bounded only by its duration|spec-closed-loop-duration-only spec-closed-loop-stages-only
5a|NaN/Infinity in measured data accepted by eval (inf/1420 -nan%)|guidellm-eval-latency-infinity
5b|import writes inf|guidellm-latency-infinity
6a|missing or malformed profile.yaml is prefix 0 silently|profile-malformed profile-missing-warns profile-not-mapping profile-data-not-mapping
6b|experiment.json prefix_tokens -1024 or 1e300 accepted|exp-prefix-negative exp-prefix-1e300
6c|unknown keys in engine-facts.json ignored|facts-unknown-key
6d|unknown or malformed keys in the other side files|exp-config-unknown-key profile-unknown-key profile-data-unknown-key exp-trace-workload-unknown-key facts-engine-not-string vllm-log-blocks-overflow
7a|NULL to libc: eval on an empty folder|eval-empty-folder
7b|NULL to libc: a header-only Ascend CSV|trace-ascend-header-only trace-ascend-csv-header-only
9a|YAML .5 / 0x10 reported as malformed JSON|yaml-rate-dot5 yaml-rate-hex
9b|--rate 0x10 accepted as 16|flag-rate-hex
9c|UTF-8 BOM in a CSV header|trace-bom-header
9d|a folder as input exits 1, eval says 2|run-workload-folder eval-missing-path calibrate-missing-path
9e|Kineto negative durations are "no GPU kernel events"|trace-kineto-negative-dur
EOF
# defect 8 is in the build, not in an input: the fuzzers' sanitizers must
# not recover, and `make fuzz` must scan their logs for reports
fz() { grep -c -e 'FUZZ_SAN.*-fno-sanitize-recover=all' -e "grep -qE 'runtime error" "$1"; }
if [ "$(fz "$tmp/old/Makefile")" -lt 2 ] && [ "$(fz Makefile)" -ge 2 ]; then
	echo "defect 8 (fuzzers blind to UBSan reports): Makefile FUZZ_SAN has -fno-sanitize-recover=all and \`make fuzz\` scans for 'runtime error'; $old has neither"
else
	uncovered=$((uncovered + 1)); echo "defect 8 (fuzzers blind to UBSan reports): UNCOVERED"
fi
echo "against: $uncovered defect(s) without a case that fails on $old"
[ "$broken" = 0 ] && [ "$uncovered" = 0 ]
