#!/usr/bin/env python3
"""datasets_fit.py - derive data/datasets.json: each dataset's prompt and output
length distributions as quantile tables of the per-request token counts, and
the Gaussian-copula correlation that joins them (the correlation of the
normal scores of their ranks), from public per-request length files.

usage: datasets_fit.py OUT.json NAME=FILE:PROMPT_COL:OUTPUT_COL ...
FILE is a CSV with a header, or JSON lines (.jsonl, .jsonl.gz) whose keys
PROMPT_COL and OUTPUT_COL hold the counts. An OUT.json that exists keeps the
datasets not named here (so one source can be refitted without the others'
files). The sources' provenance is in SOURCES below; a NAME not there is
refused."""
import csv, gzip, json, math, os, statistics, sys
from statistics import NormalDist

PROBS = [0, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99, 1]

SOURCES = {
    "sharegpt": {
        "title": "ShareGPT conversations, every turn a request (prompt = the conversation so far)",
        "source": "microsoft/sarathi-serve (Apache-2.0), commit 72339db5b120614033b317880ad3a05a5e4c9415, "
                  "data/processed_traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv",
        "tokenizer": "Llama-2",
        "filter": "prompt + output <= 8192 tokens (the file's own filter)",
    },
    "arxiv-summarization": {
        "title": "arXiv summarisation (ccdv/arxiv-summarization): article in, abstract out",
        "source": "microsoft/vidur (MIT), commit 6d98aa8f71696520acc603d87439e77cc78160a7, "
                  "data/processed_traces/arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv",
        "tokenizer": "Llama-2",
        "filter": "prompt + output <= 4096 tokens (the file's own filter: the longer articles are not in it)",
    },
    "azure-conv-2023": {
        "title": "Azure LLM inference trace 2023, conversation service (Splitwise, ISCA 2024)",
        "source": "microsoft/vidur (MIT), commit 8e54dd5c137a9b5aa0b6ff512ace6cc7caf8a377, "
                  "data/processed_traces/splitwise_conv.csv (from Azure/AzurePublicDataset AzureLLMInferenceTrace_conv)",
        "tokenizer": "the service's (GPT-4 class)",
        "filter": "none",
    },
    "azure-code-2023": {
        "title": "Azure LLM inference trace 2023, coding service (Splitwise, ISCA 2024)",
        "source": "microsoft/vidur (MIT), commit 8e54dd5c137a9b5aa0b6ff512ace6cc7caf8a377, "
                  "data/processed_traces/splitwise_code.csv (from Azure/AzurePublicDataset AzureLLMInferenceTrace_code)",
        "tokenizer": "the service's (GPT-4 class)",
        "filter": "none",
    },
    "mooncake-conversation": {
        "title": "Mooncake (Kimi) conversation trace, FAST '25: long-context chat requests (prompt = the whole context)",
        "source": "kvcache-ai/Mooncake (Apache-2.0), file last changed in commit "
                  "3cca71daccf2a7afb8fe3f0295358f70e3a69fdb, FAST25-release/traces/conversation_trace.jsonl, "
                  "its first 5,000 of 12,031 lines (input_length, output_length)",
        "tokenizer": "Kimi's (the service's)",
        "filter": "none (the first 5,000 requests in arrival order)",
    },
}


def quantile(xs, p):
    """Linear interpolation between order statistics at (n - 1) p (servesim's definition)."""
    k = (len(xs) - 1) * p
    f = math.floor(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def normal_scores(xs):
    """Ranks (ties averaged) mapped through the inverse normal CDF at (rank - 0.5) / n."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    ranks = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    nd = NormalDist()
    return [nd.inv_cdf((r - 0.5) / len(xs)) for r in ranks]


def marginal(xs):
    s = sorted(xs)
    return {"mean": round(statistics.fmean(s), 2), "p50": quantile(s, 0.5), "p90": round(quantile(s, 0.9), 1),
            "quantiles": [round(quantile(s, p), 2) for p in PROBS]}


def rows(path):
    """The file's records as dicts: CSV rows, or one JSON object per line."""
    if path.endswith(".jsonl") or path.endswith(".jsonl.gz"):
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)
    else:
        with open(path) as f:
            yield from csv.DictReader(f)


def fit(path, pcol, ocol):
    P, O = [], []
    for row in rows(path):
        p, o = int(float(row[pcol])), int(float(row[ocol]))
        if p >= 1 and o >= 1:
            P.append(p)
            O.append(o)
    zp, zo = normal_scores(P), normal_scores(O)
    rho = sum(a * b for a, b in zip(zp, zo)) / math.sqrt(sum(a * a for a in zp) * sum(b * b for b in zo))
    return len(P), marginal(P), marginal(O), rho


def main():
    out = {"probs": PROBS, "datasets": {}}
    if os.path.exists(sys.argv[1]):
        with open(sys.argv[1]) as f:
            old = json.load(f)
        if old.get("probs") != PROBS:
            sys.exit("%s: its probs differ from this script's; refit every dataset into a new file" % sys.argv[1])
        out["datasets"] = old["datasets"]
    for arg in sys.argv[2:]:
        name, spec = arg.split("=", 1)
        path, pcol, ocol = spec.split(":")
        n, mp, mo, rho = fit(path, pcol, ocol)
        d = dict(SOURCES[name])
        d.update({"requests": n, "prompt_tokens": mp, "output_tokens": mo, "rho": round(rho, 4)})
        out["datasets"][name] = d
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
