// Resolves ATen overloads through the c10 dispatcher and digests their schemas once.
// Note [Schema digest]: the rest of epsmith reads op facts (argument kinds, defaults,
// kwarg-only-ness, alias annotations, is_mutable) from OpInfo, which is built here from the
// c10::FunctionSchema and nowhere else, so no component types its own op tables.
#include "ops/op_registry.h"
#include "ops/meta_kernels.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace epsmith {
namespace {

ParamType classify(const c10::TypePtr& real, bool* optional) {
  c10::TypePtr t = real;
  *optional = false;
  if (auto opt = t->cast<c10::OptionalType>()) {
    *optional = true;
    t = opt->getElementType();
  }
  switch (t->kind()) {
    case c10::TypeKind::TensorType: return ParamType::Tensor;
    case c10::TypeKind::IntType: return ParamType::Int;
    case c10::TypeKind::SymIntType: return ParamType::SymInt;
    case c10::TypeKind::FloatType: return ParamType::Float;
    case c10::TypeKind::BoolType: return ParamType::Bool;
    case c10::TypeKind::StringType: return ParamType::String;
    case c10::TypeKind::NumberType: return ParamType::Scalar;
    case c10::TypeKind::ScalarTypeType: return ParamType::ScalarType;
    case c10::TypeKind::LayoutType: return ParamType::Layout;
    case c10::TypeKind::DeviceObjType: return ParamType::Device;
    case c10::TypeKind::MemoryFormatType: return ParamType::MemoryFormat;
    case c10::TypeKind::GeneratorType: return ParamType::Generator;
    case c10::TypeKind::StorageType: return ParamType::Storage;
    case c10::TypeKind::StreamObjType: return ParamType::Stream;
    case c10::TypeKind::QSchemeType: return ParamType::QScheme;
    case c10::TypeKind::ListType: {
      auto elem = t->castRaw<c10::ListType>()->getElementType();
      if (auto inner = elem->cast<c10::OptionalType>()) {
        if (inner->getElementType()->kind() == c10::TypeKind::TensorType) {
          return ParamType::OptionalTensorList;
        }
        return ParamType::Other;
      }
      switch (elem->kind()) {
        case c10::TypeKind::TensorType: return ParamType::TensorList;
        case c10::TypeKind::IntType: return ParamType::IntList;
        case c10::TypeKind::SymIntType: return ParamType::SymIntList;
        case c10::TypeKind::FloatType: return ParamType::FloatList;
        case c10::TypeKind::BoolType: return ParamType::BoolList;
        case c10::TypeKind::StringType: return ParamType::StringList;
        case c10::TypeKind::NumberType: return ParamType::ScalarList;
        default: return ParamType::Other;
      }
    }
    default: break;
  }
  if (t->str() == "Dimname") return ParamType::Dimname;
  if (t->str() == "Dimname[]") return ParamType::DimnameList;
  if (t->str().find("Quantizer") != std::string::npos) return ParamType::Quantizer;
  return ParamType::Other;
}

ParamInfo digest(const c10::Argument& a) {
  ParamInfo p;
  p.name = a.name();
  p.type = classify(a.real_type(), &p.optional);
  p.kwarg_only = a.kwarg_only();
  p.has_default = a.default_value().has_value();
  const c10::AliasInfo* alias = a.alias_info();
  // `Tensor(a)[]` carries its set on the element type.
  if (alias && alias->beforeSets().empty() && !alias->containedTypes().empty()) {
    alias = &alias->containedTypes()[0];
  }
  if (alias) {
    p.is_alias = true;
    p.is_write = alias->isWrite();
    if (!alias->beforeSets().empty()) p.alias_set = alias->beforeSets().begin()->toUnqualString();
  }
  if (a.N()) p.fixed_list_size = *a.N();
  return p;
}

// Note [Ops found by name without allocating]
// The text and JSON readers resolve every node's target by name, the functionalizer looks
// up functional variants, and each used to build two or three strings to ask a map keyed
// by std::string. The map is keyed by a view of the name the registry keeps ("aten::add.Tensor",
// "aten::relu" for a default overload: OpInfo::name()) and looked up by a view of the
// caller's text; a name with no operator keeps its own copy for its (negative) entry.
class Registry {
 public:
  // `full`: "aten::add.Tensor" or "aten::relu" (".default" already dropped).
  const OpInfo* find(std::string_view full) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_name_.find(full);
    if (it != by_name_.end()) return it->second;
    const size_t sep = full.find("::");
    const size_t dot = full.find('.', sep == std::string_view::npos ? 0 : sep + 2);
    const std::string name(full.substr(0, dot));
    const std::string overload(dot == std::string_view::npos ? std::string_view() : full.substr(dot + 1));
    // Another spelling of an op already resolved ("aten::add." for "aten::add") gets the
    // same OpInfo: callers compare ops by address.
    const std::string canonical = overload.empty() ? name : name + "." + overload;
    const OpInfo* result = nullptr;
    if (auto known = by_name_.find(canonical); known != by_name_.end()) {
      result = known->second;
    } else if (auto handle = c10::Dispatcher::singleton().findSchema({name, overload})) {
      result = build(*handle);
    }
    // Keys must outlive their entries: the op's own name, or a kept copy of another spelling.
    if (result) by_name_.emplace(std::string_view(result->name_), result);
    if (!result || result->name_ != full) by_name_.emplace(std::string_view(missing_.emplace_back(full)), result);
    return result;
  }

  // `export_name`: `spelling` begins "torch.ops.", which no name() spelling does.
  const OpInfo* resolved(std::string_view spelling, bool export_name) {
    std::lock_guard<std::mutex> lock(mu_);
    if (export_name) {
      auto it = by_export_.find(spelling);
      return it != by_export_.end() ? it->second : nullptr;
    }
    auto it = by_name_.find(spelling);
    return it != by_name_.end() && it->second && it->second->name_ == spelling ? it->second : nullptr;
  }

  const std::vector<const OpInfo*>& all() {
    std::call_once(all_once_, [this] {
      for (const auto& op_name : c10::Dispatcher::singleton().getAllOpNames()) {
        const std::string full =
            op_name.overload_name.empty() ? op_name.name : op_name.name + "." + op_name.overload_name;
        if (const OpInfo* info = find(full)) all_.push_back(info);
      }
    });
    return all_;
  }

 private:
  const OpInfo* build(const c10::OperatorHandle& h) {
    handles_.push_back(h);
    const auto& schema = h.schema();
    OpInfo& info = infos_.emplace_back();
    info.index = static_cast<uint32_t>(infos_.size() - 1);
    info.qualified_name = schema.name();
    info.overload = schema.overload_name();
    info.name_ = info.overload.empty() ? info.qualified_name : info.qualified_name + "." + info.overload;
    const size_t sep = info.qualified_name.find("::");
    info.export_name_ = "torch.ops." + info.qualified_name.substr(0, sep) + "." + info.qualified_name.substr(sep + 2) +
                        "." + (info.overload.empty() ? "default" : info.overload);
    by_export_.emplace(std::string_view(info.export_name_), &info);
    for (const auto& a : schema.arguments()) info.arguments.push_back(digest(a));
    for (const auto& r : schema.returns()) info.returns.push_back(digest(r));
    info.is_mutable = schema.is_mutable();
    info.is_vararg = schema.is_vararg();
    for (at::Tag tag : h.getTags()) {
      switch (tag) {
        case at::Tag::nondeterministic_seeded: info.tags |= OpInfo::kRandom; break;
        case at::Tag::nondeterministic_bitwise: info.tags |= OpInfo::kNondeterministic; break;
        case at::Tag::dynamic_output_shape: info.tags |= OpInfo::kDynamicOutputShape; break;
        case at::Tag::data_dependent_output: info.tags |= OpInfo::kDataDependentOutput; break;
        case at::Tag::inplace_view: info.tags |= OpInfo::kInplaceView; break;
        default: break;
      }
    }
    info.composite_implicit = h.hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd);
    info.schema = &schema;
    info.handle = &handles_.back();
    return &info;
  }

  std::mutex mu_;
  std::once_flag all_once_;
  std::deque<c10::OperatorHandle> handles_;  // deques: stable addresses
  std::deque<OpInfo> infos_;
  std::deque<std::string> missing_;
  std::unordered_map<std::string_view, const OpInfo*> by_name_;
  std::unordered_map<std::string_view, const OpInfo*> by_export_;  // keyed by OpInfo::exportName()
  std::vector<const OpInfo*> all_;
};

Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: ops outlive static destructors
  return *r;
}

// Note [Spellings remembered per thread]
// The readers resolve every node's target by its spelling, and the functionalizer its view
// and cast ops by name, through the registry's maps: a lock, a hash of the name and a walk
// into tables of some 6 000 entries that a case's tensors have pushed out of the cache (2%
// of D4's time). Each thread keeps a small direct-mapped table of the ops it resolved
// last, indexed by a hash of the spelling and checked against the op's own spelling, so a
// lookup that hits costs the hash and one comparison with a name the caller has usually
// just printed. A miss, or a spelling of no op, asks the registry as before; ops are never
// freed, so what the table holds cannot dangle.
class SpellingCache {
 public:
  // The op whose name() (or, with `export_name`, exportName()) is `spelling`, if cached.
  const OpInfo* find(std::string_view spelling, bool export_name) const {
    const OpInfo* op = slots_[slot(spelling, export_name)];
    if (op && (export_name ? op->exportName() : op->name()) == spelling) return op;
    return nullptr;
  }
  void remember(const OpInfo* op, bool export_name) {
    slots_[slot(export_name ? op->exportName() : op->name(), export_name)] = op;
  }

 private:
  static constexpr size_t kSlots = 1024;
  static size_t slot(std::string_view s, bool export_name) {
    uint64_t h = export_name ? 0x9e3779b97f4a7c15ULL : 0xcbf29ce484222325ULL;  // FNV-1a
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    return static_cast<size_t>(h ^ (h >> 29)) & (kSlots - 1);
  }
  const OpInfo* slots_[kSlots] = {};
};

SpellingCache& spellingCache() {
  thread_local SpellingCache cache;
  return cache;
}

bool isExportSpelling(std::string_view s) { return s.rfind("torch.ops.", 0) == 0; }

// Registry::find through the thread's cache. `full` is a name() spelling ("aten::add.Tensor",
// "aten::relu"), or another one of the same op, which the registry answers.
const OpInfo* findByName(std::string_view full) {
  SpellingCache& cache = spellingCache();
  if (const OpInfo* op = cache.find(full, false)) return op;
  const OpInfo* op = registry().find(full);
  if (op && op->name() == full) cache.remember(op, false);
  return op;
}

}  // namespace

const OpInfo* findOp(std::string_view qualified_name, std::string_view overload) {
  if (overload.empty() || overload == "default") return findByName(qualified_name);
  thread_local std::string full;  // reused: no allocation once it has grown
  full.assign(qualified_name);
  full += '.';
  full += overload;
  return findByName(full);
}

std::optional<std::string_view> copiedOpName(const OpInfo& op) {
  constexpr std::string_view suffix = "_copy";
  const std::string_view name = op.qualified_name;
  if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix) return std::nullopt;
  return name.substr(0, name.size() - suffix.size());
}

const OpInfo* findOpByName(std::string_view name) {
  auto sep = name.find("::");
  if (sep == std::string_view::npos) return nullptr;
  auto dot = name.find('.', sep + 2);
  if (dot == std::string_view::npos || name.substr(dot + 1) != "default") return findByName(name);
  return findByName(name.substr(0, dot));
}

const OpInfo* findResolvedOp(std::string_view spelling) {
  const bool export_name = isExportSpelling(spelling);
  SpellingCache& cache = spellingCache();
  if (const OpInfo* op = cache.find(spelling, export_name)) return op;
  const OpInfo* op = registry().resolved(spelling, export_name);
  if (op) cache.remember(op, export_name);
  return op;
}

bool runsOnMetaHere(const OpInfo& op) {
  const std::string_view name = op.name();
  const size_t dot = name.find('.', name.find("::") + 2);
  const std::string base(name.substr(0, dot));
  const std::string overload(dot == std::string_view::npos ? std::string_view() : name.substr(dot + 1));
  auto handle = c10::Dispatcher::singleton().findSchema({base, overload});
  if (!handle) return false;
  for (c10::DispatchKey key :
       {c10::DispatchKey::Meta, c10::DispatchKey::CompositeExplicitAutograd,
        c10::DispatchKey::CompositeExplicitAutogradNonFunctional, c10::DispatchKey::CompositeImplicitAutograd}) {
    if (handle->hasKernelForDispatchKey(key)) return true;
  }
  return false;
}

const std::vector<const OpInfo*>& allOps() { return registry().all(); }

}  // namespace epsmith
