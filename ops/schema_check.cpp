// Binding rules of a call against a schema digest; see ir/schema_check.h.
#include "ops/schema_check.h"

#include <algorithm>

namespace epsmith {

bool argumentFits(ArgKind kind, const ParamInfo& param) {
  using K = ArgKind;
  if (kind == K::None && param.optional) return true;
  auto any = [kind](std::initializer_list<ArgKind> kinds) {
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
  };
  switch (param.type) {
    case ParamType::Tensor:
      // A Python number passed for a Tensor becomes a wrapped-number tensor, as in
      // torch.ops.aten.add.Tensor(x, 1.0); exported graphs contain such calls.
      return any({K::Tensor, K::Int, K::Float, K::Bool, K::SymInt, K::SymFloat, K::SymBool}) ||
             (param.optional && kind == K::OptionalTensor);
    case ParamType::TensorList: return any({K::TensorList});
    case ParamType::OptionalTensorList: return any({K::OptionalTensorList, K::TensorList});
    case ParamType::Int:
    case ParamType::SymInt: return any({K::Int, K::SymInt});
    case ParamType::IntList:
    case ParamType::SymIntList:
      return any({K::IntList, K::SymIntList}) || (param.fixed_list_size > 0 && any({K::Int, K::SymInt}));
    case ParamType::Float: return any({K::Float, K::SymFloat, K::Int, K::SymInt});
    case ParamType::FloatList: return any({K::FloatList, K::SymFloatList});
    case ParamType::Bool: return any({K::Bool, K::SymBool});
    case ParamType::BoolList: return any({K::BoolList, K::SymBoolList});
    case ParamType::String: return any({K::String});
    case ParamType::StringList: return any({K::StringList});
    case ParamType::Scalar: return any({K::Int, K::Float, K::Bool, K::SymInt, K::SymFloat, K::SymBool, K::Complex});
    case ParamType::ScalarList: return any({K::FloatList, K::IntList, K::BoolList});
    case ParamType::ScalarType: return any({K::ScalarType});
    case ParamType::Layout: return any({K::Layout});
    case ParamType::Device: return any({K::Device});
    case ParamType::MemoryFormat: return any({K::MemoryFormat});
    default: return false;  // Generator, Dimname, Storage, ...: only None when optional
  }
}

std::optional<std::string> checkSchemaCall(const OpInfo& op, const std::vector<Argument>& args,
                                           const std::vector<std::pair<std::string, Argument>>& kwargs) {
  const std::string name = op.name();
  if (op.is_vararg) return std::nullopt;
  const int positional = op.positionalCount();
  if (static_cast<int>(args.size()) > positional) {
    return name + " takes at most " + std::to_string(positional) + " positional arguments, got " +
           std::to_string(args.size());
  }
  std::vector<const Argument*> bound(op.arguments.size(), nullptr);
  // Positional parameters come first in a c10 schema.
  for (size_t i = 0; i < args.size(); ++i) bound[i] = &args[i];
  for (const auto& [key, value] : kwargs) {
    int index = op.argumentIndex(key);
    if (index < 0) return "unknown keyword argument '" + key + "' for " + name;
    if (bound[index]) return "argument '" + key + "' of " + name + " given twice";
    bound[index] = &value;
  }
  for (size_t i = 0; i < op.arguments.size(); ++i) {
    const ParamInfo& p = op.arguments[i];
    if (!bound[i]) {
      if (!p.has_default) return "missing argument '" + p.name + "' of " + name;
      continue;
    }
    if (!argumentFits(bound[i]->kind(), p)) {
      return "argument '" + p.name + "' of " + name + " expects " + std::string(paramTypeName(p.type)) +
             (p.optional ? "?" : "") + ", got " + std::string(serializedTag(bound[i]->kind()));
    }
  }
  return std::nullopt;
}

}  // namespace epsmith
