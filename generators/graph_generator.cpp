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
#include <ATen/Dispatch.h>
#include <ATen/MemoryOverlap.h>

#include <algorithm>
#include <numeric>
#include <sstream>
#include <type_traits>

#include "functionalizer/functionalize.h"
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

// Note [Integer values kept small]
// Integer results are kept only while every element lies within ±2^20. Larger ones come
// from overflowing chains (cumprod, pow) and wrap to INT_MIN, where LibTorch 1.13 kernels
// trap instead of raising (fmod/remainder of INT_MIN by -1: SIGFPE, which kills the
// process), and values used as counts or positions (one_hot, arange ends, index
// arithmetic) then cost unbounded time or memory. Overflow itself is undefined in C++ and
// differs between kernels legitimately, so a differential tester gains nothing from it.
bool smallIntegers(const at::Tensor& t) {
  if (!at::isIntegralType(t.scalar_type(), /*includeBool=*/false) || t.numel() == 0) return true;
  constexpr int64_t kLimit = int64_t{1} << 20;
  at::NoGradGuard no_grad;
  auto [lo, hi] = at::aminmax(t);
  return lo.item<int64_t>() >= -kLimit && hi.item<int64_t>() <= kLimit;
}

// meta.val for a call's value; false for values a program cannot hold (complex, huge).
bool valOf(const c10::IValue& v, Val* out) {
  auto tensor = [](const at::Tensor& t, Val* o) {
    if (!t.defined() || t.is_complex() || t.numel() > (1 << 16) || !t.is_cpu()) return false;
    // An integer tensor that requires grad (a LibTorch bug when an op makes one) cannot
    // even be cloned: LibTorch asserts.
    if (t.requires_grad() && !at::isFloatingType(t.scalar_type())) return false;
    if (!smallIntegers(t)) return false;
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

// An element from a small integer v in [-6, 6]: v > 0 for bool, v for integers, v/2 for
// floating types (exact in every one of them).
template <typename T>
T smallValue(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v > 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else {
    return static_cast<T>(static_cast<float>(v) * 0.5f);
  }
}

class Generator {
 public:
  Generator(const OpCatalog& catalog, const GeneratorConfig& config, RandomSource& random)
      : config_(config), random_(random), catalog_(catalog) {}

  Expected<ExportedProgram> run() {
    bool any = false;
    for (auto c : {OpCategory::Functional, OpCategory::InPlace, OpCategory::View, OpCategory::Out}) {
      any = any || !catalog_.enabledOps(c).empty();
    }
    if (!any) {
      return LoadError{"", "the op catalog enables no op to generate with"};
    }
    at::AutoGradMode grad(true);
    p_.setDialect(IrDialect::Training);
    addPlaceholders();
    int made = 0;
    for (int attempts = 0; made < config_.nodes && attempts < config_.nodes * config_.attempts_per_node; ++attempts) {
      maybeToggleGrad();
      if (tryOne()) ++made;
    }
    if (!grad_enabled_) setGrad(true);
    finish();
    return std::move(p_);
  }

 private:
  // --- Placeholders and the signature -------------------------------------------------
  // torch.export's order: tokens, parameters, buffers, constants, then user inputs; each
  // lifted kind drawn by its weight, parameters only where a floating dtype is allowed.
  void addPlaceholders() {
    if (random_.chance(config_.token_percent)) {
      Node* t = p_.graph().append(OpKind::Placeholder, "token");
      TensorMeta m;
      m.dtype = ScalarType::Float;
      m.sizes.emplace_back(int64_t{0});
      m.strides.emplace_back(int64_t{1});
      t->meta.val = m;
      p_.signature.input_specs.push_back({InputKind::Token, SpecArg{SpecArg::Kind::Token, t->name(), {}, {}},
                                          std::nullopt, std::nullopt});
      token_ = t;
    }
    std::vector<ScalarType> floating;
    for (ScalarType d : config_.dtypes) {
      if (d == ScalarType::Float || d == ScalarType::Double || d == ScalarType::Half || d == ScalarType::BFloat16) {
        floating.push_back(d);
      }
    }
    std::vector<uint32_t> weights(std::begin(config_.state_weights), std::end(config_.state_weights));
    if (floating.empty()) weights[static_cast<int>(StateKind::Parameter)] = 0;
    std::vector<StateKind> kinds;
    const int64_t lifted = random_.range(0, config_.max_state);
    for (int64_t i = 0; i < lifted; ++i) {
      bool any = false;
      for (uint32_t w : weights) any = any || w > 0;
      if (any) kinds.push_back(static_cast<StateKind>(random_.weighted(weights)));
    }
    std::stable_sort(kinds.begin(), kinds.end(), [](StateKind a, StateKind b) {
      auto group = [](StateKind k) { return k == StateKind::NonPersistentBuffer ? 1 : static_cast<int>(k) > 1 ? 2 : static_cast<int>(k); };
      return group(a) < group(b);
    });
    int counts[kNumStateKinds] = {};
    for (StateKind k : kinds) addState(k, counts[static_cast<int>(k)]++, floating);
    const int inputs = static_cast<int>(random_.range(config_.min_inputs, std::max(config_.min_inputs, config_.max_inputs)));
    for (int i = 0; i < inputs; ++i) addInput("x" + std::to_string(i));
  }

  // A lifted parameter, buffer or constant: contiguous (as a module holds them), recorded in
  // the state dict (persistent buffers, parameters with requires_grad) or the constants
  // (non-persistent buffers, tensor constants). Constants are never written; parameters and
  // buffers only when drawn mutable, and parameters then only under no_grad, which eager
  // itself enforces (an in-place write to a leaf that requires grad raises).
  void addState(StateKind kind, int index, const std::vector<ScalarType>& floating) {
    const bool parameter = kind == StateKind::Parameter;
    const ScalarType dtype = parameter ? floating[random_.below(floating.size())]
                                       : config_.dtypes[random_.below(config_.dtypes.size())];
    at::Tensor value = randomTensor(dtype, randomSizes());
    if (parameter) value.requires_grad_(true);
    std::string target, name;
    InputKind input_kind = InputKind::Buffer;
    std::optional<bool> persistent;
    switch (kind) {
      case StateKind::Parameter:
        target = "weight" + std::to_string(index), name = "p_" + target, input_kind = InputKind::Parameter;
        break;
      case StateKind::PersistentBuffer:
        target = "running" + std::to_string(index), name = "b_" + target, persistent = true;
        break;
      case StateKind::NonPersistentBuffer:
        target = "scratch" + std::to_string(index), name = "b_" + target, persistent = false;
        break;
      case StateKind::Constant:
        target = "_tensor_constant" + std::to_string(index), name = "c_" + target.substr(1),
        input_kind = InputKind::ConstantTensor;
        break;
    }
    Node* n = p_.graph().append(OpKind::Placeholder, name);
    n->meta.val = metaOf(value);
    p_.signature.input_specs.push_back({input_kind, SpecArg::tensor(n->name()), target, persistent});
    TensorValue recorded = toTensorValue(value);  // before any op runs
    if (kind == StateKind::Parameter || kind == StateKind::PersistentBuffer) {
      p_.state_dict[target] = StateEntry{parameter, std::move(recorded)};
    } else {
      Constant c;
      c.tensor = std::move(recorded);
      p_.constants[target] = std::move(c);
    }
    const bool writable = kind != StateKind::Constant && random_.chance(config_.mutable_state_percent);
    if (!writable) read_only_.push_back(value);
    pool_.push_back({n, value, true});
  }

  // no_grad regions: torch._C._set_grad_enabled(False) ... (True), as export records them;
  // candidates inside run with grad mode off, so eager decides what is legal there.
  void maybeToggleGrad() {
    if (!random_.chance(config_.no_grad_percent)) return;
    setGrad(!grad_enabled_);
  }

  void setGrad(bool enabled) {
    Node* n = p_.graph().append(OpKind::CallFunction, "_set_grad_enabled");
    n->target = Target::torchFunction(TorchFunction::CSetGradEnabled);
    n->args = {arg::Bool{enabled}};
    n->meta.val = Val::None{};
    at::GradMode::set_enabled(enabled);
    grad_enabled_ = enabled;
  }

  // --- Inputs -------------------------------------------------------------------------
  // Small integers (halves for floating dtypes, > 0 for bool), from a stream seeded by one
  // draw: a byte source spends 8 bytes on a tensor's values, not 8 per element.
  at::Tensor randomTensor(ScalarType dtype, const std::vector<int64_t>& sizes) {
    SeededSource values(random_.next());
    at::Tensor t = at::empty(sizes, at::TensorOptions().dtype(toAten(dtype)));
    const int64_t n = t.numel();
    AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, t.scalar_type(), "randomTensor", [&] {
      auto* data = t.data_ptr<scalar_t>();
      for (int64_t i = 0; i < n; ++i) data[i] = smallValue<scalar_t>(values.range(-6, 6));
    });
    return t;
  }

  std::vector<int64_t> randomSizes() {
    const int64_t rank = random_.range(0, config_.max_rank);
    std::vector<int64_t> sizes;
    for (int64_t d = 0; d < rank; ++d) sizes.push_back(random_.chance(5) ? 0 : random_.range(1, config_.max_dim));
    return sizes;
  }

  void addInput(const std::string& name) {
    const ScalarType dtype = config_.dtypes[random_.below(config_.dtypes.size())];
    const std::vector<int64_t> sizes = randomSizes();
    const auto rank = static_cast<int64_t>(sizes.size());
    at::Tensor value;
    if (!random_.chance(config_.noncontiguous_percent) || rank == 0) {
      value = randomTensor(dtype, sizes);
    } else {
      switch (random_.below(4)) {
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
        case 2: {  // expanded along its first dim (stride 0: elements shared, never written)
          std::vector<int64_t> one = sizes;
          one[0] = 1;
          value = randomTensor(dtype, one).expand(sizes);
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
    // Random and nondeterministic ops (off by default) weigh as functional ones when a
    // config enables them.
    static constexpr OpCategory kCategories[] = {OpCategory::Functional, OpCategory::InPlace, OpCategory::View,
                                                 OpCategory::Out, OpCategory::MetadataMutation, OpCategory::Factory,
                                                 OpCategory::Random, OpCategory::Nondeterministic};
    std::vector<uint32_t> weights{config_.weight_functional, config_.weight_in_place, config_.weight_view,
                                  config_.weight_out, config_.weight_metadata, config_.weight_factory,
                                  config_.weight_functional, config_.weight_functional};
    for (size_t i = 0; i < weights.size(); ++i) {
      if (catalog_.enabledOps(kCategories[i]).empty()) weights[i] = 0;
    }
    const auto& list = catalog_.enabledOps(kCategories[random_.weighted(weights)]);
    return list.empty() ? nullptr : list[random_.below(list.size())];
  }

  const Live& anyTensor() { return pool_[random_.below(pool_.size())]; }

  // The first tensor argument (dims and shapes follow it): the higher-ranked of two draws
  // half the time, since many ops want a matrix or more (t, mT, dsplit, diagonal).
  const Live& firstTensor() {
    const Live& a = anyTensor();
    if (!random_.chance(50)) return a;
    const Live& b = anyTensor();
    return b.value.dim() > a.value.dim() ? b : a;
  }

  // A tensor that may be written: no element shared by two indices (eager leaves writes to
  // those undefined, DESIGN.md).
  const Live* writableTensor(bool metadata = false) {
    for (int tries = 0; tries < 8; ++tries) {
      const Live& l = anyTensor();
      if (metadata && l.input) continue;  // export refuses metadata mutations of inputs
      if (readOnly(l.value)) continue;
      if (at::has_internal_overlap(l.value) == at::MemOverlap::No) return &l;
    }
    return nullptr;
  }

  // Constants, and state drawn immutable, are never written, nor any view of them.
  bool readOnly(const at::Tensor& t) const {
    for (const auto& r : read_only_) {
      if (t.is_alias_of(r)) return true;
    }
    return false;
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

  // `infer`: the op accepts -1 for "the rest" (view, reshape, expand).
  std::vector<int64_t> shapeLike(const at::Tensor& ref, bool infer) {
    std::vector<int64_t> sizes(ref.sizes().begin(), ref.sizes().end());
    switch (random_.below(4)) {
      case 0:
        if (infer) return {-1};
        return {ref.numel()};
      case 1: std::reverse(sizes.begin(), sizes.end()); return sizes;
      case 2: sizes.insert(sizes.begin() + static_cast<int64_t>(random_.below(sizes.size() + 1)), 1); return sizes;
      default: return sizes;
    }
  }

  // Note [Arguments from names]
  std::optional<Argument> argumentFor(const OpInfo& op, const ParamInfo& p, const at::Tensor* ref, bool self,
                                      bool metadata) {
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
        const Live* l = self ? writableTensor(metadata) : ref ? &likeTensor(ref) : &firstTensor();
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
        if (contains(p.name, "dim") || contains(p.name, "axis") || p.name == "source" || p.name == "destination") {
          return Argument(arg::Int{dimIn()});
        }
        if (contains(p.name, "chunk") || contains(p.name, "section")) return Argument(arg::Int{std::max<int64_t>(posIn(), 1)});
        if (contains(p.name, "index") || contains(p.name, "start") || contains(p.name, "end") ||
            contains(p.name, "length") || contains(p.name, "size") || contains(p.name, "step")) {
          return Argument(arg::Int{std::max<int64_t>(posIn(), p.name == "step" ? 1 : 0)});
        }
        return Argument(arg::Int{random_.range(-2, 4)});
      }
      case ParamType::IntList:
      case ParamType::SymIntList: {
        std::vector<int64_t> values;
        if (p.name == "stride" && !last_list_.empty()) {
          // as_strided's strides: as many as the sizes just drawn, contiguous for them.
          values.assign(last_list_.size(), 1);
          for (size_t i = values.size() - 1; i > 0; --i) values[i - 1] = values[i] * std::max<int64_t>(last_list_[i], 1);
        } else if (ref && p.name == "split_sizes" && rank > 0) {
          // Pieces that add up to the size of dimension 0 (split's default dim).
          for (int64_t left = ref->size(0); left > 0;) {
            values.push_back(random_.range(1, left));
            left -= values.back();
          }
          if (values.empty()) values.push_back(0);
        } else if (ref && (contains(p.name, "size") || contains(p.name, "shape"))) {
          const std::string_view local = op.localName();
          const bool infer = local.find("view") != std::string_view::npos || local.find("reshape") != std::string_view::npos ||
                             local.find("expand") != std::string_view::npos || p.name == "shape";
          values = shapeLike(*ref, infer);
        } else if (contains(p.name, "dim") || contains(p.name, "perm") || p.name == "source" || p.name == "destination") {
          values.resize(static_cast<size_t>(rank));
          std::iota(values.begin(), values.end(), 0);
          for (size_t i = values.size(); i > 1; --i) std::swap(values[i - 1], values[random_.below(i)]);
          // movedim's source and destination: as many dims each.
          if (p.name == "destination") values.resize(std::min(values.size(), last_list_.size()));
          if ((p.name == "dim" || p.name == "source") && !values.empty()) values.resize(1 + random_.below(values.size()));
        } else {
          const int64_t n = p.fixed_list_size > 0 ? p.fixed_list_size : random_.range(1, 3);
          for (int64_t i = 0; i < n; ++i) values.push_back(random_.range(0, 3));
        }
        last_list_ = values;
        return Argument(arg::IntList{values});
      }
      case ParamType::Float: return Argument(arg::Float{static_cast<double>(random_.range(-4, 4)) * 0.5});
      case ParamType::Bool:
        if (p.name == "pin_memory") return Argument(arg::Bool{false});  // needs CUDA
        return Argument(arg::Bool{random_.chance(50)});
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

  // Note [LAPACK loops on non-finite input]
  // LAPACK's SVD and eigen solvers iterate until convergence, and on NaN or inf they never
  // converge (sbdsqr spins for hours); LibTorch 1.13 passes the values on unchecked. So ops
  // that factorize a matrix are not given a tensor with a non-finite element. Found when a
  // generated log(-x) reached svd.
  bool lapackOnNonFinite(const OpInfo& op, const std::vector<Argument>& args,
                         const std::vector<std::pair<std::string, Argument>>& kwargs) const {
    static constexpr std::string_view kFactorizing[] = {
        "linalg", "svd", "eig", "lstsq", "pinv", "rank", "nuclear", "det", "inverse", "qr", "lu",
        "cholesky", "solve", "geqrf", "orgqr", "ormqr", "householder", "cond", "matrix_power", "matrix_exp",
    };
    const std::string_view name = op.localName();
    bool factorizes = false;
    for (auto f : kFactorizing) factorizes = factorizes || name.find(f) != std::string_view::npos;
    if (!factorizes) return false;
    bool non_finite = false;
    auto check = [&](const Node* n) {
      const at::Tensor* t = valueOf(n);
      if (non_finite || !t || !at::isFloatingType(t->scalar_type()) || t->numel() == 0) return;
      at::NoGradGuard no_grad;
      non_finite = !at::isfinite(*t).all().item<bool>();
    };
    for (const auto& a : args) a.forEachNode(check);
    for (const auto& [k, a] : kwargs) a.forEachNode(check);
    return non_finite;
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
    last_list_.clear();
    for (size_t i = 0; i < op->arguments.size(); ++i) {
      const ParamInfo& p = op->arguments[i];
      const bool written = p.is_write;
      if (p.has_default && !written && (defaults_from_here || random_.chance(50))) {
        if (!p.kwarg_only) defaults_from_here = true;
        continue;
      }
      auto a = argumentFor(*op, p, ref, written, metadata);
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
    if (lapackOnNonFinite(*op, args, kwargs)) return false;
    Graph& g = p_.graph();
    Node* n = g.append(OpKind::CallFunction, op->localName());
    n->target = Target::aten(op);
    n->args = std::move(args);
    n->kwargs = std::move(kwargs);
    Val val;
    if (op->is_mutable) {
      // A trial on copies of the written arguments first: a candidate dropped after it ran
      // (its result is too big, say) must not have written into the live values or changed
      // their shapes. (Read arguments never share memory with written ones: outAliasesAnInput.)
      std::vector<const Node*> written;
      auto collect = [&](const std::string& name, const Argument& a) {
        const int i = op->argumentIndex(name);
        if (i >= 0 && op->arguments[static_cast<size_t>(i)].is_write) a.forEachNode([&](const Node* w) { written.push_back(w); });
      };
      for (size_t i = 0; i < n->args.size(); ++i) collect(op->arguments[i].name, n->args[i]);
      for (const auto& [name, a] : n->kwargs) collect(name, a);
      std::vector<std::pair<at::Tensor, const void*>> copies;  // and their storages before
      auto trial = runSingleCall(*n, [&](const Node* in) -> c10::IValue {
        const at::Tensor* t = valueOf(in);
        if (!t) return c10::IValue();
        if (std::find(written.begin(), written.end(), in) == written.end()) return *t;
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

  // User outputs: up to three of the latest values made by ops (an input when there are
  // none); the token, when there is one, comes back first; then the module call graph.
  void finish() {
    std::vector<Node*> outputs;
    for (auto it = pool_.rbegin(); it != pool_.rend() && outputs.size() < 3; ++it) {
      if (it->node->isPlaceholder()) continue;
      if (std::find(outputs.begin(), outputs.end(), it->node) != outputs.end()) continue;
      if (outputs.empty() || random_.chance(50)) outputs.push_back(it->node);
    }
    if (outputs.empty()) outputs.push_back(pool_.back().node);
    Node* out = p_.graph().append(OpKind::Output, "output");
    if (token_) {
      out->args.push_back(arg::Tensor{token_});
      p_.signature.output_specs.push_back({OutputKind::Token, SpecArg{SpecArg::Kind::Token, token_->name(), {}, {}},
                                           std::nullopt});
    }
    for (Node* o : outputs) {
      out->args.push_back(arg::Tensor{o});
      p_.signature.output_specs.push_back({OutputKind::UserOutput, SpecArg::tensor(o->name()), std::nullopt});
    }
    addModuleCallGraph(outputs);
  }

  // A pytree spec of `leaves` plain leaves in a tuple (in_spec wraps it with empty kwargs).
  static std::string tupleSpec(size_t leaves) {
    std::string children;
    for (size_t i = 0; i < leaves; ++i) {
      children += std::string(i ? ", " : "") + R"({"type": null, "context": null, "children_spec": []})";
    }
    return R"({"type": "builtins.tuple", "context": "null", "children_spec": [)" + children + "]}";
  }

  // The root entry ("") with the user inputs and outputs, and now and then a submodule
  // entry from one user input to one user output, as torch.export records a preserved
  // submodule call. (Intermediate values as boundaries: the functionalizer renames only
  // inputs and user outputs in the module call graph, docs/functionalizer.md.)
  void addModuleCallGraph(const std::vector<Node*>& outputs) {
    ModuleCallSignature root;
    for (const auto& spec : p_.signature.input_specs) {
      if (spec.kind == InputKind::UserInput) root.inputs.push_back(spec.arg);
    }
    for (Node* o : outputs) root.outputs.push_back(SpecArg::tensor(o->name()));
    root.in_spec = R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [)" +
                   tupleSpec(root.inputs.size()) + R"(, {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])";
    root.out_spec = "[1, " + tupleSpec(root.outputs.size()) + "]";
    p_.module_call_graph.push_back({"", std::move(root)});
    std::vector<std::string> user_inputs;
    for (const auto& spec : p_.signature.input_specs) {
      if (spec.kind == InputKind::UserInput) user_inputs.push_back(spec.arg.name);
    }
    if (!random_.chance(config_.submodule_percent) || user_inputs.empty()) return;
    ModuleCallSignature sub;
    sub.inputs.push_back(SpecArg::tensor(user_inputs[random_.below(user_inputs.size())]));
    sub.outputs.push_back(SpecArg::tensor(outputs[random_.below(outputs.size())]->name()));
    sub.in_spec = R"([1, {"type": "builtins.tuple", "context": "null", "children_spec": [)" + tupleSpec(1) +
                  R"(, {"type": "builtins.dict", "context": "[]", "children_spec": []}]}])";
    sub.out_spec = "[1, " + tupleSpec(1) + "]";
    p_.module_call_graph.push_back({"block", std::move(sub)});
  }

  const GeneratorConfig& config_;
  RandomSource& random_;
  ExportedProgram p_;
  std::vector<Live> pool_;
  std::vector<at::Tensor> read_only_;  // constants and immutable state
  Node* token_ = nullptr;
  std::vector<int64_t> last_list_;  // the int list drawn last (as_strided's sizes, movedim's source)
  bool grad_enabled_ = true;
  const OpCatalog& catalog_;
};

}  // namespace

// Candidates provoke LibTorch's deprecation warnings (out= resizes, say) by the hundred;
// they say nothing about the program kept, so generation runs with them dropped.
class SilentWarnings : public c10::WarningHandler {
 public:
  void process(const c10::SourceLocation&, const std::string&, bool) override {}
};

Expected<ExportedProgram> generateProgram(const OpCatalog& catalog, const GeneratorConfig& config,
                                          RandomSource& random) {
  static SilentWarnings silent;
  c10::Warning::WarningHandlerGuard quiet(&silent);
  if (config.dialect == IrDialect::Training) return Generator(catalog, config, random).run();
  // ATEN: functionalize what the generator made; a program the functionalizer refuses (it
  // mutates an input's metadata, say) is followed by the next one from the same source.
  constexpr int kTries = 16;
  std::string last;
  for (int i = 0; i < kTries; ++i) {
    auto training = Generator(catalog, config, random).run();
    if (!training.ok()) return training.error();
    auto functional = functionalize(training.value());
    if (functional.ok()) return std::move(*functional.program);
    last = functional.error->str();
  }
  return LoadError{"", "no generated program of " + std::to_string(kTries) +
                           " could be functionalized for the ATEN dialect; the last: " + last};
}

namespace {

std::optional<ScalarType> dtypeFromTorchName(std::string_view name) {
  static const std::pair<std::string_view, ScalarType> kNames[] = {
      {"float32", ScalarType::Float}, {"float64", ScalarType::Double}, {"float16", ScalarType::Half},
      {"bfloat16", ScalarType::BFloat16}, {"int64", ScalarType::Long}, {"int32", ScalarType::Int},
      {"int16", ScalarType::Short}, {"int8", ScalarType::Char}, {"uint8", ScalarType::Byte},
      {"bool", ScalarType::Bool},
  };
  for (const auto& [n, d] : kNames) {
    if (n == name) return d;
  }
  return std::nullopt;
}

std::vector<std::string> words(const std::string& value) {
  std::istringstream in(value);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A non-negative integer no larger than `max`, or an error message.
std::optional<std::string> number(const std::string& text, int64_t max, int64_t* out) {
  try {
    size_t used = 0;
    const long long v = std::stoll(text, &used);
    if (used != text.size() || v < 0 || v > max) throw std::out_of_range(text);
    *out = v;
    return std::nullopt;
  } catch (const std::exception&) {
    return "'" + text + "' is not a whole number in [0, " + std::to_string(max) + "]";
  }
}

}  // namespace

// Note [Generation config directives]: one directive a line, `#` comments —
//   nodes N | inputs MIN MAX | state MAX | max-rank N | max-dim N | dtypes NAME... |
//   noncontiguous PERCENT | weight CATEGORY N (functional, in-place, view, out,
//   metadata-mutation, factory) | state-weight KIND N (parameter, buffer,
//   non-persistent-buffer, constant) | mutable-state PERCENT | tokens PERCENT |
//   no-grad PERCENT | submodule PERCENT | dialect TRAINING|ATEN
// and the catalog's allow / deny / enable / disable.
Expected<GenerationConfig> parseGenerationConfig(std::string_view text, const std::string& where) {
  GenerationConfig config;
  GeneratorConfig& g = config.generator;
  std::optional<LoadError> error;
  forEachDirective(text, where, [&](const std::string& here, const std::string& directive, const std::string& value)
                                    -> std::optional<LoadError> {
    std::string message;
    if (applyCatalogDirective(config.catalog, directive, value, &message)) {
      if (!message.empty()) return LoadError{here, message};
      return std::nullopt;
    }
    const std::vector<std::string> v = words(value);
    auto bad = [&](const std::string& why) { return LoadError{here, "'" + directive + "': " + why}; };
    auto one = [&](int64_t max, auto* field) -> std::optional<LoadError> {
      if (v.size() != 1) return bad("takes one value");
      int64_t n = 0;
      if (auto e = number(v[0], max, &n)) return bad(*e);
      *field = static_cast<std::remove_pointer_t<decltype(field)>>(n);
      return std::nullopt;
    };
    if (directive == "nodes") return one(100000, &g.nodes);
    if (directive == "state") return one(64, &g.max_state);
    if (directive == "max-rank") return one(8, &g.max_rank);
    if (directive == "max-dim") return one(64, &g.max_dim);
    if (directive == "noncontiguous") return one(100, &g.noncontiguous_percent);
    if (directive == "mutable-state") return one(100, &g.mutable_state_percent);
    if (directive == "tokens") return one(100, &g.token_percent);
    if (directive == "no-grad") return one(100, &g.no_grad_percent);
    if (directive == "submodule") return one(100, &g.submodule_percent);
    if (directive == "inputs") {
      int64_t lo = 0, hi = 0;
      if (v.size() != 2) return bad("takes MIN MAX");
      if (auto e = number(v[0], 64, &lo)) return bad(*e);
      if (auto e = number(v[1], 64, &hi)) return bad(*e);
      if (hi < lo) return bad("MAX is below MIN");
      g.min_inputs = static_cast<int>(lo), g.max_inputs = static_cast<int>(hi);
      return std::nullopt;
    }
    if (directive == "dtypes") {
      g.dtypes.clear();
      for (const auto& w : v) {
        auto d = dtypeFromTorchName(w);
        if (!d) return bad("unknown dtype '" + w + "' (float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool)");
        g.dtypes.push_back(*d);
      }
      return std::nullopt;
    }
    if (directive == "weight" || directive == "state-weight") {
      if (v.size() != 2) return bad("takes NAME WEIGHT");
      int64_t w = 0;
      if (auto e = number(v[1], 1000000, &w)) return bad(*e);
      const auto weight = static_cast<uint32_t>(w);
      static const std::pair<std::string_view, uint32_t GeneratorConfig::*> kWeights[] = {
          {"functional", &GeneratorConfig::weight_functional}, {"in-place", &GeneratorConfig::weight_in_place},
          {"view", &GeneratorConfig::weight_view}, {"out", &GeneratorConfig::weight_out},
          {"metadata-mutation", &GeneratorConfig::weight_metadata}, {"factory", &GeneratorConfig::weight_factory},
      };
      static const std::string_view kStateNames[kNumStateKinds] = {"parameter", "buffer", "non-persistent-buffer", "constant"};
      if (directive == "weight") {
        for (const auto& [name, field] : kWeights) {
          if (name == v[0]) return g.*field = weight, std::nullopt;
        }
        return bad("unknown category '" + v[0] + "' (functional, in-place, view, out, metadata-mutation, factory)");
      }
      for (int k = 0; k < kNumStateKinds; ++k) {
        if (kStateNames[k] == v[0]) return g.state_weights[k] = weight, std::nullopt;
      }
      return bad("unknown state kind '" + v[0] + "' (parameter, buffer, non-persistent-buffer, constant)");
    }
    if (directive == "dialect") {
      if (value == "TRAINING") return g.dialect = IrDialect::Training, std::nullopt;
      if (value == "ATEN") return g.dialect = IrDialect::Aten, std::nullopt;
      return bad("unknown dialect '" + value + "' (TRAINING, ATEN)");
    }
    return LoadError{here, "unknown directive '" + directive + "' (see docs/generators.md)"};
  }, &error);
  if (error) return *error;
  if (g.dtypes.empty()) return LoadError{where, "'dtypes' leaves no dtype to generate"};
  return config;
}

Expected<GenerationConfig> loadGenerationConfig(const std::string& path) {
  auto text = readConfigFile(path);
  if (!text.ok()) return text.error();
  return parseGenerationConfig(text.value(), path);
}

}  // namespace epsmith
