// The comparator: two RunResults, output by output and input by input, with tolerances that
// follow torch.testing.assert_close per dtype, and a verdict with a stable kind and a readable
// report (which output or input, max abs/rel error, first differing index, excerpts).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/enums.h"
#include "oracle/run_result.h"

namespace epsmith {

enum class VerdictKind : uint8_t {
  Match, ValueMismatch, ShapeMismatch, DtypeMismatch, ExceptionInOne, DifferentExceptions,
};
std::string_view verdictKindName(VerdictKind k);  // "value-mismatch"

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
// torch.testing.assert_close's defaults: exact for integers and bool.
Tolerance defaultTolerance(ScalarType dtype);

struct CompareOptions {
  std::optional<Tolerance> tolerance;  // overrides the per-dtype default
  bool equal_nan = true;               // NaN equals NaN
  // Two runs that raise at the same node agree whatever their messages say: the runs of
  // one program on two devices call different kernels, which word their refusals apart
  // ("... (when checking argument in method wrapper_CUDA_...)").
  bool same_node_raising_agrees = false;
};

struct Verdict {
  VerdictKind kind = VerdictKind::Match;
  std::string where;   // "output 1", "input buffer:calls", "" for exceptions
  std::string report;  // several lines, for people
  std::string op;      // for an exception: the op that raised ("aten::add_.Tensor"; expected's where both did)
  // What went wrong in one line, for keying (Note [Root causes], fuzz/root_cause.h): the
  // raising side's error message, or the mismatch and its dtype ("value mismatch (bf16)").
  std::string message;
  bool match() const { return kind == VerdictKind::Match; }
};

Verdict compareResults(const RunResult& expected, const RunResult& actual,
                       const CompareOptions& options = {});

}  // namespace epsmith
