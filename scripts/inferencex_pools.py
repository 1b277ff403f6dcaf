#!/usr/bin/env python3
"""Derive the P/D pool sizes of the silicon CSV's InferenceX disagg rows, and
which InferenceX aggregated rows ran multi-token prediction.

The two InferenceX sources of eval/silicon/silicon_trtllm_and_disagg.csv.gz
(`source_file=2026-03-25.csv`, `source_file=2026-04-06.csv`) leave the pools'
worker and batch counts blank and copy the prefill pool's EP into the decode
pool's (eval/silicon/HARNESS.md, "Disaggregated rows").  InferenceX launched
each of those runs from an entry of its master configuration
(.github/configs/nvidia-master.yaml): per model, precision, GPU, framework and
ISL/OSL, search-space entries naming the concurrencies they ran and each
pool's num-worker, tp, ep and dp-attn, whether multi-token prediction was on,
and (TensorRT-LLM) the recipe file, whose name carries the decode batch and
the MTP depth (ctx1_gen5_tep8_batch32_eplb0_mtp3).

For each blank-count row this takes the configuration as it stood on the day
the row was measured (the latest commit of the file on or before that day
holding an entry that matches the row's model, precision, GPU, framework,
ISL/OSL, concurrency and the recorded prefill tp/ep and decode tp; an entry
runs the concurrencies its recipe's benchmark names, else its conc-list:
runs_at) and keeps
the row only when every matching entry there gives the same pools and
speculative setting.  306 of the blank-count rows repeat a measurement that
`db-dump/` records with its pools (identical TTFT and TPOT, same backend,
model and system): where both exist the derived pools must agree with the
recorded ones (workers, attention-DP sizes, decode EP), else the row is
dropped and counted.  Where a plain and an MTP entry both match (same
layout and concurrency: the configuration ran the point twice), a row is
kept as the MTP entry's run when the point holds exactly two measurements
that day and the other one, not this row, repeats a db-dump run, whose
recorded pools the plain entry's must match: db-dump holds the plain P/D
runs (mtp_partner); for the same reason a kept row that repeats a db-dump
run is written plain where its matching entry is an MTP one (plain_by_twin).
The latencies are used for nothing else.

Aggregated rows: the single-node entries name MTP by a separate entry
(`dsr1-fp4-b200-trt-mtp`) whose image may differ from the plain one's; a row is
marked MTP when every entry matching its model, precision, GPU, framework,
image tag (the row's backend_version), ISL/OSL, tp and concurrency (within the
entry's conc-start..conc-end) on its measurement day is an MTP entry.  The
draft count is the entry's launch script's (benchmarks/single_node/ or, before
it moved, benchmarks/, at that commit): TensorRT-LLM's dsr1_*_trt_mtp.sh set 3 drafts, 1 with attention DP;
SGLang's dsr1_*_mtp.sh set --speculative-num-steps (EAGLE top-1: that many
drafts).  Only MTP rows are written for agg (mode=agg, pool columns 0).

Where an entry's tp/ep/dp-attn are placeholders (dynamo-sglang on GB200/GB300
in late 2025: tp 1, dp-attn true and PREFILL_NODES/DECODE_NODES giving the
layout, see node_gpus), prefill_gpus / decode_gpus give each worker's GPUs
(nodes x 4 / workers) and the worker runs attention DP and EP over all of
them (attention-DP and EP columns = the GPUs, prefill_moe_ep_size too); 0 in
those columns: the row's recorded tp_size and prefill EP stand.

SGLang DeepSeek-R1 P/D rows on GB200/GB300 also get the redundant expert
slots each pool launched with (see redundant_experts): the dynamo-sglang
entries run dynamo's slurm_jobs scripts (components/backends/sglang/
slurm_jobs/scripts/gb200-fp8.sh, gb200-fp4.sh) and, later, srt-slurm's
recipes (recipes/gb200-fp8/*, recipes/gb200-fp4/*), all of which set
--ep-num-redundant-experts 32 on the decode workers, and on the prefill
workers for fp8 (fp4 prefill: none); 256 + 32 = 288 slots is what lets EP
24 and 48 run ("We have 288 (256 + 32 redundant) => 288/48 = 6",
gb200-fp4.sh @ 44884ef2).  No --enable-eplb: a fixed placement.

TensorRT-LLM P/D rows also get their prefill workers' limits: the entry's
recipe (CONFIG_FILE=recipes/trtllm/...) is srt-slurm's, whose
backend.trtllm_config.prefill gives max_batch_size and max_num_tokens (e.g. 8
and 10240 for ctx1_gen1_dep8_batch512_eplb0_mtp0.yaml); the recipe is read as
it stood on the row's measurement day in NVIDIA/srt-slurm's history (which
holds the sa-submission recipes InferenceX's comments link), else its earliest
version, and written only when every matching entry's recipe agrees (0: not
known).  The GB200 dynamo-trt entries of December 2025 name no recipe but set
the launch script's variables: PREFILL_MAX_BATCH_SIZE / PREFILL_MAX_NUM_TOKENS
give the prefill limits, DECODE_MAX_BATCH_SIZE the decode batch and
DECODE_MTP_SIZE the MTP depth.  Where an MTP entry names no depth, its recipe's
decode workers do: TensorRT-LLM's speculative_config.num_nextn_predict_layers,
SGLang's speculative-num-steps (EAGLE top-1; recipe_mtp).

SGLang rows whose entries launch srt-slurm recipes also get each pool's
launch limits from the recipe's backend.sglang_config (sglang_recipe_limits:
max-running-requests, chunked-prefill-size, max-prefill-tokens,
scheduler-recv-interval; empty where the recipe leaves one out).  servesim
reads and keeps them but does not replay them: with them the P/D TTFT is
further off (eval/silicon/HARNESS.md, "sgpdlim").

The db-dump disagg rows record their pools but not the launch's limits:
their prefill_batch_size is the generator rule's default 1 and their
decode_batch_size the client's concurrency split over the decode workers
and ranks, on every one of them, where the twins of the same runs in the
blank sources launched from recipes with other limits.  For such a row the
plain entries of its point whose pools are the recorded ones
(recorded_candidates; the concurrency the entry's recipe benchmarks, else
its conc-list: runs_at) give the decode batch and the prefill limits, written
with the recorded pools where every such entry agrees (recorded_rows).

Blank-source rows that no InferenceX entry launched but that one srt-slurm
recipe directory, pinned at the commit that added it, ran (RECIPE_DIRS: the
22 GLM-5 fp4 TensorRT-LLM GB200 runs, recipes/GLM5/disagg/trtllm_dynamo/
gb200_nvfp4/ at b8ae71a5) take their pools from the one recipe of the
directory whose benchmark ISL/OSL and concurrencies and whose prefill and
decode worker GPUs match the row (recipe_dir_line): worker counts,
attention DP, EP, the decode batch, the prefill limits, MTP and an EPLB's
redundant decode slots; config names srt-slurm@commit:recipe.

usage: inferencex_pools.py INFERENCEX_GIT_DIR SRT_SLURM_GIT_DIR SILICON_CSV.gz [SILICON_CSV.gz...] OUT.csv
       inferencex_pools.py --test   (checks mtp_partner and recipe_dir_line on made-up rows)
(INFERENCEX_GIT_DIR: a clone of SemiAnalysisAI/InferenceX with its history;
SRT_SLURM_GIT_DIR: a clone of NVIDIA/srt-slurm with its history.)
"""
import csv, gzip, re, subprocess, sys

import yaml

CFG = ".github/configs/nvidia-master.yaml"
GPU = {"b200_sxm": "b200", "b300_sxm": "b300", "h200_sxm": "h200", "h100_sxm": "h100",
       "gb200": "gb200", "gb300": "gb300"}
FRAMEWORK = {"trtllm": "dynamo-trt", "sglang": "dynamo-sglang", "vllm": "dynamo-vllm"}
PREFIX = {"deepseek-ai/DeepSeek-R1": "dsr1", "openai/gpt-oss-120b": "gptoss",
          "moonshotai/Kimi-K2.5": "kimik2.5", "zhipuai/GLM-5": "glm5"}
BLANK_SOURCES = ("source_file=2026-03-25.csv", "source_file=2026-04-06.csv")



def one(x):
    """A size column as a count: blank or 0 read as 1."""
    return int(float(x or 1)) or 1

def git(repo, *args):
    return subprocess.run(["git", "--git-dir", repo] + list(args), check=True,
                          capture_output=True, text=True).stdout


def history(repo):
    """(iso date, commit, parsed config) of every commit touching CFG, oldest first."""
    out = []
    for line in git(repo, "log", "--format=%cI %H", "--until=2026-04-30", "--", CFG).splitlines():
        date, commit = line.split()
        try:
            out.append((date[:10], commit, yaml.safe_load(git(repo, "show", commit + ":" + CFG))))
        except (subprocess.CalledProcessError, yaml.YAMLError):
            continue
    out.reverse()
    return out


def source_fields(src):
    return dict(p.strip().split("=", 1) for p in src.split(";") if "=" in p)


def settings(entry):
    """An entry's additional settings (recipe file, launch variables) as one text."""
    return " ".join(str(s) for side in ("prefill", "decode")
                    for s in entry[side].get("additional-settings") or [])


def recipe(entry):
    """Decode batch and MTP depth from a TensorRT-LLM recipe name, or from the
    launch script's DECODE_MAX_BATCH_SIZE / DECODE_MTP_SIZE settings (the
    GB200 dynamo-trt entries of December 2025, which name no recipe); 0: not
    named."""
    text = settings(entry)
    b = re.search(r"_batch(\d+)_", text) or re.search(r"DECODE_MAX_BATCH_SIZE=(\d+)", text)
    m = re.search(r"_mtp(\d+)[_.]", text) or re.search(r"DECODE_MTP_SIZE=(\d+)", text)
    return (int(b.group(1)) if b else 0), (int(m.group(1)) if m else 0)


def recipe_path(entry):
    """The srt-slurm recipe an entry launches (CONFIG_FILE=...), or None."""
    for side in ("prefill", "decode"):
        for s in entry[side].get("additional-settings") or []:
            m = re.match(r"CONFIG_FILE=(\S+\.yaml)", str(s))
            if m:
                return m.group(1)
    return None


_docs = {}


def recipe_doc(srt, path, day):
    """An srt-slurm recipe as the file stood on day (else its earliest
    version), parsed; {} when unknown."""
    if path is None or srt is None:
        return {}
    if (path, day) in _docs:
        return _docs[(path, day)]
    doc = {}
    log = [l.split() for l in git(srt, "log", "--all", "--format=%cI %H", "--", path).splitlines()]
    if log:
        before = [c for d, c in log if d[:10] <= day]
        commit = before[0] if before else log[-1][1]
        try:
            doc = yaml.safe_load(git(srt, "show", commit + ":" + path)) or {}
        except (subprocess.CalledProcessError, yaml.YAMLError):
            doc = {}
    _docs[(path, day)] = doc if isinstance(doc, dict) else {}
    return _docs[(path, day)]


def prefill_limits(srt, entry, day):
    """(max_batch_size, max_num_tokens) of an entry's TensorRT-LLM prefill
    workers: its launch variables PREFILL_MAX_BATCH_SIZE / PREFILL_MAX_NUM_TOKENS
    where it sets both, else its recipe's as the file stood on day (else its
    earliest version); (0, 0) when unknown."""
    text = settings(entry)
    b, t = re.search(r"PREFILL_MAX_BATCH_SIZE=(\d+)", text), re.search(r"PREFILL_MAX_NUM_TOKENS=(\d+)", text)
    if b and t and int(b.group(1)) > 0 and int(t.group(1)) > 0:
        return (int(b.group(1)), int(t.group(1)))
    path = recipe_path(entry)
    pre = ((recipe_doc(srt, path, day).get("backend") or {}).get("trtllm_config") or {}).get("prefill") or {}
    b, t = pre.get("max_batch_size"), pre.get("max_num_tokens")
    if isinstance(b, int) and isinstance(t, int) and b > 0 and t > 0:
        return (b, t)
    return (0, 0)


def prefill_layout(srt, entry, day):
    """(attention DP, EP, GPUs) an entry's TensorRT-LLM prefill workers launch with:
    its recipe's backend.trtllm_config.prefill enable_attention_dp (attention
    DP over the recipe's tensor_parallel_size GPUs, else 1) and
    moe_expert_parallel_size, as the file stood on day (else its earliest
    version); None when the recipe does not name all three.  The recipe is
    what srt-slurm launches; InferenceX's dp-attn / ep fields label it and can
    disagree: every version of the H200 recipes runs 1k1k prefill with
    attention DP and 8k1k without, where nvidia-master.yaml @49f8ceee
    (2026-02-13) labels them the other way round, and the B200 fp8 8k1k
    recipes run the prefill experts at EP 1 where the February rows record
    EP 8 (eval/silicon/HARNESS.md, "pd3", 2026-12-01)."""
    pre = ((recipe_doc(srt, recipe_path(entry), day).get("backend") or {}).get("trtllm_config") or {}).get("prefill") or {}
    tp, adp, ep = pre.get("tensor_parallel_size"), pre.get("enable_attention_dp"), pre.get("moe_expert_parallel_size")
    if not isinstance(tp, int) or isinstance(tp, bool) or tp < 1 or not isinstance(adp, bool) or \
            not isinstance(ep, int) or isinstance(ep, bool) or ep < 1 or tp % ep != 0:
        return None
    return (tp if adp else 1, ep, tp)


def recipe_prefill(srt, row, entries, day):
    """The prefill layout every entry's recipe agrees on (prefill_layout), for
    a TensorRT-LLM row whose recorded prefill worker holds the recipe's GPUs;
    None otherwise."""
    if row["backend"] != "trtllm":
        return None
    lay = set(prefill_layout(srt, e, day) for e in entries)
    if len(lay) != 1:
        return None
    lay = lay.pop()
    if lay is None or lay[2] != one(row["prefill_tp_size"]) * one(row["prefill_attention_dp_size"]):
        return None
    return lay[:2]


def recipe_mtp(srt, entry, day):
    """Draft tokens of a recipe's decode workers (0: not found): TensorRT-LLM's
    speculative_config.num_nextn_predict_layers, SGLang's EAGLE top-1
    speculative-num-steps (that many drafts, as the agg launch scripts)."""
    back = recipe_doc(srt, recipe_path(entry), day).get("backend") or {}
    trt = ((back.get("trtllm_config") or {}).get("decode") or {}).get("speculative_config") or {}
    sgl = (back.get("sglang_config") or {}).get("decode") or {}
    for v in (trt.get("num_nextn_predict_layers"),
              sgl.get("speculative-num-steps") if sgl.get("speculative-eagle-topk", 1) == 1 else None):
        if isinstance(v, int) and v > 0:
            return v
    return 0


def twin_key(row):
    # db-dump names DeepSeek-R1 runs DeepSeek-V3 (same architecture)
    return (row["backend"], row["system"], row["isl"], row["osl"],
            round(float(row["silicon_ttft_ms"]), 6), round(float(row["silicon_tpot_ms"]), 6))


# GPUs per node of the rack-scale runners (GB200/GB300 NVL72 trays)
NODE_GPUS = {"gb200": 4, "gb300": 4}


def node_gpus(entry, side, row):
    """GPUs per worker of an entry whose tp/ep/dp-attn are placeholders:
    InferenceX's dynamo-sglang GB200/GB300 entries of late 2025 set tp 1,
    ep 1 and give the layout as PREFILL_NODES/DECODE_NODES (their comment:
    "tp, ep, and dp-attn do nothing because they are hardcoded in" the
    launch script, which runs --tp-size and --dp-size TOTAL_GPUS with
    --enable-deepep-moe, whose EP SGLang sets to the tp size, i.e. attention
    DP and EP over every GPU of the worker: the entries' own comments say
    "DEP4", "DEP8", "DEP48").  0: not such an entry."""
    s = entry[side]
    if s.get("tp") != 1 or not s.get("dp-attn") or row["backend"] != "sglang":
        return 0
    per = NODE_GPUS.get(GPU.get(row["system"]))
    for a in s.get("additional-settings") or []:
        m = re.match(r"%s_NODES=(\d+)$" % side.upper(), str(a))
        if m and per and (int(m.group(1)) * per) % s["num-worker"] == 0:
            return int(m.group(1)) * per // s["num-worker"]
    return 0


def redundant_experts(row):
    """(prefill, decode) redundant expert slots of a row's launch line: SGLang
    DeepSeek-R1 on GB200/GB300 through dynamo-sglang (module docstring);
    else (0, 0)."""
    if row["backend"] != "sglang" or GPU.get(row["system"]) not in NODE_GPUS or \
            PREFIX.get(row["model_path"]) != "dsr1":
        return 0, 0
    return (32 if row["precision"] == "fp8" else 0), 32


def sglang_recipe_sides(srt, row, entries, day, side_values):
    """side_values(x) of both pools' backend.sglang_config x (prefill's,
    then decode's, joined into one tuple) of an SGLang row whose every
    matching entry launches an srt-slurm recipe naming both, as the file
    stood on day (else its earliest version), where every entry's recipe
    gives the same; None where an entry names no recipe or a pool's config,
    side_values returns None for one, or the recipes disagree."""
    if row["backend"] != "sglang" or not entries:
        return None
    got = set()
    for e in entries:
        if recipe_path(e) is None:
            return None
        sg = (recipe_doc(srt, recipe_path(e), day).get("backend") or {}).get("sglang_config") or {}
        vals = ()
        for side in ("prefill", "decode"):
            x = sg.get(side)
            v = side_values(x) if isinstance(x, dict) else None
            if v is None:
                return None
            vals += v
        got.add(vals)
    return got.pop() if len(got) == 1 else None


def sglang_recipe_pools(srt, row, entries, day):
    """((prefill, decode) redundant expert slots, (prefill, decode)
    mem-fraction-static) of an SGLang row whose every matching entry launches
    an srt-slurm recipe (CONFIG_FILE=recipes/...) with both pools'
    backend.sglang_config: each pool's ep-num-redundant-experts (absent: 0)
    and mem-fraction-static (absent: 0, SGLang's rule), as the file stood on
    day (else its earliest version), where every entry's recipe agrees; None
    otherwise (the launch scripts of late 2025 name no recipe:
    redundant_experts' rule stands).  The recipes are what ran: e.g.
    recipes/gb200-fp8/1k1k/low-latency.yaml (75f6e32a .. 04ff0a0a) runs both
    TP 4 pools with mem-fraction-static 0.95 and no redundant experts, which
    the launch scripts' rule gave them (32), and without which DeepSeek-R1
    fp8 does not fit four GB200s."""
    def side(x):
        red, mfs = x.get("ep-num-redundant-experts", 0), x.get("mem-fraction-static", 0)
        if not isinstance(red, int) or isinstance(red, bool) or red < 0 or \
                not isinstance(mfs, (int, float)) or isinstance(mfs, bool) or not 0 <= mfs <= 1:
            return None
        return (red, mfs)
    got = sglang_recipe_sides(srt, row, entries, day, side)
    if got is None:
        return None
    pred, pmfs, dred, dmfs = got
    return (pred, dred), (pmfs, dmfs)


# an SGLang pool's launch limits that sglang_recipe_limits carries over from
# its recipe, in the column order (prefill_sglang_..., decode_sglang_...)
SGLANG_LIMITS = ("max-running-requests", "chunked-prefill-size", "max-prefill-tokens", "scheduler-recv-interval")


def sglang_recipe_limits(srt, row, entries, day):
    """Each pool's SGLANG_LIMITS of an SGLang row whose every matching entry
    launches an srt-slurm recipe with both pools' backend.sglang_config, as
    the file stood on day (else its earliest version): a tuple of 2 x 4
    values (prefill's, then decode's), each a whole number >= 1, -1 for
    chunked-prefill-size -1 (chunking off), or "" where the recipe does not
    name it (SGLang's default ran); None where an entry names no recipe,
    a value is not such a number, or the entries' recipes disagree.  These
    bound an SGLang server's batches: max-running-requests (divided over the
    attention-DP ranks), the chunk (divided likewise), max-prefill-tokens (a
    rank's prompt tokens a prefill batch; not divided) and
    --scheduler-recv-interval; e.g. recipes/gb200-fp8/1k1k/max-tpt.yaml
    (c88ef731) runs its DEP 8 prefill workers with 30000 requests and a
    131072-token chunk, where the generator's rule gives one prompt a rank."""
    def side(x):
        vals = ()
        for k in SGLANG_LIMITS:
            v = x.get(k, "")
            if v != "" and (not isinstance(v, int) or isinstance(v, bool) or
                            not (v >= 1 or (v == -1 and k == "chunked-prefill-size"))):
                return None
            vals += (v,)
        return vals
    return sglang_recipe_sides(srt, row, entries, day, side)


# the recipe history and the row's measurement day that candidates and
# recorded_candidates read (runs_at); on_the_day's matchers take (cfg, row, conc)
SRT, DAY = [None], [""]
# the InferenceX repository (sweeps_launch reads the launch scripts)
REPO = [None]


def point_entries(cfg, row, conc):
    """(key, search-space entry) of every disagg entry of the row's model,
    precision, framework, GPU and ISL/OSL that ran concurrency conc
    (runs_at), as cfg stood on DAY."""
    for key, v in cfg.items():
        if not isinstance(v, dict) or not v.get("disagg"):
            continue
        if v.get("model-prefix") != PREFIX.get(row["model_path"]) or v.get("precision") != row["precision"]:
            continue
        if not str(v.get("framework", "")).startswith(FRAMEWORK[row["backend"]]):
            continue
        if str(v.get("runner", "")).split("-")[0] != GPU.get(row["system"]):
            continue
        for s in v.get("seq-len-configs") or []:
            if s.get("isl") != int(row["isl"]) or s.get("osl") != int(row["osl"]):
                continue
            for e in s.get("search-space") or []:
                if runs_at(SRT[0], e, conc, DAY[0], key):
                    yield key, e


def candidates(cfg, row, conc):
    for key, e in point_entries(cfg, row, conc):
        p, d = e["prefill"], e["decode"]
        if p["tp"] != int(row["prefill_tp_size"]) or p["ep"] != int(row["prefill_moe_ep_size"]):
            continue
        if d["tp"] != int(row["decode_tp_size"]):
            continue
        spec = str(e.get("spec-decoding") or "none").lower()
        batch, mtp = recipe(e)
        pg, dg = node_gpus(e, "prefill", row), node_gpus(e, "decode", row)
        yield key, (p["num-worker"], d["num-worker"],
                    pg or (p["tp"] if p.get("dp-attn") else 1), dg or (d["tp"] if d.get("dp-attn") else 1),
                    dg or d["ep"], batch, "mtp" if spec == "mtp" else "none", mtp if spec == "mtp" else 0,
                    pg, dg, pg), \
            e


def recipe_concurrencies(srt, entry, day):
    """The client concurrencies an entry's srt-slurm recipe benchmarks
    (benchmark.concurrencies: "36" or "128x256x512"), as the file stood on
    day; None when no recipe or none named.  The H200 dynamo-trt entries of
    February 2026 label a run by its concurrency per decode worker
    (conc-list [4], recipe c4_ctx1_gen9_tep8_batch256_eplb0_mtp0.yaml) while
    the recipe's client ran 36, the row's silicon_concurrency."""
    b = recipe_doc(srt, recipe_path(entry), day).get("benchmark") or {}
    v = b.get("concurrencies")
    if isinstance(v, int):
        return {v}
    if isinstance(v, str) and re.fullmatch(r"\d+(x\d+)*", v.strip()):
        return set(int(x) for x in v.strip().split("x"))
    if isinstance(v, list) and all(isinstance(x, int) for x in v):
        return set(v)
    return None


_sweeps = {}


def sweeps_launch(key, day):
    """Whether config entry key's launch script, as it stood on day, ran
    Dynamo's TensorRT-LLM performance sweeps (ai-dynamo/dynamo
    components/backends/trtllm/performance_sweeps: benchmark_disagg.slurm
    hands the decode worker count to scripts/bench.sh as num_gen_servers, and
    bench.sh runs each listed concurrency times it, `concurrency=$((concurrency
    * num_gen_servers))`, with 8 x that many prompts).  Read from the
    script's version of that day: InferenceX's
    benchmarks/dsr1_fp4_gb200_dynamo-trt_slurm.sh did in most versions of
    2025-11-24 to 2026-01-12 and none after (srt-slurm recipes); some
    gptoss_fp4_gb200_dynamo-trt versions did.  False without a repository."""
    if REPO[0] is None or not key.endswith("-dynamo-trt"):
        return False
    if (key, day) not in _sweeps:
        name = key[:-len("-dynamo-trt")].replace("-", "_") + "_dynamo-trt"
        found = False
        for path in ("benchmarks/%s_slurm.sh" % name, "benchmarks/multi_node/%s.sh" % name, "benchmarks/%s.sh" % name):
            commit = git(REPO[0], "log", "-1", "--all", "--until=%sT23:59:59Z" % day, "--format=%H", "--", path).strip()
            try:
                text = git(REPO[0], "show", "%s:%s" % (commit, path)) if commit else None
            except subprocess.CalledProcessError:  # (deleted by that commit: not there that day)
                text = None
            if text is not None:
                found = "performance_sweeps" in text
                break
        _sweeps[(key, day)] = found
    return _sweeps[(key, day)]


def runs_at(srt, entry, conc, day, key=""):
    """Whether an entry ran concurrency conc: its recipe's benchmark
    concurrencies where the recipe names them; else its conc-list, each
    times the decode workers where Dynamo's performance sweeps ran it
    (sweeps_launch): db-dump's dsr1 GB200 fp4 cfg237 runs at 4 ... 564 clients
    are conc-list [1, 2, 4, 8, 16, 32, 64, 141] on 4 decode workers."""
    named = recipe_concurrencies(srt, entry, day) if srt else None
    if named:
        return conc in named
    listed = entry.get("conc-list") or []
    if sweeps_launch(key, day):
        return conc in [c * entry["decode"]["num-worker"] for c in listed]
    return conc in listed


def recorded_candidates(cfg, row, conc):
    """The plain entries of a db-dump disagg row's point whose pools are the
    row's recorded ones: per pool the worker count, the GPUs a worker holds
    (tp x attention DP recorded; the entry's tp), attention DP (the entry's
    tp where dp-attn, else 1) and EP (db-dump records them as the launch ran
    them: 221 twins agree, module docstring).  db-dump holds plain runs
    (mtp_partner), so MTP entries are left out."""
    rec = {side: (one(row[side + "_num_workers"]), one(row[side + "_tp_size"]) * one(row[side + "_attention_dp_size"]),
                  one(row[side + "_attention_dp_size"]), one(row[side + "_moe_ep_size"]))
           for side in ("prefill", "decode")}
    for key, e in point_entries(cfg, row, conc):
        if str(e.get("spec-decoding") or "none").lower() == "mtp":
            continue
        if any(node_gpus(e, side, row) for side in ("prefill", "decode")):
            continue
        if all((e[side]["num-worker"], e[side]["tp"], e[side]["tp"] if e[side].get("dp-attn") else 1,
                e[side]["ep"]) == rec[side] for side in ("prefill", "decode")):
            yield key, recipe(e)[0], e


# db-dump names its DeepSeek-R1 runs deepseek-ai/DeepSeek-V3 (ids dsr1_...; twin_key)
DBDUMP_MODEL = {"dsr1": "deepseek-ai/DeepSeek-R1"}


def db_prefix(row):
    """The InferenceX model prefix of a db-dump row: its model's, else its id's
    (dsr1_... under DeepSeek-V3); None if neither names one."""
    p = PREFIX.get(row["model_path"])
    if p is None and row["model_path"] == "deepseek-ai/DeepSeek-V3" and row["id"].startswith("dsr1_"):
        p = "dsr1"
    return p


def recorded_rows(hist, srt, rows, counts):
    """Limits of the db-dump disagg rows that record their pools.  db-dump
    records what aiconfigurator's generator would write, not the launch's
    limits: prefill_batch_size is 1 on all of its 274 disagg rows (the
    generator rule's default) and decode_batch_size x decode workers x decode
    attention DP is the client's concurrency on every one (a concurrency
    split), while the twins the blank sources hold of the same runs
    (identical TTFT and TPOT) launched from recipes with other limits (e.g.
    cfg386 c27: decode batch 9 recorded, recipe batch 8 on 3 workers, so
    three of the 27 clients wait for a decode slot).  For each such row of
    an InferenceX model, the plain entries of its point on its measurement
    day (recorded_candidates) give the decode batch (recipe name or launch
    variable) and the prefill limits (recipe); written where every matching
    entry agrees and one of them is named, with the recorded pools."""
    out = []
    for row in rows:
        if row["mode"] != "disagg" or not row["prefill_num_workers"] or \
                not row["silicon_data_source"].startswith("db-dump/") or db_prefix(row) is None:
            continue
        row = dict(row, model_path=DBDUMP_MODEL.get(db_prefix(row), row["model_path"]))
        f = source_fields(row["silicon_data_source"])
        if "silicon_concurrency" not in f or "measured" not in f:
            continue
        counts["recorded"] += 1
        SRT[0], DAY[0] = srt, f["measured"][:10]
        found = on_the_day(hist, row, f, recorded_candidates)
        if not found:
            continue
        commit, c = found
        day = f["measured"][:10]
        lim = set((b,) + prefill_limits(srt, e, day) for _, b, e in c)
        if len(lim) != 1:
            counts["recorded ambiguous"] += 1
            continue
        dbatch, pbatch, ptokens = lim.pop()
        if not dbatch and not pbatch:
            continue
        counts["recorded limits"] += 1
        padp, pep = one(row["prefill_attention_dp_size"]), 0
        lay = recipe_prefill(srt, row, [e for _, _, e in c], day)
        if lay:
            counts["recorded prefill layout"] += 1
            if lay != (padp, one(row["prefill_moe_ep_size"])):
                counts["recorded prefill relaid"] += 1
                padp, pep = lay[0], (lay[1] if lay[1] != one(row["prefill_moe_ep_size"]) else 0)
        out.append([row["id"], "disagg", one(row["prefill_num_workers"]), one(row["decode_num_workers"]),
                    padp, one(row["decode_attention_dp_size"]),
                    one(row["decode_moe_ep_size"]), dbatch, "none", 0,
                    "%s@%s:%s" % (CFG.split("/")[-1], commit[:12], c[0][0]), pbatch, ptokens, 0, 0, pep, 0, 0, "", ""] + [""] * 8)
    return out


# Blank-source runs that no InferenceX entry launched but one srt-slurm recipe
# directory does, pinned at the commit that added it: (model_path, system,
# precision, backend) -> (srt-slurm commit, directory).  The GLM-5 fp4
# TensorRT-LLM P/D runs (source_file=2026-03-25.csv, measured 2026-04-02) are
# the 13 recipes NVIDIA/srt-slurm b8ae71a5 (2026-04-03) added: every
# concurrency list and decode layout of the 22 runs is one of theirs, each
# loads models/GLM-5-NVFP4 in a TensorRT-LLM image of 2026-04-02, and
# InferenceX's configuration has no GLM-5 TensorRT-LLM entry then
# (eval/silicon/HARNESS.md, "ckptffn", "pdx").
RECIPE_DIRS = {
    ("zhipuai/GLM-5", "gb200", "fp4", "trtllm"):
        ("b8ae71a53eb0c6c5a61b61fb66e0cf9efcb40dd4", "recipes/GLM5/disagg/trtllm_dynamo/gb200_nvfp4/"),
}
# routed experts of the models RECIPE_DIRS names (data/models/glm-5.json
# n_routed_experts): an EPLB load balancer's num_slots beyond them are
# redundant expert slots
RECIPE_EXPERTS = {"zhipuai/GLM-5": 256}


def recipe_dir_line(row, docs):
    """The pools line of a blank-source TensorRT-LLM disagg row from the one
    recipe of its RECIPE_DIRS directory that ran it: benchmark ISL/OSL and
    concurrencies, and the recorded prefill and decode worker GPUs
    (tensor_parallel_size; the sources record a worker's GPUs as tp_size);
    None unless exactly one recipe matches.  Worker counts from resources,
    attention DP (tp when enable_attention_dp) and EP from trtllm_config, the
    decode batch the launch's max_batch_size, the prefill limits, MTP from
    speculative_config, redundant decode slots from an EPLB load balancer's
    num_slots."""
    f = source_fields(row["silicon_data_source"])
    conc = f.get("silicon_concurrency")
    hits = []
    for path, commit, d in docs:
        b = d.get("benchmark") or {}
        t = (d.get("backend") or {}).get("trtllm_config") or {}
        res = d.get("resources") or {}
        pre, dec = t.get("prefill") or {}, t.get("decode") or {}
        concs = str(b.get("concurrencies", "")).replace("x", " ").split()
        if str(b.get("isl")) != row["isl"] or str(b.get("osl")) != row["osl"] or conc not in concs:
            continue
        if pre.get("tensor_parallel_size") != one(row["prefill_tp_size"]) * one(row["prefill_attention_dp_size"]) or \
                dec.get("tensor_parallel_size") != one(row["decode_tp_size"]) * one(row["decode_attention_dp_size"]):
            continue
        hits.append((path, commit, res, pre, dec))
    if len(hits) != 1:
        return None
    path, commit, res, pre, dec = hits[0]
    spec = dec.get("speculative_config") or {}
    mtp = spec.get("num_nextn_predict_layers") or 0
    slots = ((dec.get("moe_config") or {}).get("load_balancer") or {}).get("num_slots") or 0
    dred = max(0, slots - RECIPE_EXPERTS[row["model_path"]])
    padp = pre["tensor_parallel_size"] if pre.get("enable_attention_dp") else 1
    dadp = dec["tensor_parallel_size"] if dec.get("enable_attention_dp") else 1
    pep = pre["moe_expert_parallel_size"]
    return [row["id"], "disagg", res["prefill_workers"], res["decode_workers"], padp, dadp,
            dec["moe_expert_parallel_size"], dec["max_batch_size"], "mtp" if mtp else "none", mtp,
            "srt-slurm@%s:%s" % (commit[:8], path), pre["max_batch_size"], pre["max_num_tokens"],
            0, 0, pep if pep != one(row["prefill_moe_ep_size"]) else 0, 0, dred, "", ""] + [""] * 8


def recipe_dir_rows(srt, rows, done, counts):
    """Lines for the blank-source disagg rows of RECIPE_DIRS that the
    InferenceX pass left without one (done: the ids it wrote)."""
    out, docs = [], {}
    for row in rows:
        key = (row["model_path"], row["system"], row["precision"], row["backend"])
        if row["mode"] != "disagg" or row["prefill_num_workers"] or row["id"] in done or key not in RECIPE_DIRS or \
                not row["silicon_data_source"].startswith(BLANK_SOURCES):
            continue
        if key not in docs:
            commit, folder = RECIPE_DIRS[key]
            docs[key] = []
            for path in git(srt, "ls-tree", "-r", "--name-only", commit, "--", folder).split():
                if path.endswith(".yaml"):
                    docs[key].append((path, commit, yaml.safe_load(git(srt, "show", commit + ":" + path)) or {}))
        counts["recipe dir"] += 1
        line = recipe_dir_line(row, docs[key])
        if line:
            counts["recipe dir kept"] += 1
            out.append(line)
    return out


def disagg_point(row, f):
    """A disagg run's point: engine, GPU, model, precision, ISL/OSL,
    concurrency, the recorded prefill tp/ep and decode tp, measurement day."""
    return (row["backend"], row["system"], row["model_path"], row["precision"], row["isl"], row["osl"],
            f.get("silicon_concurrency"), row["prefill_tp_size"], row["prefill_moe_ep_size"],
            row["decode_tp_size"], f.get("measured", "")[:10])


def disagg_points(rows):
    """Per point (disagg_point) of the blank-count sources, its distinct
    measurements (twin_key), and those of db-dump's rows of the point that
    the blank sources do not repeat (db-dump's DeepSeek-R1 under its own
    name): the plain run of a point whose MTP run only a blank source holds
    (DeepSeek-R1 GB200 fp4 1024/1024 of 2025-12-19: c32 and c64 ran plain,
    db-dump cfg237, and with MTP, conc-list 8 and 16 on 4 decode workers,
    2026-04-06.csv; mtp_partner)."""
    out = {}
    for row in rows:
        src = row["silicon_data_source"]
        if row["mode"] != "disagg":
            continue
        if src.startswith("db-dump/") and row["prefill_num_workers"] and db_prefix(row) is not None:
            row = dict(row, model_path=DBDUMP_MODEL.get(db_prefix(row), row["model_path"]))
        elif not src.startswith(BLANK_SOURCES) or row["prefill_num_workers"]:
            continue
        out.setdefault(disagg_point(row, source_fields(src)), set()).add(twin_key(row))
    return out


def mtp_partner(row, f, c, points, dbruns):
    """The matching entries of an ambiguous disagg row that ran MTP, or None.
    Where a plain and an MTP entry both cover a point (same layout and
    concurrency), both ran that day and the point holds two measurements.
    aiconfigurator's db-dump holds plain P/D runs (of the rows one entry
    derives, 219 of 463 plain rows repeat a db-dump run, 2 of 260 MTP rows,
    one run; eval/silicon/HARNESS.md, "MTP runs beside plain ones"): when
    exactly one of the two
    repeats a db-dump run, that one is the plain entry's (its pools must
    agree with db-dump's record) and the other, this row, the MTP entry's.
    The MTP entries must agree among themselves."""
    runs = points.get(disagg_point(row, f), set())
    if len(runs) != 2 or twin_key(row) in dbruns:
        return None
    plain = [k for k in runs if k in dbruns]
    if len(plain) != 1:
        return None
    mtp = [x for x in c if x[1][6] == "mtp"]
    rest = set(x[1] for x in c if x[1][6] != "mtp")
    if not mtp or len(set(x[1] for x in mtp)) != 1 or len(rest) != 1:
        return None
    t, v = dbruns[plain[0]], rest.pop()
    if (v[0], v[1], v[2], v[3], v[4]) != (one(t["prefill_num_workers"]), one(t["decode_num_workers"]),
                                          one(t["prefill_attention_dp_size"]),
                                          one(t["decode_attention_dp_size"]), one(t["decode_moe_ep_size"])):
        return None
    return mtp


def plain_by_twin(v, row, dbruns):
    """The pools v of a kept row, made plain where v says MTP and the row
    repeats a db-dump run: db-dump holds the plain P/D runs (mtp_partner),
    so a blank row with db-dump's means is the plain run even where the
    day's one matching entry is an MTP one (the DeepSeek-R1 GB200 fp4
    1024/8192 c7 run, db-dump cfg423: eval/silicon/HARNESS.md, "pdtwins",
    "pdttft3").  Returns (pools, changed)."""
    if v[6] != "mtp" or twin_key(row) not in dbruns:
        return v, False
    return v[:6] + ("none", 0) + v[8:], True


def on_the_day(hist, row, fields, match):
    """(commit, matching entries) of the configuration as it stood on the row's
    measurement day: the latest commit on or before it with a match; None."""
    conc, day = int(fields["silicon_concurrency"]), fields["measured"][:10]
    found = None
    for date, commit, cfg in hist:
        if date > day:
            break
        c = list(match(cfg, row, conc))
        if c:
            found = (commit, c)
    return found


AGG_FRAMEWORK = {"trtllm": "trt", "sglang": "sglang", "vllm": "vllm"}


def agg_candidates(cfg, row, conc):
    for key, v in cfg.items():
        if not isinstance(v, dict) or v.get("disagg") or v.get("multinode"):
            continue
        if v.get("model-prefix") != PREFIX.get(row["model_path"]) or v.get("precision") != row["precision"]:
            continue
        if v.get("framework") != AGG_FRAMEWORK[row["backend"]]:
            continue
        if str(v.get("runner", "")).split("-")[0] != GPU.get(row["system"]):
            continue
        tag = str(v.get("image", "")).rsplit(":", 1)[-1]
        ver = row["backend_version"]
        if not ver or not (tag in (ver, "v" + ver) or tag.startswith((ver + "-", "v" + ver + "-"))):
            continue
        for s in v.get("seq-len-configs") or []:
            if s.get("isl") != int(row["isl"]) or s.get("osl") != int(row["osl"]):
                continue
            for e in s.get("search-space") or []:
                if not (e.get("conc-start", 0) <= conc <= e.get("conc-end", 0)) or e.get("tp") != int(row["tp_size"]):
                    continue
                spec = str(e.get("spec-decoding") or ("mtp" if key.endswith("-mtp") else "none")).lower()
                yield key, ("mtp" if spec == "mtp" else "none", bool(e.get("dp-attn")))


def agg_drafts(repo, commit, key, backend, dp_attn):
    """Draft tokens the entry's launch script sets (0: not found)."""
    name = key.replace("-sglang", "").replace("-", "_") + ".sh"
    text = None
    for folder in ("benchmarks/single_node/", "benchmarks/"):
        try:
            text = git(repo, "show", "%s:%s%s" % (commit, folder, name))
            break
        except subprocess.CalledProcessError:
            continue
    if text is None:
        return 0
    if backend == "trtllm":
        v = [int(x) for x in re.findall(r"^\s*MTP=(\d+)", text, re.M)]
        return (min(v) if dp_attn else max(v)) if v else 0
    m = re.search(r"^\s*SPECULATIVE_NUM_STEPS=(\d+)", text, re.M)
    return int(m.group(1)) if m else 0


def agg_point(row, f):
    return (row["backend"], row["backend_version"], row["model_path"], row["system"], row["precision"],
            row["isl"], row["osl"], row["tp_size"], row["batch_size"], row["attention_dp_size"],
            f.get("measured", "")[:10])


def plain_runs(rows):
    """Per aggregated point of the blank-count sources (agg_point: engine,
    version, model, GPU, precision, ISL/OSL, tp, concurrency, attention DP,
    day): its distinct measurements ("runs") and which of them db-dump
    repeats ("db": twin_key).  aiconfigurator's db-dump holds no run of an
    MTP entry (none of the agg rows marked MTP by their entries alone has a
    db-dump twin): a point that a plain and an MTP entry both ran, measured
    twice that day, is the plain run where db-dump repeats it."""
    db = set(twin_key(r) for r in rows if r["mode"] == "agg" and r["silicon_data_source"].startswith("db-dump/"))
    out = {}
    for row in rows:
        if row["mode"] != "agg" or not row["silicon_data_source"].startswith(BLANK_SOURCES):
            continue
        f = source_fields(row["silicon_data_source"])
        p = out.setdefault(agg_point(row, f), {"runs": set(), "db": set()})
        p["runs"].add(twin_key(row))
        if twin_key(row) in db:
            p["db"].add(twin_key(row))
    for p in out.values():
        # exactly one of the two runs repeated by db-dump, else not resolved
        if len(p["db"]) != 1:
            p["runs"] = set()
    return out


def agg_rows(repo, hist, rows, counts):
    """The MTP agg rows (module docstring), and where a plain and an MTP entry
    both cover a row's point, the run db-dump does not repeat (plain_runs)."""
    out = []
    plain = plain_runs(rows)
    for row in rows:
        if row["mode"] != "agg" or PREFIX.get(row["model_path"]) is None:
            continue
        f = source_fields(row["silicon_data_source"])
        if "silicon_concurrency" not in f or "measured" not in f:
            continue
        found = on_the_day(hist, row, f, agg_candidates)
        if not found:
            continue
        commit, c = found
        specs = set(v for _, v in c)
        if len(specs) == 2 and set(s for s, _ in specs) == {"mtp", "none"}:
            # both entries ran this point: the plain run is the one db-dump
            # repeats; the other measurement of the point that day is MTP's
            seen = plain.get(agg_point(row, f))
            if seen is None or twin_key(row) in seen["db"] or len(seen["runs"]) != 2:
                continue
            c = [x for x in c if x[1][0] == "mtp"]
            counts["agg mtp by twin"] += 1
        elif len(specs) != 1 or next(iter(specs))[0] != "mtp":
            continue
        k = agg_drafts(repo, commit, c[0][0], row["backend"], c[0][1][1])
        counts["agg mtp"] += 1
        out.append([row["id"], "agg", 0, 0, 0, 0, 0, 0, "mtp", k,
                    "%s@%s:%s" % (CFG.split("/")[-1], commit[:12], c[0][0]), 0, 0, 0, 0, 0, 0, 0, "", ""] + [""] * 8)
    return out


def main():
    repo, srt, out_path = sys.argv[1], sys.argv[2], sys.argv[-1]
    REPO[0] = repo
    hist = history(repo)
    rows = []
    for silicon in sys.argv[3:-1]:
        rows += list(csv.DictReader(gzip.open(silicon, "rt")))
    counts = {"rows": 0, "kept": 0, "no entry": 0, "ambiguous": 0, "twin agrees": 0, "twin disagrees": 0,
              "agg mtp": 0, "agg mtp by twin": 0, "prefill limits": 0, "mtp by twin": 0,
              "mtp from recipe": 0, "recorded": 0, "recorded limits": 0, "recorded ambiguous": 0,
              "prefill layout": 0, "prefill relaid": 0, "recorded prefill layout": 0, "recorded prefill relaid": 0,
              "sglang recipe": 0, "sglang recipe redundant": 0, "sglang limits": 0, "recipe dir": 0, "recipe dir kept": 0,
              "plain by twin": 0}
    out = []
    twins = {}
    for row in rows:
        if row["mode"] == "disagg" and row["prefill_num_workers"]:
            twins[twin_key(row)] = row
    points, dbruns = disagg_points(rows), {k: v for k, v in twins.items()
                                           if v["silicon_data_source"].startswith("db-dump/")}
    for row in rows:
        if row["mode"] != "disagg" or row["prefill_num_workers"] or not row["silicon_data_source"].startswith(BLANK_SOURCES):
            continue
        counts["rows"] += 1
        f = source_fields(row["silicon_data_source"])
        SRT[0], DAY[0] = srt, f["measured"][:10]
        found = on_the_day(hist, row, f, candidates)
        if not found:
            counts["no entry"] += 1
            continue
        commit, c = found
        if len(set(v for _, v, _ in c)) != 1:
            c = mtp_partner(row, f, c, points, dbruns)
            if c is None:
                counts["ambiguous"] += 1
                continue
            counts["mtp by twin"] += 1
        v = c[0][1]
        lim = set(prefill_limits(srt, e, f["measured"][:10]) for _, _, e in c)
        lim = lim.pop() if len(lim) == 1 else (0, 0)
        counts["prefill limits"] += lim != (0, 0)
        if v[6] == "mtp" and not v[7]:
            # the depth the entry's name does not give: its recipe's
            depth = set(recipe_mtp(srt, e, f["measured"][:10]) for _, _, e in c)
            if len(depth) == 1 and min(depth) > 0:
                v = v[:7] + (depth.pop(),) + v[8:]
                counts["mtp from recipe"] += 1
        t = twins.get(twin_key(row))
        if t:
            # a node-named entry's twin records the entry's placeholder EP
            # (ep 1) although its launch script runs DeepEP, whose EP is
            # the worker's GPUs (node_gpus): EP is not compared there
            n = 4 if v[8] or v[9] else 5
            if (v[0], v[1], v[2], v[3], v[4])[:n] != (one(t["prefill_num_workers"]), one(t["decode_num_workers"]),
                                                      one(t["prefill_attention_dp_size"]),
                                                      one(t["decode_attention_dp_size"]),
                                                      one(t["decode_moe_ep_size"]))[:n]:
                counts["twin disagrees"] += 1
                continue
            counts["twin agrees"] += 1
        v, plain = plain_by_twin(v, row, dbruns)
        counts["plain by twin"] += plain
        lay = recipe_prefill(srt, row, [e for _, _, e in c], f["measured"][:10]) if not v[8] else None
        if lay:
            # the launch's prefill layout, after the twin check (db-dump
            # records the entry's labels, recorded_rows re-lays it alike);
            # the EP column only where it differs from the recorded one
            counts["prefill layout"] += 1
            rep = one(row["prefill_moe_ep_size"])
            if lay != (v[2], rep):
                counts["prefill relaid"] += 1
                v = v[:2] + (lay[0],) + v[3:10] + (lay[1] if lay[1] != rep else v[10],)
        counts["kept"] += 1
        red, mfs = redundant_experts(row), ("", "")
        sg = sglang_recipe_pools(srt, row, [e for _, _, e in c], f["measured"][:10])
        if sg:
            counts["sglang recipe"] += 1
            counts["sglang recipe redundant"] += sg[0] != red
            red, mfs = sg[0], tuple(x or "" for x in sg[1])
        sl = sglang_recipe_limits(srt, row, [e for _, _, e in c], f["measured"][:10])
        counts["sglang limits"] += sl is not None
        out.append([row["id"], "disagg"] + list(v[:8]) + ["%s@%s:%s" % (CFG.split("/")[-1], commit[:12], c[0][0])]
                   + list(lim) + list(v[8:]) + list(red) + list(mfs) + list(sl or ("",) * 8))
    with open(out_path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", "mode", "prefill_num_workers", "decode_num_workers", "prefill_attention_dp_size",
                    "decode_attention_dp_size", "decode_moe_ep_size", "decode_batch_size", "speculative",
                    "mtp_tokens", "config", "prefill_batch_size", "prefill_max_num_tokens", "prefill_gpus",
                    "decode_gpus", "prefill_moe_ep_size", "prefill_redundant_experts",
                    "decode_redundant_experts", "prefill_mem_fraction_static", "decode_mem_fraction_static"]
                   + ["%s_sglang_%s" % (side, k.replace("-", "_")) for side in ("prefill", "decode")
                      for k in SGLANG_LIMITS])
        w.writerows(out + agg_rows(repo, hist, rows, counts) + recorded_rows(hist, srt, rows, counts)
                    + recipe_dir_rows(srt, rows, set(l[0] for l in out), counts))
    sys.stderr.write("%(rows)d blank-count rows: %(kept)d kept, %(no entry)d without a matching entry, "
                     "%(ambiguous)d ambiguous (%(mtp by twin)d more kept as the MTP run beside a db-dump plain one); of the kept, %(twin agrees)d repeat a db-dump row and agree with its "
                     "pools (%(plain by twin)d of them named MTP by their entry and kept plain, as db-dump's run), %(twin disagrees)d more disagreed and were dropped; %(prefill limits)d kept rows with "
                     "their prefill limits from the recipe, %(mtp from recipe)d their MTP depth; %(agg mtp)d agg rows ran MTP (%(agg mtp by twin)d of them "
                     "where a plain entry covered the point too, told apart by db-dump); %(recorded limits)d of %(recorded)d db-dump "
                     "disagg rows with recorded pools took their limits from their plain entries (%(recorded ambiguous)d "
                     "entries disagreed); TensorRT-LLM prefill layouts from the recipes: %(prefill layout)d kept rows (%(prefill relaid)d "
                     "unlike their labels), %(recorded prefill layout)d db-dump rows (%(recorded prefill relaid)d unlike); SGLang "
                     "pools from their recipes (mem-fraction-static, redundant experts): %(sglang recipe)d kept rows "
                     "(%(sglang recipe redundant)d with other redundant experts than the launch scripts' rule), %(sglang limits)d with their limits; %(recipe dir kept)d of "
                     "%(recipe dir)d rows no entry launched from a pinned srt-slurm recipe directory\n" % counts)


def selftest():
    """mtp_partner on made-up rows: one case per way it resolves or refuses."""
    def row(src, ttft, tpot, workers=""):
        return {"mode": "disagg", "backend": "trtllm", "system": "b200_sxm", "model_path": "m", "precision": "fp8",
                "isl": "1024", "osl": "1024", "prefill_tp_size": "8", "prefill_moe_ep_size": "8",
                "decode_tp_size": "8", "silicon_ttft_ms": ttft, "silicon_tpot_ms": tpot,
                "silicon_data_source": src + "; silicon_concurrency=10; measured=2026-03-23T00:00:00Z",
                "prefill_num_workers": workers, "decode_num_workers": workers and "3",
                "prefill_attention_dp_size": workers and "8", "decode_attention_dp_size": workers and "1",
                "decode_moe_ep_size": workers and "1"}
    blank = "source_file=2026-03-25.csv"
    plain_run, mtp_run, third = row(blank, "300", "6.1"), row(blank, "310", "3.4"), row(blank, "320", "3.5")
    db = row("db-dump/2026-04-27", "300", "6.1", "1")
    plain = (1, 3, 8, 1, 1, 0, "none", 0, 0, 0, 0)
    mtp = (1, 3, 8, 1, 1, 8, "mtp", 3, 0, 0, 0)
    c = [("a", plain, {}), ("b", mtp, {})]
    f = source_fields(mtp_run["silicon_data_source"])
    dbruns = {twin_key(db): db}
    cases = [
        ("the run db-dump does not repeat is the MTP one", [plain_run, mtp_run], mtp_run, c, [c[1]]),
        ("the run db-dump repeats is the plain one", [plain_run, mtp_run], plain_run, c, None),
        ("three runs at the point", [plain_run, mtp_run, third], mtp_run, c, None),
        ("MTP entries that disagree", [plain_run, mtp_run], mtp_run,
         c + [("c", mtp[:5] + (16,) + mtp[6:], {})], None),
        ("the plain entry's pools against db-dump's", [plain_run, mtp_run], mtp_run,
         [("a", (2,) + plain[1:], {}), c[1]], None),
    ]
    for name, runs, r, cand, want in cases:
        got = mtp_partner(r, f, cand, disagg_points(runs), dbruns)
        assert got == want, "%s: got %r, want %r" % (name, got, want)
    got = mtp_partner(mtp_run, f, c, disagg_points([plain_run, mtp_run]), {})
    assert got is None, "no db-dump run: got %r" % (got,)
    # a row repeating a db-dump run is plain whatever its one entry says
    assert plain_by_twin(mtp, plain_run, dbruns) == (mtp[:6] + ("none", 0) + mtp[8:], True)
    assert plain_by_twin(mtp, mtp_run, dbruns) == (mtp, False)
    assert plain_by_twin(plain, plain_run, dbruns) == (plain, False)
    # db-dump rows: the model prefix from the id where db-dump names DeepSeek-R1 DeepSeek-V3
    assert db_prefix(dict(db, model_path="deepseek-ai/DeepSeek-V3", id="dsr1_b200_x")) == "dsr1"
    assert db_prefix(dict(db, model_path="deepseek-ai/DeepSeek-V3", id="dsv3_b200_x")) is None
    # an entry without a recipe runs its conc-list
    assert runs_at(None, {"conc-list": [4], "prefill": {}, "decode": {}}, 4, "2026-02-14")
    assert not runs_at(None, {"conc-list": [4], "prefill": {}, "decode": {}}, 36, "2026-02-14")
    # Dynamo's performance sweeps run each listed concurrency times the
    # decode workers (sweeps_launch, its answer for the day cached here)
    e = {"conc-list": [1, 2, 4, 141], "prefill": {"num-worker": 1}, "decode": {"num-worker": 4}}
    REPO[0], _sweeps[("dsr1-fp4-gb200-dynamo-trt", "2025-12-19")] = "(test)", True
    assert runs_at(None, e, 564, "2025-12-19", "dsr1-fp4-gb200-dynamo-trt")
    assert runs_at(None, e, 16, "2025-12-19", "dsr1-fp4-gb200-dynamo-trt")
    assert not runs_at(None, e, 2, "2025-12-19", "dsr1-fp4-gb200-dynamo-trt")
    assert runs_at(None, e, 2, "2025-12-19", "dsr1-fp4-gb200-trt")  # (no sweeps: the list as it stands)
    REPO[0] = None
    # a row no entry launched, from its pinned recipe directory (recipe_dir_line)
    def rec(pw, ptp, dw, dtp, dadp, batch, concs, slots=0):
        pre = {"tensor_parallel_size": ptp, "moe_expert_parallel_size": ptp, "enable_attention_dp": True,
               "max_batch_size": 2, "max_num_tokens": 16640}
        dec = {"tensor_parallel_size": dtp, "moe_expert_parallel_size": dtp, "enable_attention_dp": dadp,
               "max_batch_size": batch, "moe_config": {"load_balancer": {"num_slots": slots}} if slots else {}}
        return {"resources": {"prefill_workers": pw, "decode_workers": dw},
                "benchmark": {"isl": 8192, "osl": 1024, "concurrencies": concs},
                "backend": {"trtllm_config": {"prefill": pre, "decode": dec}}}
    docs = [("r/tep4.yaml", "b" * 40, rec(1, 4, 5, 4, False, 8, "5 10 25 50")),
            ("r/dep32.yaml", "b" * 40, rec(8, 4, 1, 32, True, 32, "1229", 288))]
    glm = {"id": "g", "model_path": "zhipuai/GLM-5", "isl": "8192", "osl": "1024", "prefill_tp_size": "4",
           "prefill_attention_dp_size": "1", "prefill_moe_ep_size": "1", "decode_tp_size": "4",
           "decode_attention_dp_size": "1", "silicon_data_source": blank + "; silicon_concurrency=10"}
    got = recipe_dir_line(glm, docs)
    assert got[2:10] == [1, 5, 4, 1, 4, 8, "none", 0] and got[11:18] == [2, 16640, 0, 0, 4, 0, 0], got
    got = recipe_dir_line(dict(glm, decode_tp_size="32", silicon_data_source=blank + "; silicon_concurrency=1229"),
                          docs)
    assert got[2:8] == [8, 1, 4, 32, 32, 32] and got[17] == 32, got
    assert recipe_dir_line(dict(glm, decode_tp_size="8"), docs) is None
    assert recipe_dir_line(glm, docs + [("r/again.yaml", "b" * 40, docs[0][2])]) is None
    print("ok: %d cases" % (len(cases) + 16))


if __name__ == "__main__":
    if sys.argv[1:] == ["--test"]:
        selftest()
    else:
        main()
