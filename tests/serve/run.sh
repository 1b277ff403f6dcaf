#!/bin/sh
# tests/serve/run.sh - `servesim serve` against real clients: the project's
# streaming client (tests/serve/client.c) sends a plan of requests at their
# times while curl streams chat completions, takes a whole answer and drops
# a long stream after 0.4 s (the server aborts it, as vLLM does: one "aborted"
# row with the tokens it got, counted in /metrics); then bad requests (malformed JSON and fields, an
# oversize prompt, a body too large, unknown routes, a second server on the
# same port); then the measured TTFT and ITL are
# compared with `servesim run` on the same workload (the arrivals and
# lengths the server saw, from its --requests-out, the aborted request with
# the tokens it got), which they must match within 5 %; the server's own
# TTFTs (engine side) must be run's, which they are not if the aborted
# request went on decoding in the server.  The server must stop cleanly on SIGTERM (under ASan: no
# leak, no error).
# usage: run.sh SERVESIM_BIN CLIENT_BIN
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
client=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
speed=0.1 # simulated seconds per second: wall latencies ten times the simulated ones (a few ms
          # of scheduling jitter on a loaded machine stay well under the 5 %)
model=meta-llama/Llama-3.1-8B-Instruct
w=$(mktemp -d "${TMPDIR:-/tmp}/servesim-serve.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$w"' EXIT INT TERM
pass=0; fail=0
check() { # check STATUS MESSAGE
	if [ "$1" = 0 ]; then pass=$((pass + 1)); echo "ok   serve $2"
	else fail=$((fail + 1)); echo "FAIL serve $2"; fi
}

# the large bodies, written before the clocks start: a prompt of 600,000
# characters (150,000 tokens, past the model's 131,072) and a body over
# --max-body-bytes
awk -v m="$model" 'BEGIN { printf "{\"model\":\"%s\",\"prompt\":\"", m; for (i = 0; i < 600000; i++) printf "a"; print "\",\"max_tokens\":10}" }' >"$w/long.json"
awk 'BEGIN { printf "{\"model\":\"x\",\"prompt\":\""; for (i = 0; i < 1100000; i++) printf "a"; print "\"}" }' >"$w/big.json"
"$bin" serve --port 0 --speed $speed --max-body-bytes 1048576 --requests-out "$w/requests.csv" \
	2>"$w/server.err" &
pid=$!
port=
for i in $(seq 1 300); do
	port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/v1.*|\1|p' "$w/server.err")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ]; check $? "listening (port ${port:-none})"
[ -n "$port" ] || { cat "$w/server.err"; echo "$pass passed, $((fail + 1)) failed"; exit 1; }
u=http://127.0.0.1:$port

# the plan: 16 requests 0.6 s apart (0.06 simulated) from 1.5 s (after the curl
# clients below have started), unique prompt lengths
awk 'BEGIN { for (i = 0; i < 16; i++) printf "%.3f,%d,%d\n", 1.5 + 0.6 * i, 400 + 53 * i, 60 + (i * 17) % 60 }' \
	>"$w/plan.csv"
# one request first: the server's first connection costs tens of ms of wall time
# (thread, first allocations) that would fall on the plan's first TTFT
curl -s --max-time 30 "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"warm up\",\"max_tokens\":2}" >"$w/warm.json"
jq -e '.usage.completion_tokens == 2' "$w/warm.json" >/dev/null; check $? "a first completion"
"$client" 127.0.0.1 "$port" "$model" "$w/plan.csv" >"$w/client.csv" 2>"$w/client.err" &
cpid=$!
# meanwhile: curl streaming chats, a whole answer, a dropped stream
sleep 0.7
curls=
for i in 1 2 3; do
	curl -sN --max-time 60 "$u/v1/chat/completions" -H 'Content-Type: application/json' \
		-d "{\"model\":\"$model\",\"messages\":[{\"role\":\"user\",\"content\":\"request $i of the curl clients\"}],\"max_tokens\":$((20 + i)),\"stream\":true,\"stream_options\":{\"include_usage\":true}}" \
		>"$w/curl$i.out" &
	curls="$curls $!"
done
curl -s --max-time 60 "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"$(printf '%0400d' 0)\",\"max_tokens\":12}" \
	>"$w/whole.json" &
curls="$curls $!"
curl -sN --max-time 0.4 "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"drop me\",\"max_tokens\":2000,\"stream\":true}" \
	>"$w/dropped.out" 2>/dev/null &
curls="$curls $!"
wait $cpid; crc=$?
for c in $curls; do wait $c; done
# then, the streams done (their timing is measured; a second server loading
# its model would compete for the CPU): bad requests, the other routes
# bad requests: status and OpenAI's error object
bad() { # bad WANT_STATUS WHAT CURL_ARGS...
	want=$1; what=$2; shift 2
	got=$(curl -s -o "$w/bad.json" -w '%{http_code}' --max-time 30 "$@")
	[ "$got" = "$want" ] && jq -e '.error.message and .error.type and .error.code' "$w/bad.json" >/dev/null
	check $? "$what: $want with an error object (got $got)"
}
bad 400 "malformed JSON" "$u/v1/completions" -d '{"model": '
bad 400 "max_tokens not a number" "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"x\",\"max_tokens\":\"ten\"}"
bad 400 "no messages" "$u/v1/chat/completions" -d "{\"model\":\"$model\",\"messages\":[]}"
bad 400 "prompt + max_tokens past max_model_len" "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"x\",\"max_tokens\":200000}"
bad 404 "unknown model" "$u/v1/completions" -d '{"model":"no-such-model","prompt":"x"}'
# sampling fields servesim does not model, typed as the OpenAI API types them
bad 400 "temperature a string" "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"x\",\"temperature\":\"hot\"}"
jq -e '.error.param == "temperature"' "$w/bad.json" >/dev/null; check $? "temperature a string: the field named"
bad 400 "top_p 0" "$u/v1/chat/completions" -d "{\"model\":\"$model\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"top_p\":0}"
bad 400 "stop a number" "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"x\",\"stop\":5}"
bad 400 "include_usage a string" "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"x\",\"stream_options\":{\"include_usage\":\"yes\"}}"
[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 "$u/v1/completions" -d "{\"model\":\"$model\",\"prompt\":\"x\",\"max_tokens\":2,\"temperature\":0.7,\"top_p\":1,\"stop\":[\"\\n\"],\"seed\":3,\"ignore_eos\":true,\"presence_penalty\":-0.5}")" = 200 ]
check $? "well-typed sampling fields: 200"
bad 404 "unknown route" "$u/v1/embeddings" -d '{}'
bad 405 "GET on completions" "$u/v1/completions"
bad 400 "an oversize prompt (150,000 tokens)" "$u/v1/completions" --data-binary "@$w/long.json"
grep -q 'maximum context length is 131072 tokens' "$w/bad.json"; check $? "an oversize prompt: the context length named"
bad 413 "a body over --max-body-bytes" "$u/v1/completions" --data-binary "@$w/big.json"
# a second server on the same port: a usage error naming the address
"$bin" serve --port "$port" >/dev/null 2>"$w/second.err"; src=$?
[ $src = 2 ] && grep -q "cannot listen on 127.0.0.1:$port" "$w/second.err"
check $? "a second server on port $port: exit 2, the address named (exit $src)"
"$bin" serve --speed 0 >/dev/null 2>"$w/speed.err"; src=$?
[ $src = 2 ] && grep -q -- '--speed' "$w/speed.err"; check $? "--speed 0: exit 2 (exit $src)"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$u/health")" = 200 ]; check $? "GET /health: 200"
curl -s "$u/v1/models" | jq -e ".data[0].id == \"$model\"" >/dev/null; check $? "GET /v1/models names the model"
curl -s "$u/metrics" >"$w/metrics.txt"
grep -q '^vllm:request_success_total{finished_reason="length",model_name="meta-llama/Llama-3.1-8B-Instruct"} [1-9]' "$w/metrics.txt" &&
	grep -q '^vllm:time_to_first_token_seconds_bucket{le="+Inf"' "$w/metrics.txt" &&
	grep -q '^vllm:num_requests_running{' "$w/metrics.txt"
check $? "GET /metrics: vLLM's names, requests counted"
grep -q '^vllm:request_success_total{finished_reason="abort",model_name="meta-llama/Llama-3.1-8B-Instruct"} 1$' "$w/metrics.txt"
check $? "GET /metrics: the dropped stream counted as aborted (finished_reason=\"abort\")"

[ $crc = 0 ]; check $? "client: 16 concurrent streams, every token and [DONE] received"
for i in 1 2 3; do
	n=$(grep -c '"delta":{' "$w/curl$i.out")
	[ "$n" = $((20 + i)) ] && grep -q '"usage":{"prompt_tokens"' "$w/curl$i.out" && tail -n 2 "$w/curl$i.out" | grep -q '^data: \[DONE\]$'
	check $? "curl chat stream $i: $((20 + i)) deltas, the usage, [DONE] (got $n)"
done
jq -e '.choices[0].finish_reason == "length" and .usage.completion_tokens == 12 and .usage.prompt_tokens == 100' "$w/whole.json" >/dev/null
check $? "whole completion: 12 tokens, a 400-character prompt read as 100 tokens"
[ "$(grep -c '^data: ' "$w/dropped.out")" -lt 2000 ]; check $? "a stream dropped by its client"

kill -TERM $pid; wait $pid; src=$?; pid=
[ $src = 0 ] && grep -q 'servesim serve: stopped' "$w/server.err"
check $? "SIGTERM: stopped cleanly (exit $src)"
! grep -E 'ERROR: |runtime error|LeakSanitizer' "$w/server.err"; check $? "no sanitizer report from the server"

# the dropped stream: one row, aborted with the tokens it got (fewer than asked)
awk -F, '$9 == "aborted" { n++; ok = $6 > 0 && $6 < 2000 } END { exit !(n == 1 && ok) }' "$w/requests.csv"
check $? "the dropped stream aborted in the engine: one 'aborted' row, $(awk -F, '$9 == "aborted" { print $6 }' "$w/requests.csv" | head -n 1) of 2000 tokens"

# the same workload through `servesim run` (the aborted request with the tokens it got)
awk -F, 'NR > 1 && ($9 == "completed" || ($9 == "aborted" && $6 > 0)) { print $4 "," $5 "," $6 }' "$w/requests.csv" | \
	sort -t, -k1,1n >"$w/trace.body"
{ echo "arrival_s,prompt_tokens,output_tokens"; cat "$w/trace.body"; } >"$w/trace.csv"
printf '{"arrival": {"process": "trace", "file": "%s"}}\n' "$w/trace.csv" >"$w/trace.json"
[ "$(wc -l <"$w/trace.body")" -ge 20 ]; check $? "the server's rows: $(wc -l <"$w/trace.body") requests to replay (completed, aborted)"
# (live use takes requests one by one: no API-server loop, sim/apiq.c; run
# without it on the same arrivals)
"$bin" run --workload "$w/trace.json" --api-loop-ms 0 --requests-out "$w/run.csv" >/dev/null 2>&1
check $? "servesim run on the same arrivals and lengths"
# client rows (by prompt length) against run's, in simulated ms
awk -F, -v speed=$speed '
	FNR == 1 { next }
	FILENAME == ARGV[1] { rt[$5] = $11; ri[$5] = $12; next }
	($2 in rt) { n++; ct += $6 * speed; ci += $7 * speed; st += rt[$2]; si += ri[$2] }
	END {
		if (!n) { print "no request matched"; exit 1 }
		dt = (ct - st) / st; di = (ci - si) / si
		printf "TTFT mean: served %.2f ms, run %.2f ms (%+.1f %%); ITL mean: served %.3f ms, run %.3f ms (%+.1f %%); %d requests\n",
			ct / n, st / n, 100 * dt, ci / n, si / n, 100 * di, n
		exit (dt < -0.05 || dt > 0.05 || di < -0.05 || di > 0.05)
	}' "$w/run.csv" "$w/client.csv" >"$w/compare.txt"
rc=$?
cat "$w/compare.txt"
[ $rc = 0 ]; check $? "measured TTFT and ITL within 5 % of run's"
# the server's engine-side TTFT of each completed request against run's (same arrival and prompt)
awk -F, '
	FNR == 1 { next }
	FILENAME == ARGV[1] { if ($9 == "completed") t[$4 "," $5] = $11; next }
	$9 == "completed" && (($4 "," $5) in t) { n++; d = ($11 - t[$4 "," $5]) / t[$4 "," $5]; if (d < 0) d = -d; if (d > m) m = d }
	END {
		printf "server TTFT against run: %d requests, largest difference %.4f %%\n", n, 100 * m
		exit !(n >= 20 && m < 0.001)
	}' "$w/run.csv" "$w/requests.csv" >"$w/ttft.txt"
rc=$?
cat "$w/ttft.txt"
[ $rc = 0 ]; check $? "the server's TTFTs are run's without the aborted request's remaining decode"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
