#!/usr/bin/env python3
"""Check servesim's GEMM pricing, and the constants around it, against the
cuBLASLt sweeps measured on real GPUs (calibration/tier2/<gpu>/gemm.csv.gz,
written by calibration/bench/gemm, random operands; PROVENANCE.md).  Nothing
is fitted here: the sweeps were measured after the tables and constants were
set, on other software (cuBLASLt, not the engines' kernels).

usage: python3 calibration/tier2/check_gemm.py [BUILD_DIR]   (from the
repository root, after `make`; compiles tools/opprice.c against
BUILD_DIR/libservesim.a)

Prints, per GPU:
- servesim's price of every measured shape (cost_gemm_s through
  tools/opprice.c: the default vLLM collection with the bandwidth floor and
  the sustained-rate ceiling) against the measurement, per sweep, dtype
  and regime: shapes, median predicted/measured, median |log(pred/meas)|.
  Shapes measured under 20 us are listed apart: launched back to back
  (gemm.csv.gz) they time the host's launch rate as much as the kernel;
  in CUDA graphs (gemm-graphs.csv.gz, as the engines replay decode steps)
  they time the kernels, with their one weight matrix partly in L2 when it
  is smaller than L2 (a lower bound for a model's decode, PROVENANCE.md);
- the fraction of the datasheet HBM bandwidth that cuBLASLt's memory-bound
  GEMMs reach (m <= 16, weights >= 96 MiB), next to gpus.json's bw_eff and
  the streaming read of calibration/bench/bw (tier2-stream.json);
- the bf16 rate of the large compute-bound shapes (m, n, k >= 4096) next to
  gpus.json's gemm_tflops_sustained;
- where an all-zero sweep was measured (gemm-graphs-zeros.csv.gz), how much
  longer random operands take than zeros: what timing uninitialised weights,
  as aiconfigurator's vLLM collector does, leaves out.
"""
import gzip, json, math, os, statistics as st, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts', 'mfu'))
import checktool  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LAUNCH_US = 20.0


def read_sweep(path):
    rows = []
    with gzip.open(path, 'rt') as f:
        for line in f:
            if line.startswith('#') or line.startswith('dtype'):
                continue
            dt, m, n, k, us = line.strip().split(',')
            rows.append((dt, int(m), int(n), int(k), float(us)))
    return rows


def gpu_spec(gid):
    with open(os.path.join('data', 'gpus.json')) as f:
        for g in json.load(f)['gpus']:
            if g['id'] == gid:
                return g
    raise SystemExit('check_gemm: %s not in data/gpus.json' % gid)


def regime(m, us):
    if us < LAUNCH_US:
        return 'under 20 us'
    return 'm <= 64' if m <= 64 else 'm 65-1023' if m < 1024 else 'm >= 1024'


def summary(pairs):
    r = [p / q for p, q in pairs]
    return len(r), st.median(r), st.median(abs(math.log(x)) for x in r)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else 'build'
    tool = checktool.build('opprice', build)
    for gid in ('h100-sxm', 'h200-sxm'):
        g = gpu_spec(gid)
        print('%s: %s' % (gid, g['name']))
        print('  %-16s %-5s %-12s %7s %10s %10s' % ('sweep', 'dtype', 'regime', 'shapes', 'pred/meas', '|log| med'))
        for sweep, fname in (('back to back', 'gemm.csv.gz'), ('CUDA graphs', 'gemm-graphs.csv.gz')):
            rows = read_sweep(os.path.join(HERE, gid, fname))
            if sweep == 'back to back':
                plain = rows
            q = ''.join('gemm %s %d %d %d\n' % r[:4] for r in rows)
            out = subprocess.run([tool, 'data', 'vllm', gid, 'llama-3.1-8b', '1'], input=q, capture_output=True,
                                 text=True, check=True)
            price = [float(x.split()[1]) for x in out.stdout.splitlines()]
            for dt in ('bf16', 'fp8'):
                for reg in ('m <= 64', 'm 65-1023', 'm >= 1024', 'under 20 us'):
                    pairs = [(t, us) for (d, m, n, k, us), t in zip(rows, price)
                             if d == dt and regime(m, us) == reg and t > 0 and not math.isnan(t)]
                    if pairs:
                        n_, med, lg = summary(pairs)
                        print('  %-16s %-5s %-12s %7d %10.3f %10.3f' % (sweep, dt, reg, n_, med, lg))
        rows = plain
        gemv = [(2.0 * n * k + 2.0 * (m * k + m * n)) / (us * 1e-6) / (g['hbm_tbps'] * 1e12)
                for d, m, n, k, us in rows if d == 'bf16' and m <= 16 and n * k >= 4096 * 12288]
        with open(os.path.join(HERE, gid, 'tier2-stream.json')) as f:
            stream = json.load(f)['bw_eff']['weights_sequential']
        print('  memory-bound bf16 GEMMs (m <= 16, weights >= 96 MiB, %d shapes): median %.3f of the datasheet '
              'HBM bandwidth (range %.3f-%.3f); gpus.json bw_eff %.2f; streaming read %.3f'
              % (len(gemv), st.median(gemv), min(gemv), max(gemv), g['bw_eff'], stream))
        big = [2.0 * m * n * k / (us * 1e-6) / 1e12 for d, m, n, k, us in rows
               if d == 'bf16' and min(m, n, k) >= 4096]
        print('  bf16 m, n, k >= 4096 (%d shapes): median %.0f TFLOP/s (range %.0f-%.0f); '
              'gpus.json gemm_tflops_sustained %s' % (len(big), st.median(big), min(big), max(big),
                                                       g.get('gemm_tflops_sustained')))
        zpath = os.path.join(HERE, gid, 'gemm-graphs-zeros.csv.gz')
        if os.path.exists(zpath):
            rnd = {r[:4]: r[4] for r in read_sweep(os.path.join(HERE, gid, 'gemm-graphs.csv.gz'))}
            zero = {r[:4]: r[4] for r in read_sweep(zpath)}
            for dt in ('bf16', 'fp8'):
                comp = [rnd[s] / zero[s] for s in zero if s[0] == dt and s in rnd and min(s[1:]) >= 1024]
                mem = [rnd[s] / zero[s] for s in zero
                       if s[0] == dt and s in rnd and s[1] <= 16 and s[2] * s[3] >= 4096 * 12288]
                print('  %s in CUDA graphs, random / all-zero operands: m, n, k >= 1024 (%d shapes) median %.3f '
                      '(range %.3f-%.3f); memory-bound (m <= 16, %d shapes) %.3f'
                      % (dt, len(comp), st.median(comp), min(comp), max(comp), len(mem), st.median(mem)))


if __name__ == '__main__':
    main()
