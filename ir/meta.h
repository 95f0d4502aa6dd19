// Node metadata: `meta.val` (tensor metadata, symbolic values, scalars, lists of these) and
// the string-valued entries torch.export keeps (stack_trace, nn_module_stack, torch_fn, custom).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/enums.h"
#include "ir/inline_vector.h"

namespace epsmith {

// A symbolic expression as torch.export records it: "s0 + 1", with an optional concrete hint.
struct SymExpr {
  std::string expr;
  std::optional<std::variant<int64_t, bool, double>> hint;
  friend bool operator==(const SymExpr& a, const SymExpr& b) { return a.expr == b.expr && a.hint == b.hint; }
};

// The process's one copy of an expression equal to `e`, kept for the life of the process.
const SymExpr* internSymExpr(SymExpr e);

// The symbol an expression is alone: "s77" of `Symbol('s77', positive=True, integer=True)`
// (sympy's repr, as torch.export writes it) or of "s77"; nullopt for any other (2*s77).
std::optional<std::string> soleSymbol(const std::string& expr);

// A size, stride or offset: a concrete integer or a symbolic expression.
//
// Note [Sizes kept inline]
// Every node's meta.val holds its sizes and strides, and a case makes, copies and frees a
// few hundred of them (the generator, the functionalizer, the readers, clones). As
// std::vectors they were two heap blocks each; as InlineVectors of up to kInlineRank
// elements they live in the TensorMeta, copied as bytes. That needs an element copied as
// bytes: a SymIntValue is an integer or a pointer to an interned expression
// (internSymExpr), which is never freed. Symbolic sizes come from files and from the
// generator's affine sizes of one small symbol
// (Note [Symbolic sizes of generated programs]), so the expressions a process keeps are few.
class SymIntValue {
 public:
  SymIntValue(int64_t v = 0) : int_(v) {}                         // NOLINT: an int is a SymInt
  SymIntValue(SymExpr e) : expr_(internSymExpr(std::move(e))) {}  // NOLINT
  bool isConcrete() const { return !expr_; }
  // Throws std::bad_variant_access for a symbolic value.
  int64_t concrete() const {
    if (expr_) throw std::bad_variant_access();
    return int_;
  }
  // The value at the example the program was traced with: the integer, or a symbolic
  // value's integer hint (probes that ask what does not depend on the size run there).
  // Throws std::bad_variant_access where there is no such hint.
  int64_t atHint() const {
    if (!expr_) return int_;
    if (!expr_->hint || !std::holds_alternative<int64_t>(*expr_->hint)) throw std::bad_variant_access();
    return std::get<int64_t>(*expr_->hint);
  }
  bool hasIntHint() const { return !expr_ || (expr_->hint && std::holds_alternative<int64_t>(*expr_->hint)); }
  const SymExpr& expr() const {  // precondition: !isConcrete()
    if (!expr_) throw std::bad_variant_access();
    return *expr_;
  }
  friend bool operator==(const SymIntValue& a, const SymIntValue& b) {
    if (a.isConcrete() != b.isConcrete()) return false;
    return a.isConcrete() ? a.int_ == b.int_ : *a.expr_ == *b.expr_;
  }
  friend bool operator!=(const SymIntValue& a, const SymIntValue& b) { return !(a == b); }

 private:
  int64_t int_ = 0;
  const SymExpr* expr_ = nullptr;
};

constexpr size_t kInlineRank = 5;
using SymIntList = InlineVector<SymIntValue, kInlineRank>;

struct TensorMeta {
  ScalarType dtype = ScalarType::Float;
  SymIntList sizes;
  SymIntList strides;
  SymIntValue storage_offset = 0;
  Device device;
  bool requires_grad = false;
  Layout layout = Layout::Strided;

  // Contiguous row-major strides for concrete `sizes` (symbolic sizes give symbolic-free 1s).
  static SymIntList contiguousStrides(const SymIntList& sizes);
  // Whether the concrete sizes multiply past int64: no tensor has them.
  static bool elementCountOverflows(const SymIntList& sizes);
  static TensorMeta contiguous(ScalarType dtype, std::vector<int64_t> sizes);
  bool hasContiguousStrides() const;
  friend bool operator==(const TensorMeta& a, const TensorMeta& b);
  friend bool operator!=(const TensorMeta& a, const TensorMeta& b) { return !(a == b); }
};

// `meta["val"]` of a node. Mirrors what verifier.py's _check_val accepts, plus Opaque for a
// value of any other Python type (which the verifier must reject) and Missing for no entry.
class Val {
 public:
  struct Missing {};
  struct None {};
  struct SymInt {
    SymExpr expr;
  };
  struct SymFloat {
    SymExpr expr;
  };
  struct SymBool {
    SymExpr expr;
  };
  struct CustomObj {
    std::string class_fqn;
  };
  struct Opaque {
    std::string type_name;
  };
  using List = std::vector<Val>;
  using Variant = std::variant<Missing, None, TensorMeta, List, int64_t, double, bool, std::string, ScalarType, Device,
                               Layout, MemoryFormat, SymInt, SymFloat, SymBool, CustomObj, Opaque>;

  Val() = default;
  template <typename T,
            typename = std::enable_if_t<std::is_constructible_v<Variant, T&&> && !std::is_same_v<std::decay_t<T>, Val>>>
  Val(T&& v) : v_(std::forward<T>(v)) {}  // NOLINT: implicit from any alternative

  const Variant& variant() const { return v_; }
  Variant& variant() { return v_; }
  bool isMissing() const { return std::holds_alternative<Missing>(v_); }
  bool isTensor() const { return std::holds_alternative<TensorMeta>(v_); }
  bool isList() const { return std::holds_alternative<List>(v_); }
  const TensorMeta* tensor() const { return std::get_if<TensorMeta>(&v_); }
  TensorMeta* tensor() { return std::get_if<TensorMeta>(&v_); }
  const List* list() const { return std::get_if<List>(&v_); }
  template <typename T>
  const T* get() const {
    return std::get_if<T>(&v_);
  }

  friend bool operator==(const Val& a, const Val& b);
  friend bool operator!=(const Val& a, const Val& b) { return !(a == b); }

 private:
  Variant v_;
};

struct ModuleStackEntry {
  std::string key;   // "L__self___linear"
  std::string path;  // "linear"
  std::string type;  // "torch.nn.modules.linear.Linear"
  friend bool operator==(const ModuleStackEntry& a, const ModuleStackEntry& b) {
    return a.key == b.key && a.path == b.path && a.type == b.type;
  }
};

struct NodeMeta {
  Val val;
  std::optional<std::string> stack_trace;
  std::optional<std::vector<ModuleStackEntry>> nn_module_stack;
  // (name, qualified name) as torch.export records torch_fn.
  std::optional<std::pair<std::string, std::string>> torch_fn;
  // Any other string-valued entries, kept verbatim.
  std::map<std::string, std::string> custom;

  friend bool operator==(const NodeMeta& a, const NodeMeta& b) {
    return a.val == b.val && a.stack_trace == b.stack_trace && a.nn_module_stack == b.nn_module_stack &&
           a.torch_fn == b.torch_fn && a.custom == b.custom;
  }
};

}  // namespace epsmith
