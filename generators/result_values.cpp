// What the generator keeps of a candidate's result; see result_values.h.
#include "generators/result_values.h"

#include <ATen/Dispatch.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/aminmax.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/full.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/triu.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/isnan.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/signbit.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string_view>
#include <vector>

#include "ops/op_roles.h"
#include "oracle/aten_bridge.h"
#include "oracle/libtorch_compat.h"
#include "oracle/run.h"
#include "oracle/strided.h"

namespace epsmith {

namespace {

bool sameTensor(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  if (compat::laterDtype(a.scalar_type())) {  // few kernels but copy: the bytes decide
    const at::Tensor x = a.contiguous(), y = b.contiguous();
    // An empty tensor may have no data at all, and memcmp of a null pointer is undefined
    // even for no bytes.
    return x.nbytes() == 0 || std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) == 0;
  }
  if (a.is_cpu() && b.is_cpu() && a.layout() == at::kStrided && b.layout() == at::kStrided && !a.is_complex() &&
      a.scalar_type() != at::kBool) {
    // Equal elements, or NaN in both, index by index.
    bool same = true;
    AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, a.scalar_type(), "sameTensor", [&] {
      const scalar_t* x = a.data_ptr<scalar_t>();
      const scalar_t* y = b.data_ptr<scalar_t>();
      same = forEachElementOffset<2>(a.sizes(), {a.strides(), b.strides()}, [&](const std::array<int64_t, 2>& at) {
        const scalar_t u = x[at[0]], v = y[at[1]];
        return u == v || (u != u && v != v);
      });
    });
    return same;
  }
  at::NoGradGuard no_grad;
  if (at::isFloatingType(a.scalar_type())) {
    return (a.eq(b) | (a.isnan() & b.isnan())).all().item<bool>();
  }
  return at::equal(a, b);
}

bool sameValue(const c10::IValue& a, const c10::IValue& b) {
  if (a.isTensor() && b.isTensor()) return sameTensor(a.toTensor(), b.toTensor());
  if (a.isTuple() && b.isTuple()) {
    const auto& x = a.toTupleRef().elements();
    const auto& y = b.toTupleRef().elements();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!sameValue(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.isTensorList() && b.isTensorList()) {
    const auto x = a.toTensorVector(), y = b.toTensorVector();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!sameTensor(x[i], y[i])) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

bool sameResult(const c10::IValue& first, const Interpreter::Outcome& second) {
  return !second.error && !second.outputs.empty() && sameValue(first, second.outputs[0]);
}

bool factorizesMatrix(const OpInfo& op) {
  static constexpr std::string_view kWords[] = {
      "svd",   "eig",     "eigh",  "eigvals", "eigvalsh",    "symeig",  "lstsq", "pinv", "pinverse",
      "rank",  "nuclear", "det",   "logdet",  "slogdet",     "inverse", "qr",    "lu",   "cholesky",
      "solve", "geqrf",   "orgqr", "ormqr",   "householder", "cond",    "power", "exp",
  };
  thread_local PerOpMemo<bool> known;
  return known.get(op, [&] {
    std::string_view name = op.localName();
    while (!name.empty() && name.front() == '_') name.remove_prefix(1);
    bool found = name.rfind("linalg_", 0) == 0;
    bool after_matrix = false;  // "power" and "exp" count only as matrix_power, matrix_exp
    for (size_t at = 0; !found && at <= name.size();) {
      const size_t end = std::min(name.find('_', at), name.size());
      const std::string_view word = name.substr(at, end - at);
      for (auto w : kWords) {
        if (word == w && ((w != "power" && w != "exp") || after_matrix)) found = true;
      }
      after_matrix = word == "matrix";
      at = end + 1;
    }
    return found;
  });
}

TensorState::TensorState(const at::Tensor& t)
    : tensor_(t),
      sizes_(t.sizes().vec()),
      strides_(t.strides().vec()),
      offset_(t.storage_offset()),
      data_(t.storage().data()),
      bytes_(static_cast<const uint8_t*>(t.storage().data()),
             static_cast<const uint8_t*>(t.storage().data()) + t.storage().nbytes()) {}

bool TensorState::unchanged() const {
  return tensor_.sizes() == sizes_ && tensor_.strides() == strides_ && tensor_.storage_offset() == offset_ &&
         tensor_.storage().data() == data_ && tensor_.storage().nbytes() == bytes_.size() &&
         (bytes_.empty() || std::memcmp(data_, bytes_.data(), bytes_.size()) == 0);
}

// A written tensor (self of an in-place op, an out= tensor) that shares memory with an
// argument the op reads: eager may write before it has read (baddbmm_(x, x, x)) or resize
// first, so the result depends on the kernel's order of steps — undefined, not generated.
// Two written tensors that share memory are the same case: which write lands last is the
// kernel's choice (log_sigmoid_forward.output with `output` and `buffer` one tensor; the
// trial run on copies cannot see it, since each written argument gets its own copy).
bool outAliasesAnInput(const OpInfo& op, const std::vector<Argument>& args,
                       const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf) {
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
  for (size_t i = 0; i < outs.size(); ++i) {
    for (const at::Tensor* r : reads) {
      if (outs[i]->is_alias_of(*r)) return true;
    }
    for (size_t j = 0; j < i; ++j) {
      if (outs[i]->is_alias_of(*outs[j])) return true;
    }
  }
  return false;
}

// Note [LAPACK loops on non-finite input]
// LAPACK's SVD and eigen solvers iterate until convergence, and on NaN or inf they never
// converge (sbdsqr spins for hours); LibTorch 1.13 passes the values on unchecked. So ops
// that factorize a matrix are not given a tensor with a non-finite element. Found when a
// generated log(-x) reached svd.
bool allFinite(const at::Tensor& t) {
  if (!at::isFloatingType(t.scalar_type()) || t.numel() == 0) return true;
  if (t.is_cpu() && t.layout() == at::kStrided) {
    bool finite = true;
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, t.scalar_type(), "allFinite", [&] {
      const scalar_t* data = t.data_ptr<scalar_t>();
      finite = everyElement(t, [&](int64_t at) { return std::isfinite(static_cast<double>(data[at])); });
    });
    return finite;
  }
  at::NoGradGuard no_grad;
  return at::isfinite(t).all().item<bool>();
}

bool lapackOnNonFinite(const OpInfo& op, const std::vector<Argument>& args,
                       const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf) {
  if (!factorizesMatrix(op)) return false;
  bool non_finite = false;
  auto check = [&](const Node* n) {
    const at::Tensor* t = valueOf(n);
    if (!non_finite && t) non_finite = !allFinite(*t);
  };
  for (const auto& a : args) a.forEachNode(check);
  for (const auto& [k, a] : kwargs) a.forEachNode(check);
  return non_finite;
}

// Note [Factorizations of singular matrices] (result_values.h).
bool factorizesIntoNonFinite(const OpInfo& op, const c10::IValue& result) {
  if (!factorizesMatrix(op)) return false;
  if (result.isTensor()) return !allFinite(result.toTensor());
  if (result.isTuple()) {
    for (const auto& e : result.toTupleRef().elements()) {
      if (factorizesIntoNonFinite(op, e)) return true;
    }
  }
  if (result.isTensorList()) {
    for (const at::Tensor& t : result.toTensorVector()) {
      if (!allFinite(t)) return true;
    }
  }
  return false;
}

// Note [Products that meet a zero and overflow] (result_values.h).
bool multipliesZeroByAnOverflow(const OpInfo& op, const std::vector<Argument>& args, LiveValueOf valueOf) {
  const std::string& name = op.qualified_name;
  if (name != "aten::prod" && name != "aten::cumprod" && name != "aten::cumprod_") return false;
  const auto* self = args.empty() ? nullptr : args[0].get<arg::Tensor>();
  const at::Tensor* t = self ? valueOf(self->node) : nullptr;
  if (!t || !at::isFloatingType(t->scalar_type()) || t->numel() == 0) return false;
  at::NoGradGuard no_grad;
  const at::Tensor logs = t->detach().abs().to(at::kDouble).reshape(-1).log();  // -inf for 0, inf for inf
  const bool wide = t->scalar_type() == at::kDouble;                            // f16 and bf16 multiply in f32
  const double largest = wide ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max();
  const double least = wide ? std::numeric_limits<double>::denorm_min() : std::numeric_limits<float>::denorm_min();
  const double grows = logs.clamp_min(0).sum().item<double>(), shrinks = logs.clamp_max(0).sum().item<double>();
  return grows > std::log(largest) && shrinks < std::log(least);
}

bool holdsANaN(const at::Tensor& t) {
  if (!at::isFloatingType(t.scalar_type()) || t.numel() == 0) return false;
  at::NoGradGuard no_grad;
  return at::isnan(t).any().item<bool>();
}

bool holdsANewNaN(const at::Tensor& now, const at::Tensor& before) {
  if (!holdsANaN(now)) return false;
  const at::ScalarType bits = now.element_size() == 2 ? at::kShort : now.element_size() == 4 ? at::kInt : at::kLong;
  at::NoGradGuard no_grad;
  // A dtype of the same element size views any strides.
  const at::Tensor a = now.detach().view(bits), b = before.detach().view(bits);
  return (at::isnan(now.detach()) & (a != b)).any().item<bool>();
}

// Note [Bools of other bytes] (result_values.h).
bool holdsBoolsOfOtherBytes(const c10::IValue& v) {
  if (!v.isTensor() || v.toTensor().scalar_type() != at::kBool || v.toTensor().numel() == 0) return false;
  at::NoGradGuard no_grad;
  return v.toTensor().view(at::kByte).gt(1).any().item<bool>();
}

bool viewsAsAnotherDtype(const OpInfo& op) {
  return op.overload == "dtype" && (op.qualified_name == "aten::view" || op.qualified_name == "aten::view_copy");
}

namespace {

bool broadcastTogether(at::IntArrayRef a, at::IntArrayRef b) {
  for (size_t i = 1; i <= std::min(a.size(), b.size()); ++i) {
    const int64_t x = a[a.size() - i], y = b[b.size() - i];
    if (x != y && x != 1 && y != 1) return false;
  }
  return true;
}

// Whether two operands that broadcast together hold +0 and -0 at one position.
bool meetZerosOfBothSigns(const at::Tensor& a, const at::Tensor& b) {
  if (a.is_complex() || b.is_complex() || !broadcastTogether(a.sizes(), b.sizes())) return false;
  if (!a.is_floating_point() && !b.is_floating_point()) return false;
  at::NoGradGuard no_grad;
  const at::Tensor x = a.detach().to(at::kDouble), y = b.detach().to(at::kDouble);
  return ((x == 0) & (y == 0) & (at::signbit(x) != at::signbit(y))).any().item<bool>();
}

}  // namespace

// Note [The sign of a zero that min or max chose] (result_values.h).
bool choosesBetweenSignedZeros(const OpInfo& op, const std::vector<Argument>& args,
                               const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf) {
  static const std::set<std::string, std::less<>> kPairwise = {"clamp", "clamp_min", "clamp_max", "minimum", "maximum",
                                                               "fmin",  "fmax",      "max",       "min"};
  std::string_view base = op.localName();
  if (!base.empty() && base.back() == '_') base.remove_suffix(1);
  if (!kPairwise.count(base)) return false;
  std::vector<at::Tensor> operands;
  auto add = [&](const Argument& a) {
    a.forEachNode([&](const Node* n) {
      if (const at::Tensor* v = valueOf(n)) operands.push_back(*v);
    });
    if (const auto* f = a.get<arg::Float>()) {
      operands.push_back(at::scalar_tensor(f->value, at::kDouble));
    } else if (const auto* i = a.get<arg::Int>()) {
      operands.push_back(at::scalar_tensor(static_cast<double>(i->value), at::kDouble));
    }
  };
  // The operands by name: max.dim's dim or an out is none of them.
  for (const char* name : {"self", "other", "min", "max"}) {
    const int i = op.argumentIndex(name);
    if (i >= 0 && static_cast<size_t>(i) < args.size()) add(args[static_cast<size_t>(i)]);
    for (const auto& [k, a] : kwargs) {
      if (k == name) add(a);
    }
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    for (size_t j = i + 1; j < operands.size(); ++j) {
      if (meetZerosOfBothSigns(operands[i], operands[j])) return true;
    }
  }
  return false;
}

// Note [A NaN's sign and payload] (result_values.h).
bool readsANaNsBits(const OpInfo& op, const std::vector<Argument>& args,
                    const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf) {
  std::string_view read;  // the argument whose sign or bits the op reads
  const std::string_view local = op.localName();
  if (local == "signbit" || viewsAsAnotherDtype(op)) read = "self";
  if (local == "copysign" || local == "copysign_") read = "other";
  if (read.empty()) return false;
  const int i = op.argumentIndex(read);
  const Argument* a = i >= 0 && static_cast<size_t>(i) < args.size() ? &args[static_cast<size_t>(i)] : nullptr;
  for (const auto& [name, kw] : kwargs) {
    if (name == read) a = &kw;
  }
  bool nan = false;
  if (a) {
    a->forEachNode([&](const Node* n) {
      const at::Tensor* t = valueOf(n);
      nan = nan || (t && holdsANaN(*t));
    });
  }
  return nan;
}

// Note [Calls torch's tracing refuses] (result_values.h).
bool tracingRefuses(const OpInfo& op, const std::vector<Argument>& args, LiveValueOf valueOf) {
  if (op.localName() != "where" || args.empty()) return false;
  const auto* condition = args[0].get<arg::Tensor>();
  const at::Tensor* t = condition ? valueOf(condition->node) : nullptr;
  return t && t->scalar_type() != at::kBool;
}

// Note [Results that grow as a product of their inputs] (result_values.h).
bool growsPastTheValueCap(const OpInfo& op, const std::vector<Argument>& args,
                          const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf) {
  constexpr double kCap = 1 << 16;
  const std::string& name = op.qualified_name;
  if (name != "aten::cartesian_prod" && name != "aten::meshgrid" && name != "aten::kron" &&
      name != "aten::block_diag" && name != "aten::isin") {
    return false;
  }
  double product = 1, rows = 0, cols = 0, inputs = 0;
  auto count = [&](const Node* n) {
    const at::Tensor* t = valueOf(n);
    if (!t) return;
    inputs += 1;
    product *= static_cast<double>(std::max<int64_t>(t->numel(), 1));
    // block_diag takes a 0-d input as [1, 1] and a 1-d one of n as [1, n].
    rows += t->dim() == 2 ? static_cast<double>(t->size(0)) : 1;
    cols += t->dim() == 0 ? 1 : static_cast<double>(t->size(t->dim() - 1));
  };
  for (const auto& a : args) a.forEachNode(count);
  for (const auto& [k, a] : kwargs) {
    if (k != "out") a.forEachNode(count);
  }
  if (name == "aten::block_diag") return rows * cols > kCap;
  constexpr double kIsinPairs = 1 << 24;  // isin's work, not its elements: pairs compared
  if (name == "aten::isin") return product > kIsinPairs;
  if (name == "aten::kron") return product > kCap;
  return product * std::max(inputs, 1.0) > kCap;  // cartesian_prod, meshgrid: one per input
}

namespace {

const Argument* argumentNamed(const OpInfo& op, const std::vector<Argument>& args,
                              const std::vector<std::pair<std::string, Argument>>& kwargs, std::string_view name) {
  const int at = op.argumentIndex(name);
  if (at >= 0 && static_cast<size_t>(at) < args.size()) return &args[static_cast<size_t>(at)];
  for (const auto& [k, a] : kwargs) {
    if (k == name) return &a;
  }
  return nullptr;
}

}  // namespace

// Note [Storage a program does not hold] (result_values.h).
bool addressesPastWhatItHolds(const OpInfo& op, const std::vector<Argument>& args,
                              const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf,
                              HeldElements held) {
  const std::string& name = op.qualified_name;
  if (opRole(op).view != ViewFamily::AsStrided && name != "aten::as_strided_copy" &&
      name != "aten::as_strided_scatter") {
    return false;
  }
  const Argument* self = argumentNamed(op, args, kwargs, "self");
  const Argument* size = argumentNamed(op, args, kwargs, "size");
  const Argument* stride = argumentNamed(op, args, kwargs, "stride");
  const Argument* offset = argumentNamed(op, args, kwargs, "storage_offset");
  const auto* tensor = self ? self->get<arg::Tensor>() : nullptr;
  const at::Tensor* t = tensor ? valueOf(tensor->node) : nullptr;
  const auto* sizes = size ? size->get<arg::IntList>() : nullptr;
  const auto* strides = stride ? stride->get<arg::IntList>() : nullptr;
  if (!t || !t->has_storage() || !sizes || !strides || sizes->values.size() != strides->values.size()) return false;
  const auto* given = offset ? offset->get<arg::Int>() : nullptr;
  const int64_t first = given ? given->value : t->storage_offset();
  int64_t last = first;
  for (size_t d = 0; d < sizes->values.size(); ++d) {
    // no element, or a call that raises anyway
    if (sizes->values[d] <= 0 || strides->values[d] < 0) return false;
    last += (sizes->values[d] - 1) * strides->values[d];
  }
  const auto [begin, end] = held(*t);
  return first < begin || last >= end;
}

// Note [Metadata mutations of views replayed]
// LibTorch's autograd (1.13 and 2.13 alike) lets an in-place metadata mutation (t_,
// unsqueeze_) of a view run while the program is built op by op, and refuses it when the
// whole program runs from its inputs ("a leaf Variable that requires grad is being used in
// an in-place operation") where an in-place op between made the view's base require grad.
// Such a program would skip D1 and D2 for not running, so a program that mutates metadata is
// run once more from its example inputs, and given up where that raises. Only a parameter
// requires grad in a generated program, so one without parameters cannot be refused so and
// is not replayed: on 2.13 most 16-op programs mutate metadata, fewer than half have a
// parameter, and about one replay in 2 000 raises.
bool replaysIfItMutatesMetadata(const ExportedProgram& p) {
  bool requires_grad = false;
  for (const auto& spec : p.signature.input_specs) requires_grad = requires_grad || spec.kind == InputKind::Parameter;
  bool mutates_metadata = false;
  for (const Node& n : p.graph().nodes()) {
    const OpInfo* op = n.atenOp();
    mutates_metadata = mutates_metadata || (op && op->hasTag(OpInfo::kInplaceView));
  }
  return !requires_grad || !mutates_metadata || runProgram(p, RunOptions(RunMode::Eager)).ok();
}

// Note [Kernels that write by the written tensor's layout]
// A kernel must write the same values whatever strides the tensor it writes has. 2.13's
// and 1.13's gelu.out of a contiguous f32 input takes oneDNN's path, which into a
// transposed out writes nothing (the out keeps what it held: a 2.13 campaign's D1 case,
// where eager, the oracle, was the one wrong) and into a strided one raises. In-place
// kernels too: index_put_ with repeated indices and accumulate=False keeps the value its
// walk over self's strides writes last, which its docs leave undefined (torch alone:
// x.index_put_((i,), v) on a transposed x and on a contiguous clone of it differ; a D1
// case of a 1.13 campaign, and 2.13 alike). There eager gives no semantics to compare
// against, so an out= or in-place candidate that takes a tensor that is not contiguous
// runs once more on contiguous copies of every tensor it takes (the walk follows the
// indices' strides too: the D1 case's were a strided greater_'s, laid out anew in the
// functional program), and is not generated where what it wrote differs (NaN equal to
// NaN) or only one raises. Strides are read literally: 1.13's stack.out into an f32[1] out
// of stride [2], contiguous by ATen's test, writes nothing (a 1.13 campaign's D1 case).
// Ops that draw random numbers would disagree anyway and are not asked; metadata mutations
// (transpose_, as_strided_) write no values and are not asked either. The functional
// forms of the index writes write a copy of self as their in-place forms write self, so
// their answer too follows the walk where an index repeats: put of a transposed tensor
// with repeated indices kept another value than put of it laid out anew, which the
// functional program held once triu_ had written it (a 2.13 campaign's D1 and D2 case).
// Which functional ops write through indices no schema says; writesThroughIndices lists
// them, read on LibTorch 2.13 (put, index_put, index_copy, scatter with a src: the ones
// whose docs leave a repeated index undefined), and the generator asks them the same.
bool writesByLayout(const OpInfo& op, const std::vector<at::Tensor>& outs,
                    c10::function_ref<std::optional<std::vector<at::Tensor>>()> intoContiguous) {
  const bool out_form = std::any_of(op.arguments.begin(), op.arguments.end(),
                                    [](const ParamInfo& p) { return p.is_write && p.kwarg_only; });
  if ((!out_form && opRole(op).role != OpRole::InPlace) || op.hasTag(OpInfo::kRandom) ||
      op.hasTag(OpInfo::kNondeterministic))
    return false;
  const std::optional<std::vector<at::Tensor>> contiguous = intoContiguous();
  if (!contiguous || contiguous->size() != outs.size()) return true;
  for (size_t k = 0; k < outs.size(); ++k) {
    Interpreter::Outcome into;
    into.outputs.push_back((*contiguous)[k]);
    if (!sameResult(outs[k], into)) return true;
  }
  return false;
}

bool writesThroughIndices(const OpInfo& op) {
  const std::string& name = op.qualified_name;
  return name == "aten::put" || name == "aten::index_put" || name == "aten::index_copy" ||
         (name == "aten::scatter" && (op.overload == "src" || op.overload == "reduce"));
}

bool hasContiguousStrides(const at::Tensor& t) {
  int64_t expected = 1;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    if (t.stride(d) != expected) return false;
    expected *= std::max<int64_t>(t.size(d), 1);
  }
  return true;
}

// Note [Triangular outs walked as batch-contiguous]
// LibTorch 2.13's triu.out and tril.out keep an out's strides when its sizes are right, and
// then walk its batches as one dimension of stride(-3), which is where they are only when the
// batch dimensions flatten that way; in any other out of more than three dimensions (a
// clone of a permuted tensor, say) the kernel writes wrong elements and past the out's end:
// seed 20660934 of `epsmith generate` overwrote the generator's heap. 1.13's kernel places
// them right. Such a call corrupts the process that runs it, so the generator, which runs
// candidates in-process, does not make it where the LibTorch at hand misplaces the writes;
// it asks that once, of a probe small enough that the misplaced writes stay in its buffer.
bool batchesFlattenToStride(const at::Tensor& t) {
  const int64_t dims = t.dim();
  if (dims <= 3) return true;
  int64_t expected = t.stride(dims - 3);
  for (int64_t i = dims - 3; i >= 0; --i) {
    if (t.size(i) == 1) continue;
    if (t.stride(i) != expected) return false;
    expected *= t.size(i);
  }
  return true;
}

bool triangularOutsMisplaced() {
  static const bool misplaced = [] {
    at::NoGradGuard no_grad;
    // A 2x2 batch of 1x1 matrices whose batch dimensions are transposed: the right places
    // are elements 0-3 of the buffer; a walk of stride(-3) = 2 writes 0, 2, 4 and 6.
    at::Tensor buffer = at::full({8}, -1.0, at::kFloat);
    at::Tensor out = buffer.as_strided({2, 2, 1, 1}, {1, 2, 1, 1});
    at::triu_out(out, at::ones({2, 2, 1, 1}, at::kFloat), 0);
    return !at::equal(buffer, at::cat({at::ones({4}), at::full({4}, -1.0)}));
  }();
  return misplaced;
}

bool misplacesTriangularOut(const OpInfo& op, const std::vector<Argument>& args,
                            const std::vector<std::pair<std::string, Argument>>& kwargs, LiveValueOf valueOf) {
  if ((op.qualified_name != "aten::triu" && op.qualified_name != "aten::tril") || op.overload != "out") return false;
  bool misplaced = false;
  auto check = [&](const std::string& name, const Argument& a) {
    const int i = op.argumentIndex(name);
    if (i < 0 || !op.arguments[static_cast<size_t>(i)].is_write) return;
    a.forEachNode([&](const Node* n) {
      const at::Tensor* t = valueOf(n);
      misplaced = misplaced || (t && !batchesFlattenToStride(*t));
    });
  };
  for (size_t i = 0; i < args.size() && i < op.arguments.size(); ++i) check(op.arguments[i].name, args[i]);
  for (const auto& [name, a] : kwargs) check(name, a);
  return misplaced && triangularOutsMisplaced();
}

// Note [Results read from uninitialized memory]
// Some kernels return uninitialized memory for empty inputs (1.13's
// multilabel_margin_loss_forward of a 0-row batch: a different value every run), which
// no tag says; the check runs on every LibTorch, so it needs no list of them. Such results are not eager semantics anyone can compare against, so a
// candidate that reads an empty tensor runs twice and is kept only if both runs agree
// (NaN equal to NaN). Empty inputs are where this happens and are a minority: the check
// costs little.
bool readsAnEmptyTensor(const Node& call, LiveValueOf valueOf) {
  bool empty = false;
  call.forEachInput([&](const Node* in) {
    const at::Tensor* t = valueOf(in);
    empty = empty || (t && t->numel() == 0);
  });
  return empty;
}

// The functional resizes (resize, resize_as) hand back a fresh tensor; grown past their
// input, the new elements are uninitialized memory
// (Note [Results read from uninitialized memory]) that two runs may well agree on (malloc hands back the same block). Only
// resizes that do not grow are generated.
bool growsIntoUninitializedMemory(const OpInfo& op, const c10::IValue& result, const Node& call, LiveValueOf valueOf) {
  if (op.is_mutable || op.localName().rfind("resize", 0) != 0 || !result.isTensor() || call.args.empty()) return false;
  const Node* self = call.args[0].get<arg::Tensor>() ? call.args[0].get<arg::Tensor>()->node : nullptr;
  const at::Tensor* t = self ? valueOf(self) : nullptr;
  return !t || result.toTensor().numel() > t->numel();
}

// A non-mutating op that handed back one of its arguments itself (matrix_H of a 0-d
// tensor, say) although its role does not say it returns self: the functionalizer models
// such results as new views, so a later metadata mutation through one would not reach the
// other. Not generated (docs/functionalizer.md, known limits).
bool returnsAnArgumentUndeclared(const OpInfo& op, const c10::IValue& result, const Node& call, LiveValueOf valueOf) {
  if (op.is_mutable || !result.isTensor()) return false;
  const auto* impl = result.toTensor().unsafeGetTensorImpl();
  bool same = false;
  call.forEachInput([&](const Node* in) {
    const at::Tensor* t = valueOf(in);
    same = same || (t && t->unsafeGetTensorImpl() == impl);
  });
  return same && !opRole(op).returns_self;  // the role last: its memo is seldom in the cache
}

int64_t lastElementOffset(const at::Tensor& t) {
  int64_t last = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  return last;
}

// Note [Tensors past their storage] (result_values.h).
bool reachesPastItsStorage(const c10::IValue& v) {
  if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) {
      if (reachesPastItsStorage(e)) return true;
    }
    return false;
  }
  if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorVector()) {
      if (reachesPastItsStorage(t)) return true;
    }
    return false;
  }
  if (!v.isTensor()) return false;
  const at::Tensor& t = v.toTensor();
  if (!t.defined() || t.layout() != at::kStrided || t.numel() == 0 || !t.has_storage()) return false;
  const auto bytes = static_cast<uint64_t>(lastElementOffset(t) + 1) * static_cast<uint64_t>(t.element_size());
  return bytes > t.storage().nbytes();
}

}  // namespace epsmith
