#!/bin/sh
# tests/docs/run.sh - the examples in README.md and docs/ are real output.
#
# Every fenced code block whose first line starts with "$ " is an example:
# each "$ COMMAND" line (a trailing backslash continues it on the next line)
# is run with sh from a scratch folder that links every top-level entry of
# the repository, "./servesim" being the binary under test; the lines after
# it, up to the next "$ " line or the end of the block, are its expected
# standard output (add 2>&1 to the command to show standard error too).
# A line holding only "..." (indented or not) stands for any number of
# lines; every other line must match exactly, in order, trailing blanks
# ignored.  Wall-clock figures are masked on both sides.  Blocks whose
# fence carries the word "slow" (```text slow) run only with --all
# (make check-docs); the rest run in make check.  --regen rewrites the
# expected output of every example that has no "..." line with what the
# command prints now (make docs-regen; examples with "..." are reported and
# left for a person to edit).
# It also checks that each command servesim lists has its page
# docs/commands/COMMAND.md holding its --help output as an example, and that
# every relative link and #anchor of the pages names a file and heading that
# exist (tests/docs/links.sh).
# usage: run.sh SERVESIM_BIN [--all] [--regen] [FILE.md...]
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); shift
all=0; regen=0
while :; do case $1 in
	--all) all=1; shift ;;
	--regen) regen=1; all=1; shift ;;
	*) break ;;
esac; done
root=$(pwd)
if [ $# = 0 ]; then set -- README.md docs/*.md docs/*/*.md eval/public-amd/README.md; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/servesim-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/ex" "$work/run"
for e in "$root"/* "$root"/.[!.]*; do
	[ -e "$e" ] || continue
	ln -s "$e" "$work/run/$(basename "$e")"
done
rm -f "$work/run/servesim"; ln -s "$bin" "$work/run/servesim"

# Split the examples out: ex/N.cmd, ex/N.want, ex/N.where, ex/N.slow.
awk -v dir="$work/ex" '
function flush() {
	if (n > 0 && cmdopen) {
		close(cmdf); close(wantf)
		print FILENAME, wstart, FNR - wstart, ind > (dir "/" n ".range"); close(dir "/" n ".range")
	}
	cmdopen = 0
}
FNR == 1 { infence = 0 }
{
	line = $0
	if (!infence && line ~ /^ *```/) {
		infence = 1; first = 1; slow = (line ~ /slow/); ind = match(line, /[^ ]/) - 1; next
	}
	if (infence && line ~ /^ *```/) { flush(); infence = 0; checked = 0; next }
	if (!infence) next
	if (ind > 0) line = substr(line, ind + 1)
	if (first) { first = 0; checked = (line ~ /^\$ /) }
	if (!checked) next
	if (cont) {
		sub(/^ */, "", line); cont = sub(/\\$/, "", line)
		printf " %s", line > cmdf; if (!cont) printf "\n" > cmdf
		wstart = FNR + 1
		next
	}
	if (line ~ /^\$ /) {
		flush(); n++; cmdopen = 1
		cmdf = dir "/" n ".cmd"; wantf = dir "/" n ".want"
		printf "" > wantf
		print FILENAME ":" FNR > (dir "/" n ".where"); close(dir "/" n ".where")
		if (slow) { print "" > (dir "/" n ".slow"); close(dir "/" n ".slow") }
		c = substr(line, 3); cont = sub(/\\$/, "", c)
		printf "%s", c > cmdf; if (!cont) printf "\n" > cmdf
		wstart = FNR + 1
		next
	}
	print line > wantf
}
END { flush() }' "$@"

# Does the expected text (with "..." lines) match the actual output?
match_out() {
	awk '
	FNR == NR { w[++nw] = $0; next }
	{ g[++ng] = $0 }
	END {
		i = 1; j = 1
		while (i <= nw) {
			if (w[i] ~ /^ *\.\.\. *$/) {
				# gather the next segment and find its first place at or after j
				i++; if (i > nw) exit 0
				s = i; while (i <= nw && w[i] !~ /^ *\.\.\. *$/) i++
				len = i - s; last = (i > nw)
				found = 0
				for (k = (last ? ng - len + 1 : j); k >= j && k + len - 1 <= ng; k++) {
					ok = 1
					for (m = 0; m < len; m++) if (w[s + m] != g[k + m]) { ok = 0; break }
					if (ok) { found = 1; break }
					if (last) break
				}
				if (!found) { print "no match for: " w[s]; exit 1 }
				j = k + len
			} else {
				if (j > ng || w[i] != g[j]) { print "line " j ": want: " w[i]; print "line " j ": got:  " (j > ng ? "(end of output)" : g[j]); exit 1 }
				i++; j++
			}
		}
		if (j <= ng) { print "line " j ": unexpected: " g[j]; exit 1 }
	}' "$1" "$2"
}

mask() {
	sed -e 's/[ 	]*$//' \
	    -e 's/simulated in [0-9.]* s wall/simulated in X s wall/' "$1"
}

pass=0; fail=0; skipped=0
for c in "$work"/ex/*.cmd; do
	[ -e "$c" ] || continue
	n=${c%.cmd}; where=$(cat "$n.where")
	if [ -e "$n.slow" ] && [ $all = 0 ]; then skipped=$((skipped + 1)); continue; fi
	cmd=$(cat "$c")
	(cd "$work/run" && sh -c "$cmd") >"$n.got.raw" 2>"$n.err"
	mask "$n.got.raw" >"$n.got"; mask "$n.want" >"$n.want.m"
	if why=$(match_out "$n.want.m" "$n.got"); then
		pass=$((pass + 1)); echo "ok   docs $where"
	elif [ $regen = 1 ] && ! grep -q '^ *\.\.\. *$' "$n.want"; then
		echo "$(cat "$n.range") $n" >>"$work/patch"; echo "regen docs $where"
	else
		fail=$((fail + 1)); echo "FAIL docs $where: \$ $cmd"; printf '  %s\n' "$why"
		head -n 5 "$n.err" | sed 's/^/  stderr: /'
	fi
done

# Rewrite the expected output of the examples listed in $work/patch.
if [ -s "$work/patch" ]; then
	for f in $(cut -d' ' -f1 "$work/patch" | sort -u); do
		grep "^$f " "$work/patch" | sort -k2,2n | awk -v f="$f" '
		FNR == NR { st[++np] = $2; cnt[np] = $3; ind[np] = $4; src[np] = $5 ".got.raw"; next }
		FNR == 1 { k = 1 }
		{
			if (k <= np && FNR == st[k]) {
				pad = ""; for (m = 0; m < ind[k]; m++) pad = pad " "
				while ((getline l < src[k]) > 0) { sub(/[ \t]+$/, "", l); print (l == "" ? "" : pad l) }
				close(src[k]); skip = cnt[k]; k++
			}
			if (skip > 0) { skip--; next }
			print
		}' - "$f" >"$work/new" && cat "$work/new" >"$f"
	done
fi

# One page per command, holding its --help.
cmds=$("$bin" help | sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' | grep -v '^version$')
for cmd in $cmds; do
	page=docs/commands/$cmd.md
	if [ -f "$page" ] && grep -qFx "\$ ./servesim $cmd --help" "$page"; then
		pass=$((pass + 1)); echo "ok   docs page $page"
	else
		fail=$((fail + 1)); echo "FAIL docs page $page: missing, or no '\$ ./servesim $cmd --help' example"
	fi
done
# The README is a front door: the two set-up commands first, 300 lines at most.
readme_lines=$(wc -l <"$root/README.md")
if [ "$readme_lines" -le 300 ] &&
   sed -n '1,/^```$/d; /^```$/q; p' "$root/README.md" | awk '{ print $1, $2 }' | paste -sd, - |
	grep -qx 'make demo,make check'; then
	pass=$((pass + 1)); echo "ok   docs README.md: $readme_lines lines, make demo and make check first"
else
	fail=$((fail + 1))
	echo "FAIL docs README.md: $readme_lines lines (at most 300) or its first block is not 'make demo', 'make check'"
fi
# Relative links and #anchors point at files and headings that exist
# (tests/docs/links.sh).
out=$(sh "$(dirname "$0")/links.sh" "$@")
printf '%s\n' "$out" | sed '$d'
pass=$((pass + $(printf '%s\n' "$out" | sed -n '$s/ passed.*//p')))
fail=$((fail + $(printf '%s\n' "$out" | sed -n '$s/.* passed, \([0-9]*\) failed$/\1/p')))
[ $skipped -gt 0 ] && echo "docs: $skipped slow examples not run (make check-docs runs them)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
