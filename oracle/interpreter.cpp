// Planning and execution of graphs over the boxed dispatcher; see interpreter.h.
// Note [Argument plans]: every schema argument of every ATen node is planned once — a
// constant IValue (literals and schema defaults, converted to what the boxed kernel expects),
// a slot of an earlier node's value, or a list assembled from slots — so a run only copies
// IValues onto the stack and calls the kernel.
#include "oracle/interpreter.h"

#include <ATen/core/Tensor.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/ScalarOps.h>
#include <ATen/core/grad_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <c10/util/Logging.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>

#include "ops/op_registry.h"
#include "oracle/higher_order_ops.h"
#include "oracle/aten_bridge.h"
#include "oracle/autocast_state.h"
#include "oracle/breadcrumb.h"
#include "oracle/builtins.h"
#include "oracle/libtorch_compat.h"
#include "oracle/op_time.h"

namespace epsmith {
namespace {

std::mutex& hopMutex() {
  static std::mutex mu;
  return mu;
}

std::map<std::string, HigherOrderFn>& hopRegistry();

std::string firstLine(const std::string& s) {
  auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

void registerHigherOrderOp(const std::string& name, HigherOrderFn fn) {
  std::lock_guard<std::mutex> lock(hopMutex());
  hopRegistry()[name] = std::move(fn);
}

struct Interpreter::Plan {
  struct ArgPlan {
    enum class Kind : uint8_t {
      Constant,
      Slot,
      SlotList,
      OptionalSlotList,
      SymIntList,
      WrapSlot
    } kind = Kind::Constant;
    c10::IValue constant;
    int slot = -1;
    std::vector<int> slots;         // lists: -1 is None (optional) or a literal (SymIntList)
    std::vector<int64_t> literals;  // SymIntList literals
  };
  enum class StepKind : uint8_t { Placeholder, Aten, Builtin, TorchFunction, HigherOrder, Constant, Output, Skip };
  struct Step {
    const Node* node = nullptr;
    StepKind kind = StepKind::Skip;
    int slot = -1;
    const c10::OperatorHandle* op = nullptr;
    // The op's full name ("aten::add.Tensor"), for the breadcrumb: our registry's copy, as
    // the dispatcher's own lies in memory that nothing else touches before the call.
    std::string_view op_name;
    size_t num_returns = 0;
    bool tuple_return = false;
    std::vector<ArgPlan> args;
    std::vector<std::unique_ptr<Interpreter>> subgraphs;
    HigherOrderFn hop;
  };
  std::vector<Step> steps;
  size_t num_slots = 0;
  size_t num_placeholders = 0;
  c10::Device device = c10::kCPU;  // Note [Programs moved to a device]
};

namespace {

using Plan = Interpreter::Plan;

// Charges the dispatcher call of its scope, raising or not, to this thread's op-time sink.
class OpTimer {
 public:
  OpTimer() : sink_(opTimeSink()) {
    if (sink_) start_ = std::chrono::steady_clock::now();
  }
  ~OpTimer() {
    if (sink_) *sink_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  OpTimer(const OpTimer&) = delete;
  OpTimer& operator=(const OpTimer&) = delete;

 private:
  double* sink_;
  std::chrono::steady_clock::time_point start_;
};
using ArgPlan = Plan::ArgPlan;

c10::IValue scalarIValue(const Argument& a) {
  if (const auto* i = a.get<arg::Int>()) return i->value;
  if (const auto* f = a.get<arg::Float>()) return f->value;
  if (const auto* b = a.get<arg::Bool>()) return b->value;
  if (const auto* c = a.get<arg::Complex>()) return c10::complex<double>(c->real, c->imag);
  return c10::IValue();
}

// A Python number passed for a Tensor parameter, as Python's argument parser makes it: a
// 0-dim tensor marked as a wrapped number, so type promotion treats it as a scalar; on the
// device the program runs on (Note [Programs moved to a device]).
at::Tensor wrappedNumber(const at::Scalar& s, c10::Device device) {
  at::Tensor t = at::scalar_to_tensor(s, device);
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

// Note [Programs moved to a device]
// A program runs on CPU as written. Run on another device (D3's CUDA run, --device cuda),
// it is moved there first, as torch.export's move_to_device_pass moves an exported program:
// its inputs and constants are materialized on the device, every device argument names it,
// and so does an op's `device` parameter the call leaves to its default (a factory call
// without one would make a CPU tensor beside the program's CUDA ones). Numbers passed for
// Tensor parameters become wrapped numbers on the device, where a lifted constant would
// be. A plan is made for one device.
c10::IValue onDevice(const ParamInfo* param, c10::Device device) {
  return param && param->type == ParamType::Device && !device.is_cpu() ? c10::IValue(device) : c10::IValue();
}

// The constant IValue for a literal argument, shaped for the parameter it binds.
c10::IValue literal(const Argument& a, const ParamInfo* param, c10::Device device) {
  if (c10::IValue moved = onDevice(param, device); !moved.isNone()) return moved;
  switch (a.kind()) {
    case ArgKind::None: return c10::IValue();
    case ArgKind::Int: {
      int64_t v = a.get<arg::Int>()->value;
      if (param && param->type == ParamType::Float) return static_cast<double>(v);
      if (param && param->type == ParamType::Tensor) return wrappedNumber(at::Scalar(v), device);
      if (param && (param->type == ParamType::IntList || param->type == ParamType::SymIntList)) {
        return std::vector<int64_t>(static_cast<size_t>(std::max<int64_t>(param->fixed_list_size, 1)), v);
      }
      return v;
    }
    case ArgKind::Float:
    case ArgKind::Bool:
    case ArgKind::Complex: {
      c10::IValue v = scalarIValue(a);
      if (param && param->type == ParamType::Tensor) return wrappedNumber(v.toScalar(), device);
      return v;
    }
    case ArgKind::IntList: return a.get<arg::IntList>()->values;
    case ArgKind::FloatList: return a.get<arg::FloatList>()->values;
    case ArgKind::BoolList: {
      c10::List<bool> l;
      for (bool b : a.get<arg::BoolList>()->values) l.push_back(b);
      return l;
    }
    case ArgKind::String: return a.get<arg::String>()->value;
    case ArgKind::StringList: return a.get<arg::StringList>()->values;
    case ArgKind::ScalarType: return static_cast<int64_t>(toAten(a.get<arg::Dtype>()->value));
    case ArgKind::MemoryFormat: return static_cast<int64_t>(toAten(a.get<arg::MemFormat>()->value));
    case ArgKind::Layout: return static_cast<int64_t>(toAten(a.get<arg::TensorLayout>()->value));
    case ArgKind::Device: return toAten(a.get<arg::DeviceArg>()->value);
    case ArgKind::SymInt: return a.get<arg::SymInt>()->value.literal;
    case ArgKind::SymFloat: return a.get<arg::SymFloat>()->value.literal;
    case ArgKind::SymBool: return a.get<arg::SymBool>()->value.literal;
    case ArgKind::Operator: return a.get<arg::Operator>()->name;
    default:
      throw std::invalid_argument("argument kind " + std::string(serializedTag(a.kind())) + " cannot be a constant");
  }
}

class Planner {
 public:
  Planner(const Graph& g, c10::Device device) : device_(device) {
    slot_of_.reserve(g.size());
    int i = 0;
    for (const auto& n : g.nodes()) slot_of_.emplace_back(&n, i++);
    std::sort(slot_of_.begin(), slot_of_.end(), byNode);
  }
  // Slots given outright (a single call planned without a graph of its own).
  explicit Planner(std::vector<std::pair<const Node*, int>> slots) : slot_of_(std::move(slots)), device_(c10::kCPU) {
    std::sort(slot_of_.begin(), slot_of_.end(), byNode);
  }

  c10::Device device() const { return device_; }

  int slot(const Node* n) const {
    auto it = std::lower_bound(slot_of_.begin(), slot_of_.end(), std::make_pair(n, 0), byNode);
    if (it == slot_of_.end() || it->first != n) throw std::invalid_argument("reference to a node outside the graph");
    return it->second;
  }

  ArgPlan plan(const Argument& a, const ParamInfo* param) const {
    ArgPlan p;
    switch (a.kind()) {
      case ArgKind::Tensor:
      case ArgKind::OptionalTensor: {
        const Node* n = nullptr;
        a.forEachNode([&](const Node* x) { n = x; });
        if (!n) return p;  // optional(None): constant None
        // A node holding a number (e.g. from aten::size.int) passed for a Tensor is wrapped.
        p.kind = param && param->type == ParamType::Tensor ? ArgPlan::Kind::WrapSlot : ArgPlan::Kind::Slot;
        p.slot = slot(n);
        return p;
      }
      case ArgKind::TensorList:
        p.kind = ArgPlan::Kind::SlotList;
        for (const Node* n : a.get<arg::TensorList>()->nodes) p.slots.push_back(slot(n));
        return p;
      case ArgKind::OptionalTensorList:
        p.kind = ArgPlan::Kind::OptionalSlotList;
        for (const Node* n : a.get<arg::OptionalTensorList>()->nodes) p.slots.push_back(n ? slot(n) : -1);
        return p;
      case ArgKind::SymInt:
      case ArgKind::SymFloat:
      case ArgKind::SymBool: {
        const Node* n = nullptr;
        a.forEachNode([&](const Node* x) { n = x; });
        if (!n) {
          p.constant = literal(a, param, device_);
          return p;
        }
        p.kind = param && param->type == ParamType::Tensor ? ArgPlan::Kind::WrapSlot : ArgPlan::Kind::Slot;
        p.slot = slot(n);
        return p;
      }
      case ArgKind::SymIntList: {
        const auto& values = a.get<arg::SymIntList>()->values;
        bool any_node = false;
        for (const auto& v : values) any_node = any_node || !v.isLiteral();
        if (!any_node) {
          std::vector<int64_t> ints;
          for (const auto& v : values) ints.push_back(v.literal);
          p.constant = ints;
          return p;
        }
        p.kind = ArgPlan::Kind::SymIntList;
        for (const auto& v : values) {
          p.slots.push_back(v.isLiteral() ? -1 : slot(v.node));
          p.literals.push_back(v.literal);
        }
        return p;
      }
      case ArgKind::Graph:
      case ArgKind::CustomObj: return p;  // handled by the higher-order op; None on the stack
      default: p.constant = literal(a, param, device_); return p;
    }
  }

 private:
  // Nodes of one graph by address (std::less: a total order on unrelated pointers).
  static bool byNode(const std::pair<const Node*, int>& a, const std::pair<const Node*, int>& b) {
    return std::less<const Node*>()(a.first, b.first);
  }
  std::vector<std::pair<const Node*, int>> slot_of_;  // by node address: a few dozen, searched
  c10::Device device_;
};

c10::IValue gather(const ArgPlan& p, const std::vector<c10::IValue>& env, c10::Device device) {
  switch (p.kind) {
    case ArgPlan::Kind::Constant: return p.constant;
    case ArgPlan::Kind::Slot: return env[static_cast<size_t>(p.slot)];
    case ArgPlan::Kind::WrapSlot: {
      const c10::IValue& v = env[static_cast<size_t>(p.slot)];
      if (v.isTensor() || v.isNone()) return v;
      return wrappedNumber(v.toScalar(), device);
    }
    case ArgPlan::Kind::SlotList: {
      c10::List<at::Tensor> l;
      l.reserve(p.slots.size());
      for (int s : p.slots) l.push_back(env[static_cast<size_t>(s)].toTensor());
      return l;
    }
    case ArgPlan::Kind::OptionalSlotList: {
      c10::List<c10::optional<at::Tensor>> l;
      for (int s : p.slots) {
        if (s < 0)
          l.push_back(c10::nullopt);
        else
          l.push_back(env[static_cast<size_t>(s)].toTensor());
      }
      return l;
    }
    case ArgPlan::Kind::SymIntList: {
      std::vector<int64_t> ints;
      for (size_t i = 0; i < p.slots.size(); ++i) {
        ints.push_back(p.slots[i] < 0 ? p.literals[i] : env[static_cast<size_t>(p.slots[i])].toInt());
      }
      return ints;
    }
  }
  return c10::IValue();
}

// Note [Errors without backtraces]
// Every c10::Error captures a symbolized backtrace when it is made (dladdr per frame,
// ~0.3 ms). The oracle reports op errors by their first line only, and the generators and
// campaigns provoke thousands of them a second (candidates that do not run), where the
// backtraces were 77% of generation time. So the first interpreter turns the capture off
// for the process; what_without_backtrace() was all we ever read.
void stopCapturingBacktraces() {
  static std::once_flag once;
  std::call_once(once, [] { c10::SetStackTraceFetcher([] { return std::string(); }); });
}

// Plans a call_function node into `step`; `g` is the graph it belongs to (its subgraph
// attributes), nullptr for a call planned alone.
void planCall(const Node& n, const Graph* g, const Planner& planner, Plan::Step& step) {
  const Target& t = n.target;
  if (t.kind() == Target::Kind::Aten) {
    const OpInfo& op = *t.op();
    step.kind = Plan::StepKind::Aten;
    step.op = op.handle;
    step.op_name = op.name();
    step.num_returns = op.returns.size();
    step.tuple_return = op.returns.size() > 1;
    // The argument bound to each schema parameter (most ops have a few: no allocation).
    constexpr size_t kInlineParams = 24;
    const Argument* inline_bound[kInlineParams] = {};
    std::vector<const Argument*> heap_bound;
    const Argument** bound = inline_bound;
    if (op.arguments.size() > kInlineParams) {
      heap_bound.assign(op.arguments.size(), nullptr);
      bound = heap_bound.data();
    }
    if (n.args.size() > static_cast<size_t>(op.positionalCount())) {
      throw std::invalid_argument("%" + n.name() + ": too many positional arguments for " + op.name());
    }
    for (size_t i = 0; i < n.args.size(); ++i) bound[i] = &n.args[i];
    for (const auto& [key, value] : n.kwargs) {
      int i = op.argumentIndex(key);
      if (i < 0) throw std::invalid_argument("%" + n.name() + ": unknown keyword argument '" + key + "'");
      if (bound[static_cast<size_t>(i)])
        throw std::invalid_argument("%" + n.name() + ": argument '" + key + "' given twice");
      bound[static_cast<size_t>(i)] = &value;
    }
    const auto& schema_args = op.schema->arguments();
    step.args.reserve(op.arguments.size());
    for (size_t i = 0; i < op.arguments.size(); ++i) {
      if (bound[i]) {
        step.args.push_back(planner.plan(*bound[i], &op.arguments[i]));
      } else {
        ArgPlan d;
        if (c10::IValue moved = onDevice(&op.arguments[i], planner.device()); !moved.isNone())
          d.constant = moved;
        else if (schema_args[i].default_value())
          d.constant = *schema_args[i].default_value();
        else
          throw std::invalid_argument("%" + n.name() + ": missing argument '" + op.arguments[i].name + "'");
        step.args.push_back(std::move(d));
      }
    }
  } else if (!n.kwargs.empty()) {
    throw std::invalid_argument("%" + n.name() + ": keyword arguments to " + t.textName() + " are not supported");
  } else if (t.kind() == Target::Kind::Builtin || t.kind() == Target::Kind::TorchFunction) {
    step.kind = t.kind() == Target::Kind::Builtin ? Plan::StepKind::Builtin : Plan::StepKind::TorchFunction;
    for (const auto& a : n.args) step.args.push_back(planner.plan(a, nullptr));
  } else if (t.kind() == Target::Kind::HigherOrder) {
    step.kind = Plan::StepKind::HigherOrder;
    {
      std::lock_guard<std::mutex> lock(hopMutex());
      auto it = hopRegistry().find(t.name());
      if (it == hopRegistry().end()) {
        throw std::invalid_argument("%" + n.name() + ": no semantics registered for higher_order." + t.name());
      }
      step.hop = it->second;
    }
    for (const auto& a : n.args) {
      step.args.push_back(planner.plan(a, nullptr));
      if (const auto* ga = a.get<arg::Graph>()) {
        const Attribute* attr = ga->node && g ? g->attribute(ga->node->attr) : nullptr;
        if (!attr || !attr->subgraph)
          throw std::invalid_argument("%" + n.name() + ": subgraph argument names no subgraph");
        step.subgraphs.push_back(std::make_unique<Interpreter>(*attr->subgraph, planner.device()));
      }
    }
  } else {
    throw std::invalid_argument("%" + n.name() + ": " + t.textName() + " cannot be executed");
  }
}

}  // namespace

Interpreter::Interpreter(std::unique_ptr<Plan> plan) : plan_(std::move(plan)) { stopCapturingBacktraces(); }

Interpreter::Interpreter(const Graph& g, c10::Device device) : plan_(std::make_unique<Plan>()) {
  stopCapturingBacktraces();
  plan_->device = device;
  Planner planner(g, device);
  plan_->num_slots = g.size();
  plan_->steps.reserve(g.size());
  int index = 0;
  for (const auto& n : g.nodes()) {
    Plan::Step step;
    step.node = &n;
    step.slot = index++;
    switch (n.op()) {
      case OpKind::Placeholder:
        step.kind = Plan::StepKind::Placeholder;
        ++plan_->num_placeholders;
        break;
      case OpKind::Output:
        step.kind = Plan::StepKind::Output;
        for (const auto& a : n.args) step.args.push_back(planner.plan(a, nullptr));
        break;
      case OpKind::GetAttr: {
        step.kind = Plan::StepKind::Constant;
        const Attribute* attr = g.attribute(n.attr);
        if (attr && attr->tensor &&
            (attr->kind == Attribute::Kind::Parameter || attr->kind == Attribute::Kind::Tensor)) {
          TensorMaterializer m(device);
          ArgPlan c;
          c.constant = m.materialize(*attr->tensor);
          step.args.push_back(std::move(c));
        }
        break;
      }
      case OpKind::CallModule:
      case OpKind::CallMethod:
        throw std::invalid_argument("%" + n.name() + ": " + std::string(opKindName(n.op())) + " cannot be executed");
      case OpKind::CallFunction: planCall(n, &g, planner, step); break;
    }
    plan_->steps.push_back(std::move(step));
  }
}

Interpreter::~Interpreter() = default;

c10::Device Interpreter::device() const { return plan_->device; }

bool Interpreter::servesManyRuns() const {
  for (const auto& step : plan_->steps) {
    if (step.kind == Plan::StepKind::Constant) continue;  // a fresh copy per run
    if (!step.subgraphs.empty()) return false;
    for (const auto& a : step.args) {
      if (a.kind == ArgPlan::Kind::Constant && (a.constant.isTensor() || a.constant.isTensorList())) return false;
    }
  }
  return true;
}

// Plans the call alone: one placeholder step per distinct node it reads, the call, an
// output step; no graph is built (the generators call this for every candidate).
Interpreter::Outcome runSingleCall(const Node& call, const std::function<c10::IValue(const Node*)>& value_of,
                                   const Graph* owner) {
  try {
    auto plan = std::make_unique<Interpreter::Plan>();
    plan->steps.reserve(6);  // a few placeholders, the call, the output
    std::vector<std::pair<const Node*, int>> slots;
    std::vector<c10::IValue> inputs;
    call.forEachInput([&](const Node* in) {
      for (const auto& [node, slot] : slots) {
        if (node == in) return;
      }
      const int slot = static_cast<int>(slots.size());
      slots.emplace_back(in, slot);
      // A subgraph's get_attr has no value (the HOP reads its subgraph from `owner`); any
      // other input may call into LibTorch (a copy), and fail there too.
      inputs.push_back(in->op() == OpKind::GetAttr ? c10::IValue() : value_of(in));
      Plan::Step step;
      step.kind = Plan::StepKind::Placeholder;
      step.node = in;
      step.slot = slot;
      plan->steps.push_back(std::move(step));
    });
    const int call_slot = static_cast<int>(inputs.size());
    Planner planner(std::move(slots));
    Plan::Step step;
    step.node = &call;
    step.slot = call_slot;
    planCall(call, owner, planner, step);
    plan->steps.push_back(std::move(step));
    Plan::Step output;
    output.kind = Plan::StepKind::Output;
    output.node = &call;
    output.slot = call_slot + 1;
    ArgPlan value;
    value.kind = ArgPlan::Kind::Slot;
    value.slot = call_slot;
    output.args.push_back(std::move(value));
    plan->steps.push_back(std::move(output));
    plan->num_slots = inputs.size() + 2;
    plan->num_placeholders = inputs.size();
    Interpreter interpreter(std::move(plan));
    return interpreter.run(inputs);
  } catch (const c10::Error& e) {
    Interpreter::Outcome outcome;
    outcome.error = RunError{call.name(), call.target.textName(), firstLine(e.what_without_backtrace())};
    return outcome;
  } catch (const std::exception& e) {
    Interpreter::Outcome outcome;
    outcome.error = RunError{call.name(), call.target.textName(), firstLine(e.what())};
    return outcome;
  }
}

namespace {

// What one run of a plan reads and writes.
struct Frame {
  const std::vector<c10::IValue>& inputs;
  size_t next_input = 0;
  std::vector<c10::IValue> env;
  std::vector<c10::IValue> stack;
  std::vector<c10::IValue>* outputs;
  const ValueObserver* observe = nullptr;
  bool observe_untaken = false;
};

std::vector<c10::IValue> gatherAll(const Interpreter::Plan::Step& step, const Frame& f, c10::Device device) {
  std::vector<c10::IValue> args;
  args.reserve(step.args.size());
  for (const auto& a : step.args) args.push_back(gather(a, f.env, device));
  return args;
}

// A fresh copy per run, so a run that mutates an attribute leaves the next run
// alone; under functionalization it is wrapped like every other tensor
// (Note [Functionalize for the whole run] in run.cpp).
c10::IValue freshConstant(const Interpreter::Plan::Step& step) {
  at::Tensor t = step.args[0].constant.toTensor().clone();
  if (c10::impl::tls_is_dispatch_key_included(c10::DispatchKey::Functionalize)) {
    t = at::functionalization::impl::to_functional_tensor(t);
  }
  return t;
}

void callAten(const Interpreter::Plan::Step& step, Frame& f, c10::Device device) {
  f.stack.clear();
  for (const auto& a : step.args) f.stack.push_back(gather(a, f.env, device));
  noteOp(step.op_name);
  {
    const OpTimer timer;
    step.op->callBoxed(&f.stack);
  }
  if (step.tuple_return) {
    f.env[static_cast<size_t>(step.slot)] = c10::ivalue::Tuple::create(std::move(f.stack));
  } else if (step.num_returns == 1) {
    f.env[static_cast<size_t>(step.slot)] = std::move(f.stack.back());
  }
}

// Runs one step; LibTorch reports an op's failure by throwing, which the caller
// turns into the run's error.
void runStep(const Interpreter::Plan::Step& step, Frame& f, c10::Device device) {
  using StepKind = Interpreter::Plan::StepKind;
  const auto slot = static_cast<size_t>(step.slot);
  switch (step.kind) {
    case StepKind::Placeholder: f.env[slot] = f.inputs[f.next_input++]; break;
    case StepKind::Constant:
      if (!step.args.empty()) f.env[slot] = freshConstant(step);
      break;
    case StepKind::Output:
      for (const auto& a : step.args) f.outputs->push_back(gather(a, f.env, device));
      break;
    case StepKind::Aten: callAten(step, f, device); break;
    case StepKind::Builtin: f.env[slot] = callBuiltin(step.node->target.builtinOp(), gatherAll(step, f, device)); break;
    case StepKind::TorchFunction:
      f.env[slot] = callTorchFunction(step.node->target.torchFunctionId(), gatherAll(step, f, device));
      break;
    case StepKind::HigherOrder: {
      std::vector<c10::IValue> args = gatherAll(step, f, device);
      HigherOrderCall call{*step.node, args, {}, f.observe, f.observe_untaken};
      for (const auto& sub : step.subgraphs) call.subgraphs.push_back(sub.get());
      f.env[slot] = step.hop(call);
      break;
    }
    case StepKind::Skip: break;
  }
}

}  // namespace

Interpreter::Outcome Interpreter::run(const std::vector<c10::IValue>& inputs, const ValueObserver& observe,
                                      bool observe_untaken) const {
  Outcome out;
  if (inputs.size() != plan_->num_placeholders) {
    out.error = RunError{"", "",
                         "the graph has " + std::to_string(plan_->num_placeholders) + " placeholders but " +
                             std::to_string(inputs.size()) + " inputs were given"};
    return out;
  }
  const bool grad_enabled_at_start = at::GradMode::is_enabled();
  const size_t autocast_regions_at_start = autocast_state::openAutocastRegions();
  Frame frame{
      inputs,         0, std::vector<c10::IValue>(plan_->num_slots), {}, &out.outputs, observe ? &observe : nullptr,
      observe_untaken};
  for (const auto& step : plan_->steps) {
    try {
      runStep(step, frame, plan_->device);
      if (observe && step.node && step.node->op() == OpKind::CallFunction && step.slot >= 0 &&
          step.kind != Plan::StepKind::Output) {
        observe(*step.node, frame.env[static_cast<size_t>(step.slot)]);
      }
    } catch (const c10::Error& e) {
      out.error = RunError{step.node->name(), step.node->target.textName(), firstLine(e.what_without_backtrace())};
    } catch (const std::exception& e) {
      out.error = RunError{step.node->name(), step.node->target.textName(), firstLine(e.what())};
    }
    if (out.error) break;
  }
  at::GradMode::set_enabled(grad_enabled_at_start);
  autocast_state::leaveAutocastRegionsDownTo(autocast_regions_at_start);
  return out;
}

namespace {

std::map<std::string, HigherOrderFn>& hopRegistry() {
  static auto* registry =
      new std::map<std::string, HigherOrderFn>{{"cond", hop_detail::runCond},
                                               {"wrap_with_set_grad_enabled", hop_detail::runWithGradEnabled},
                                               {"while_loop", hop_detail::runWhileLoop},
                                               {"wrap_with_autocast", hop_detail::runWithAutocast},
                                               {"with_effects", hop_detail::runWithEffects},
                                               {"map_impl", hop_detail::runMap},
                                               {"scan", hop_detail::runScan}};
  return *registry;
}

}  // namespace
}  // namespace epsmith
