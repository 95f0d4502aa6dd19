// What epsmith knows of an ATen operator overload: a LibTorch-free digest of its c10 schema
// (argument kinds, defaults, alias annotations, tags) that the whole IR can read. The digest
// is made by the op registry (ops/op_registry.h), from the dispatcher, and nowhere else
// (Note [Schema digest]).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace c10 {
class FunctionSchema;
class OperatorHandle;
}  // namespace c10

namespace epsmith {

// What a schema argument or return accepts, read from its c10 type.
enum class ParamType : uint8_t {
  Tensor,
  TensorList,
  OptionalTensorList,  // Tensor, Tensor[], Tensor?[]
  Int,
  SymInt,
  IntList,
  SymIntList,
  Float,
  FloatList,
  Bool,
  BoolList,
  String,
  StringList,
  Scalar,
  ScalarList,
  ScalarType,
  Layout,
  Device,
  MemoryFormat,
  Generator,
  Dimname,
  DimnameList,
  Storage,
  Stream,
  Quantizer,
  QScheme,
  Other,
};

struct ParamInfo {
  std::string name;
  ParamType type = ParamType::Other;
  bool optional = false;  // T?
  bool kwarg_only = false;
  bool has_default = false;
  bool is_write = false;         // alias annotation with "!"
  bool is_alias = false;         // any alias annotation
  std::string alias_set;         // "a" for Tensor(a) / Tensor(a!) / Tensor(a)[]; empty: none
  int64_t fixed_list_size = -1;  // int[2]: 2
};

struct OpInfo {
  std::string qualified_name;  // "aten::add"
  std::string overload;        // "Tensor", "" for the default overload
  std::vector<ParamInfo> arguments;
  std::vector<ParamInfo> returns;
  bool is_mutable = false;  // c10 FunctionSchema::is_mutable()
  bool is_vararg = false;
  // The operator's tags in native_functions.yaml (at::Tag), as bits.
  enum Tag : uint8_t {
    kRandom = 1,               // nondeterministic_seeded: draws from a generator
    kNondeterministic = 2,     // nondeterministic_bitwise: results may differ run to run
    kDynamicOutputShape = 4,   // output shape depends on input values (nonzero, unique)
    kDataDependentOutput = 8,  // output depends on input data beyond shape (item)
    kInplaceView = 16,         // changes self's metadata (transpose_)
  };
  uint8_t tags = 0;
  bool hasTag(Tag t) const { return (tags & t) != 0; }
  // Implemented as a composition of other ops (CompositeImplicitAutograd): export decomposes
  // it, and its results may be its inputs without the schema saying so.
  bool composite_implicit = false;
  const c10::FunctionSchema* schema = nullptr;
  const c10::OperatorHandle* handle = nullptr;
  // Dense, from 0, in the order the registry resolved the ops: what PerOpMemo indexes by.
  uint32_t index = 0;

  // "aten::add.Tensor" (the dispatcher's spelling, as the text form writes it).
  const std::string& name() const { return name_; }
  // "add" for "aten::add": the name without its namespace.
  std::string_view localName() const;
  // "torch.ops.aten.add.Tensor" (torch.export's target string).
  const std::string& exportName() const { return export_name_; }
  // Index of the argument called `name`, or -1.
  int argumentIndex(std::string_view name) const;
  // Count of positional (not keyword-only) arguments.
  int positionalCount() const;

  // Both names, spelled once when the op is resolved (the readers and writers ask for them
  // per node). Set by the registry.
  std::string name_;
  std::string export_name_;
};

std::string_view paramTypeName(ParamType t);

// One value per op, computed on first use and indexed by OpInfo::index: a lookup is a
// load, where a hash map keyed by the OpInfo's address costs a division and a walk through
// buckets that a case's tensors have long pushed out of the cache (the generator asks
// several questions of every candidate). Not synchronized: one per thread.
template <typename T>
class PerOpMemo {
 public:
  // `compute()` may itself ask this memo about other ops. The value is returned as a copy:
  // a later question about another op may move the ones held.
  template <typename F>
  T get(const OpInfo& op, F&& compute) {
    if (op.index < values_.size() && values_[op.index]) return *values_[op.index];
    T value = compute();
    if (op.index >= values_.size()) values_.resize(op.index + 1);
    values_[op.index] = value;
    return value;
  }

 private:
  std::vector<std::optional<T>> values_;
};

}  // namespace epsmith
