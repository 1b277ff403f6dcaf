#!/bin/sh
# tests/browser/run.sh - the HTML pages of `search --html`, `eval --html` and
# `servesim report` of a run (an autoscaling one, and one of two stages)
# rendered in headless Chromium: the inline script ran (body data-ready),
# every row and chart is in the DOM, sorting and filtering from the URL
# (#sort=COLUMN:desc&filter=WORDS) give the order and the count the JSON
# result says, and nothing is loaded from outside the page.  A screenshot of
# each page stays in OUT (build/browser by default) as the test's artefact.
# usage: run.sh SERVESIM_BIN [OUT]
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=${2:-build/browser}
browser=$(command -v chromium || command -v chromium-browser)
if [ -z "$browser" ]; then
	echo "check-browser: chromium not found; install it (make deps as root, or apt-get install chromium)"
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/servesim-browser.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
pass=0; fail=0
check() { # check CONDITION-EXIT-STATUS MESSAGE
	if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok   browser $2"
	else fail=$((fail + 1)); echo "FAIL browser $2"; fi
}
# render URL: the DOM after the page's script ran, to stdout
render() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$work/profile-$$-$(date +%s%N)" --dump-dom "$1" 2>"$work/chromium.log"
}
shot() { # shot PAGE PNG
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$work/profile-shot-$(date +%s%N)" --window-size=1400,2000 \
		--screenshot="$2" "file://$1" >/dev/null 2>>"$work/chromium.log"
}
# page NAME ROWS WHAT: OUT/NAME.html rendered into $work/NAME.dom; checks
# that its script ran and that it shows ROWS data rows (WHAT)
page() {
	render "file://$out/$1.html" >"$work/$1.dom"
	grep -q '<body data-ready="1"' "$work/$1.dom"; check $? "$1: the inline script ran"
	[ "$(grep -o '<tr class="row"' "$work/$1.dom" | wc -l)" = "$2" ]; check $? "$1: $2 $3"
}
# shown NAME WORDS COUNT MESSAGE: OUT/NAME.html#filter=WORDS shows COUNT rows
shown() {
	render "file://$out/$1.html#filter=$2" >"$work/$1-f.dom"
	grep -q "data-shown=\"$3\"" "$work/$1-f.dom"; check $? "$1: $4"
}
# first NAME SORT PATTERN MESSAGE: the first row of OUT/NAME.html#sort=SORT
# matches PATTERN (grep)
first() {
	render "file://$out/$1.html#sort=$2" | first_row >"$work/$1.first"
	grep -q "$3" "$work/$1.first"; check $? "$1: $4"
}
# the cells of the first visible data row in a dumped DOM
first_row() {
	tr '\n' ' ' | sed 's/<tr class="row"/\n&/g' | grep '^<tr class="row"' | grep -v 'style="display: none;"' |
		head -n 1 | sed 's/<\/td>/|/g; s/<[^>]*>//g'
}

# --- search --------------------------------------------------------------
"$bin" search --model llama-3.1-8b --gpus h100:2 --engine vllm --slo ttft_p90_ms=500,itl_mean_ms=20 \
	--num-requests 1000 --format json --html "$out/search.html" >"$work/search.json" 2>/dev/null
check $? "search --html wrote the page"
n=$(jq '.ranking | length' "$work/search.json")
page search "$n" "deployment rows"
grep -q '<figure id="chart-pareto"><svg' "$work/search.dom"; check $? "search: the Pareto chart inline"
grep -q 'id="rows-count">'"$n"' shown<' "$work/search.dom"; check $? "search: the row count filled in"
# sorted by tokens/s per user, descending: the first row is the best one
best=$(jq -r '[.ranking[] | select(.tok_s_per_user != null)] | max_by(.tok_s_per_user) | .tok_s_per_user' "$work/search.json")
first search tok_s_per_user:desc "|$(printf '%.6g' "$best")|" "#sort=tok_s_per_user:desc puts $best first"
# filtered on "fp8": as many rows as the JSON has with fp8 weights
k=$(jq '[.ranking[] | select(.weights == "fp8")] | length' "$work/search.json")
shown search fp8 "$k" "#filter=fp8 shows its $k rows"
shown search no-such-word 0 "#filter with no match shows 0 rows"
# --- eval ----------------------------------------------------------------
"$bin" eval eval/ground_truth --format json --html "$out/eval.html" >"$work/eval.json" 2>/dev/null
check $? "eval --html wrote the page"
n=$(jq '.rows | length' "$work/eval.json")
page eval "$n" rows
[ "$(grep -o '<figure id="chart-[a-z0-9_]*" [^>]*><svg' "$work/eval.dom" | wc -l)" = 3 ]; check $? "eval: three charts inline"
g=$(jq -r '[.rows[] | .model + " on " + .gpu] | unique | length' "$work/eval.json")
[ "$(tr '\n' ' ' < "$work/eval.dom" | sed 's/<table class="grid"/\n&/' | sed -n '2p' | sed 's/<\/table>.*//' | grep -o '<tr><td>' | wc -l)" = "$g" ]
check $? "eval: the error grid has $g model x GPU rows"
k=$(jq '[.rows[] | select(.model == "codellama-34b")] | length' "$work/eval.json")
shown eval codellama-34b "$k" "#filter=codellama-34b shows its $k rows"
worst=$(jq -r '[.rows[] | select(.metrics.ttft_mean_ms.ape != null)] | max_by(.metrics.ttft_mean_ms.ape) | .experiment' "$work/eval.json")
first eval metrics.ttft_mean_ms.ape:desc "^$worst|" "#sort=TTFT APE desc puts $worst first"
# --- run (an autoscaling run's JSON, through `servesim report`) ------------
"$bin" run --workload workloads/autoscale-day.json --max-num-seqs 128 --autoscale 1:6 --autoscale-policy slo \
	--autoscale-interval-s 30 --autoscale-grace-s 120 --slo-ttft-ms 500 --slo-itl-ms 30 --format json \
	>"$work/run.json" 2>/dev/null && "$bin" report "$work/run.json" -o "$out/run.html"
check $? "report of a run's JSON wrote the page"
n=$(jq '.autoscale_intervals | length' "$work/run.json")
page run "$n" "autoscaling intervals"
grep -q '<figure id="chart-autoscale"><svg' "$work/run.dom"; check $? "run: the autoscaling chart inline"
p90=$(printf '%.6g' "$(jq '.summary.ttft_p90_ms' "$work/run.json")")
grep -q "data-key=\"ttft_p90_ms\">$p90<" "$work/run.dom"; check $? "run: TTFT p90 $p90 ms in the percentile table"
gh=$(printf '%.6g' "$(jq '.summary.gpu_hours' "$work/run.json")")
grep -q "data-key=\"gpu_hours\">$gh<" "$work/run.dom"; check $? "run: $gh GPU-hours in the headline"
worst=$(jq -r '[.autoscale_intervals[] | select(.ttft_p90_ms != null)] | max_by(.ttft_p90_ms) | .start_s' "$work/run.json")
first run ttft_p90_ms:desc "^$(printf '%.6g' "$worst")|" \
	"#sort=ttft_p90_ms:desc puts the interval from $worst s first"
# a run without autoscaling: its stages, no autoscaling chart
"$bin" run --workload workloads/shared-prefix.json --format json >"$work/run2.json" 2>/dev/null &&
	"$bin" report "$work/run2.json" -o "$out/run-stages.html"
check $? "report of a two-stage run's JSON wrote the page"
render "file://$out/run-stages.html" >"$work/run2.dom"
grep -q '<body data-ready="1"' "$work/run2.dom" && [ "$(grep -o '<tr class="row"' "$work/run2.dom" | wc -l)" = 2 ] &&
	! grep -q 'chart-autoscale' "$work/run2.dom"
check $? "run: two stage rows, no autoscaling chart"
# --- self-contained, and the artefacts -------------------------------------
for p in search eval run run-stages; do
	! grep -Eq '(src|href)="(https?:)?//' "$out/$p.html"; check $? "$p: no external asset"
	shot "$out/$p.html" "$out/$p.png"
	[ -s "$out/$p.png" ]; check $? "$p: screenshot $out/$p.png"
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
