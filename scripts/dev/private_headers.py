#!/usr/bin/env python3
"""Move the private headers out of include/servesim/ to beside their .c (issue 27).

Each include/servesim/X.h goes to src/D/X.h, D being the folder of the module
that implements it:
  1. the one src/D/X.c outside src/cmd/, if there is exactly one;
  2. else the folder whose .c files define most of the functions X.h declares;
  3. else (a header of types and inline functions only) the folder with the
     most .c files that include it, or base/ when several folders tie (a
     utility that modules share: an arrow from one to another is wrong).
Then every reference is rewritten in the tracked files under src/ tests/ tools/
fuzz/ bench/ scripts/ docs/, the Makefile and data/accuracy.json (whose "what"
text is printed from src/eval/accuracy.c):
  #include "servesim/X.h"   ->  #include "D/X.h"
  include/servesim/X.h      ->  src/D/X.h
  servesim/X.h              ->  D/X.h
and the compile lines (Makefile, scripts/mfu) lose -Iinclude, or, where
include/ keeps the public servesim.h, name -Isrc beside it.

Re-runnable: on a tree where the headers have moved already (a branch that
merged main after this ran there), it only rewrites the references still
written the old way, e.g. in code that branch added.  Run from the
repository root:  python3 scripts/dev/private_headers.py [--dry-run]
"""
import os
import re
import subprocess
import sys
from collections import Counter

OLD = 'include/servesim'
REWRITE_UNDER = ('src/', 'tests/', 'tools/', 'fuzz/', 'bench/', 'scripts/', 'docs/')
REWRITE_FILES = ('Makefile', 'data/accuracy.json')
TEXT_EXT = ('.c', '.h', '.py', '.sh', '.md', '.mk', '.json', '.mjs', '.txt', 'Makefile', 'cmd')


def git(*args):
    return subprocess.run(('git',) + args, check=True, capture_output=True, text=True).stdout


def tracked(prefix=''):
    return [p for p in git('ls-files', '-z', *([prefix] if prefix else [])).split('\0') if p]


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def declared_functions(text):
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    names = set()
    for m in re.finditer(r'^(?!\s*(?:#|typedef|static|return))[A-Za-z_][\w \t\*]*?\b([a-z_][a-z_0-9]*)\s*\(',
                         text, flags=re.M):
        names.add(m.group(1))
    return names


def home(name, header_text, sources):
    """The src/ folder (e.g. 'sim') a header called name.h belongs in."""
    lib = [p for p in sources if not p.startswith('src/cmd/')]
    same = [p for p in lib if os.path.basename(p) == name + '.c']
    if len(same) == 1:
        return same[0].split('/')[1]
    funcs = declared_functions(header_text)
    defs = Counter()
    if funcs:
        pat = re.compile(r'^[A-Za-z_][\w \t\*]*?\b(' + '|'.join(sorted(funcs)) + r')\(', re.M)
        for p in lib:
            defs[p.split('/')[1]] += len(pat.findall(read(p)))
    if defs and max(defs.values()) > 0:
        best = max(defs.values())
        return sorted(d for d, n in defs.items() if n == best)[0]
    inc = re.compile(r'#include\s+"servesim/' + re.escape(name) + r'\.h"')
    users = Counter(p.split('/')[1] for p in lib if p.endswith('.c') and inc.search(read(p)))
    if not users:
        sys.exit('private_headers: cannot place %s/%s.h: no .c defines or includes it' % (OLD, name))
    best = [d for d, n in users.items() if n == max(users.values())]
    return best[0] if len(best) == 1 else 'base'


def main():
    dry = '--dry-run' in sys.argv[1:]
    if not os.path.isdir('.git') and not os.path.isfile('.git'):
        sys.exit('private_headers: run from the repository root')
    sources = [p for p in tracked('src') if p.endswith('.c') and p.count('/') == 2]
    moves = {}
    for h in sorted(p for p in tracked(OLD) if p.endswith('.h') and p.count('/') == 2):
        name = os.path.basename(h)[:-2]
        moves[name] = 'src/%s/%s.h' % (home(name, read(h), sources), name)
    # Every header now under src/<dir>/ answers for its old spelling.
    where = {}
    for p in tracked('src'):
        if p.endswith('.h') and p.count('/') == 2:
            where[os.path.basename(p)[:-2]] = p
    for name, dst in moves.items():
        if name in where and where[name] != dst:
            sys.exit('private_headers: %s/%s.h would land on %s, but %s exists' % (OLD, name, dst, where[name]))
        where[name] = dst
    for name, dst in sorted(moves.items()):
        print('move %s/%s.h -> %s' % (OLD, name, dst))
        if not dry:
            git('mv', '%s/%s.h' % (OLD, name), dst)

    names = '|'.join(sorted(where, key=len, reverse=True))
    ref = re.compile(r'(?<![\w.-])(include/)?servesim/(' + names + r')\.h\b')

    def sub(m):
        d = where[m.group(2)]
        return d if m.group(1) else d[len('src/'):]

    files = [p for p in tracked()
             if (p.startswith(REWRITE_UNDER) or p in REWRITE_FILES) and p.endswith(TEXT_EXT)
             and not p.startswith(OLD + '/')]
    # -Iinclude stays while include/ holds a header of its own (the public
    # servesim.h); it goes when the moved ones were all there was
    public = any(p.endswith('.h') and not p.startswith(OLD + '/') for p in tracked('include'))
    changed = 0
    for p in files:
        try:
            text = read(p)
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        new = ref.sub(sub, text)
        if p == 'Makefile' and not public:
            new = re.sub(r'-Iinclude (?=-Isrc)', '', new)
        elif p.startswith('scripts/') and p.endswith('.py') and p != 'scripts/dev/private_headers.py':
            if public:  # include/ keeps servesim.h: both folders
                new = re.sub(r"'-Iinclude'(?!, '-Isrc')", "'-Iinclude', '-Isrc'", new)
            else:
                new = new.replace("'-Iinclude', '-Isrc', ", "'-Isrc', ").replace("'-Iinclude'", "'-Isrc'")
        if new != text:
            changed += 1
            print('rewrite %s' % p)
            if not dry:
                with open(p, 'w', encoding='utf-8') as f:
                    f.write(new)
    print('%d headers moved, %d files rewritten%s' % (len(moves), changed, ' (dry run)' if dry else ''))


if __name__ == '__main__':
    main()
