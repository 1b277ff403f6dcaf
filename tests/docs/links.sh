#!/bin/sh
# tests/docs/links.sh - every relative link of the pages names a file that
# exists, and every #anchor a heading of the page it points into.
#
# A link is [text](TARGET) or ![alt](TARGET) outside fenced code blocks and
# inline code spans; TARGETs with a scheme (https:, mailto:) are not
# followed.  TARGET is PATH, PATH#ANCHOR or #ANCHOR (the page itself); PATH
# is relative to the page's folder and must exist (a file or a folder).
# An ANCHOR into a .md page must be the id a GitHub-style renderer gives one
# of its headings (outside code blocks): the text lower-cased, ASCII
# punctuation other than '-' and '_' dropped, each space a '-', and the
# second and later copies of one id suffixed -1, -2, ...
# usage: links.sh FILE.md...      one FAIL line per broken link, then
#                                 "N passed, M failed" (N: links checked)
#        links.sh --self-test     the checker against tests/docs/links/:
#                                 good.md has no broken link, and each
#                                 bad-*.md fails with the message its
#                                 "<!-- expect: TEXT -->" first line names
if [ "$1" = --self-test ]; then
	here=$(dirname "$0"); fx=$here/links; pass=0; fail=0
	if out=$(sh "$0" "$fx/good.md") && [ -n "$(printf '%s\n' "$out" | sed -n 's/^\([1-9][0-9]*\) passed, 0 failed$/\1/p')" ]; then
		pass=$((pass + 1)); echo "ok   links good.md: $(printf '%s\n' "$out" | tail -n 1)"
	else
		fail=$((fail + 1)); echo "FAIL links good.md: want no broken link, got:"; printf '  %s\n' "$out"
	fi
	for b in "$fx"/bad-*.md; do
		want=$(sed -n '1s/^<!-- expect: \(.*\) -->$/\1/p' "$b")
		out=$(sh "$0" "$b"); rc=$?
		if [ -n "$want" ] && [ $rc != 0 ] && printf '%s\n' "$out" | grep -qF "$want" &&
		   printf '%s\n' "$out" | tail -n 1 | grep -qx '[0-9]* passed, 1 failed'; then
			pass=$((pass + 1)); echo "ok   links $(basename "$b"): caught ($want)"
		else
			fail=$((fail + 1)); echo "FAIL links $(basename "$b"): want exit 1 and one failure '$want', got exit $rc:"
			printf '  %s\n' "$out"
		fi
	done
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]; exit
fi

awk '
# ids(PAGE): fill id[PAGE SUBSEP ID] for every heading of PAGE (once)
function ids(page,    line, infence, was, t, seen, n, s) {
	if (page in done) return
	done[page] = 1; infence = 0
	while ((getline line < page) > 0) {
		was = infence; infence = fence(line, infence)
		if (was || infence || line !~ /^#+ /) continue
		t = line; sub(/^#+ +/, "", t); sub(/ +#+ *$/, "", t); sub(/ +$/, "", t)
		# [text](target) reads as text
		while (match(t, /\[[^]]*\]\([^)]*\)/)) {
			s = substr(t, RSTART + 1, RLENGTH); sub(/\]\(.*$/, "", s)
			t = substr(t, 1, RSTART - 1) s substr(t, RSTART + RLENGTH)
		}
		t = tolower(t)
		gsub(/[]!"#$%&'\''()*+,.\/:;<=>?@[\\^`{|}~]/, "", t)
		gsub(/ /, "-", t)
		n = seen[t]++
		id[page, n ? t "-" n : t] = 1
	}
	close(page)
}
# fence(LINE, OPEN): the fence state after LINE, OPEN being the backticks of
# the fence LINE is in (0: none).  An opener is three or more backticks then
# text without one (CommonMark: four backticks and more text with a backtick
# are inline code spanning lines); its closer is as many backticks or more,
# alone on the line.
function fence(l, open,    end, n) {
	if (!match(l, /^ *```+/)) return open
	end = RLENGTH; n = end - index(l, "`") + 1
	if (open) return l ~ /^ *`+ *$/ && n >= open ? 0 : open
	return substr(l, end + 1) ~ /`/ ? 0 : n
}
function dirof(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "." }
function exists(p) { return system("test -e \"" p "\"") == 0 }
function check(page, target,    path, anchor, k, full) {
	if (target ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/) return
	k = index(target, "#")
	path = k ? substr(target, 1, k - 1) : target
	anchor = k ? substr(target, k + 1) : ""
	full = path == "" ? page : dirof(page) "/" path
	if (path != "" && !exists(full)) {
		nfail++; print "FAIL links " page ": " target ": no file " full; return
	}
	if (anchor != "" && full ~ /\.md$/) {
		ids(full)
		if (!((full, anchor) in id)) {
			nfail++; print "FAIL links " page ": " target ": no heading #" anchor " in " full; return
		}
	}
	npass++
}
FNR == 1 { infence = 0 }
{ was = infence; infence = fence($0, infence) }
was || infence { next }
{
	line = $0
	gsub(/`[^`]*`/, "", line)
	while (match(line, /\]\([^) ]*\)/)) {
		target = substr(line, RSTART + 2, RLENGTH - 3)
		line = substr(line, RSTART + RLENGTH)
		check(FILENAME, target)
	}
}
END { print npass + 0 " passed, " nfail + 0 " failed"; exit nfail > 0 }' "$@"
