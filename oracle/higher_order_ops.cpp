// See higher_order_ops.h.
#include "oracle/higher_order_ops.h"
#include "oracle/autocast_state.h"
#include "oracle/subgraph_places.h"

#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/autocast_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/stack.h>
#include <c10/core/Device.h>

#include <stdexcept>
#include <string>

namespace epsmith::hop_detail {

std::vector<c10::IValue> elementsOf(const c10::IValue& v) {
  std::vector<c10::IValue> out;
  if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorList()) out.emplace_back(t);
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) out.push_back(e);
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) out.push_back(e);
  } else if (!v.isNone()) {
    throw std::invalid_argument("expected a list or tuple, got a " + v.tagKind());
  }
  return out;
}

namespace {

std::vector<c10::IValue> runSubgraph(const HigherOrderCall& call, size_t which, const std::vector<c10::IValue>& in,
                                     SubgraphPlace place) {
  auto outcome = call.subgraphs[which]->run(in, call.observe ? *call.observe : ValueObserver{}, call.observe_untaken);
  if (outcome.error) throw std::runtime_error(inSubgraph(place, outcome.error->node) + ": " + outcome.error->message);
  return std::move(outcome.outputs);
}

// What the loop's cond graph returned: a bool, or a bool tensor of no dimensions.
bool loopGoesOn(const std::vector<c10::IValue>& returned) {
  if (returned.size() == 1 && returned[0].isBool()) return returned[0].toBool();
  if (returned.size() == 1 && returned[0].isTensor()) {
    const at::Tensor& t = returned[0].toTensor();
    if (t.dim() == 0 && t.scalar_type() == at::kBool) return t.item<bool>();
  }
  throw std::runtime_error("cond_fn must return a boolean scalar tensor or a boolean");
}

// The most iterations a loop may take: a generated or hand-written program whose loop never
// ends is an error, as a worker's time limit would be, but sooner and named.
constexpr int64_t kMaxLoopIterations = 1'000'000;

}  // namespace

// Note [Subgraphs observed where they do not run]
// The generator makes a program symbolic by running it at other sizes and reading each
// value's geometry (Note [Symbolic sizes of generated programs]), and a run shows it only
// the subgraphs it runs: a cond's branch not taken, a loop body whose condition is false at
// once, are never seen, and their values need the symbol too. With
// RunOptions::observe_untaken such a subgraph runs once more on the same operands for the
// observer alone, its results discarded. Branches and bodies are functional (torch.cond and
// while_loop refuse ones that write or alias what they take), so the extra run changes
// nothing the program computes; one that raises (an index past a size of this run) ends the
// run, and the generator leaves such a program static: export would not trace it the same
// at every size.
c10::IValue runCond(HigherOrderCall& call) {
  if (call.args.size() != 4 || call.subgraphs.size() != 2) {
    throw std::invalid_argument("cond takes (pred, true_graph, false_graph, operands)");
  }
  const c10::IValue& pred = call.args[0];
  const bool take_true = pred.isTensor() ? pred.toTensor().item<bool>() : pred.toBool();
  const std::vector<c10::IValue> operands = elementsOf(call.args[3]);
  auto taken = runSubgraph(call, take_true ? 0 : 1, operands,
                           take_true ? SubgraphPlace::TrueBranch : SubgraphPlace::FalseBranch);
  // Note [Subgraphs observed where they do not run]: a branch may not write its operands.
  if (call.observe && call.observe_untaken) {
    runSubgraph(call, take_true ? 1 : 0, operands, take_true ? SubgraphPlace::FalseBranch : SubgraphPlace::TrueBranch);
  }
  return c10::ivalue::Tuple::create(std::move(taken));
}

c10::IValue runWithGradEnabled(HigherOrderCall& call) {
  if (call.args.size() < 2 || call.subgraphs.size() != 1 || !call.args[0].isBool()) {
    throw std::invalid_argument("wrap_with_set_grad_enabled takes (enabled, graph, *operands)");
  }
  const std::vector<c10::IValue> operands(call.args.begin() + 2, call.args.end());
  const at::AutoGradMode mode(call.args[0].toBool());
  return c10::ivalue::Tuple::create(runSubgraph(call, 0, operands, SubgraphPlace::Region));
}

c10::IValue runWithEffects(HigherOrderCall& call) {
  if (call.args.size() < 2 || !call.args[1].isString()) {
    throw std::invalid_argument("with_effects takes (token, op, *args)");
  }
  if (!call.node.kwargs.empty()) throw std::invalid_argument("with_effects with keyword arguments is not run here");
  const std::string& name = call.args[1].toStringRef();
  const size_t dot = name.find('.', name.find("::"));
  const auto op = c10::Dispatcher::singleton().findSchema(
      {name.substr(0, dot), dot == std::string::npos ? "" : name.substr(dot + 1)});
  if (!op) throw std::runtime_error("with_effects calls " + name + ", which this LibTorch does not define");
  torch::jit::Stack stack(call.args.begin() + 2, call.args.end());
  const auto& params = op->schema().arguments();
  for (size_t i = stack.size(); i < params.size(); ++i) {
    if (!params[i].default_value()) throw std::invalid_argument(name + " is given no " + params[i].name());
    stack.push_back(*params[i].default_value());
  }
  op->callBoxed(stack);
  // A fresh token (torch.tensor([])), then what the op returned: None for nothing.
  std::vector<c10::IValue> out{at::empty({0})};
  if (stack.empty()) out.emplace_back();
  for (auto& v : stack) out.push_back(std::move(v));
  return c10::ivalue::Tuple::create(std::move(out));
}

c10::IValue runWhileLoop(HigherOrderCall& call) {
  if (call.args.size() != 4 || call.subgraphs.size() != 2) {
    throw std::invalid_argument("while_loop takes (cond_graph, body_graph, carried_inputs, additional_inputs)");
  }
  std::vector<c10::IValue> carried = elementsOf(call.args[2]);
  const std::vector<c10::IValue> additional = elementsOf(call.args[3]);
  auto with = [&](const std::vector<c10::IValue>& values) {
    std::vector<c10::IValue> in = values;
    in.insert(in.end(), additional.begin(), additional.end());
    return in;
  };
  if (!loopGoesOn(runSubgraph(call, 0, with(carried), SubgraphPlace::LoopCondition))) {
    // Note [Subgraphs observed where they do not run]: a body may not write what it carries.
    if (call.observe && call.observe_untaken) runSubgraph(call, 1, with(carried), SubgraphPlace::LoopBody);
    // No iteration: torch returns clones of the carried values, never the inputs themselves.
    for (auto& v : carried) {
      if (v.isTensor()) v = v.toTensor().clone();
    }
    return c10::ivalue::Tuple::create(std::move(carried));
  }
  for (int64_t i = 0;; ++i) {
    if (i == kMaxLoopIterations) {
      throw std::runtime_error("while_loop did not end within " + std::to_string(kMaxLoopIterations) + " iterations");
    }
    std::vector<c10::IValue> next = runSubgraph(call, 1, with(carried), SubgraphPlace::LoopBody);
    if (next.size() != carried.size()) {
      throw std::runtime_error("body_fn should return the same number of elements as carried_inputs, got " +
                               std::to_string(next.size()) + " vs " + std::to_string(carried.size()));
    }
    carried = std::move(next);
    if (!loopGoesOn(runSubgraph(call, 0, with(carried), SubgraphPlace::LoopCondition))) break;
  }
  return c10::ivalue::Tuple::create(std::move(carried));
}

namespace {

// The leading size the mapped or scanned tensors share; an error where one is no tensor,
// has no dimension, or another leading size.
int64_t leadingSize(const std::vector<c10::IValue>& xs, const char* op) {
  int64_t n = -1;
  for (const auto& x : xs) {
    if (!x.isTensor() || x.toTensor().dim() == 0)
      throw std::runtime_error(std::string(op) + "'s xs must be tensors of at least one dimension");
    const int64_t size = x.toTensor().size(0);
    if (n >= 0 && size != n) throw std::runtime_error(std::string(op) + "'s xs must have the same leading size");
    n = size;
  }
  return n;
}

// Element `i` of each of `xs` along dimension 0, as `for x in xs` and select(0, i) give it.
std::vector<c10::IValue> slicesAt(const std::vector<c10::IValue>& xs, int64_t i) {
  std::vector<c10::IValue> out;
  for (const auto& x : xs) out.emplace_back(x.toTensor().select(0, i));
  return out;
}

std::vector<c10::IValue> concat(std::vector<c10::IValue> a, const std::vector<c10::IValue>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Each of `rows` (one vector of outputs per step) stacked along a new dimension 0.
std::vector<c10::IValue> stacked(const std::vector<std::vector<c10::IValue>>& rows, const char* op) {
  std::vector<c10::IValue> out;
  for (size_t k = 0; !rows.empty() && k < rows[0].size(); ++k) {
    std::vector<at::Tensor> column;
    for (const auto& row : rows) {
      if (row.size() != rows[0].size() || !row[k].isTensor())
        throw std::runtime_error(std::string(op) + "'s steps must return the same number of tensors");
      column.push_back(row[k].toTensor());
    }
    out.emplace_back(at::stack(column));
  }
  return out;
}

}  // namespace

c10::IValue runMap(HigherOrderCall& call) {
  if (call.args.size() != 3 || call.subgraphs.size() != 1) {
    throw std::invalid_argument("map_impl takes (body_graph, xs, pos_args)");
  }
  const std::vector<c10::IValue> xs = elementsOf(call.args[1]);
  const std::vector<c10::IValue> pos_args = elementsOf(call.args[2]);
  const int64_t n = leadingSize(xs, "map");
  if (n <= 0) throw std::runtime_error("Leading dimensions of mapped xs cannot be 0.");
  std::vector<std::vector<c10::IValue>> rows;
  for (int64_t i = 0; i < n; ++i)
    rows.push_back(runSubgraph(call, 0, concat(slicesAt(xs, i), pos_args), SubgraphPlace::MapBody));
  std::vector<c10::IValue> out = stacked(rows, "map");
  for (auto& v : out) {
    const at::Tensor t = v.toTensor();
    // Under functionalization torch's map (its Functionalize rule) returns what it wraps
    // afresh, views of nothing, as LibTorch's run of the stack gives them here.
    if (at::functionalization::impl::isFunctionalTensor(t)) continue;
    at::Tensor flat = at::empty({t.numel()}, t.options());
    flat.copy_(t.reshape({-1}));
    v = flat.view(t.sizes());
  }
  return c10::ivalue::Tuple::create(std::move(out));
}

c10::IValue runScan(HigherOrderCall& call) {
  if (call.args.size() != 4 || call.subgraphs.size() != 1) {
    throw std::invalid_argument("scan takes (combine_graph, init, xs, additional_inputs)");
  }
  std::vector<c10::IValue> carry = elementsOf(call.args[1]);
  const std::vector<c10::IValue> xs = elementsOf(call.args[2]);
  const std::vector<c10::IValue> additional = elementsOf(call.args[3]);
  if (xs.empty()) return c10::ivalue::Tuple::create(std::move(carry));
  const int64_t n = leadingSize(xs, "scan");
  if (n <= 0)
    throw std::runtime_error("All xs leaves must at least have 'dim' number of dimensions and scan dimension > 0");
  std::vector<std::vector<c10::IValue>> rows;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<c10::IValue> out =
        runSubgraph(call, 0, concat(concat(carry, slicesAt(xs, i)), additional), SubgraphPlace::ScanCombine);
    if (out.size() < carry.size())
      throw std::runtime_error("combine_fn must return the carry (" + std::to_string(carry.size()) +
                               " values) and the outputs, got " + std::to_string(out.size()) + " values");
    carry.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(carry.size()));
    rows.emplace_back(out.begin() + static_cast<std::ptrdiff_t>(carry.size()), out.end());
  }
  return c10::ivalue::Tuple::create(concat(std::move(carry), stacked(rows, "scan")));
}

c10::IValue runWithAutocast(HigherOrderCall& call) {
  const auto& a = call.args;
  if (a.size() < 5 || call.subgraphs.size() != 1 || !a[0].isString() || !(a[1].isNone() || a[1].isInt()) ||
      !a[2].isBool() || !(a[3].isNone() || a[3].isBool())) {
    throw std::invalid_argument(
        "wrap_with_autocast takes (device_type, dtype, enabled, cache_enabled, graph, *operands)");
  }
  const c10::DeviceType device = c10::Device(a[0].toStringRef()).type();
  // A None dtype or cache flag keeps the current one, as torch.autocast's defaults do.
  const at::ScalarType dtype =
      a[1].isNone() ? at::autocast::get_autocast_dtype(device) : static_cast<at::ScalarType>(a[1].toInt());
  const bool cache = a[3].isNone() ? at::autocast::is_autocast_cache_enabled() : a[3].toBool();
  const std::vector<c10::IValue> operands(a.begin() + 5, a.end());
  const autocast_state::AutocastRegion region(device, dtype, a[2].toBool(), cache);
  return c10::ivalue::Tuple::create(runSubgraph(call, 0, operands, SubgraphPlace::AutocastRegion));
}

}  // namespace epsmith::hop_detail
