// The comparator: two RunResults, output by output and input by input, with tolerances that
// follow torch.testing.assert_close per dtype, and a verdict with a stable kind and a readable
// report (which output or input, max abs/rel error, first differing index, excerpts).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ir/enums.h"
#include "oracle/run_result.h"
#include "oracle/tolerance.h"

namespace epsmith {

enum class VerdictKind : uint8_t {
  Match,
  ValueMismatch,
  ShapeMismatch,
  DtypeMismatch,
  ExceptionInOne,
  DifferentExceptions,
};
std::string_view verdictKindName(VerdictKind k);  // "value-mismatch"

// Note [Values compared at the precision they were computed in]
// A value is only as precise as the least precise dtype it was computed from: sinh.out of
// an f32 input into an f64 out computes in f32, and eager's kernel for a strided input
// takes another path than the functional form's sinh on a contiguous one, two f32 ulps
// apart, which f64's tolerance calls a mismatch (a D1 and a D2 root cause of a 2.13
// campaign). torch.testing compares at the dtype an op computes in; where a check knows
// the dtypes a value's computation read (`computed_in`, the least precise floating one
// for the value at `where`), a floating value that differs at its own dtype's tolerance is
// compared again at that dtype's, if looser, and agrees if it agrees there.
// A value rounded at that dtype by several calls carries each call's rounding: rsqrt_ of
// an f16 tensor differs by an ulp between ATen's vectorized path (contiguous) and its
// scalar one (strided), and the div_ after it carries that past f16's rtol (a 2.13
// campaign's D1 case; 1.13's renorm_ then a norm, another). Rounding errors add up over a
// chain, to n unit roundoffs after n roundings at first order (Higham, "Accuracy and
// Stability of Numerical Algorithms", 3.1), so that dtype's tolerance is multiplied by the
// number of calls in the value's slice that compute a result in it (`roundings`), at most
// kMostRoundingsTolerated: an f16 value then agrees within four to eight ulps at most, and a
// lost or misplaced write, which moves a value by far more, still differs.
struct CompareOptions {
  std::optional<Tolerance> tolerance;  // overrides the per-dtype default
  std::function<std::optional<ComputedIn>(const std::string& where)> computed_in;
  bool equal_nan = true;  // NaN equals NaN
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

Verdict compareResults(const RunResult& expected, const RunResult& actual, const CompareOptions& options = {});

}  // namespace epsmith
