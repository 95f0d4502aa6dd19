// The main of every suite. LibTorch runs its kernels on one thread here, as it does in a
// campaign's workers (prepareCaseProcess), so that a suite times what a campaign runs: with
// LibTorch's default of a thread per core, OpenMP's helpers spin beside the suite, which
// costs nothing on an idle machine and half a suite's time on a loaded 2-core one.
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include "oracle/planted_fault.h"

int main(int argc, char** argv) {
  at::set_num_threads(1);
  // As the CLI does: ci/perf.sh shows a slowed stage with EPSMITH_PLANTED_FAULT=slow:... .
  epsmith::installPlantedFaults();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
