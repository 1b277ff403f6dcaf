# servesim - hand-written GNU Makefile.  See README.md and docs/design.md.
CC      ?= cc
BUILD   ?= build
BIN     ?= servesim
WERROR  ?=
EXTRA_CFLAGS ?=
FUZZ_RUNS ?= 1000000

WARN = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wwrite-strings -Wpointer-arith -Wvla -Wformat=2 -fno-common
GIT_DESCRIBE := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
CFLAGS_CORE = -std=c11 -O2 -g $(WARN) -ffp-contract=off $(if $(WERROR),-Werror,) $(EXTRA_CFLAGS)
CPPFLAGS = -Iinclude -Isrc -MMD -MP -D_DEFAULT_SOURCE \
           -DSERVESIM_DATADIR='"$(CURDIR)/data"'
# libyaml, GSL and zlib from their static archives where the toolchain has
# them (`make STATIC_LIBS=` links them all shared): only the objects used are
# linked in, so a process no longer maps and relocates libgsl (2.9 MB, 3,250
# relocations) and three more libraries at every start, for the one command
# (calibrate) that calls it.  Shared where an archive is missing.
STATIC_LIBS ?= yaml gsl gslcblas z
lib_static = $(firstword $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a)) -l$(1))
LDLIBS := -lcjson $(foreach l,yaml gsl gslcblas z,$(if $(filter $(l),$(STATIC_LIBS)),$(call lib_static,$(l)),-l$(l))) -lm
LDLIBS += -pthread

# One short line per file; `make V=1` prints the full commands.
V ?= 0
ifeq ($(V),1)
Q :=
say :=
else
Q := @
say = @printf '  %-5s %s\n' '$(1)' '$(2)';
endif

LIB_SRC = \
	src/base/err.c src/base/alloc.c src/base/sbuf.c src/base/pcg32.c src/base/gzread.c \
	src/base/afile.c src/base/csv.c src/base/json.c src/base/jstream.c src/base/yaml.c src/base/jsonw.c src/base/paths.c src/base/version.c \
	src/model/config.c src/model/vision.c src/model/params.c src/model/registry.c src/model/opgraph.c \
	src/model/qfmt.c src/model/quant.c src/model/quark.c \
	src/hw/gpu.c src/hw/power.c src/hw/mfu.c src/hw/tier2.c \
	src/hw/moetab.c src/hw/mfucache.c \
	src/cost/cost.c src/cost/share.c src/cost/engterms.c src/cost/gemm.c src/cost/linear.c src/cost/tritonbs.c src/cost/aiterquant.c src/cost/cutlassbs.c src/cost/tritonattn.c src/cost/moe.c src/cost/attn.c src/cost/mla.c src/cost/dsa.c src/cost/csa.c src/cost/linattn.c src/cost/mixer.c src/cost/ops.c src/cost/allreduce.c src/cost/srcnote.c src/cost/eplb.c src/cost/memplan.c src/cost/lora.c src/cost/vision.c src/base/stats.c \
	src/cost/comm.c src/cost/dsamod.c src/hw/dsatab.c \
	src/sim/spec.c \
	src/sim/evq.c src/sim/kvcache.c src/sim/engine.c src/sim/step.c src/sim/reqpool.c src/sim/waitq.c src/sim/runlist.c src/sim/prefix.c src/sim/decoders.c src/sim/specpath.c src/sim/blocks.c src/sim/winblocks.c src/sim/admit.c src/sim/abort.c src/sim/records.c src/sim/router.c src/sim/loadtree.c src/sim/summary.c src/sim/lora.c src/sim/mm.c src/sim/epd.c src/sim/apiq.c src/sim/arrq.c src/sim/sinkq.c \
	src/engine/registry.c src/engine/vllm.c src/engine/vllmmem.c src/engine/sglang.c src/engine/trtllm.c \
	src/engine/scenario.c src/engine/startup.c src/deploy/catalog.c src/deploy/fields.c src/deploy/parflags.c src/base/argval.c src/base/argtab.c \
	src/workload/spec.c src/workload/gen.c src/workload/curve.c src/workload/overrides.c \
	src/readers/guidellm.c src/readers/otel.c src/readers/infperf.c src/readers/facts.c src/calib/fit.c src/calib/tier1.c \
	src/eval/experiment.c src/eval/evaluate.c src/eval/synthetic.c src/eval/cv.c \
	src/analysis/kflow.c src/analysis/opsview.c src/analysis/roofline.c src/analysis/trace.c \
	src/cmd/cli.c src/cmd/ops.c src/cmd/models.c src/cmd/run.c src/cmd/eval.c src/cmd/import.c src/cmd/calibrate.c src/cmd/roofline.c src/cmd/trace.c
LIB_SRC += src/readers/aic.c
LIB_SRC += src/readers/aicpools.c
LIB_SRC += src/readers/aicdup.c
LIB_SRC += src/readers/vllm_requests.c
LIB_SRC += src/readers/vcr.c
LIB_SRC += src/readers/mooncake.c
LIB_SRC += src/readers/bench.c
LIB_SRC += src/readers/registry.c
LIB_SRC += src/readers/guidellm_v2.c
LIB_SRC += src/readers/measured.c
LIB_SRC += src/readers/jsonl.c
LIB_SRC += src/base/jfield.c
LIB_SRC += src/readers/tier1file.c
LIB_SRC += src/sim/stepmemo.c
LIB_SRC += src/base/dmemo.c
LIB_SRC += src/plan/capacity.c
LIB_SRC += src/plan/caprun.c
LIB_SRC += src/engine/scenflags.c
LIB_SRC += src/engine/scenopts.c src/cost/ovflags.c
LIB_SRC += src/cmd/capacity.c
LIB_SRC += src/base/decnum.c
LIB_SRC += src/base/loghist.c
LIB_SRC += src/base/bucketstore.c
LIB_SRC += src/base/tline.c
LIB_SRC += src/sim/flow.c
LIB_SRC += src/base/pfor.c
LIB_SRC += src/base/wdist.c
LIB_SRC += src/plan/mpiranks.c
LIB_SRC += src/plan/parmap.c
LIB_SRC += src/plan/grid.c
LIB_SRC += src/plan/sweep.c
LIB_SRC += src/report/progress.c
LIB_SRC += src/cmd/sweep.c
LIB_SRC += src/cmd/report.c
LIB_SRC += src/cmd/serve.c
LIB_SRC += src/serve/serve.c src/serve/servejob.c
LIB_SRC += src/plan/search.c
LIB_SRC += src/plan/searchrun.c
LIB_SRC += src/plan/pareto.c
LIB_SRC += src/plan/prices.c
LIB_SRC += src/plan/autoscale.c
LIB_SRC += src/report/asreport.c
LIB_SRC += src/cmd/search.c
LIB_SRC += src/hw/mfupack.c
LIB_SRC += src/hw/mfuload.c
LIB_SRC += src/base/bytepack.c
LIB_SRC += src/report/summary.c
LIB_SRC += src/report/config.c
LIB_SRC += src/report/svg.c
LIB_SRC += src/report/runreport.c
LIB_SRC += src/report/capreport.c
LIB_SRC += src/report/searchreport.c
LIB_SRC += src/report/sweepreport.c
LIB_SRC += src/report/fmt.c
LIB_SRC += src/report/tracereport.c
LIB_SRC += src/report/opsreport.c
LIB_SRC += src/report/bdreport.c
LIB_SRC += src/report/roofreport.c
LIB_SRC += src/report/evalreport.c
LIB_SRC += src/report/cvreport.c
LIB_SRC += src/report/html.c
LIB_SRC += src/report/listreport.c
LIB_SRC += src/plan/gsweep.c
LIB_SRC += src/plan/wlsource.c
LIB_SRC += src/plan/runjob.c
LIB_SRC += src/plan/wlflags.c
LIB_SRC += src/model/csa.c
LIB_SRC += src/hw/csatab.c
LIB_SRC += src/cost/csamod.c
LIB_SRC += src/hw/axis.c
LIB_SRC += src/hw/lgrid.c
LIB_SRC += src/hw/modtab.c
LIB_SRC += src/eval/accuracy.c
LIB_SRC += src/eval/ablation.c
LIB_SRC += src/eval/table.c src/eval/simkey.c
LIB_SRC += src/eval/pass.c
LIB_SRC += src/calib/study.c
LIB_SRC += src/report/calibreport.c
LIB_SRC += src/sim/goodput.c
LIB_SRC += src/sim/status.c
LIB_SRC += src/report/confreport.c

UNIT_TESTS = test_base test_json test_model test_opgraph test_sim test_workload test_calib \
	test_kernels
UNIT_TESTS += test_capacity
UNIT_TESTS += test_plan
UNIT_TESTS += test_mfupack
UNIT_TESTS += test_out
UNIT_TESTS += test_accuracy
UNIT_TESTS += test_engine
UNIT_TESTS += test_cv
UNIT_TESTS += test_deploy
UNIT_TESTS += test_readers
UNIT_TESTS += test_simkey
FUZZERS    = fuzz_json fuzz_model fuzz_workload fuzz_csv fuzz_guidellm fuzz_kflow fuzz_trace
FUZZERS   += fuzz_aic
FUZZERS   += fuzz_bench
FUZZERS   += fuzz_requests
FUZZERS   += fuzz_prices
FUZZERS   += fuzz_mfupack
FUZZERS   += fuzz_sim

# Compact kernel tables (src/hw/mfupack.h): written next to the CSV tables
# by the build step tools/mfupack.c whenever a table, gpus.json or the code
# computing them changes; a run falls back to the CSVs without them.
# The packs depend on the code that computes their values, not on the whole
# library (any other change would rewrite 42 files for nothing).
MFU_CSV   = $(wildcard data/mfu/*/*/*.csv.gz)
MFU_PACKS = $(BUILD)/mfupack.stamp
MFU_PACK_SRC = src/hw/mfupack.c src/hw/mfupack.h src/hw/mfu.c src/hw/axis.h src/hw/moetab.c src/base/csv.c src/base/bytepack.c \
	src/base/decnum.c src/base/gzread.c src/hw/mfu.h src/hw/moetab.h \
	src/hw/gpu.h src/base/csv.h src/base/decnum.h tools/mfupack.c

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      = $(BUILD)/libservesim.a
UNIT_BIN = $(UNIT_TESTS:%=$(BUILD)/tests/%)
UNIT_OBJ = $(UNIT_TESTS:%=$(BUILD)/tests/unit/%.o)
# the set-up the unit tests share (tests/unit/fixture.h), linked into each
UNIT_FIXTURE = $(BUILD)/tests/unit/fixture.o
# Objects reached only through pattern rules are intermediates that make
# deletes after linking; kept, a second `make check` relinks nothing.
.SECONDARY: $(UNIT_OBJ) $(UNIT_FIXTURE) $(BUILD)/tools/mfupack.o $(BUILD)/tools/accuracy.o $(BUILD)/tests/bench/bench.o $(BUILD)/tests/bench/bench_guidellm.o

.PHONY: soak all demo check check-run check-asan check-docs docs-regen check-browser unit golden fuzz bench golden-regen clean deps eval-report bench-gpu accuracy
.PHONY: mpi check-mpi fuzz-long-build fuzz-replay

all: $(BIN) $(MFU_PACKS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS_CORE) -c $< -o $@

$(BUILD)/src/base/version.o: CPPFLAGS += -DSERVESIM_GIT='"$(GIT_DESCRIBE)"' \
	-DSERVESIM_CFLAGS='"$(CFLAGS_CORE)"'
# The commit a build names: version.o is rebuilt when `git describe` changes
# (a pull, a commit, an edit), not only when version.c does.
GIT_STAMP := $(BUILD)/git-describe
$(shell mkdir -p $(BUILD) && { echo '$(GIT_DESCRIBE)' | cmp -s - $(GIT_STAMP) || echo '$(GIT_DESCRIBE)' > $(GIT_STAMP); })
$(BUILD)/src/base/version.o: $(GIT_STAMP)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

$(BIN): $(BUILD)/src/main.o $(LIB)
	$(call say,LINK,$@)$(CC) $(CFLAGS_CORE) -o $@ $^ $(LDLIBS)

$(BUILD)/mfupack: $(BUILD)/tools/mfupack.o $(LIB)
	$(call say,LINK,$@)$(CC) $(CFLAGS_CORE) -o $@ $^ $(LDLIBS)

$(MFU_PACKS): $(MFU_PACK_SRC) $(MFU_CSV) data/gpus.json | $(BUILD)/mfupack
	$(call say,PACK,data/mfu)$(BUILD)/mfupack data $(if $(Q),>/dev/null)
	@touch $@

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(UNIT_FIXTURE) $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)$(CC) $(CFLAGS_CORE) -o $@ $^ $(LDLIBS)

# Tests: every unit program, then the golden CLI cases; one summary line.
# The package check runs first (a fresh machine needs the libraries).
check: deps
	@$(MAKE) --no-print-directory check-run
check-run: $(BIN) $(UNIT_BIN) $(MFU_PACKS) $(BUILD)/tests/serve_client $(BUILD)/tests/property
	@PROP_CASES=$(PROP_CASES) PROP_SEED=$(PROP_SEED) sh tests/run_tests.sh "$(BUILD)/tests" "$(BIN)" $(UNIT_TESTS)

# The property test (tests/prop/prop.c, issue 30): random valid configurations
# across the modes, each run twice; make check draws PROP_CASES of them,
# make soak many more (SOAK_CASES, a seed from the clock unless PROP_SEED).
PROP_CASES = 40
PROP_SEED = 1
SOAK_CASES = 2000
$(BUILD)/tests/property: $(BUILD)/tests/prop/prop.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)$(CC) $(CFLAGS_CORE) -o $@ $^ $(LDLIBS)
soak: $(BIN) $(BUILD)/tests/property
	@seed=$${PROP_SEED_SOAK:-$$(date +%s)}; echo "soak: $(SOAK_CASES) configurations, seed $$seed"; \
		./$(BUILD)/tests/property ./$(BIN) $(SOAK_CASES) $$seed | grep -v '^ok '

# the streaming client of `servesim serve`'s test (tests/serve/run.sh)
$(BUILD)/tests/serve_client: tests/serve/client.c
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)$(CC) $(CFLAGS_CORE) -D_DEFAULT_SOURCE -o $@ $< -pthread

check-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan BIN=build-asan/servesim \
		EXTRA_CFLAGS="-O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		LDLIBS="$(LDLIBS) -fsanitize=address,undefined" check

# The MPI build (sweep and search split their grid over mpirun's ranks):
# build-mpi/servesim, compiled with mpicc and -DSERVESIM_MPI; the default
# build has no MPI and refuses to run as one of several mpirun processes.
mpi:
	@command -v mpicc >/dev/null 2>&1 || { echo "mpi: mpicc not found; install Open MPI: apt-get install -y $(MPI_PKGS)"; exit 1; }
	@$(MAKE) --no-print-directory BUILD=build-mpi BIN=build-mpi/servesim CC=mpicc \
		EXTRA_CFLAGS="$(EXTRA_CFLAGS) -DSERVESIM_MPI" build-mpi/servesim

# sweep and search: --jobs 1, --jobs 2 and a 2-rank mpirun give the same bytes
check-mpi: $(BIN) mpi
	@sh tests/mpi/run.sh ./$(BIN) build-mpi/servesim

# data/accuracy.json (src/eval/accuracy.h): `servesim eval` over all
# shipped ground truth, then the bands of each class from its per-row
# residuals and the split check of them (printed).  Run by hand (about 70 s on
# two cores) when the cost model or the engine terms change; the file is
# committed, and test_accuracy checks its format.  ACCURACY_EVAL_FLAGS are
# eval's flags: `--cv model` (eval refitting the engine terms without each
# row's group) makes the residuals held out, and the file says so.
# ACCURACY_UNFITTED: ground truth no term was ever fitted on (the AMD runs of
# eval/public-amd, issue 29), evaluated as servesim ships: held out as they
# stand, and with no --cv (a refit on them would fit them).  Its dstack folders
# (mi300x/, h200-same-source/) are left out: that source's own H200 control
# is 58-94 % off (eval/public-amd/README.md), its harness, not a GPU's error.
ACCURACY_EVAL_FLAGS =
ACCURACY_SOURCES = eval/ground_truth eval/public eval/silicon/silicon_trtllm_and_disagg.csv.gz \
	eval/silicon/silicon_vllm_sglang_agg.csv.gz
ACCURACY_UNFITTED = eval/public-amd/inferencex eval/public-amd/mi325x eval/public-amd/mi355x
ACCURACY_EVAL = servesim eval $(strip $(ACCURACY_EVAL_FLAGS) --format json)$(if $(and $(ACCURACY_UNFITTED),$(strip $(ACCURACY_EVAL_FLAGS))),; eval/public-amd: servesim eval --format json)

$(BUILD)/accuracy: $(BUILD)/tools/accuracy.o $(LIB)
	$(call say,LINK,$@)$(CC) $(CFLAGS_CORE) -o $@ $^ $(LDLIBS)

accuracy: $(BIN) $(BUILD)/accuracy $(MFU_PACKS)
	@rm -rf $(BUILD)/acc && mkdir -p $(BUILD)/acc
	@set -e; args=; i=0; for s in $(ACCURACY_SOURCES) $(ACCURACY_UNFITTED); do i=$$((i + 1)); \
		f="$(ACCURACY_EVAL_FLAGS)"; case " $(ACCURACY_UNFITTED) " in *" $$s "*) f=;; esac; \
		echo "accuracy: servesim eval $$f --format json $$s"; \
		./$(BIN) eval $$f --format json $$s > $(BUILD)/acc/$$i.json; \
		args="$$args $$s=$(BUILD)/acc/$$i.json"; done; \
	./$(BUILD)/accuracy --residuals "$(ACCURACY_EVAL)" $(if $(findstring --cv,$(ACCURACY_EVAL_FLAGS)),--held-out,) \
		data/accuracy.json $$args

golden-regen: $(BIN)
	@sh tests/golden/run.sh "$(BIN)" regen

# The examples of README.md and docs/ against real output (tests/docs/run.sh):
# make check runs all but the ones marked slow; check-docs runs every one.
# docs-regen rewrites the expected output of the examples that differ (those
# without "..." lines), to be read in the diff and committed with the reason.
check-docs: $(BIN) $(MFU_PACKS)
	@sh tests/docs/run.sh "$(BIN)" --all
docs-regen: $(BIN) $(MFU_PACKS)
	@sh tests/docs/run.sh "$(BIN)" --regen

# The HTML reports in headless Chromium (tests/browser/run.sh): the inline
# script runs, rows and charts are in the DOM, sorting and filtering work;
# the screenshots stay in build/browser/ as the test's artefacts.
check-browser: $(BIN) $(MFU_PACKS)
	@sh tests/browser/run.sh "$(BIN)" $(BUILD)/browser

# libFuzzer harnesses, built with clang from the library sources.  Any
# sanitizer report stops the fuzzer (-fno-sanitize-recover=all) and fails
# `make fuzz`: its exit status and its log ('runtime error', 'ERROR:') are
# both checked.  The log of each fuzzer is FUZZ_DIR/NAME.log (build-fuzz/).
# The library is compiled once (instrumented, fuzzer-no-link) and linked into
# every harness.
FUZZ_DIR    = build-fuzz
FUZZ_SAN    = address,undefined -fno-sanitize-recover=all
FUZZ_OPT    = -O1
# fuzz_sim simulates a deployment per input (a few ms under ASan, its
# start-ups kept across inputs): its own run count and malloc limit.
FUZZ_SIM_RUNS = 2000
FUZZ_CFLAGS = -std=c11 -g $(FUZZ_OPT) -Iinclude -Isrc -D_DEFAULT_SOURCE -DSERVESIM_DATADIR='"$(CURDIR)/data"'
FUZZ_LIB_OBJ = $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)clang $(FUZZ_CFLAGS) -MMD -MP -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c $< -o $@
$(FUZZ_DIR)/libservesim.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^
$(FUZZ_DIR)/%: tests/fuzz/%.c $(FUZZ_DIR)/libservesim.a
	$(call say,LINK,$@)clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(LDLIBS)
-include $(FUZZ_LIB_OBJ:.o=.d)

fuzz: $(FUZZERS:%=$(FUZZ_DIR)/%)
	@for f in $(FUZZERS); do \
		mkdir -p $(FUZZ_DIR)/corpus-$$f $(FUZZ_DIR)/artifacts; \
		echo "fuzz: $$f ($$( [ $$f = fuzz_sim ] && echo $(FUZZ_SIM_RUNS) || echo $(FUZZ_RUNS)) runs)"; \
		runs=$(FUZZ_RUNS); extra=""; \
		if [ $$f = fuzz_sim ]; then runs=$(FUZZ_SIM_RUNS); extra="-malloc_limit_mb=8192 -max_len=256"; fi; \
		UBSAN_OPTIONS=print_stacktrace=1 ./$(FUZZ_DIR)/$$f -runs=$$runs -max_len=4096 $$extra \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/artifacts/$$f- \
			$(FUZZ_DIR)/corpus-$$f tests/fuzz/corpus/$$f \
			> $(FUZZ_DIR)/$$f.log 2>&1; rc=$$?; \
		grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' $(FUZZ_DIR)/$$f.log; \
		if [ $$rc -ne 0 ] || grep -qE 'runtime error|ERROR:' $(FUZZ_DIR)/$$f.log; then \
			grep -E -A12 'runtime error|ERROR:' $(FUZZ_DIR)/$$f.log | head -40; \
			echo "fuzz: $$f FAILED (exit $$rc; $(FUZZ_DIR)/$$f.log)"; exit 1; \
		fi; \
	done

# A long campaign of the simulator fuzzer (tests/fuzz/CAMPAIGN.md) runs a
# build of its own, build-fuzz-long/: UBSan without ASan, -O2, no comparison
# tracing (fuzz_sim's input bytes are choices, not compared magic values), a
# few times the executions a second of the ASan build.  Memory errors are
# then looked for by replaying its whole corpus under the ASan build:
# `make fuzz-replay` (each input of build-fuzz-long/corpus-NAME once).
fuzz-long-build:
	@$(MAKE) --no-print-directory FUZZ_DIR=build-fuzz-long FUZZ_SAN="undefined -fno-sanitize-recover=all" \
		FUZZ_OPT="-O2 -fno-sanitize-coverage=trace-cmp" $(FUZZERS:%=build-fuzz-long/%)
fuzz-replay: $(FUZZERS:%=$(FUZZ_DIR)/%)
	@for f in $(FUZZERS); do \
		[ -d build-fuzz-long/corpus-$$f ] || continue; \
		n=$$(ls build-fuzz-long/corpus-$$f | wc -l); echo "fuzz-replay: $$f, $$n inputs under $(FUZZ_SAN)"; \
		mkdir -p $(FUZZ_DIR)/artifacts; \
		UBSAN_OPTIONS=print_stacktrace=1 ./$(FUZZ_DIR)/$$f -runs=0 -max_len=4096 -malloc_limit_mb=8192 \
			-artifact_prefix=$(FUZZ_DIR)/artifacts/$$f- build-fuzz-long/corpus-$$f \
			> $(FUZZ_DIR)/$$f.replay.log 2>&1; rc=$$?; \
		if [ $$rc -ne 0 ] || grep -qE 'runtime error|ERROR:' $(FUZZ_DIR)/$$f.replay.log; then \
			grep -E -A12 'runtime error|ERROR:' $(FUZZ_DIR)/$$f.replay.log | head -40; \
			echo "fuzz-replay: $$f FAILED (exit $$rc; $(FUZZ_DIR)/$$f.replay.log)"; exit 1; \
		fi; \
	done

$(BUILD)/bench: $(BUILD)/tests/bench/bench.o $(LIB)
	$(call say,LINK,$@)$(CC) $(CFLAGS_CORE) -o $@ $^ $(LDLIBS)

$(BUILD)/bench_guidellm: $(BUILD)/tests/bench/bench_guidellm.o $(LIB)
	$(call say,LINK,$@)$(CC) $(CFLAGS_CORE) -o $@ $^ $(LDLIBS)

# Simulator speed and memory: figures, not pass/fail (docs/performance.md).
bench: $(BUILD)/bench $(BUILD)/bench_guidellm $(BIN) $(MFU_PACKS)
	@echo "servesim bench (one core; chat = Llama-3.1-8B/H100 at 30 req/s, prompt ~600, output ~250)"
	@./$(BUILD)/bench chat 100000
	@./$(BUILD)/bench chat 1000000
	@./$(BUILD)/bench chat 10000000
	@./$(BUILD)/bench dp64 1000000
	@./$(BUILD)/bench 70b 100000
	@./$(BUILD)/bench storm 20000
	@./$(BUILD)/bench longctx 2000
	@./$(BUILD)/bench_guidellm 75000
	@sh tests/bench/wall.sh ./$(BIN)
	@sh tests/bench/jobs.sh ./$(BIN)

# GPU micro-benchmarks for tier 2 (calibration/bench/README.md); needs nvcc.
NVCC ?= nvcc
NVCCFLAGS ?= -O2 -std=c++17 -arch=sm_90
GPU_BENCH = build-gpu/bw build-gpu/gemm build-gpu/allreduce
bench-gpu:
	@if command -v $(NVCC) >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then \
		$(MAKE) --no-print-directory NVCC="$$(command -v $(NVCC) || echo /usr/local/cuda/bin/nvcc)" $(GPU_BENCH); \
	else echo "bench-gpu: nvcc not found, nothing to build"; fi
build-gpu/bw: calibration/bench/bw.cu
	@mkdir -p build-gpu
	$(NVCC) $(NVCCFLAGS) -o $@ $<
build-gpu/gemm: calibration/bench/gemm.cu
	@mkdir -p build-gpu
	$(NVCC) $(NVCCFLAGS) -o $@ $< -lcublasLt
build-gpu/allreduce: calibration/bench/allreduce.cu
	@mkdir -p build-gpu
	$(NVCC) $(NVCCFLAGS) -o $@ $< -lnccl

# eval/REPORT.md from eval/ground_truth (tier 0, leave-one-model-out tier 1,
# ablation, synthetic experiments); gnuplot SVGs in eval/plots when installed.
eval-report: $(BIN)
	@sh eval/make_report.sh ./$(BIN)

demo: deps
	@$(MAKE) --no-print-directory all
	./$(BIN) run

DEB_PKGS = gcc make libcjson-dev zlib1g-dev libgsl-dev libyaml-dev libmicrohttpd-dev jq curl
FUZZ_PKGS = clang
MPI_PKGS = libopenmpi-dev openmpi-bin
DOCS_PKGS = python3
BROWSER_PKGS = chromium
deps:
	@missing=""; for p in $(DEB_PKGS); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -z "$$missing" ]; then echo "deps: all present ($(DEB_PKGS))"; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "deps: installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	else echo "deps: missing$$missing; run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; fi
	@# clang (with libFuzzer) only for `make fuzz`: installed when possible, never required by check
	@if ! command -v clang >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then echo "deps: installing $(FUZZ_PKGS) (make fuzz)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(FUZZ_PKGS); \
		else echo "deps: clang missing, needed by make fuzz only: sudo apt-get install -y $(FUZZ_PKGS)"; fi; fi
	@# python3 for the slow examples of `make check-docs` and the scripts' self-tests (tests/scripts.sh)
	@if ! command -v python3 >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then echo "deps: installing $(DOCS_PKGS) (make check-docs)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DOCS_PKGS); \
		else echo "deps: python3 missing, needed by make check-docs and the scripts' self-tests: sudo apt-get install -y $(DOCS_PKGS)"; fi; fi
	@# Chromium only for `make check-browser` (the HTML reports): installed when possible, never required by check
	@if ! command -v chromium >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then echo "deps: installing $(BROWSER_PKGS) (make check-browser)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PKGS); \
		else echo "deps: chromium missing, needed by make check-browser only: sudo apt-get install -y $(BROWSER_PKGS)"; fi; fi
	@# Open MPI only for `make mpi` / `make check-mpi`: installed when possible, never required by check
	@if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then echo "deps: installing $(MPI_PKGS) (make mpi)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(MPI_PKGS); \
		else echo "deps: Open MPI missing, needed by make mpi only: sudo apt-get install -y $(MPI_PKGS)"; fi; fi

clean:
	rm -rf build build-asan build-fuzz build-fuzz-long build-gpu build-mpi $(BIN)
	rm -f data/mfu/*/*/compact-*.bin

-include $(LIB_OBJ:.o=.d) $(BUILD)/src/main.d $(UNIT_TESTS:%=$(BUILD)/tests/unit/%.d) $(UNIT_FIXTURE:.o=.d) $(BUILD)/tests/bench/bench.d $(BUILD)/tests/bench/bench_guidellm.d \
	$(BUILD)/tools/mfupack.d $(BUILD)/tools/accuracy.d
