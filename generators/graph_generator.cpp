// The graph generator; see graph_generator.h.
//
#include "generators/graph_generator.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/lt.h>
#include <ATen/ops/scalar_tensor.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "generators/argument_draws.h"
#include "generators/corruptions.h"
#include "generators/module_calls.h"
#include "generators/program_inputs.h"
#include "generators/result_values.h"
#include "generators/screen_tables.h"
#include "generators/symbolic_sizes.h"
#include "ops/op_roles.h"
#include "oracle/aten_bridge.h"
#include "oracle/autocast_state.h"
#include "oracle/interpreter.h"
#include "oracle/libtorch_compat.h"

namespace epsmith {
namespace {

class Generator {
 public:
  Generator(const OpCatalog& catalog, const GeneratorConfig& config, RandomSource& random, GenerationStats* stats)
      : config_(config), random_(random), stats_(stats), catalog_(catalog) {}

  // Whether run() gave up its program (Note [A refused call must leave no trace]).
  bool compromised() const { return compromised_; }

  Expected<ExportedProgram> run() {
    bool any = false;
    for (auto c : {OpCategory::Functional, OpCategory::InPlace, OpCategory::View, OpCategory::Out}) {
      any = any || !catalog_.enabledOps(c).empty();
    }
    if (!any) {
      return Diagnostic{"", "the op catalog enables no op to generate with"};
    }
    at::AutoGradMode grad(true);
    p_.setDialect(IrDialect::Training);
    compat::stampWithThisLibTorch(p_);
    MadeInputs made_inputs = addPlaceholders(p_, config_, random_);
    pool_ = std::move(made_inputs.pool);
    read_only_ = std::move(made_inputs.read_only);
    parameters_ = std::move(made_inputs.parameters);
    // Note [Ops the functionalizer refuses]: drawn only where the catalog has some, so a
    // config that filters them all out keeps the programs it made before.
    may_call_refused_ =
        !catalog_.refusedOps().empty() && config_.refused_percent > 0 && random_.below(100) < config_.refused_percent;
    int made = 0;
    for (int attempts = 0; made < config_.nodes && attempts < config_.nodes * config_.attempts_per_node; ++attempts) {
      maybeToggleGrad();
      made += makeFrom(drawSource());
      if (compromised_) break;  // Note [A refused call must leave no trace]
    }
    if (!grad_enabled_) setGrad(true);
    finish();
    // Note [Parameters written under grad]
    if (may_call_refused_ && parameter_written_without_grad_ && random_.chance(50)) dropGradRegions(p_);
    if (made_inputs.effects) insertPrint();                   // drawn last: Note [Effects as export makes them]
    addModuleTree(p_, config_.module_tree_percent, random_);  // Note [Module trees of generated programs]
    // The last draw: Note [Symbolic sizes of generated programs]
    addSymbolicSize(p_, config_.symbolic_size_percent, random_);
    return std::move(p_);
  }

 private:
  // no_grad regions: torch._C._set_grad_enabled(False) ... (True), as export records them;
  // candidates inside run with grad mode off, so eager decides what is legal there.
  void maybeToggleGrad() {
    if (!random_.chance(config_.no_grad_percent)) return;
    setGrad(!grad_enabled_);
  }

  // Whether the call `n` just made wrote a parameter (or a view of one) with grad mode off.
  bool writesAParameter(const OpInfo& op, const Node& n) {
    bool writes = false;
    forEachWritten(op, n, [&](const Node* w) {
      const at::Tensor* t = valueOf(w);
      for (const auto& param : parameters_) writes = writes || (t && t->is_alias_of(param));
    });
    return writes;
  }

  // Note [Effects as export makes them]
  // torch.export writes a module's call of an op with effects (`torch.ops.aten._print(s)`)
  // in the TRAINING IR as a bare call, and its functionalization threads an effect token
  // through it (a TOKEN input, with_effects, the last token the first output): the only
  // place export makes tokens (2.13). So the generator calls aten::_print, the one op with
  // effects that needs no argument drawn, and leaves the tokens to the functionalizer. The
  // call goes before a call drawn once the program is made, so the program's other calls
  // are those it makes without it; before a higher-order call's get_attrs, which stay just
  // before it, where torch's schema writes them (as its graph arguments).
  void insertPrint() {
    std::vector<Node*> calls;
    for (Node& n : p_.graph().nodes()) {
      if (n.op() == OpKind::CallFunction) calls.push_back(&n);
    }
    if (calls.empty()) return;
    Node* before = calls[random_.below(calls.size())];
    while (before->prev() && before->prev()->op() == OpKind::GetAttr) before = before->prev();
    Node* n = p_.graph().insertBefore(before, OpKind::CallFunction, "_print");
    n->target = Target::aten(findOp("aten::_print", ""));
    n->args = {arg::String{"epsmith"}};
    n->meta.val = Val::None{};
  }

  void setGrad(bool enabled) {
    Node* n = p_.graph().append(OpKind::CallFunction, "_set_grad_enabled");
    n->target = Target::torchFunction(TorchFunction::CSetGradEnabled);
    n->args = {arg::Bool{enabled}};
    n->meta.val = Val::None{};
    at::GradMode::set_enabled(enabled);
    grad_enabled_ = enabled;
  }

  // --- Candidates ---------------------------------------------------------------------
  // An enabled op, and the category it was drawn from (`*category`).
  const OpInfo* pickOp(OpCategory* category) {
    // Random and nondeterministic ops (off by default) weigh as functional ones when a
    // config enables them.
    static constexpr OpCategory kCategories[] = {
        OpCategory::Functional,       OpCategory::InPlace, OpCategory::View,   OpCategory::Out,
        OpCategory::MetadataMutation, OpCategory::Factory, OpCategory::Random, OpCategory::Nondeterministic};
    std::vector<uint32_t> weights{config_.weight_functional, config_.weight_in_place,  config_.weight_view,
                                  config_.weight_out,        config_.weight_metadata,  config_.weight_factory,
                                  config_.weight_functional, config_.weight_functional};
    for (size_t i = 0; i < weights.size(); ++i) {
      if (catalog_.enabledOps(kCategories[i]).empty()) weights[i] = 0;
    }
    if (may_call_refused_) weights.push_back(config_.weight_refused);  // Note [Ops the functionalizer refuses]
    const size_t drawn = random_.weighted(weights);
    if (drawn == std::size(kCategories)) {
      const auto& refused = catalog_.refusedOps();
      const OpCatalog::Refused& r = refused[random_.below(refused.size())];
      *category = r.category;
      return r.op;
    }
    *category = kCategories[drawn];
    const auto& list = catalog_.enabledOps(*category);
    return list.empty() ? nullptr : list[random_.below(list.size())];
  }

  const at::Tensor* valueOf(const Node* n) const {
    for (const auto& l : pool_) {
      if (l.node == n) return &l.value;
    }
    return nullptr;
  }

  // What the program holds of `t`'s storage (Note [Storage a program does not hold]), in
  // `t`'s elements (a view.dtype of it may have another size): the first live value on it
  // made the storage, an input all of it, an op's result its own elements.
  std::pair<int64_t, int64_t> heldElements(const at::Tensor& t) const {
    const auto* storage = t.storage().unsafeGetStorageImpl();
    const auto size = static_cast<int64_t>(std::max<size_t>(t.element_size(), 1));
    for (const auto& l : pool_) {
      if (!l.value.has_storage() || l.value.storage().unsafeGetStorageImpl() != storage) continue;
      if (l.node->isPlaceholder()) break;
      const auto own = static_cast<int64_t>(l.value.element_size());
      const int64_t end = l.value.numel() > 0 ? lastElementOffset(l.value) + 1 : l.value.storage_offset();
      return {l.value.storage_offset() * own / size, end * own / size};
    }
    return {0, static_cast<int64_t>(t.storage().nbytes()) / size};
  }

  // The nodes whose tensors the call `n` of `op` writes (its Tensor(a!) arguments).
  template <typename F>
  static void forEachWritten(const OpInfo& op, const Node& n, F&& f) {
    auto collect = [&](const std::string& name, const Argument& a) {
      const int i = op.argumentIndex(name);
      if (i >= 0 && op.arguments[static_cast<size_t>(i)].is_write) a.forEachNode(f);
    };
    for (size_t i = 0; i < n.args.size(); ++i) collect(op.arguments[i].name, n.args[i]);
    for (const auto& [name, a] : n.kwargs) collect(name, a);
  }

  // The arguments of a call of `op`, drawn: nullopt when some argument has no value to take.
  struct Call {
    std::vector<Argument> args;
    std::vector<std::pair<std::string, Argument>> kwargs;
  };
  std::optional<Call> drawArguments(const OpInfo& op, OpCategory category, const Live* first) {
    Call call;
    // Whether it mutates its argument's metadata: the category says so, but for the random
    // and nondeterministic ones, which are filed apart whatever their role. (Asking the
    // role's memo for every candidate missed the cache.)
    const bool metadata = category == OpCategory::MetadataMutation ||
                          ((category == OpCategory::Random || category == OpCategory::Nondeterministic) &&
                           opRole(op).role == OpRole::MetadataMutation);
    const at::Tensor* ref = nullptr;  // the first tensor argument: dims and shapes follow it
    bool defaults_from_here = false;  // positional defaults trail: once one is left out, all are
    draws_.startCall(first);
    for (size_t i = 0; i < op.arguments.size(); ++i) {
      const ParamInfo& p = op.arguments[i];
      const bool written = p.is_write;
      if (p.has_default && !written && (defaults_from_here || random_.chance(50))) {
        if (!p.kwarg_only) defaults_from_here = true;
        continue;
      }
      auto a = draws_.argumentFor(op, p, ref, written, metadata);
      if (!a) return std::nullopt;
      if (!ref) {
        if (const auto* t = a->get<arg::Tensor>()) ref = valueOf(t->node);
      }
      if (p.kwarg_only) {
        call.kwargs.emplace_back(p.name, std::move(*a));
      } else {
        call.args.push_back(std::move(*a));
      }
    }
    return call;
  }

  // A mutable call's trial on copies of its written arguments, first: a candidate dropped
  // after it ran (its result is too big, say) must not have written into the live values or
  // changed their shapes. (Read arguments never share memory with written ones:
  // outAliasesAnInput.) Whether the call may run on the live values; `val` its result's.
  bool trialOnCopies(const OpInfo& op, const Node& n, Val* val) {
    const auto value_of = [this](const Node* in) { return valueOf(in); };
    std::vector<const Node*> written;
    forEachWritten(op, n, [&](const Node* w) { written.push_back(w); });
    std::vector<std::pair<at::Tensor, const void*>> copies;  // and their storages before
    auto runOnCopies = [&](bool contiguous) {
      return runSingleCall(n, [&](const Node* in) -> c10::IValue {
        const at::Tensor* t = valueOf(in);
        if (!t) return c10::IValue();
        if (std::find(written.begin(), written.end(), in) == written.end()) {
          return contiguous && !hasContiguousStrides(*t) ? t->clone(at::MemoryFormat::Contiguous) : *t;
        }
        at::Tensor copy = contiguous ? t->clone(at::MemoryFormat::Contiguous) : cloneOf(*t);
        copies.emplace_back(copy, copy.storage().data());
        return copy;
      });
    };
    auto trial = runOnCopies(false);
    // An out= kernel that gives `out` a new storage of the same size (some linalg ops do)
    // detaches the views already taken of it, which no schema says: not generated.
    bool storage_replaced = false;
    for (const auto& [copy, before] : copies) {
      storage_replaced = storage_replaced || (copy.storage().data() != before && copy.numel() > 0);
    }
    bool past_storage = !trial.outputs.empty() && reachesPastItsStorage(trial.outputs[0]);
    for (const auto& c : copies) past_storage = past_storage || reachesPastItsStorage(c.first);
    if (trial.error || trial.outputs.empty() || !valOf(trial.outputs[0], val) || storage_replaced || past_storage ||
        factorizesIntoNonFinite(op, trial.outputs[0])) {
      return false;
    }
    std::vector<at::Tensor> outs;
    for (const auto& c : copies) outs.push_back(c.first);
    // The call once more on contiguous copies of every tensor it takes.
    auto intoContiguous = [&]() -> std::optional<std::vector<at::Tensor>> {
      const size_t first = copies.size();
      if (runOnCopies(true).error) return std::nullopt;
      std::vector<at::Tensor> contiguous;
      for (size_t k = first; k < copies.size(); ++k) contiguous.push_back(copies[k].first);
      return contiguous;
    };
    if (takesAStridedTensor(n) && writesByLayout(op, outs, intoContiguous)) return false;
    return !(readsAnEmptyTensor(n, value_of) && !sameResult(trial.outputs[0], runOnCopies(false)));
  }

  // Note [Storage grown under a tensor]
  // set_ of a self onto a source's storage at an offset past that storage's end grows the
  // storage, live, and the new bytes are whatever the allocator's block held: not a value
  // eager semantics defines (a reproducer script's fresh process read other bytes there than
  // the generator had). The trial on copies runs set_ on the live source, so a call that
  // grew a storage it takes is refused, and the program, whose storage it changed, given up.
  struct StorageSize {
    const c10::StorageImpl* storage;
    size_t bytes;
  };
  std::vector<StorageSize> inputStorageSizes(const Node& n) const {
    std::vector<StorageSize> sizes;
    n.forEachInput([&](const Node* in) {
      const at::Tensor* t = valueOf(in);
      if (t && t->has_storage()) sizes.push_back({t->storage().unsafeGetStorageImpl(), t->storage().nbytes()});
    });
    return sizes;
  }
  static bool growsAStorage(const std::vector<StorageSize>& before) {
    for (const auto& s : before) {
      if (s.storage->nbytes() > s.bytes) return true;
    }
    return false;
  }

  // Whether a tensor `n` takes is not laid out as a fresh one of its sizes.
  bool takesAStridedTensor(const Node& n) const {
    bool strided = false;
    n.forEachInput([&](const Node* in) {
      const at::Tensor* t = valueOf(in);
      strided = strided || (t && !hasContiguousStrides(*t));
    });
    return strided;
  }

  // Note [Kernels that write by the written tensor's layout] (result_values.cpp), for a
  // functional index write: whether `result` differs from the call's on contiguous copies
  // of every tensor it takes, where one is not contiguous.
  bool indexWritesByLayout(const Node& n, const c10::IValue& result) {
    if (!takesAStridedTensor(n)) return false;
    const auto laid_out = runSingleCall(n, [&](const Node* in) -> c10::IValue {
      const at::Tensor* t = valueOf(in);
      if (!t) return c10::IValue();
      return hasContiguousStrides(*t) ? *t : t->clone(at::MemoryFormat::Contiguous);
    });
    return laid_out.error || !sameResult(result, laid_out);
  }

  // `n`'s result joins the pool of values later calls take; a tuple's or list's elements
  // each through a getitem.
  void pool(Node* n, const c10::IValue& v) {
    Graph& g = into();
    if (v.isTensor()) {
      bool input = false;  // in-place and out= results, and ops returning self, are their argument
      for (const auto& l : pool_)
        input = input || (l.input && l.value.unsafeGetTensorImpl() == v.toTensor().unsafeGetTensorImpl());
      pool_.push_back({n, v.toTensor(), input});
    } else if (v.isTuple() || v.isTensorList()) {
      std::vector<at::Tensor> items = v.isTensorList() ? v.toTensorVector() : std::vector<at::Tensor>();
      if (v.isTuple()) {
        for (const auto& e : v.toTupleRef().elements()) items.push_back(e.toTensor());
      }
      for (size_t k = 0; k < items.size(); ++k) {
        Node* item = g.append(OpKind::CallFunction, "getitem");
        item->target = Target::builtin(BuiltinOp::GetItem);
        item->args = {arg::Tensor{n}, arg::Int{static_cast<int64_t>(k)}};
        item->meta.val = tensorMetaOf(items[k]);
        pool_.push_back({item, items[k]});
      }
    }
  }

  // A screen refused the candidate: counted, and no node kept.
  bool refuse(Screen screen) {
    if (stats_) ++stats_->refused[static_cast<size_t>(screen)];
    return false;
  }

  // Note [Node sources]
  // What grows a program is drawn from a table of node sources (generators/node_sources.def):
  // one ATen call, a chain of views, and what later sources make (a higher-order op with
  // its subgraphs). Each makes its nodes through tryCall, so every call meets the same
  // screens and trial runs. A source of weight 0 is never drawn, and where one source alone
  // has a weight nothing is drawn to choose it: a config that enables no new source keeps
  // every program it made before, byte for byte.
  NodeSource drawSource() {
    const NodeSourceWeights& w = config_.source_weights;
    int weighted = 0;
    for (uint32_t x : w) weighted += x > 0 ? 1 : 0;
    if (weighted > 1) return static_cast<NodeSource>(random_.weighted(std::vector<uint32_t>(w.begin(), w.end())));
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] > 0) return static_cast<NodeSource>(i);
    }
    return NodeSource::AtenCall;  // every weight 0: the config reader refuses that
  }

  // The nodes `source` made (0 where its calls were all refused).
  int makeFrom(NodeSource source) {
    using Make = int (Generator::*)();
    static constexpr Make kMake[] = {
        &Generator::fromAtenCall,  &Generator::fromViewChain,      &Generator::fromGradRegion, &Generator::fromCond,
        &Generator::fromWhileLoop, &Generator::fromAutocastRegion, &Generator::fromMap,        &Generator::fromScan};
    static_assert(std::size(kMake) == kNodeSourceCount, "a row of node_sources.def has no maker");
    return (this->*kMake[static_cast<size_t>(source)])();
  }

  int fromAtenCall() {
    OpCategory category;
    const OpInfo* op = pickOp(&category);
    return tryCall(op, category, nullptr) ? 1 : 0;
  }

  // Two to four view calls, each taking the view the call before it made (the first, a
  // live value as any call would); the chain ends at the first call refused.
  int fromViewChain() {
    const auto& views = catalog_.enabledOps(OpCategory::View);
    if (views.empty()) return 0;
    const int64_t links = random_.range(2, 4);
    std::optional<size_t> last;  // the pool index of the view before
    int made = 0;
    for (int64_t i = 0; i < links; ++i) {
      const OpInfo* op = views[random_.below(views.size())];
      if (!tryCall(op, OpCategory::View, last ? &pool_[*last] : nullptr)) break;
      last = pool_.size() - 1;
      ++made;
    }
    return made;
  }

  // One to three distinct live values for a higher-order op to take in; with
  // `apart_in_memory`, none sharing memory with another (torch.cond refuses operands that
  // alias each other, so export never writes them). A value no metadata can describe is
  // not taken, since its placeholder would have none: an integer input a write through a
  // dtype view has filled with values past the range programs hold.
  std::vector<Live> pickOperands(bool apart_in_memory) {
    std::vector<Live> operands;
    const int64_t wanted = std::min<int64_t>(random_.range(1, 3), static_cast<int64_t>(pool_.size()));
    for (int64_t i = 0; i < wanted; ++i) {
      const Live& l = pool_[random_.below(pool_.size())];
      const bool taken = std::any_of(operands.begin(), operands.end(), [&](const Live& o) {
        return o.node == l.node || (apart_in_memory && o.value.is_alias_of(l.value));
      });
      Val described;
      if (!taken && valOf(l.value, &described)) operands.push_back(l);
    }
    return operands;
  }

  // A subgraph over `operands`: a placeholder for each, named after it, holding its value
  // (in `inner`, where the subgraph's calls will add theirs). Its metadata is the value's
  // now, which a metadata mutation since its node was made (unsqueeze_) may have changed.
  static std::unique_ptr<Graph> subgraphOver(const std::vector<Live>& operands, std::vector<Live>* inner) {
    auto sub = std::make_unique<Graph>();
    for (const Live& l : operands) {
      Node* ph = sub->append(OpKind::Placeholder, l.node->name());
      valOf(l.value, &ph->meta.val);
      inner->push_back({ph, l.value, l.input});
    }
    return sub;
  }

  // `sub` as the attribute `name` of the graph calls are drawn into (a cond branch's, for a
  // nested cond, as torch.fx makes it an attribute of the branch's module); the get_attr
  // node naming it.
  Node* attach(std::unique_ptr<Graph> sub, const std::string& name) {
    Graph& top = into();
    const std::string attr = top.uniqueName(name);
    Node* get = top.append(OpKind::GetAttr, attr);
    get->attr = attr;
    top.attributes()[attr] = Attribute::makeSubgraph(std::move(sub));
    return get;
  }

  // A higher-order call of `op` on `args`, whose result is `outputs` (a tuple, as torch's
  // are): its value, and a getitem for each output in the pool.
  void appendHigherOrder(const std::string& op, std::vector<Argument> args, const std::vector<at::Tensor>& outputs) {
    Node* hop = into().append(OpKind::CallFunction, op);
    hop->target = Target::higherOrder(op);
    hop->args = std::move(args);
    std::vector<c10::IValue> items(outputs.begin(), outputs.end());
    const c10::IValue result = c10::ivalue::Tuple::create(std::move(items));
    if (!valOf(result, &hop->meta.val)) {
      // A result no metadata describes (an integer operand that a write through a dtype
      // view in the subgraph filled past the values programs hold): the call would have no
      // meta.val, and the program is given up.
      compromised_ = true;
      return;
    }
    pool(hop, result);
  }

  // A subgraph's calls: a grad region's run with grad mode off, an autocast region's under
  // CPU autocast to `autocast_dtype_`, and both are drawn from every category; a cond
  // branch's keep the mode and are functional calls only, now and then a nested cond; a
  // map's body's and a scan's function's are functional calls alone (torch's scan traces
  // its function and refuses a carry whose size a nested cond leaves unknown to tracing).
  enum class Subgraph { GradRegion, AutocastRegion, CondBranch, MappedFunction };

  // A grad region as torch.export writes a module's `with torch.no_grad():` block:
  // higher_order.wrap_with_set_grad_enabled(False, graph(%submod_N), *operands), its calls
  // run with grad mode off.
  int fromGradRegion() { return fromRegion(Subgraph::GradRegion); }

  // An autocast region as torch.export writes a module's `with torch.autocast("cpu",
  // dtype=D):` block: higher_order.wrap_with_autocast("cpu", D, True, False,
  // graph(%submod_N), *operands), D bfloat16 or float16 (CPU autocast's two), its calls run
  // under that autocast, so the ones autocast casts make values of its dtype.
  int fromAutocastRegion() {
    autocast_dtype_ = random_.chance(50) ? at::kBFloat16 : at::kHalf;
    return fromRegion(Subgraph::AutocastRegion);
  }

  // A region of `kind`: one to four calls drawn as any others but into a subgraph, over
  // placeholders for one to three live values; what they made comes back through getitems.
  // The calls run on the live values, so the program's values are what running it makes.
  int fromRegion(Subgraph kind) {
    if (pool_.empty()) return 0;  // no value to take in
    const std::vector<Live> operands = pickOperands(false);
    if (operands.empty()) return 0;  // none a placeholder could describe
    std::vector<Live> inner;
    auto sub = subgraphOver(operands, &inner);
    const size_t placeholders = inner.size();
    const int made = drawInto(*sub, inner, random_.range(1, 4), kind);
    if (made == 0 || compromised_) return 0;  // the subgraph is dropped; nothing outside changed
    std::vector<at::Tensor> outputs;
    Node* out = sub->append(OpKind::Output, "output");
    for (size_t k = inner.size(); k-- > placeholders && outputs.size() < 2;) {
      out->args.push_back(arg::Tensor{inner[k].node});
      outputs.push_back(inner[k].value);
    }
    if (outputs.empty()) {  // its calls made no tensor
      bool wrote = false;
      for (const Node& n : sub->nodes()) wrote = wrote || (n.atenOp() && n.atenOp()->is_mutable);
      if (!wrote) return 0;                             // nothing outside changed: the region is dropped
      out->args.push_back(arg::Tensor{inner[0].node});  // it returns what it wrote, as export
      outputs.push_back(inner[0].value);                // returns a region's written state
    }
    arg::Graph region{attach(std::move(sub), "submod_" + std::to_string(++regions_))};
    std::vector<Argument> args;
    if (kind == Subgraph::GradRegion) {
      args = {arg::Bool{false}, region};
    } else {
      args = {arg::String{"cpu"}, arg::Dtype{fromAten(autocast_dtype_)}, arg::Bool{true}, arg::Bool{false}, region};
    }
    for (const Live& o : operands) args.push_back(arg::Tensor{o.node});
    appendHigherOrder(kind == Subgraph::GradRegion ? "wrap_with_set_grad_enabled" : "wrap_with_autocast",
                      std::move(args), outputs);
    return made;
  }

  // torch.cond as torch.export writes `torch.cond(x.sum() > 0, f, g, (a, b))`: a predicate
  // of no dimensions from a live value (sum, then gt.Scalar), then
  // higher_order.cond(pred, graph(%true_graph_N), graph(%false_graph_N), [operands]) over one
  // to three live values, each branch one to three functional calls drawn into its subgraph
  // (torch.cond's branches may neither write nor alias their operands) and returning one of
  // them, with the sizes, strides and dtype of what the other returns; what the branch the
  // predicate picks returned comes back through a getitem. Both branches run on the live
  // values as they are drawn, so the program's values are what running it makes.
  int fromCond() {
    if (pool_.empty()) return 0;
    const Live picked = pool_[random_.below(pool_.size())];
    if (!tryCall(findOp("aten::sum", ""), OpCategory::Functional, &picked)) return 0;
    const Live sum = pool_.back();
    if (!tryCall(findOp("aten::gt", "Scalar"), OpCategory::Functional, &sum)) return 1;
    const Live pred = pool_.back();
    if (pred.value.dim() != 0 || pred.value.scalar_type() != at::kBool) return 2;
    const std::vector<Live> operands = pickOperands(true);
    if (operands.empty()) return 2;  // none a placeholder could describe: the predicate's calls stay
    std::vector<Live> in_true, in_false;
    auto on_true = subgraphOver(operands, &in_true);
    auto on_false = subgraphOver(operands, &in_false);
    const size_t placeholders = operands.size();
    int made = 2 + drawInto(*on_true, in_true, random_.range(1, 3), Subgraph::CondBranch);
    made += drawInto(*on_false, in_false, random_.range(1, 3), Subgraph::CondBranch);
    if (compromised_) return made;
    // The latest value of the true branch that the false branch made a twin of.
    for (size_t t = in_true.size(); t-- > placeholders;) {
      const at::Tensor& a = in_true[t].value;
      for (size_t f = in_false.size(); f-- > placeholders;) {
        const at::Tensor& b = in_false[f].value;
        if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes() || a.strides() != b.strides()) continue;
        on_true->append(OpKind::Output, "output")->args.push_back(arg::Tensor{in_true[t].node});
        on_false->append(OpKind::Output, "output")->args.push_back(arg::Tensor{in_false[f].node});
        const std::string n = std::to_string(conds_++);
        std::vector<Node*> operand_nodes;
        for (const Live& o : operands) operand_nodes.push_back(o.node);
        std::vector<Argument> args{arg::Tensor{pred.node}, arg::Graph{attach(std::move(on_true), "true_graph_" + n)},
                                   arg::Graph{attach(std::move(on_false), "false_graph_" + n)},
                                   arg::TensorList{std::move(operand_nodes)}};
        appendHigherOrder("cond", std::move(args), {pred.value.item<bool>() ? a : b});
        return made;
      }
    }
    return 2;  // no two results alike: the branches are dropped, the predicate's calls stay
  }

  // while_loop as torch.export writes `while_loop(cond_fn, body_fn, (i, x))` over a counter
  // and a live value, with other live values read as closures:
  // higher_order.while_loop(graph(%while_loop_cond_graph_N), graph(%while_loop_body_graph_N),
  // (%i, %x), (additional,)), both subgraphs taking (i, x, *additional). The counter is
  // scalar_tensor(0, dtype=int64); the condition lt.Scalar(i, n), n drawn from 0 to 3; the
  // body one to three functional calls (a body may neither write nor alias what it takes)
  // and add(i, 1), returning the latest value with x's sizes, strides and dtype. No operand
  // requires grad (while_loop has no autograd). The loop runs on the live values once made,
  // so the program's values are what running it makes.
  int fromWhileLoop() {
    if (pool_.empty()) return 0;
    const std::vector<Live> operands = pickOperands(true);
    if (operands.empty()) return 0;  // none a placeholder could describe: nothing to carry
    for (const Live& o : operands) {
      if (o.value.requires_grad()) return 0;
    }
    const int64_t iterations = random_.range(0, 3);
    Live counter{nullptr, at::scalar_tensor(0, at::kLong)};
    std::vector<Live> in_body{counter};
    auto body = subgraphOver(operands, &in_body);
    Node* i = body->insertBefore(&*body->nodes().begin(), OpKind::Placeholder, "i");
    valOf(counter.value, &i->meta.val);
    in_body[0].node = i;
    const size_t placeholders = in_body.size();
    const int made = drawInto(*body, in_body, random_.range(1, 3), Subgraph::CondBranch);
    if (compromised_) return made;
    const at::Tensor& x = operands[0].value;
    // torch's while_loop traces its body and compares what it returns with the carried
    // values as a scan does (fromScan): a carried value laid out otherwise is refused.
    if (!rowMajor(x)) return 0;  // the body is dropped: its calls changed nothing outside
    const Live* twin = nullptr;
    for (size_t k = in_body.size(); k-- > placeholders && !twin;) {
      const at::Tensor& v = in_body[k].value;
      if (v.scalar_type() == x.scalar_type() && v.sizes() == x.sizes() && v.strides() == x.strides())
        twin = &in_body[k];
    }
    if (!twin) return 0;  // the body is dropped: its calls changed nothing outside
    Node* next = body->append(OpKind::CallFunction, "add");
    next->target = Target::aten(findOp("aten::add", "Tensor"));
    next->args = {arg::Tensor{i}, arg::Int{1}};
    valOf(at::add(counter.value, 1), &next->meta.val);
    body->append(OpKind::Output, "output")->args = {arg::Tensor{next}, arg::Tensor{twin->node}};
    std::vector<Live> in_cond;
    auto cond = subgraphOver(operands, &in_cond);
    return made + appendWhileLoop(std::move(cond), std::move(body), counter, operands, iterations);
  }

  // The rest of fromWhileLoop: the counter's call, `cond` given its `i` and its test, the
  // loop over `body`, run; the nodes made at top level.
  int appendWhileLoop(std::unique_ptr<Graph> cond, std::unique_ptr<Graph> body, Live counter,
                      const std::vector<Live>& operands, int64_t iterations) {
    Node* i = cond->insertBefore(&*cond->nodes().begin(), OpKind::Placeholder, "i");
    valOf(counter.value, &i->meta.val);
    Node* lt = cond->append(OpKind::CallFunction, "lt");
    lt->target = Target::aten(findOp("aten::lt", "Scalar"));
    lt->args = {arg::Tensor{i}, arg::Int{iterations}};
    valOf(at::lt(counter.value, iterations), &lt->meta.val);
    cond->append(OpKind::Output, "output")->args = {arg::Tensor{lt}};
    cond->returns_one_value = true;
    Node* zero = p_.graph().append(OpKind::CallFunction, "scalar_tensor");
    zero->target = Target::aten(findOp("aten::scalar_tensor", ""));
    zero->args = {arg::Int{0}};
    zero->kwargs = {{"dtype", arg::Dtype{ScalarType::Long}}};
    valOf(counter.value, &zero->meta.val);
    counter.node = zero;
    pool_.push_back(counter);
    const std::string n = std::to_string(loops_++);
    std::vector<Node*> additional;
    for (size_t k = 1; k < operands.size(); ++k) additional.push_back(operands[k].node);
    Node* cond_attr = attach(std::move(cond), "while_loop_cond_graph_" + n);
    Node* body_attr = attach(std::move(body), "while_loop_body_graph_" + n);
    Node* hop = p_.graph().append(OpKind::CallFunction, "while_loop");
    hop->target = Target::higherOrder("while_loop");
    hop->args = {arg::Graph{cond_attr}, arg::Graph{body_attr}, arg::TensorList{{zero, operands[0].node}},
                 arg::TensorList{std::move(additional)}};
    return runAppended(hop) ? 2 : 1;  // where it fails, the counter's call stays and the program is given up
  }

  // Runs the higher-order call `hop`, just appended to the program, on the live values, as
  // the interpreter runs it, and pools what it made; false, the program given up, where it
  // fails.
  bool runAppended(Node* hop) {
    auto run = runSingleCall(
        *hop,
        [this](const Node* in) -> c10::IValue {
          const at::Tensor* t = valueOf(in);
          return t ? c10::IValue(*t) : c10::IValue();
        },
        &p_.graph());
    if (run.error || run.outputs.empty() || !valOf(run.outputs[0], &hop->meta.val)) {
      compromised_ = true;
      return false;
    }
    pool(hop, run.outputs[0]);
    return true;
  }

  // Whether `t`'s strides are row-major for its sizes, those of dims of size 1 included.
  static bool rowMajor(const at::Tensor& t) {
    int64_t expected = 1;
    for (int64_t d = t.dim(); d-- > 0;) {
      if (t.stride(d) != expected) return false;
      expected *= std::max<int64_t>(t.size(d), 1);
    }
    return true;
  }

  // Operands a map or scan may take: one to three live values apart in memory, none
  // requiring grad (neither has autograd in an exported program), the one at `mapped`
  // contiguous with a leading size of 1 or more (torch's map and scan refuse 0, and export
  // lays an element out contiguous, as it lays it in the body's placeholder); empty where
  // the draw has none such.
  std::vector<Live> mapOperands(size_t mapped) {
    std::vector<Live> operands = pickOperands(true);
    if (operands.size() <= mapped) return {};
    const at::Tensor& xs = operands[mapped].value;
    if (xs.dim() == 0 || xs.size(0) == 0 || !xs.is_contiguous()) return {};
    for (const Live& o : operands) {
      if (o.value.requires_grad()) return {};
    }
    return operands;
  }

  // The operands with the one at `mapped` replaced by its first element along dimension 0,
  // which a map's body or a scan's combine function is drawn over.
  static std::vector<Live> overFirstElement(std::vector<Live> operands, size_t mapped) {
    operands[mapped].value = operands[mapped].value.select(0, 0);
    return operands;
  }

  // A map's body or a scan's combine function, one to three functional calls drawn over
  // mapOperands(mapped) with the one at `mapped` as its first element.
  struct MappedDraw {
    std::vector<Live> operands;  // empty: none to draw over, and nothing drawn
    std::unique_ptr<Graph> fn;
    std::vector<Live> values;  // the function's: its placeholders', then what its calls made
    size_t placeholders = 0;
    int made = 0;
  };
  MappedDraw drawMapped(size_t mapped) {
    MappedDraw d;
    d.operands = mapOperands(mapped);
    if (d.operands.empty()) return d;
    d.fn = subgraphOver(overFirstElement(d.operands, mapped), &d.values);
    d.placeholders = d.values.size();
    d.made = drawInto(*d.fn, d.values, random_.range(1, 3), Subgraph::MappedFunction);
    return d;
  }

  // map as torch.export writes `torch._higher_order_ops.map(fn, xs, *args)`:
  // higher_order.map_impl(graph(%body_graph_N), [%xs], [args]), the body over an element of
  // xs and the other operands, one to three functional calls (map traces its body, which
  // may neither write nor alias what it takes; no nested cond),
  // returning the latest; what it returns for each element comes back stacked along a new
  // dimension 0 through a getitem.
  int fromMap() {
    MappedDraw body = drawMapped(0);
    if (body.operands.empty()) return 0;
    const int made = body.made;
    if (compromised_ || body.values.size() == body.placeholders) return made;  // no value made: the body is dropped
    body.fn->append(OpKind::Output, "output")->args = {arg::Tensor{body.values.back().node}};
    std::vector<Node*> pos_args;
    for (size_t k = 1; k < body.operands.size(); ++k) pos_args.push_back(body.operands[k].node);
    Node* body_attr = attach(std::move(body.fn), "body_graph_" + std::to_string(maps_++));
    Node* hop = p_.graph().append(OpKind::CallFunction, "map_impl");
    hop->target = Target::higherOrder("map_impl");
    hop->args = {arg::Graph{body_attr}, arg::TensorList{{body.operands[0].node}}, arg::TensorList{std::move(pos_args)}};
    return runAppended(hop) ? made + 1 : made;
  }

  // scan as torch.export writes `torch._higher_order_ops.scan(fn, init, xs)`:
  // higher_order.scan(graph(%scan_combine_graph_N), [%init], [%xs], [additional]), the
  // combine function over the carry, an element of xs and the other operands (read as
  // closures), one to three functional calls as a map's body's,
  // returning the latest value laid out as the carry (the next carry) and the latest other
  // one, if any (an output, stacked along a new dimension 0). The last carry and the
  // stacked outputs come back through getitems.
  int fromScan() {
    MappedDraw fn = drawMapped(1);
    if (fn.operands.empty()) return 0;
    const int made = fn.made;
    if (compromised_) return made;
    const at::Tensor& carry = fn.operands[0].value;
    // torch's scan traces its function and compares the carry it returns with init, the
    // strides of dims of size 1 too, as fake tensors lay a result out (row-major): an init
    // laid out otherwise is refused ("Expected init and carry to have same metadata").
    if (!rowMajor(carry)) return made;  // the function is dropped, nothing outside changed
    const Live* next = nullptr;
    const Live* output = nullptr;
    for (size_t k = fn.values.size(); k-- > fn.placeholders;) {
      const at::Tensor& v = fn.values[k].value;
      const bool twin =
          v.scalar_type() == carry.scalar_type() && v.sizes() == carry.sizes() && v.strides() == carry.strides();
      if (twin && !next) {
        next = &fn.values[k];
      } else if (!output) {
        output = &fn.values[k];
      }
    }
    if (!next) return made;  // no next carry: the function is dropped, nothing outside changed
    Node* out = fn.fn->append(OpKind::Output, "output");
    out->args = {arg::Tensor{next->node}};
    if (output) out->args.push_back(arg::Tensor{output->node});
    std::vector<Node*> additional;
    for (size_t k = 2; k < fn.operands.size(); ++k) additional.push_back(fn.operands[k].node);
    Node* fn_attr = attach(std::move(fn.fn), "scan_combine_graph_" + std::to_string(scans_++));
    Node* hop = p_.graph().append(OpKind::CallFunction, "scan");
    hop->target = Target::higherOrder("scan");
    hop->args = {arg::Graph{fn_attr}, arg::TensorList{{fn.operands[0].node}}, arg::TensorList{{fn.operands[1].node}},
                 arg::TensorList{std::move(additional)}};
    return runAppended(hop) ? made + 1 : made;
  }

  // `calls` ATen calls drawn into `g`, whose values are `values`, as a `kind` subgraph's
  // are; the nodes made.
  int drawInto(Graph& g, std::vector<Live>& values, int64_t calls, Subgraph kind) {
    Graph* outer_graph = into_;
    const bool outer_grad = grad_enabled_;
    into_ = &g;
    std::swap(pool_, values);  // the argument draws read pool_
    const bool grad = kind == Subgraph::GradRegion ? false : outer_grad;
    at::AutoGradMode mode(grad);
    grad_enabled_ = grad;
    const bool outer_traced = std::exchange(traced_, kind == Subgraph::CondBranch || kind == Subgraph::MappedFunction);
    const bool outer_region = std::exchange(in_grad_region_, in_grad_region_ || kind == Subgraph::GradRegion);
    std::optional<autocast_state::AutocastRegion> autocast;
    if (kind == Subgraph::AutocastRegion) autocast.emplace(c10::DeviceType::CPU, autocast_dtype_, true, false);
    int made = 0;
    for (int64_t i = 0; i < calls && !compromised_; ++i) {
      if (kind == Subgraph::CondBranch) {
        made += fromBranchCall();
      } else if (kind == Subgraph::MappedFunction) {
        made += fromFunctionalCall();
      } else {
        made += fromAtenCall();
      }
    }
    grad_enabled_ = outer_grad;
    traced_ = outer_traced;
    in_grad_region_ = outer_region;
    std::swap(pool_, values);
    into_ = outer_graph;
    return made;
  }

  // A call drawn into a cond branch: now and then (`nested_cond_percent`, at most two conds
  // deep) a cond of its own, as a branch function that calls torch.cond makes one.
  int fromBranchCall() {
    if (cond_depth_ < 2 && random_.chance(config_.nested_cond_percent)) {
      ++cond_depth_;
      const int made = fromCond();
      --cond_depth_;
      return made;
    }
    return fromFunctionalCall();
  }

  // A call of the functional category whose results alias nothing (a branch of torch.cond
  // may not return a view of its operands).
  int fromFunctionalCall() {
    const auto& ops = catalog_.enabledOps(OpCategory::Functional);
    if (ops.empty()) return 0;
    const OpInfo* op = ops[random_.below(ops.size())];
    // Note [Reads of eager's layout]: a subgraph's operands are laid out anew by export.
    if (opRole(*op).role != OpRole::Functional || readsEagerLayout(*op) != EagerLayoutRead::None) return 0;
    // torch.cond and while_loop trace their subgraphs, and a call returning an int or a
    // bool (dense_dim, is_nonzero) is no tensor their graphs could hold; nor can they hold a
    // call whose result's sizes its input's data decide (the schema's dynamic_output_shape
    // tag: unique_dim_consecutive), which 2.14.1's eager torch.cond refuses as a graph break.
    if (op->hasTag(OpInfo::kDynamicOutputShape)) return 0;
    for (const ParamInfo& r : op->returns) {
      if (r.type != ParamType::Tensor && r.type != ParamType::TensorList) return 0;
    }
    return tryCall(op, OpCategory::Functional, nullptr) ? 1 : 0;
  }

  // The graph calls are drawn into: the program's, or a subgraph being made.
  Graph& into() { return into_ ? *into_ : p_.graph(); }

  // One candidate: `op` (null: none could be drawn), its arguments (the first tensor
  // `first` where given), a run on the live values. Kept only if no screen
  // (generators/screens.def) refuses it.
  bool tryCall(const OpInfo* op, OpCategory category, const Live* first) {
    if (stats_) ++stats_->candidates;
    if (!op) return refuse(Screen::NoOp);
    std::optional<Call> call = drawArguments(*op, category, first);
    if (!call) return refuse(Screen::NoArguments);
    const auto value_of = [this](const Node* in) { return valueOf(in); };
    if (traced_ && tracingRefuses(*op, call->args, value_of)) return refuse(Screen::TracingRefuses);
    const auto held = [this](const at::Tensor& t) { return heldElements(t); };
    if (auto screen = refusedBeforeRun(*op, call->args, call->kwargs, value_of, held)) return refuse(*screen);
    Graph& g = into();
    Node* n = g.append(OpKind::CallFunction, op->localName());
    n->target = Target::aten(op);
    n->args = std::move(call->args);
    n->kwargs = std::move(call->kwargs);
    Val val;
    if (op->is_mutable) {
      const std::vector<StorageSize> sizes = inputStorageSizes(*n);
      const bool kept = trialOnCopies(*op, *n, &val);
      if (!kept || growsAStorage(sizes)) {
        // The trial writes copies of what the call writes, but set_ grows the storage of the
        // source it takes, live (Note [Storage grown under a tensor]).
        const bool grew = growsAStorage(sizes);
        compromised_ = compromised_ || grew;
        g.erase(n);
        return refuse(grew ? Screen::GrowsAStorage : Screen::FailsOnCopies);
      }
    }
    auto run = [&] {
      return runSingleCall(*n, [&](const Node* in) -> c10::IValue {
        const at::Tensor* t = valueOf(in);
        return t ? c10::IValue(*t) : c10::IValue();
      });
    };
    std::vector<TensorState> before;  // Note [A refused call must leave no trace] (result_values.h)
    if (op->is_mutable) {
      forEachWritten(*op, *n, [&](const Node* w) {
        if (const at::Tensor* t = valueOf(w)) before.emplace_back(*t);
      });
    }
    auto outcome = run();
    const auto leaves_bits = [this] { return leavesBitsNoOpMade(); };
    const auto writes_by_layout = [&] { return indexWritesByLayout(*n, outcome.outputs[0]); };
    if (auto screen = refusedAfterRun(RanCall{*op, *n, outcome, &val, value_of, run, leaves_bits, writes_by_layout})) {
      for (const auto& b : before) compromised_ = compromised_ || !b.unchanged();
      g.erase(n);
      return refuse(*screen);
    }
    n->meta.val = val;
    if (viewsAsAnotherDtype(*op) && op->qualified_name == "aten::view") keepReinterpreted(*n, outcome.outputs[0]);
    if (op->is_mutable) {
      for (auto& [view, held] : given_) held = view.clone();
    }
    // Only a bare region's write turns refused when its `_set_grad_enabled` calls go: a
    // wrap_with_set_grad_enabled region keeps grad off (Note [Parameters written under grad]).
    if (op->is_mutable && !grad_enabled_ && !in_grad_region_ && writesAParameter(*op, *n)) {
      parameter_written_without_grad_ = true;
    }
    pool(n, outcome.outputs[0]);
    if (stats_) ++stats_->kept;
    return true;
  }

  // Note [A NaN's sign and payload] (result_values.h): the floating tensors view.dtype
  // calls reinterpret, which must not come to hold a NaN that an operation made, and the
  // floating views of other tensors, which may hold only the NaNs their bits gave.
  void keepReinterpreted(const Node& view, const c10::IValue& result) {
    const at::Tensor* source = nullptr;
    if (const auto* t = view.args.empty() ? nullptr : view.args[0].get<arg::Tensor>()) source = valueOf(t->node);
    if (source && at::isFloatingType(source->scalar_type())) reinterpreted_.push_back(*source);
    if (!source || !result.isTensor()) return;
    // The whole storage: a later transpose_ or resize_ of the view changes its metadata,
    // not the bits the source reads.
    const at::Tensor& made = result.toTensor();
    auto storageAs = [&](at::ScalarType dtype) {
      const auto elements = static_cast<int64_t>(made.storage().nbytes() / c10::elementSize(dtype));
      return at::empty({0}, made.options().dtype(dtype)).set_(made.storage(), 0, {elements}, {1});
    };
    if (!at::isFloatingType(source->scalar_type()) && at::isFloatingType(made.scalar_type())) {
      at::Tensor storage = storageAs(made.scalar_type());
      given_.emplace_back(storage, storage.clone());
    }
    if (source->scalar_type() == at::kBool && made.scalar_type() != at::kBool) bools_.push_back(storageAs(at::kBool));
  }
  // ... and Note [Bools of other bytes]: the bool tensors other dtypes view.
  bool leavesBitsNoOpMade() const {
    auto otherBytes = [](const at::Tensor& t) { return holdsBoolsOfOtherBytes(t); };
    return std::any_of(reinterpreted_.begin(), reinterpreted_.end(),
                       [](const at::Tensor& t) { return holdsANaN(t); }) ||
           std::any_of(given_.begin(), given_.end(), [](const auto& v) { return holdsANewNaN(v.first, v.second); }) ||
           std::any_of(bools_.begin(), bools_.end(), otherBytes);
  }

  // User outputs: up to three of the latest values made by ops (an input when there are
  // none); then the module call graph.
  void finish() {
    std::vector<Node*> outputs;
    for (auto it = pool_.rbegin(); it != pool_.rend() && outputs.size() < 3; ++it) {
      if (it->node->isPlaceholder()) continue;
      if (std::find(outputs.begin(), outputs.end(), it->node) != outputs.end()) continue;
      if (outputs.empty() || random_.chance(50)) outputs.push_back(it->node);
    }
    if (outputs.empty()) outputs.push_back(pool_.back().node);
    Node* out = p_.graph().append(OpKind::Output, "output");
    for (Node* o : outputs) {
      out->args.push_back(arg::Tensor{o});
      p_.signature.output_specs.push_back({OutputKind::UserOutput, SpecArg::tensor(o->name()), std::nullopt});
    }
    addModuleCallGraph(p_, outputs, config_.submodule_percent, random_);
  }

  const GeneratorConfig& config_;
  RandomSource& random_;
  GenerationStats* stats_;                       // null: not counted
  bool compromised_ = false;                     // a refused call changed a live tensor: give the program up
  bool may_call_refused_ = false;                // this program may call ops the functionalizer refuses
  bool parameter_written_without_grad_ = false;  // Note [Parameters written under grad]
  std::vector<at::Tensor> parameters_;
  ExportedProgram p_;
  std::vector<Live> pool_;
  std::vector<at::Tensor> read_only_;      // constants and immutable state
  std::vector<at::Tensor> reinterpreted_;  // floating tensors a view.dtype reads the bits of
  // The storages of floating views of other tensors, in the view's dtype, with what they
  // held after the last write.
  std::vector<std::pair<at::Tensor, at::Tensor>> given_;
  std::vector<at::Tensor> bools_;                  // the storages, as bools, of bool tensors other dtypes view
  Graph* into_ = nullptr;                          // a subgraph being made; null: the program's graph
  int regions_ = 0;                                // grad and autocast regions made, for their subgraphs' names
  at::ScalarType autocast_dtype_ = at::kBFloat16;  // the autocast region being drawn into
  int conds_ = 0;                                  // conds made, for their branches' names
  int loops_ = 0;                                  // while_loops made, for their subgraphs' names
  int maps_ = 0;                                   // maps made, for their bodies' names
  int scans_ = 0;                                  // scans made, for their combine functions' names
  int cond_depth_ = 0;                             // conds being drawn into, around the call being drawn
  bool traced_ = false;                            // drawing into a cond branch or a loop body, which torch traces
  bool in_grad_region_ = false;                    // drawing into a wrap_with_set_grad_enabled subgraph
  bool grad_enabled_ = true;
  const OpCatalog& catalog_;
  ArgumentDraws draws_{config_, random_, pool_, read_only_, may_call_refused_};
};

// A TRAINING program from `random`: the first one whose generation no refused call
// compromised (Note [A refused call must leave no trace]) and that runs from its inputs
// (Note [Metadata mutations of views replayed]), each made from where the last left the
// stream.
Expected<ExportedProgram> trainingProgram(const OpCatalog& catalog, const GeneratorConfig& config, RandomSource& random,
                                          GenerationStats* stats) {
  constexpr int kTries = 16;
  for (int i = 0; i < kTries; ++i) {
    Generator generator(catalog, config, random, stats);
    auto program = generator.run();
    if (!program.ok()) return program;
    if (!generator.compromised() && replaysIfItMutatesMetadata(program.value())) return program;
    if (stats) ++stats->programs_given_up;
  }
  return Diagnostic{"", "no program of " + std::to_string(kTries) +
                            " could be generated without a refused call changing a live tensor"};
}

}  // namespace

Expected<ExportedProgram> generateProgram(const OpCatalog& catalog, const GeneratorConfig& config, RandomSource& random,
                                          GenerationStats* stats) {
  compat::WarningHandlerGuard quiet(silentWarningHandler());
  return trainingProgram(catalog, config, random, stats);
}

}  // namespace epsmith
