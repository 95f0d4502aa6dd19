// D2: eager(original) vs LibTorch's C++ functionalization of it (the Functionalize key).
#include "fuzz/check_steps.h"

#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "ops/meta_kernels.h"
#include "ops/op_registry.h"

namespace epsmith::check_detail {

namespace {

// Note [Meta kernels only Python registers]
// LibTorch's C++ functionalization runs a mutable op's meta kernel before its functional
// form, and PyTorch registers some meta kernels only from Python (on 2.13: abs.out, the
// logical_* outs, nan_to_num.out, floor_divide.out, mvlgamma.out), which a process without
// Python lacks, so D2 raises at every program that calls one or a form that runs one
// (floor_divide_ runs floor_divide.out's). That is pytorch#105105, and it was a fifth of a
// default campaign's cases; torch.func.functionalize, which has Python, never meets it.
// In a campaign's cases D2 therefore skips such a run, and the campaign counts it under the
// skip's reason rather than as a finding: only where the message says so about an op that
// this process's dispatcher really holds no meta or composite kernel for (runsOnMetaHere), so
// that the same words about any other op stay a finding. `epsmith check` and replay still
// show the finding, so the corpus's cases of it keep reproducing while the bug exists.
std::optional<std::string> needsAMetaKernelOnlyPythonHas(const CheckOutcome& o) {
  // Every D2 exception of a campaign comes here: a plain search, then the name before it.
  constexpr std::string_view kNoMeta = ": attempted to run this operator with Meta tensors";
  if (o.status != Status::Finding || o.kind != "exception-in-one") return std::nullopt;
  const size_t at = o.report.find(kNoMeta);
  if (at == std::string::npos) return std::nullopt;
  size_t begin = at;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(o.report[begin - 1])) ||
                       std::string_view("_.:").find(o.report[begin - 1]) != std::string_view::npos)) {
    --begin;
  }
  const std::string name = o.report.substr(begin, at - begin);  // "aten::floor_divide.out"
  const OpInfo* op = findOpByName(name);
  if (!op || runsOnMetaHere(*op)) return std::nullopt;
  return "LibTorch's C++ functionalization needs " + name +
         "'s meta kernel, which only Python registers (pytorch#105105; Note [Meta kernels only Python registers])";
}

CheckOutcome d2(const ExportedProgram& p, const RunResult& eager, const CheckOptions& options,
                const Interpreter* plan) {
  CheckOutcome o =
      compare(DiffCheck::D2, eager, run(p, runOf(RunMode::LibTorchFunctionalize, options.device, plan), options.times),
              options.times, atComputedPrecision(p));
  if (!options.skip_known_triggers) return o;
  if (auto why = needsAMetaKernelOnlyPythonHas(o)) return skip(DiffCheck::D2, *why);
  return o;
}

}  // namespace

CheckOutcome runD2(CheckContext& c) { return d2(c.program, c.eager, c.options, c.plan); }

void focusD2(const CheckOutcome&, CheckOptions&) {}  // it has no variants

}  // namespace epsmith::check_detail
