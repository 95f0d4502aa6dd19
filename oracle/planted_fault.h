// Planted faults: deliberately wrong kernels that tests switch on, so that a test needing a
// finding does not depend on an upstream bug still existing in the LibTorch at hand.
#pragma once

#include <string>
#include <vector>

namespace epsmith {

// Note [Planted faults]
// EPSMITH_PLANTED_FAULT is a comma-separated list of op overloads (`aten::logical_not_`,
// `aten::add_.Tensor`). For each it registers a Functionalize-key kernel that raises
// "planted fault: ..."; an entry written `crash:aten::polygamma_` gets one that dies of
// SIGSEGV, as LibTorch's memory errors do; `generic:` one that raises ATen's "Dimension out of
// range" and `value:` one that computes the op and adds one to its floating results (the
// negative controls of the known-bugs list, Note [Known bugs]). Eager runs never reach the Functionalize key, so
// the program runs as before everywhere but under LibTorch's functionalization: D2 reports
// exception-in-one (or a crash) at that op while D1 and D4 pass, on every LibTorch version,
// for as long as the variable is set. `overread:aten::polygamma` replaces the op's CPU
// kernel, in every run mode, with one whose every element is the byte just past its first
// tensor argument's storage: a kernel reading memory it does not own, as 1.13's nanmedian.dim
// did (Note [Over-reads see a fill]). `cuda:aten::sigmoid` replaces the op's CUDA kernel with
// the CPU's result plus one (floating results), so D3 reports a value mismatch there; where
// no CUDA device exists the kernel is registered and never called. `slow:aten::mul.Tensor`
// makes a functional op kPlantedDelayMicros late on every call, in every run mode, its
// result unchanged: a kernel that got slower, for `epsmith perf --compare` and ci/perf.sh
// (docs/perf.md). `stale:aten::logical_not_` is the plain entry's raising kernel, registered
// only when a process begins its second case (notePlantedCaseBegins): a finding that an
// earlier case's corrupt heap made, which a fresh process never shows
// (Note [A finding must come back in a fresh process]). The variable is read once per process, before its
// first run (forked workers inherit the registrations), and every fault planted is reported
// on standard error so that no campaign runs with one unawares. Meant for tests.
//
// Installs the faults the environment names, once; returns those planted. An entry that
// names no operator is reported on standard error and skipped.
const std::vector<std::string>& installPlantedFaults();

// A campaign's case begins in this process: the second registers the `stale:` faults.
void notePlantedCaseBegins();

// How late a `slow:` kernel is, per call.
constexpr int kPlantedDelayMicros = 200;

}  // namespace epsmith
