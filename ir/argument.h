// Arguments of call_function and output nodes: one alternative per torch.export argument kind
// (the Argument union of torch/_export/serde/schema.py), with node references as Node*.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/enums.h"

namespace epsmith {

class Node;

namespace arg {

// A symbolic scalar argument: either a reference to the node that computes it, or a literal
// (torch.export's `as_name` / `as_int` union).
template <typename T>
struct SymScalar {
  Node* node = nullptr;  // non-null: by name
  T literal{};           // used when node is null
  bool isLiteral() const { return node == nullptr; }
};

// clang-format off
struct None {};
struct Tensor { Node* node = nullptr; };
struct TensorList { std::vector<Node*> nodes; };
struct OptionalTensor { Node* node = nullptr; };  // null: None
struct OptionalTensorList { std::vector<Node*> nodes; };  // null entries: None
struct Int { int64_t value = 0; };
struct IntList { std::vector<int64_t> values; };
struct Float { double value = 0; };
struct FloatList { std::vector<double> values; };
struct Bool { bool value = false; };
struct BoolList { std::vector<bool> values; };
struct String { std::string value; };
struct StringList { std::vector<std::string> values; };
struct SymInt { SymScalar<int64_t> value; };
struct SymIntList { std::vector<SymScalar<int64_t>> values; };
struct SymFloat { SymScalar<double> value; };
struct SymFloatList { std::vector<SymScalar<double>> values; };
struct SymBool { SymScalar<bool> value; };
struct SymBoolList { std::vector<SymScalar<bool>> values; };
struct Dtype { ScalarType value = ScalarType::Float; };
struct MemFormat { MemoryFormat value = MemoryFormat::Contiguous; };
struct TensorLayout { Layout value = Layout::Strided; };
struct DeviceArg { Device value; };
struct Graph { Node* node = nullptr; };  // a get_attr node naming a subgraph
struct CustomObj { Node* node = nullptr; std::string class_fqn; };
struct Operator { std::string name; };  // "aten::add.Tensor"
struct Complex { double real = 0, imag = 0; };
// clang-format on

}  // namespace arg

// The order of alternatives is the ArgKind order below; keep them in step.
using ArgumentVariant =
    std::variant<arg::None, arg::Tensor, arg::TensorList, arg::OptionalTensor, arg::OptionalTensorList, arg::Int,
                 arg::IntList, arg::Float, arg::FloatList, arg::Bool, arg::BoolList, arg::String, arg::StringList,
                 arg::SymInt, arg::SymIntList, arg::SymFloat, arg::SymFloatList, arg::SymBool, arg::SymBoolList,
                 arg::Dtype, arg::MemFormat, arg::TensorLayout, arg::DeviceArg, arg::Graph, arg::CustomObj,
                 arg::Operator, arg::Complex>;

enum class ArgKind : uint8_t {
  None,
  Tensor,
  TensorList,
  OptionalTensor,
  OptionalTensorList,
  Int,
  IntList,
  Float,
  FloatList,
  Bool,
  BoolList,
  String,
  StringList,
  SymInt,
  SymIntList,
  SymFloat,
  SymFloatList,
  SymBool,
  SymBoolList,
  ScalarType,
  MemoryFormat,
  Layout,
  Device,
  Graph,
  CustomObj,
  Operator,
  Complex,
};
constexpr int kNumArgKinds = static_cast<int>(ArgKind::Complex) + 1;

// torch.export's union tag for the kind: "as_tensor", "as_sym_ints", ...
std::string_view serializedTag(ArgKind kind);

class Argument {
 public:
  Argument() = default;
  template <typename T, typename = std::enable_if_t<std::is_constructible_v<ArgumentVariant, T&&> &&
                                                    !std::is_same_v<std::decay_t<T>, Argument>>>
  Argument(T&& v) : v_(std::forward<T>(v)) {}  // NOLINT: implicit from any alternative

  ArgKind kind() const { return static_cast<ArgKind>(v_.index()); }
  const ArgumentVariant& variant() const { return v_; }
  ArgumentVariant& variant() { return v_; }
  template <typename T>
  const T* get() const {
    return std::get_if<T>(&v_);
  }
  template <typename T>
  T* get() {
    return std::get_if<T>(&v_);
  }

  // Calls f(Node*&) for every node this argument references, in order (skips nulls).
  template <typename F>
  void forEachNodeRef(F&& f);
  template <typename F>
  void forEachNode(F&& f) const {
    const_cast<Argument*>(this)->forEachNodeRef([&](Node*& n) { f(static_cast<const Node*>(n)); });
  }

 private:
  ArgumentVariant v_;
};

template <typename F>
void Argument::forEachNodeRef(F&& f) {
  auto one = [&](Node*& n) {
    if (n) f(n);
  };
  auto many = [&](std::vector<Node*>& ns) {
    for (auto& n : ns) one(n);
  };
  auto syms = [&](auto& values) {
    for (auto& s : values) one(s.node);
  };
  std::visit(
      [&](auto& a) {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, arg::Tensor> || std::is_same_v<A, arg::OptionalTensor> ||
                      std::is_same_v<A, arg::Graph> || std::is_same_v<A, arg::CustomObj>) {
          one(a.node);
        } else if constexpr (std::is_same_v<A, arg::TensorList> || std::is_same_v<A, arg::OptionalTensorList>) {
          many(a.nodes);
        } else if constexpr (std::is_same_v<A, arg::SymInt> || std::is_same_v<A, arg::SymFloat> ||
                             std::is_same_v<A, arg::SymBool>) {
          one(a.value.node);
        } else if constexpr (std::is_same_v<A, arg::SymIntList> || std::is_same_v<A, arg::SymFloatList> ||
                             std::is_same_v<A, arg::SymBoolList>) {
          syms(a.values);
        }
      },
      v_);
}

}  // namespace epsmith
