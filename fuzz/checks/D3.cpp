// D3: the program on CPU vs on CUDA, where a CUDA LibTorch and a GPU are.
#include "fuzz/check_steps.h"

#include <optional>
#include <string>
#include <string_view>

#include "ops/op_registry.h"
#include "oracle/libtorch_compat.h"

namespace epsmith::check_detail {

namespace {

// Note [Results a device may choose]
// Some ops leave part of their result to the kernel, and CPU and CUDA kernels choose apart:
// the order of equal elements after an unstable sort and the index a tie reports (sort,
// topk, max.dim, ...), which write lands where indices repeat (scatter, index_put_, put_).
// D3 would report the choice, not a bug (a first D3 campaign on an H200 with LibTorch 2.11
// filed 960 such value mismatches, nearly all from sort's ties). tensor_split takes its
// indices as a CPU tensor, which a program moved to CUDA does not have. D3 skips a program
// calling any of these, naming the call. Written from the schemas' documentation; the
// schemas cannot say it.
struct DeviceChoice {
  std::string_view name;      // qualified name
  std::string_view overload;  // "*": every overload
  std::string_view why;
};
constexpr std::string_view kTies = "reports one of several equal elements as its kernel finds it";
constexpr std::string_view kRepeats = "lets one of several writes to a repeated index win, as its kernel orders them";
constexpr DeviceChoice kDeviceChoices[] = {
    {"aten::sort", "*", kTies},
    {"aten::argsort", "*", kTies},
    {"aten::msort", "*", kTies},
    {"aten::topk", "*", kTies},
    {"aten::kthvalue", "*", kTies},
    {"aten::median", "dim", kTies},
    {"aten::median", "dim_values", kTies},
    {"aten::nanmedian", "dim", kTies},
    {"aten::nanmedian", "dim_values", kTies},
    {"aten::mode", "*", kTies},
    {"aten::max", "dim", kTies},
    {"aten::max", "dim_max", kTies},
    {"aten::min", "dim", kTies},
    {"aten::min", "dim_min", kTies},
    {"aten::argmax", "*", kTies},
    {"aten::argmin", "*", kTies},
    {"aten::cummax", "*", kTies},
    {"aten::cummin", "*", kTies},
    {"aten::scatter", "*", kRepeats},
    {"aten::scatter_", "*", kRepeats},
    {"aten::index_put", "*", kRepeats},
    {"aten::index_put_", "*", kRepeats},
    {"aten::_index_put_impl_", "*", kRepeats},
    {"aten::put", "*", kRepeats},
    {"aten::put_", "*", kRepeats},
    {"aten::index_copy", "*", kRepeats},
    {"aten::index_copy_", "*", kRepeats},
    {"aten::tensor_split", "tensor_indices_or_sections", "takes its indices as a CPU tensor"},
};

// The first call of `g` whose result a device may choose, with why; nullopt when none does.
std::optional<std::string> deviceChoice(const Graph& g) {
  for (const Node& n : g.nodes()) {
    const OpInfo* op = n.op() == OpKind::CallFunction ? n.target.op() : nullptr;
    if (!op) continue;
    for (const DeviceChoice& c : kDeviceChoices) {
      if (c.name == op->qualified_name && (c.overload == "*" || c.overload == op->overload)) {
        return "%" + n.name() + ": " + op->name() + " " + std::string(c.why);
      }
    }
  }
  return std::nullopt;
}

CheckOutcome d3(const ExportedProgram& p, const Interpreter* plan, PhaseTimes* times) {
  if (auto choice = deviceChoice(p.graph())) {
    return skip(DiffCheck::D3, *choice + ", which CPU and CUDA choose apart (Note [Results a device may choose])");
  }
  if (!cudaAvailable()) return skip(DiffCheck::D3, "CUDA is not available in this LibTorch build or machine");
  RunResult cpu = run(p, runOf(RunMode::Exported, Device(), plan), times);
  Device cuda_device;
  cuda_device.type = "cuda";
  // The CUDA run plans the program for the GPU (Note [Programs moved to a device]).
  RunResult cuda = run(p, runOf(RunMode::Exported, cuda_device, plan), times);
  CompareOptions options;
  options.same_node_raising_agrees = true;
  return compare(DiffCheck::D3, cpu, cuda, times, options);
}

}  // namespace

CheckOutcome runD3(CheckContext& c) { return d3(c.program, c.plan, c.options.times); }

void focusD3(const CheckOutcome&, CheckOptions&) {}  // it has no variants

}  // namespace epsmith::check_detail
