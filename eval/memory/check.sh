#!/bin/sh
# Prints servesim's memory plan beside each engine start-up log in
# eval/memory/logs.csv (see PROVENANCE.md): weights, KV memory and KV tokens
# per GPU, logged / servesim / error (servesim / logged - 1; KV: servesim -
# logged, GiB, as vLLM logs a negative figure when nothing is left).
# usage: check.sh SERVESIM_BIN [--check | --regen]
#   --check  compare the table with eval/memory/plan.txt (make check runs it)
#   --regen  rewrite eval/memory/plan.txt
# exit: 0 ok, 1 the table differs from plan.txt (--check), 2 usage.
bin=$1; mode=${2:-print}
here=$(dirname "$0")
case $mode in print|--check|--regen) ;; *) echo "usage: check.sh SERVESIM_BIN [--check | --regen]" >&2; exit 2;; esac
case $bin in */*) ;; *) bin=./$bin;; esac
[ -x "$bin" ] || { echo "check.sh: '$bin' is not an executable servesim" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -v '^#' "$here/logs.csv" | tail -n +2 | while IFS=, read -r id eng ver model gpu tp pp dt util seqs mbt mml w kv tok set; do
	args="--model $model --gpu $gpu --tp $tp --pp $pp --engine $eng --num-requests 4 --rate 1 --allow-invalid"
	[ -n "$ver" ] && args="$args --engine-version $ver"
	[ -n "$dt" ] && args="$args --dtype $dt"
	[ -n "$seqs" ] && args="$args --max-num-seqs $seqs"
	[ -n "$mbt" ] && args="$args --max-num-batched-tokens $mbt"
	[ -n "$mml" ] && args="$args --max-model-len $mml"
	if [ "$eng" = sglang ]; then args="$args --mem-fraction-static $util"
	else args="$args --gpu-memory-utilization $util"; fi
	# shellcheck disable=SC2086 # args is a word list on purpose
	line=$("$bin" run $args 2>"$tmp/err" | grep '^kv cache')
	if [ -z "$line" ]; then
		# refused ("does not fit: weights need N GB per GPU ..."): the weights, GB -> GiB
		gb=$(sed -n 's/.*weights need \([0-9.]*\) GB per GPU.*/\1/p' "$tmp/err")
		if [ -n "$gb" ]; then line="kv cache   (refused: does not fit) - $(awk -v g="$gb" 'BEGIN { printf "%.2f", g * 1e9 / 1073741824 }') GiB weights"
		else line="kv cache   (no plan: servesim run $args failed)"; fi
	fi
	printf '%s|%s|%s|%s|%s|%s\n' "$id" "$set" "$w" "$kv" "$tok" "$line"
done | awk -F'|' '
function err(s, l) { return (l == "" || s == "") ? "-" : (l == 0 ? "-" : sprintf("%+.1f%%", (s / l - 1) * 100)) }
function dif(s, l) { return (l == "" || s == "") ? "-" : sprintf("%+.2f", s - l) }
function show(v) { return v == "" ? "-" : v }
BEGIN {
	printf "%-38s %-4s %27s %27s %35s\n", "log", "set", "weights GiB log/sim/err", "KV GiB log/sim/diff", "KV tokens log/sim/err"
}
{
	line = $6; sw = ""; sk = ""; st = ""
	if (match(line, /- [0-9.]+ GiB weights/)) { s = substr(line, RSTART + 2); split(s, a, " "); sw = a[1] }
	if (match(line, /= -?[0-9.]+ GiB/)) { s = substr(line, RSTART + 2); split(s, a, " "); sk = a[1] }
	if (match(line, /\([0-9]+ tokens\)/)) { s = substr(line, RSTART + 1); split(s, a, " "); st = a[1] }
	else if (match(line, /^kv cache +[0-9]+ tokens/)) { split(substr(line, 9), a, " "); st = a[1] }
	printf "%-38s %-4s %27s %27s %35s\n", $1, $2,
		show($3) "/" show(sw) "/" err(sw, $3), show($4) "/" show(sk) "/" dif(sk, $4),
		show($5) "/" show(st) "/" err(st, $5)
}' >"$tmp/table"

case $mode in
print) cat "$tmp/table" ;;
--regen) cp "$tmp/table" "$here/plan.txt"; echo "wrote $here/plan.txt" ;;
--check)
	if diff -u "$here/plan.txt" "$tmp/table"; then echo "ok   memory plan beside the engines' logs (eval/memory/plan.txt)"; echo "1 passed, 0 failed"
	else echo "FAIL memory plan moved: read the diff, then sh eval/memory/check.sh ./servesim --regen"; echo "0 passed, 1 failed"; exit 1; fi ;;
esac
