// Write one of aiconfigurator's Parquet tables as CSV, every column, in
// Parquet column order (the form ../shared/data/mfu/aic holds; its README).
//
// usage: node scripts/mfu/parquet_csv.mjs IN.parquet OUT.csv
//   needs the npm packages hyparquet and hyparquet-compressors.
// Used for collections the shared export lacks: vLLM 0.19.0's GEMM tables
// (scripts/mfu/derive_cutlass_block.py, data/PROVENANCE.md).
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import fs from 'fs'

const [src, dst] = process.argv.slice(2)
if (!src || !dst) {
  console.error('usage: node scripts/mfu/parquet_csv.mjs IN.parquet OUT.csv')
  process.exit(2)
}
const buf = fs.readFileSync(src)
const rows = await parquetReadObjects({ file: buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), compressors })
if (rows.length === 0) {
  console.error(`${src}: no rows`)
  process.exit(3)
}
const cols = Object.keys(rows[0])
const lines = [cols.join(',')]
for (const r of rows) lines.push(cols.map((c) => String(r[c])).join(','))
fs.writeFileSync(dst + '.tmp', lines.join('\n') + '\n')
fs.renameSync(dst + '.tmp', dst)
console.log(`${dst}: ${rows.length} rows`)
