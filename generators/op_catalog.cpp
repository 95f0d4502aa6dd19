// The op catalog; see op_catalog.h.
//
// Note [What the catalog can generate]
// An argument is generatable when its kind is one the graph generator fills: tensors (from
// the pool of live values), lists of them, optional tensors, ints, symbolic ints and their
// lists, floats, bools, Python scalars and dtypes. Any other kind (generators, dimnames,
// strings, layouts, devices, memory formats, storages, streams, quantizers) is fine when the
// argument is optional or has a default, which the generator then leaves to the schema; a
// required one makes the op not generatable, and the reason names it. Backend-specific
// ops (cudnn, mkldnn, quantized, sparse, nested, ...) cannot run on the strided CPU/CUDA
// tensors the generator makes; the list of those name fragments is written once here. So
// is the list of ops that return uninitialized memory (empty, new_empty, resize_).
#include "generators/op_catalog.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>

#include <ATen/core/dispatch/Dispatcher.h>

#include "ops/op_roles.h"
#include "oracle/libtorch_compat.h"

namespace epsmith {
namespace {

constexpr std::string_view kCategoryNames[] = {
    "functional",          "in-place",       "out",     "view",
    "metadata-mutation",   "random",         "factory", "nondeterministic",
    "backward-or-private", "other-mutation",
};
static_assert(sizeof(kCategoryNames) / sizeof(kCategoryNames[0]) == kNumOpCategories);

constexpr std::string_view kBackendFragments[] = {
    "cudnn",  "miopen",      "mkldnn",        "mps",     "vulkan",   "fbgemm",   "quantize", "sparse",
    "nested", "_fake_quant", "q_per_channel", "qscheme", "int_repr", "coalesce", "to_dense", "_cufft",
};

// Ops whose results are uninitialized memory: nondeterministic although no tag says so.
// The schema names with "empty" or "resize" in LibTorch 1.13 and 2.13 (2.x adds
// empty_permuted and functional resize, resize_as and _resize_output), less the sparse and
// quantized ones the catalog leaves out anyway.
constexpr std::string_view kUninitialized[] = {
    "aten::empty",     "aten::empty_like",        "aten::empty_strided",  "aten::empty_permuted",
    "aten::new_empty", "aten::new_empty_strided", "aten::resize_",        "aten::resize_as_",
    "aten::resize",    "aten::resize_as",         "aten::_resize_output",
};

// Note [Kernels that crash on generated values]
// Kernels that read positions from tensor values without bounds checks and write out of
// bounds (a segfault, not an exception), or divide by zero (batch_norm_update_stats of an
// empty batch, range or arange with a zero integer step: SIGFPE), on the values a generator
// makes. The campaign's forked workers survive them (and report them); in-process
// generation must not pick them. Found by running the generator with the list emptied and
// only these ops and a few elementwise ones allowed (`epsmith fuzz --checks D4`, generation
// crashes name the op), on each LibTorch: each entry names the releases it crashed on. The
// list was derived whole on 2.13 (and on 1.13, since retired), which generates what crashed
// only elsewhere (the 1.13-only entries did not crash in 3 000 such cases on 2.13); 2.11, the
// GPU machines' CUDA release, was seen in one 50-second default D4 campaign of 14 jobs only,
// so on 2.11, and on every release the list was not derived on (2.14 among them), every entry
// is left out.
struct CrashingKernel {
  std::string_view name;      // qualified name
  std::string_view releases;  // where it crashed: "1.13 2.11 2.13"
};
constexpr CrashingKernel kCrashOnGeneratedValues[] = {
    {"aten::max_unpool2d", "1.13"},
    {"aten::max_unpool3d", "1.13"},
    {"aten::slow_conv3d", "1.13 2.11"},
    {"aten::slow_conv3d_forward", "1.13 2.11"},
    {"aten::thnn_conv2d", "1.13"},
    {"aten::_slow_conv2d_forward", "1.13"},
    {"aten::native_batch_norm", "1.13 2.13"},
    {"aten::batch_norm_update_stats", "1.13 2.13"},
    {"aten::lu_unpack", "1.13 2.13"},
    {"aten::range", "2.13"},
    {"aten::arange", "2.11"},
};

bool crashesOnGeneratedValues(const OpInfo& op) {
  static const std::string release = compat::libtorchVersion();
  const bool derived_here = release == "2.13";
  for (const auto& k : kCrashOnGeneratedValues) {
    if (op.qualified_name != k.name) continue;
    if (!derived_here || (" " + std::string(k.releases) + " ").find(" " + release + " ") != std::string::npos)
      return true;
  }
  return false;
}

// Ops that only LibTorch's functionalization calls, on tensors it made to fit: 2.x's
// slice_inverse returns a view of `self`'s storage in `src`'s sizes, strides and offset, so
// on other tensors it reads elements outside `self` (a 2.13 campaign's D1 case read the
// storage before an input's offset), and its view replay segfaulted under LibTorch's own
// functionalization.
constexpr std::string_view kFunctionalizationInternals[] = {"aten::slice_inverse"};

// Ops that never run on the dense CPU tensors a generator makes although a CPU or composite
// kernel is registered: they need CUDA (pinned memory), complex inputs (the generator makes
// none: results compare only as real tensors; `real` of a real tensor is the tensor) or a
// sparse layout (2.x registers the sparse accessors for CompositeExplicitAutograd, which
// refuses a strided tensor: 8% of a 2.13 generator's refused candidates). Each with its
// `_copy` variant.
constexpr std::string_view kNeverOnDenseRealCpu[] = {
    "aten::pin_memory",      "aten::_pin_memory",  "aten::is_pinned",    "aten::imag",        "aten::real",
    "aten::view_as_real",    "aten::resolve_conj", "aten::resolve_neg",  "aten::_conj",       "aten::_neg_view",
    "aten::view_as_complex", "aten::polar",        "aten::complex",      "aten::values",      "aten::indices",
    "aten::crow_indices",    "aten::col_indices",  "aten::ccol_indices", "aten::row_indices",
};

bool neverOnDenseRealCpu(const OpInfo& op) {
  const std::string_view name = copiedOpName(op).value_or(op.qualified_name);
  return std::find(std::begin(kNeverOnDenseRealCpu), std::end(kNeverOnDenseRealCpu), name) !=
         std::end(kNeverOnDenseRealCpu);
}

// Whether a dense CPU tensor can reach a kernel: one registered for CPU, or a composite one
// (for a `_copy` variant, of the op it copies: crow_indices_copy is composite, crow_indices
// sparse only).
bool hasCpuKernel(const OpInfo& op) {
  if (!op.handle) return true;
  if (const auto copied = copiedOpName(op)) {
    const OpInfo* base = findOp(*copied, op.overload);
    if (base && base != &op && !hasCpuKernel(*base)) return false;
  }
  using c10::DispatchKey;
  for (DispatchKey k : {DispatchKey::CPU, DispatchKey::CompositeImplicitAutograd,
                        DispatchKey::CompositeExplicitAutograd, DispatchKey::CompositeExplicitAutogradNonFunctional}) {
    if (op.handle->hasKernelForDispatchKey(k)) return true;
  }
  return false;
}

// Note [Kernels whose cost follows tensor values]
// Ops whose time or memory grows with the values of a tensor argument, not its size: the
// orthogonal polynomials loop n times per element (n read from a tensor), bincount and
// repeat_interleave allocate max(value) or sum(values) elements, and the Hurwitz zeta
// behind special_zeta and polygamma (n >= 1) steps its q up by 1 until it passes 9, so a
// q of -1.2e11 + 0.5 takes 1.2e11 steps (a campaign's generate timeout: polygamma.out of
// an f64 tensor an earlier node made). Values made by earlier nodes (pow, cumprod, exp)
// reach 1e18, and one candidate then runs for hours or takes all memory; the generator
// cannot interrupt a kernel, so it does not pick them. Name prefixes.
constexpr std::string_view kCostFollowsValues[] = {
    "aten::special_chebyshev_polynomial_",
    "aten::special_shifted_chebyshev_polynomial_",
    "aten::special_hermite_polynomial_",
    "aten::special_laguerre_polynomial_",
    "aten::special_legendre_polynomial_",
    "aten::bincount",
    "aten::repeat_interleave",
    "aten::polygamma",
    "aten::special_polygamma",
    "aten::special_zeta",
};

bool generatableKind(ParamType t) {
  switch (t) {
    case ParamType::Tensor:
    case ParamType::TensorList:
    case ParamType::OptionalTensorList:
    case ParamType::Int:
    case ParamType::SymInt:
    case ParamType::IntList:
    case ParamType::SymIntList:
    case ParamType::Float:
    case ParamType::Bool:
    case ParamType::Scalar:
    case ParamType::ScalarType: return true;
    default: return false;
  }
}

bool returnableKind(ParamType t) { return generatableKind(t) || t == ParamType::FloatList || t == ParamType::BoolList; }

OpCategory categorize(const OpInfo& op) {  // first match wins, in this order
  const std::string_view local = op.localName();
  if (local.substr(0, 1) == "_" || local.find("backward") != std::string_view::npos) {
    return OpCategory::BackwardOrPrivate;
  }
  bool generator = false, tensor_input = false;
  for (const auto& a : op.arguments) {
    generator = generator || a.type == ParamType::Generator;
    tensor_input = tensor_input || (!a.is_write && (a.type == ParamType::Tensor || a.type == ParamType::TensorList ||
                                                    a.type == ParamType::OptionalTensorList));
  }
  if (op.hasTag(OpInfo::kRandom) || generator) return OpCategory::Random;
  if (op.hasTag(OpInfo::kNondeterministic)) return OpCategory::Nondeterministic;
  for (auto name : kUninitialized) {
    if (op.qualified_name == name) return OpCategory::Nondeterministic;
  }
  switch (opRole(op).role) {
    case OpRole::InPlace: return OpCategory::InPlace;
    case OpRole::Out: return OpCategory::Out;
    case OpRole::View:
    case OpRole::MaybeView: return OpCategory::View;
    case OpRole::MetadataMutation: return OpCategory::MetadataMutation;
    case OpRole::Unsupported: return OpCategory::OtherMutation;
    case OpRole::Functional: break;
  }
  return tensor_input ? OpCategory::Functional : OpCategory::Factory;
}

// Why `op` cannot be generated (Note [What the catalog can generate]), and the reason's kind
// for counting; both empty when it can.
void reasonFor(const OpInfo& op, CatalogEntry& e) {
  auto set = [&](std::string kind, std::string detail) {
    e.reason_kind = std::move(kind);
    e.reason = detail.empty() ? e.reason_kind : e.reason_kind + ": " + detail;
  };
  if (op.qualified_name.rfind("aten::", 0) != 0) return set("not an aten op", "");
  const std::string_view local = op.localName();
  for (auto fragment : kBackendFragments) {
    if (local.find(fragment) != std::string_view::npos) return set("backend-specific", std::string(fragment));
  }
  if (crashesOnGeneratedValues(op)) {
    return set("crashes LibTorch " + compat::libtorchVersion() + " on generated values", "");
  }
  if (!hasCpuKernel(op)) return set("no CPU kernel (sparse, quantized or accelerator only)", "");
  for (auto name : kFunctionalizationInternals) {
    if (op.qualified_name == name) return set("internal to LibTorch's functionalization", "");
  }
  if (neverOnDenseRealCpu(op)) return set("needs CUDA, complex or sparse inputs", "");
  for (auto prefix : kCostFollowsValues) {
    if (op.qualified_name.compare(0, prefix.size(), prefix) == 0) {
      return set("time or memory follows tensor values", "");
    }
  }
  if (op.is_vararg) return set("varargs", "");
  for (const auto& a : op.arguments) {
    if (generatableKind(a.type) || a.optional || a.has_default) continue;
    return set("a required " + std::string(paramTypeName(a.type)) + " argument", "'" + a.name + "'");
  }
  if (op.returns.empty() && !op.is_mutable) return set("returns nothing", "");
  for (const auto& r : op.returns) {
    if (r.type == ParamType::Other) return set("returns a value of an unsupported type", "");
    if (!returnableKind(r.type)) return set("returns a " + std::string(paramTypeName(r.type)), "");
  }
  if (op.composite_implicit && opRole(op).role == OpRole::Functional) {
    return set("composite", "export decomposes it, and it may return its inputs undeclared");
  }
  // Last, so that an op refused only by the functionalizer is known as such.
  e.refused_by_functionalizer = true;
  if (opRole(op).role == OpRole::Unsupported) return set("not functionalizable", opRole(op).reason);
  if (opRole(op).role == OpRole::MetadataMutation && !opRole(op).functional) {
    return set("not functionalizable", "replaces a tensor's storage (set_, resize_)");
  }
  e.refused_by_functionalizer = false;
}

// Note [Ops the functionalizer refuses]
// What epsmith's own functionalizer cannot express (resize_ and resize_as_, set_, in-place
// ops with no functional variant such as fill_diagonal_, ops that may return an undeclared
// alias) is not generated for D1, which would only skip it; but LibTorch's functionalization
// handles them and has bugs there (resize_ of a tensor with a live view, pytorch#81385), so
// the checks that test PyTorch must see them. The catalog keeps them apart, of the
// categories models call (metadata mutations, other writes, and resize_'s, filed as
// nondeterministic for the memory it may grow into, which the generator refuses to make),
// and the generator draws from them in a share of programs (`refused PERCENT`,
// docs/generators.md), for which D1 is skipped with its reason, as for any program the
// functionalizer refuses.
bool drawnWhenRefused(const CatalogEntry& e) {
  switch (e.category) {
    case OpCategory::MetadataMutation:
    case OpCategory::OtherMutation:
    case OpCategory::InPlace:
    case OpCategory::Out: return true;
    case OpCategory::Nondeterministic: return opRole(*e.op).role == OpRole::MetadataMutation;
    default: return false;
  }
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return std::string(s.substr(b, e - b));
}

}  // namespace

std::string_view opCategoryName(OpCategory c) { return kCategoryNames[static_cast<int>(c)]; }

bool opCategoryFromName(std::string_view name, OpCategory* out) {
  for (int i = 0; i < kNumOpCategories; ++i) {
    if (kCategoryNames[i] == name) {
      *out = static_cast<OpCategory>(i);
      return true;
    }
  }
  return false;
}

CatalogConfig::CatalogConfig() {
  for (bool& on : categories) on = true;
  categories[static_cast<int>(OpCategory::Random)] = false;
  categories[static_cast<int>(OpCategory::Nondeterministic)] = false;
  categories[static_cast<int>(OpCategory::BackwardOrPrivate)] = false;
}

Expected<bool> applyCatalogDirective(CatalogConfig& config, const std::string& directive, const std::string& value) {
  if (directive == "allow" || directive == "deny") {
    try {  // std::regex reports a bad pattern only by throwing
      std::regex check(value, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Diagnostic{"", "bad regex '" + value + "': " + e.what()};
    }
    (directive == "allow" ? config.allow : config.deny).push_back(value);
    return true;
  }
  if (directive == "enable" || directive == "disable") {
    OpCategory c;
    if (!opCategoryFromName(value, &c)) {
      std::string known;
      for (auto n : kCategoryNames) known += (known.empty() ? "" : ", ") + std::string(n);
      return Diagnostic{"", "unknown category '" + value + "' (known: " + known + ")"};
    }
    config.categories[static_cast<int>(c)] = directive == "enable";
    return true;
  }
  return false;
}

std::optional<Diagnostic> forEachDirective(
    std::string_view text, const std::string& where,
    const std::function<std::optional<Diagnostic>(const std::string& here, const std::string& directive,
                                                  const std::string& value)>& apply) {
  std::istringstream in{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string here = where + ":" + std::to_string(number);
    std::string body = trim(line.substr(0, line.find('#')));
    if (body.empty()) continue;
    const auto space = body.find_first_of(" \t");
    const std::string directive = body.substr(0, space);
    const std::string value = space == std::string::npos ? "" : trim(std::string_view(body).substr(space));
    if (value.empty()) return Diagnostic{here, "'" + directive + "' needs a value"};
    if (auto error = apply(here, directive, value)) return error;
  }
  return std::nullopt;
}

Expected<CatalogConfig> parseCatalogConfig(std::string_view text, const std::string& where) {
  CatalogConfig config;
  auto error = forEachDirective(
      text, where,
      [&](const std::string& here, const std::string& directive,
          const std::string& value) -> std::optional<Diagnostic> {
        auto applied = applyCatalogDirective(config, directive, value);
        if (!applied) return Diagnostic{here, applied.error().message};
        if (!applied.value())
          return Diagnostic{here, "unknown directive '" + directive + "' (allow, deny, enable, disable)"};
        return std::nullopt;
      });
  if (error) return *error;
  return config;
}

Expected<std::string> readConfigFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return Diagnostic{path, "cannot open"};
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

Expected<CatalogConfig> loadCatalogConfig(const std::string& path) {
  auto text = readConfigFile(path);
  if (!text.ok()) return text.error();
  return parseCatalogConfig(text.value(), path);
}

Expected<OpCatalog> OpCatalog::build(const CatalogConfig& config) {
  std::vector<std::regex> allow, deny;
  for (const auto* list : {&config.allow, &config.deny}) {
    for (const auto& pattern : *list) {
      try {
        (list == &config.allow ? allow : deny).emplace_back(pattern, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return Diagnostic{"", "bad regex '" + pattern + "': " + e.what()};
      }
    }
  }
  OpCatalog catalog;
  catalog.entries_.reserve(allOps().size());
  for (const OpInfo* op : allOps()) {
    CatalogEntry& e = catalog.entries_.emplace_back();
    e.op = op;
    e.category = categorize(*op);
    reasonFor(*op, e);
    const std::string name = op->name();
    bool allowed = allow.empty();
    for (const auto& r : allow) allowed = allowed || std::regex_search(name, r);
    for (const auto& r : deny) allowed = allowed && !std::regex_search(name, r);
    e.enabled = e.generatable() && config.categories[static_cast<int>(e.category)] && allowed;
    if (e.enabled) catalog.by_category_[static_cast<int>(e.category)].push_back(op);
    if (e.refused_by_functionalizer && allowed && drawnWhenRefused(e)) catalog.refused_.push_back({op, e.category});
  }
  return catalog;
}

Expected<OpCatalog> buildGenerationCatalog(const CatalogConfig& config, const std::string& config_name) {
  auto catalog = OpCatalog::build(config);
  if (!catalog.ok() || !catalog->enabled().empty()) return catalog;
  return Diagnostic{config_name,
                    "no op is left to generate: its allow, deny and disable lines exclude every op this "
                    "LibTorch can generate (`epsmith ops --config` says why each op is out)"};
}

std::vector<const CatalogEntry*> OpCatalog::enabled() const {
  std::vector<const CatalogEntry*> out;
  for (const auto& e : entries_) {
    if (e.enabled) out.push_back(&e);
  }
  return out;
}

const CatalogEntry* OpCatalog::find(std::string_view name) const {
  const OpInfo* op = findOpByName(name);
  for (const auto& e : entries_) {
    if (e.op == op) return &e;
  }
  return nullptr;
}

}  // namespace epsmith
