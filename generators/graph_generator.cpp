// The graph generator; see graph_generator.h.
//
// Note [Arguments from names]
// The schema gives each argument's kind; its name says what values make sense: `dim` is a
// dimension of the first tensor argument, `size`/`shape` a shape with the same number of
// elements (the tensor's own, permuted, flattened, or with a 1 inserted), `dims`/`perm` a
// permutation, `index`/`start`/`end`/`length` a position along a dimension. Everything else
// draws small values; a candidate that does not run is dropped, so these are only odds.
#include "generators/graph_generator.h"

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>

#include <algorithm>
#include <numeric>

#include "functionalizer/op_roles.h"
#include "oracle/aten_bridge.h"
#include "oracle/interpreter.h"

namespace epsmith {
namespace {

struct Live {
  Node* node;
  at::Tensor value;
  bool input = false;  // the very tensor object of a graph input (export bans changing its metadata)
};

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

TensorMeta metaOf(const at::Tensor& t) {
  TensorMeta m;
  m.dtype = fromAten(t.scalar_type());
  for (int64_t s : t.sizes()) m.sizes.emplace_back(s);
  for (int64_t s : t.strides()) m.strides.emplace_back(s);
  m.storage_offset = t.storage_offset();
  m.requires_grad = t.requires_grad();
  return m;
}

// meta.val for a call's value; false for values a program cannot hold (complex, huge).
bool valOf(const c10::IValue& v, Val* out) {
  auto tensor = [](const at::Tensor& t, Val* o) {
    if (!t.defined() || t.is_complex() || t.numel() > (1 << 16) || !t.is_cpu()) return false;
    *o = metaOf(t);
    return true;
  };
  if (v.isTensor()) return tensor(v.toTensor(), out);
  if (v.isInt()) return *out = v.toInt(), true;
  if (v.isDouble()) return *out = v.toDouble(), true;
  if (v.isBool()) return *out = v.toBool(), true;
  if (v.isTuple() || v.isTensorList()) {
    std::vector<at::Tensor> items;
    if (v.isTensorList()) {
      items = v.toTensorVector();
    } else {
      for (const auto& e : v.toTupleRef().elements()) {
        if (!e.isTensor()) return false;
        items.push_back(e.toTensor());
      }
    }
    Val::List list;
    for (const auto& t : items) {
      Val one;
      if (!tensor(t, &one)) return false;
      list.push_back(std::move(one));
    }
    *out = std::move(list);
    return true;
  }
  return false;
}

class Generator {
 public:
  Generator(const OpCatalog& catalog, const GeneratorConfig& config, RandomSource& random)
      : config_(config), random_(random) {
    for (const CatalogEntry* e : catalog.enabled()) {
      switch (e->category) {
        case OpCategory::Functional: functional_.push_back(e->op); break;
        case OpCategory::InPlace: in_place_.push_back(e->op); break;
        case OpCategory::View: view_.push_back(e->op); break;
        case OpCategory::Out: out_.push_back(e->op); break;
        case OpCategory::MetadataMutation: metadata_.push_back(e->op); break;
        case OpCategory::Factory: factory_.push_back(e->op); break;
        default: break;  // random and others only when enabled, as functional-like
      }
    }
  }

  Expected<ExportedProgram> run() {
    if (functional_.empty() && in_place_.empty() && view_.empty() && out_.empty()) {
      return LoadError{"", "the op catalog enables no op to generate with"};
    }
    p_.setDialect(IrDialect::Training);
    const int inputs = static_cast<int>(random_.range(config_.min_inputs, std::max(config_.min_inputs, config_.max_inputs)));
    for (int i = 0; i < inputs; ++i) addInput("x" + std::to_string(i));
    int made = 0;
    for (int attempts = 0; made < config_.nodes && attempts < config_.nodes * config_.attempts_per_node; ++attempts) {
      if (tryOne()) ++made;
    }
    finish();
    return std::move(p_);
  }

 private:
  // --- Inputs -------------------------------------------------------------------------
  at::Tensor randomTensor(ScalarType dtype, const std::vector<int64_t>& sizes) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(random_.next());
    at::Tensor ints = at::randint(-6, 7, sizes, gen, at::TensorOptions().dtype(at::kLong));
    if (dtype == ScalarType::Bool) return ints.gt(0);
    if (dtype == ScalarType::Float || dtype == ScalarType::Double || dtype == ScalarType::Half ||
        dtype == ScalarType::BFloat16) {
      return ints.to(toAten(dtype)).mul_(0.5);
    }
    return ints.to(toAten(dtype));
  }

  void addInput(const std::string& name) {
    const ScalarType dtype = config_.dtypes[random_.below(config_.dtypes.size())];
    const int64_t rank = random_.range(0, config_.max_rank);
    std::vector<int64_t> sizes;
    for (int64_t d = 0; d < rank; ++d) sizes.push_back(random_.chance(5) ? 0 : random_.range(1, config_.max_dim));
    at::Tensor value;
    if (!random_.chance(config_.noncontiguous_percent) || rank == 0) {
      value = randomTensor(dtype, sizes);
    } else {
      switch (random_.below(3)) {
        case 0: {  // a transposed view
          std::vector<int64_t> swapped(sizes.rbegin(), sizes.rend());
          std::vector<int64_t> order(static_cast<size_t>(rank));
          std::iota(order.rbegin(), order.rend(), 0);
          value = randomTensor(dtype, swapped).permute(order);
          break;
        }
        case 1: {  // every other row of a larger tensor
          std::vector<int64_t> bigger = sizes;
          bigger[0] = bigger[0] * 2;
          value = randomTensor(dtype, bigger).slice(0, 0, std::max<int64_t>(bigger[0], 1), 2);
          break;
        }
        default: {  // an offset view into a larger storage
          int64_t numel = 1;
          for (int64_t s : sizes) numel *= s;
          at::Tensor base = randomTensor(dtype, {numel + 3});
          value = base.narrow(0, 3, numel).view(sizes);
          break;
        }
      }
    }
    Node* n = p_.graph().append(OpKind::Placeholder, name);
    n->meta.val = metaOf(value);
    p_.signature.input_specs.push_back({InputKind::UserInput, SpecArg::tensor(n->name()), std::nullopt, std::nullopt});
    InputValue input;
    input.kind = InputValue::Kind::Tensor;
    input.tensor = toTensorValue(value);  // recorded before any op runs
    p_.example_inputs.push_back(std::move(input));
    pool_.push_back({n, value, true});
  }

  // --- Candidates ---------------------------------------------------------------------
  const OpInfo* pickOp() {
    std::vector<const std::vector<const OpInfo*>*> lists{&functional_, &in_place_, &view_, &out_, &metadata_, &factory_};
    std::vector<uint32_t> weights{config_.weight_functional, config_.weight_in_place, config_.weight_view,
                                  config_.weight_out, config_.weight_metadata, config_.weight_factory};
    for (size_t i = 0; i < lists.size(); ++i) {
      if (lists[i]->empty()) weights[i] = 0;
    }
    const auto& list = *lists[random_.weighted(weights)];
    return list.empty() ? nullptr : list[random_.below(list.size())];
  }

  const Live& anyTensor() { return pool_[random_.below(pool_.size())]; }

  // A tensor that may be written: no element shared by two indices (eager leaves writes to
  // those undefined, DESIGN.md).
  const Live* writableTensor(bool metadata = false) {
    for (int tries = 0; tries < 8; ++tries) {
      const Live& l = anyTensor();
      if (metadata && l.input) continue;  // export refuses metadata mutations of inputs
      if (at::has_internal_overlap(l.value) == at::MemOverlap::No) return &l;
    }
    return nullptr;
  }

  const Live& likeTensor(const at::Tensor* ref) {
    if (ref && random_.chance(60)) {
      std::vector<const Live*> same;
      for (const auto& l : pool_) {
        if (l.value.sizes() == ref->sizes()) same.push_back(&l);
      }
      if (!same.empty()) return *same[random_.below(same.size())];
    }
    return anyTensor();
  }

  std::vector<int64_t> shapeLike(const at::Tensor& ref) {
    std::vector<int64_t> sizes(ref.sizes().begin(), ref.sizes().end());
    switch (random_.below(4)) {
      case 0: return {-1};
      case 1: std::reverse(sizes.begin(), sizes.end()); return sizes;
      case 2: sizes.insert(sizes.begin() + static_cast<int64_t>(random_.below(sizes.size() + 1)), 1); return sizes;
      default: return sizes;
    }
  }

  // Note [Arguments from names]
  std::optional<Argument> argumentFor(const ParamInfo& p, const at::Tensor* ref, bool self, bool metadata) {
    const int64_t rank = ref ? ref->dim() : 0;
    auto dimIn = [&] { return rank == 0 ? random_.range(-1, 0) : random_.range(-rank, rank - 1); };
    auto posIn = [&] {
      if (!ref || rank == 0) return random_.range(0, 2);
      const int64_t size = ref->size(random_.below(static_cast<uint64_t>(rank)));
      return random_.range(0, std::max<int64_t>(size - 1, 0));
    };
    switch (p.type) {
      case ParamType::Tensor: {
        if (p.optional && random_.chance(40)) return Argument(arg::None{});
        const Live* l = self ? writableTensor(metadata) : &likeTensor(ref);
        if (!l) return std::nullopt;
        return Argument(arg::Tensor{l->node});
      }
      case ParamType::TensorList: {
        arg::TensorList list;
        const int64_t n = random_.range(1, 3);
        for (int64_t i = 0; i < n; ++i) list.nodes.push_back(likeTensor(ref).node);
        return Argument(list);
      }
      case ParamType::OptionalTensorList: {
        arg::OptionalTensorList list;
        std::vector<const Live*> indices;
        for (const auto& l : pool_) {
          if (l.value.scalar_type() == at::kLong || l.value.scalar_type() == at::kBool) indices.push_back(&l);
        }
        list.nodes.push_back(indices.empty() ? nullptr : indices[random_.below(indices.size())]->node);
        if (!list.nodes[0]) return std::nullopt;
        return Argument(list);
      }
      case ParamType::Int:
      case ParamType::SymInt: {
        if (contains(p.name, "dim")) return Argument(arg::Int{dimIn()});
        if (contains(p.name, "index") || contains(p.name, "start") || contains(p.name, "end") ||
            contains(p.name, "length") || contains(p.name, "size") || contains(p.name, "step") ||
            contains(p.name, "chunk") || contains(p.name, "section")) {
          return Argument(arg::Int{std::max<int64_t>(posIn(), p.name == "step" ? 1 : 0)});
        }
        return Argument(arg::Int{random_.range(-2, 4)});
      }
      case ParamType::IntList:
      case ParamType::SymIntList: {
        std::vector<int64_t> values;
        if (ref && (contains(p.name, "size") || contains(p.name, "shape"))) {
          values = shapeLike(*ref);
        } else if (contains(p.name, "dim") || contains(p.name, "perm")) {
          values.resize(static_cast<size_t>(rank));
          std::iota(values.begin(), values.end(), 0);
          for (size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[random_.below(i)]);
          if (p.name == "dim" && !values.empty()) values.resize(1 + random_.below(values.size()));
        } else {
          const int64_t n = p.fixed_list_size > 0 ? p.fixed_list_size : random_.range(1, 3);
          for (int64_t i = 0; i < n; ++i) values.push_back(random_.range(0, 3));
        }
        return Argument(arg::IntList{values});
      }
      case ParamType::Float: return Argument(arg::Float{static_cast<double>(random_.range(-4, 4)) * 0.5});
      case ParamType::Bool: return Argument(arg::Bool{random_.chance(50)});
      case ParamType::Scalar:
        if (random_.chance(50)) return Argument(arg::Int{random_.range(-3, 3)});
        return Argument(arg::Float{static_cast<double>(random_.range(-6, 6)) * 0.5});
      case ParamType::ScalarType: return Argument(arg::Dtype{config_.dtypes[random_.below(config_.dtypes.size())]});
      default:
        if (p.optional) return Argument(arg::None{});
        return std::nullopt;
    }
  }

  const at::Tensor* valueOf(const Node* n) const {
    for (const auto& l : pool_) {
      if (l.node == n) return &l.value;
    }
    return nullptr;
  }

  // A written tensor (self of an in-place op, an out= tensor) that shares memory with an
  // argument the op reads: eager may write before it has read (baddbmm_(x, x, x)) or resize
  // first, so the result depends on the kernel's order of steps — undefined, not generated.
  bool outAliasesAnInput(const OpInfo& op, const std::vector<Argument>& args,
                         const std::vector<std::pair<std::string, Argument>>& kwargs) const {
    std::vector<const at::Tensor*> outs, reads;
    auto collect = [&](const std::string& name, const Argument& a) {
      const int i = op.argumentIndex(name);
      const bool out = i >= 0 && op.arguments[static_cast<size_t>(i)].is_write;
      a.forEachNode([&](const Node* n) {
        if (const at::Tensor* t = valueOf(n)) (out ? outs : reads).push_back(t);
      });
    };
    for (size_t i = 0; i < args.size(); ++i) collect(op.arguments[i].name, args[i]);
    for (const auto& [name, a] : kwargs) collect(name, a);
    for (const at::Tensor* o : outs) {
      for (const at::Tensor* r : reads) {
        if (o->is_alias_of(*r)) return true;
      }
    }
    return false;
  }

  // A non-mutating op that handed back one of its arguments itself (matrix_H of a 0-d
  // tensor, say) although its role does not say it returns self: the functionalizer models
  // such results as new views, so a later metadata mutation through one would not reach the
  // other. Not generated (docs/functionalizer.md, known limits).
  bool returnsAnArgumentUndeclared(const OpInfo& op, const c10::IValue& result, const Node& call) const {
    if (op.is_mutable || opRole(op).returns_self || !result.isTensor()) return false;
    const auto* impl = result.toTensor().unsafeGetTensorImpl();
    bool same = false;
    call.forEachInput([&](const Node* in) {
      const at::Tensor* t = valueOf(in);
      same = same || (t && t->unsafeGetTensorImpl() == impl);
    });
    return same;
  }

  // One candidate: an op, its arguments, a run on the live values. Kept only if it runs.
  bool tryOne() {
    const OpInfo* op = pickOp();
    if (!op) return false;
    std::vector<Argument> args;
    std::vector<std::pair<std::string, Argument>> kwargs;
    const bool metadata = opRole(*op).role == OpRole::MetadataMutation;
    const at::Tensor* ref = nullptr;  // the first tensor argument: dims and shapes follow it
    bool defaults_from_here = false;  // positional defaults trail: once one is left out, all are
    for (size_t i = 0; i < op->arguments.size(); ++i) {
      const ParamInfo& p = op->arguments[i];
      const bool written = p.is_write;
      if (p.has_default && !written && (defaults_from_here || random_.chance(50))) {
        if (!p.kwarg_only) defaults_from_here = true;
        continue;
      }
      auto a = argumentFor(p, ref, written, metadata);
      if (!a) return false;
      if (!ref) {
        if (const auto* t = a->get<arg::Tensor>()) ref = valueOf(t->node);
      }
      if (p.kwarg_only) {
        kwargs.emplace_back(p.name, std::move(*a));
      } else {
        args.push_back(std::move(*a));
      }
    }
    if (outAliasesAnInput(*op, args, kwargs)) return false;
    Graph& g = p_.graph();
    Node* n = g.append(OpKind::CallFunction, op->localName());
    n->target = Target::aten(op);
    n->args = std::move(args);
    n->kwargs = std::move(kwargs);
    Val val;
    if (op->is_mutable) {
      // A trial on copies first: a candidate dropped after it ran (its result is too big,
      // say) must not have written into the live values or changed their shapes.
      std::vector<std::pair<at::Tensor, const void*>> copies;  // and their storages before
      auto trial = runSingleCall(*n, [&](const Node* in) -> c10::IValue {
        const at::Tensor* t = valueOf(in);
        if (!t) return c10::IValue();
        at::Tensor copy = t->clone();
        copies.emplace_back(copy, copy.storage().data());
        return copy;
      });
      // An out= kernel that gives `out` a new storage of the same size (some linalg ops do)
      // detaches the views already taken of it, which no schema says: not generated.
      bool storage_replaced = false;
      for (const auto& [copy, before] : copies) {
        storage_replaced = storage_replaced || (copy.storage().data() != before && copy.numel() > 0);
      }
      if (trial.error || trial.outputs.empty() || !valOf(trial.outputs[0], &val) || storage_replaced) {
        g.erase(n);
        return false;
      }
    }
    auto outcome = runSingleCall(*n, [&](const Node* in) -> c10::IValue {
      const at::Tensor* t = valueOf(in);
      return t ? c10::IValue(*t) : c10::IValue();
    });
    if (outcome.error || outcome.outputs.empty() || !valOf(outcome.outputs[0], &val) ||
        returnsAnArgumentUndeclared(*op, outcome.outputs[0], *n)) {
      g.erase(n);
      return false;
    }
    n->meta.val = val;
    const c10::IValue& v = outcome.outputs[0];
    if (v.isTensor()) {
      bool input = false;  // in-place and out= results, and ops returning self, are their argument
      for (const auto& l : pool_) input = input || (l.input && l.value.unsafeGetTensorImpl() == v.toTensor().unsafeGetTensorImpl());
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
        item->meta.val = metaOf(items[k]);
        pool_.push_back({item, items[k]});
      }
    }
    return true;
  }

  // User outputs: up to three of the latest values made by ops (an input when there are none).
  void finish() {
    std::vector<Node*> outputs;
    for (auto it = pool_.rbegin(); it != pool_.rend() && outputs.size() < 3; ++it) {
      if (it->node->isPlaceholder()) continue;
      if (std::find(outputs.begin(), outputs.end(), it->node) != outputs.end()) continue;
      if (outputs.empty() || random_.chance(50)) outputs.push_back(it->node);
    }
    if (outputs.empty()) outputs.push_back(pool_.front().node);
    Node* out = p_.graph().append(OpKind::Output, "output");
    for (Node* o : outputs) {
      out->args.push_back(arg::Tensor{o});
      p_.signature.output_specs.push_back({OutputKind::UserOutput, SpecArg::tensor(o->name()), std::nullopt});
    }
  }

  const GeneratorConfig& config_;
  RandomSource& random_;
  ExportedProgram p_;
  std::vector<Live> pool_;
  std::vector<const OpInfo*> functional_, in_place_, view_, out_, metadata_, factory_;
};

}  // namespace

Expected<ExportedProgram> generateProgram(const OpCatalog& catalog, const GeneratorConfig& config,
                                          RandomSource& random) {
  return Generator(catalog, config, random).run();
}

}  // namespace epsmith
