tests/unit/test_sim: tests/unit/test_sim.c tests/unit/check.h \
 tests/unit/fixture.h src/cost/cost.h src/cost/costmodel.h \
 src/cost/comm.h src/base/err.h src/hw/gpu.h src/model/model.h \
 src/base/json.h src/cost/eplb.h src/hw/moetab.h src/cost/engterms.h \
 src/hw/mfucache.h src/hw/mfu.h src/hw/axis.h src/hw/csatab.h \
 src/hw/dsatab.h src/hw/tier2.h src/workload/workload.h \
 src/engine/registry.h src/engine/engine.h src/sim/sim.h src/sim/spec.h \
 src/base/pcg32.h src/base/loghist.h src/base/bucketstore.h \
 src/base/stats.h src/base/tline.h src/eval/experiment.h \
 src/eval/accuracy.h src/engine/scenario.h src/cost/memplan.h \
 src/deploy/fields.h src/base/sbuf.h src/engine/sglang.h \
 src/readers/readers.h src/readers/measured.h src/sim/kvcache.h \
 src/model/opgraph.h src/sim/core.h src/base/alloc.h src/sim/evq.h \
 src/base/heap.h src/sim/loadtree.h src/hw/power.h src/base/wdist.h \
 src/sim/sinkq.h src/sim/stepmemo.h src/base/dmemo.h src/sim/decoders.h \
 src/sim/winblocks.h src/sim/core.h src/sim/reqpool.h src/sim/runlist.h \
 src/sim/specpath.h src/sim/waitq.h src/base/decnum.h \
 src/readers/mooncake.h src/report/out.h src/engine/scenflags.h \
 src/deploy/catalog.h src/deploy/parflags.h src/base/argtab.h \
 src/readers/tier1file.h src/sim/status.h
tests/unit/check.h:
tests/unit/fixture.h:
src/cost/cost.h:
src/cost/costmodel.h:
src/cost/comm.h:
src/base/err.h:
src/hw/gpu.h:
src/model/model.h:
src/base/json.h:
src/cost/eplb.h:
src/hw/moetab.h:
src/cost/engterms.h:
src/hw/mfucache.h:
src/hw/mfu.h:
src/hw/axis.h:
src/hw/csatab.h:
src/hw/dsatab.h:
src/hw/tier2.h:
src/workload/workload.h:
src/engine/registry.h:
src/engine/engine.h:
src/sim/sim.h:
src/sim/spec.h:
src/base/pcg32.h:
src/base/loghist.h:
src/base/bucketstore.h:
src/base/stats.h:
src/base/tline.h:
src/eval/experiment.h:
src/eval/accuracy.h:
src/engine/scenario.h:
src/cost/memplan.h:
src/deploy/fields.h:
src/base/sbuf.h:
src/engine/sglang.h:
src/readers/readers.h:
src/readers/measured.h:
src/sim/kvcache.h:
src/model/opgraph.h:
src/sim/core.h:
src/base/alloc.h:
src/sim/evq.h:
src/base/heap.h:
src/sim/loadtree.h:
src/hw/power.h:
src/base/wdist.h:
src/sim/sinkq.h:
src/sim/stepmemo.h:
src/base/dmemo.h:
src/sim/decoders.h:
src/sim/winblocks.h:
src/sim/core.h:
src/sim/reqpool.h:
src/sim/runlist.h:
src/sim/specpath.h:
src/sim/waitq.h:
src/base/decnum.h:
src/readers/mooncake.h:
src/report/out.h:
src/engine/scenflags.h:
src/deploy/catalog.h:
src/deploy/parflags.h:
src/base/argtab.h:
src/readers/tier1file.h:
src/sim/status.h:
