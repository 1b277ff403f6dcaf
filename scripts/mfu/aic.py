"""aiconfigurator's exports read, servesim's compact tables written: what
the derive_*.py and check_*.py scripts of scripts/mfu share.

rows(path)               the rows of a CSV table (plain or .gz) as dicts
find(d, name)            d/name or d/name.gz, whichever exists, else None
write(path, header, data, notes)
                         a servesim table: '#' provenance lines, the header,
                         one line per row (fields as str()), gzip with mtime 0
                         so that a rerun writes the same bytes
sparse_collections(eng)  (system, engine, version, folder) of every
                         <system>/sparse_attention/<engine>/<version> folder
                         of the aic-engines export, sorted
write_medians(out, system, engine, ver, name, header, acc, notes)
                         a module table of one collection: key tuple ->
                         latencies (us) written as one row per key with its
                         median, into the collection's kernel folder
"""
import csv, gzip, io, os, statistics, sys


def rows(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        yield from csv.DictReader(f)


def find(d, name):
    for n in (name, name + '.gz'):
        p = os.path.join(d, n)
        if os.path.exists(p):
            return p
    return None


def write(path, header, data, notes):
    buf = io.StringIO()
    for n in notes:
        buf.write('# ' + n + '\n')
    buf.write(','.join(header) + '\n')
    for r in data:
        buf.write(','.join(str(x) for x in r) + '\n')
    with gzip.GzipFile(path, 'wb', mtime=0) as f:
        f.write(buf.getvalue().encode())


def sparse_main(script, derive):
    """The command line of a script deriving tables from the sparse_attention
    collections: `script AIC_ENGINES_DIR OUT_DIR` calls derive(system, engine,
    ver, folder, OUT_DIR) for each collection."""
    if len(sys.argv) != 3:
        sys.exit('usage: %s AIC_ENGINES_DIR OUT_DIR' % script)
    for system, engine, ver, d in sparse_collections(sys.argv[1]):
        derive(system, engine, ver, d, sys.argv[2])


def sparse_collections(eng):
    for system in sorted(os.listdir(eng)):
        sd = os.path.join(eng, system, 'sparse_attention')
        if not os.path.isdir(sd):
            continue
        for engine in sorted(os.listdir(sd)):
            for ver in sorted(os.listdir(os.path.join(sd, engine))):
                yield system, engine, ver, os.path.join(sd, engine, ver)


def sparse_source(system, engine, ver, files):
    """The source note of a sparse_attention collection's tables `files`."""
    return ('source: ai-dynamo/aiconfigurator 095f58a51c4ca8e61b66ec108d86f223f8d559ce (Apache-2.0), '
            'systems/%s/sparse_attention/%s/%s/%s' % (system, engine, ver, files))


def geometry_of(model, table):
    """(servesim's model name, hidden size) of the first (prefix, name, hidden)
    of table whose prefix starts the model's own name, else (None, None)."""
    m = model.split('/')[-1]
    for prefix, name, hidden in table:
        if m.startswith(prefix):
            return name, hidden
    return None, None


def write_medians(out, system, engine, ver, name, header, acc, notes):
    """OUT/<system>/<engine>-<ver>/name from acc (key tuple -> latencies),
    sorted by key, the median as '%.6g'; skipped (said on stdout) where the
    collection has no kernel folder, whose tables servesim reads with it."""
    od = os.path.join(out, system, '%s-%s' % (engine, ver))
    if not os.path.isdir(od):
        print(system, engine, ver, 'skipped: no kernel collection', od)
        return
    write(os.path.join(od, name), header, [k + ('%.6g' % statistics.median(acc[k]),) for k in sorted(acc)], notes)
    print(system, engine, ver, len(acc), 'rows')
