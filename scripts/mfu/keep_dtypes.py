#!/usr/bin/env python3
"""Keep some dtypes of a derived collection's GEMM and MoE tables.

usage: python3 scripts/mfu/keep_dtypes.py IN_DIR OUT_DIR GEMM_DTYPES MOE_DTYPES
  IN_DIR       a collection as scripts/mfu/derive.py writes it
               (<system>/<engine>-<version>/)
  OUT_DIR      where gemm.csv.gz and moe.csv.gz are written with the rows of
               the named dtypes only ('#' lines kept, one added)
  GEMM_DTYPES  comma list of the GEMM table's dtype column values (fp8, ...)
  MOE_DTYPES   the same for the MoE table (fp8,fp8_block, ...)
No other table is written: servesim prices what a collection does not hold
(another dtype, attention, all-reduce) from the next collection in its
fallback order (src/hw/mfuload.c), so a partial collection replaces only the
kernels it keeps.  Used for data/mfu/<gpu>/trtllm-1.2.0rc5 (data/PROVENANCE.md).
"""
import gzip, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aic import write  # noqa: E402


def keep(src, dst, dtypes):
    notes, header, data = [], None, []
    with gzip.open(src, 'rt') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('#'):
                notes.append(line[1:].lstrip())
            elif header is None:
                header = line.split(',')
            elif line.split(',', 1)[0] in dtypes:
                data.append(line.split(','))
    if header is None or header[0] != 'dtype':
        sys.exit('%s: expected a header whose first column is dtype' % src)
    notes.append('kept by scripts/mfu/keep_dtypes.py: the %s rows only (other dtypes price from the next '
                 'collection)' % '/'.join(sorted(dtypes)))
    write(dst, header, data, notes)
    print(dst, len(data), 'rows')


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for name, arg in (('gemm', sys.argv[3]), ('moe', sys.argv[4])):
        dtypes = set(filter(None, arg.split(',')))
        if dtypes:
            keep(os.path.join(src, name + '.csv.gz'), os.path.join(dst, name + '.csv.gz'), dtypes)


if __name__ == '__main__':
    main()
