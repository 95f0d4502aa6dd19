// Target names parsed, with ATen names resolved through the op registry; see targets.h.
#include "ops/targets.h"

#include "ops/op_registry.h"

namespace epsmith {
namespace {

Expected<Target> resolveAten(std::string_view ns_name, std::string_view overload) {
  if (const OpInfo* op = findOp(ns_name, overload)) return Target::aten(op);
  std::string known;
  for (const OpInfo* op : allOps()) {
    if (op->qualified_name == ns_name) {
      known += known.empty() ? "" : ", ";
      known += op->overload.empty() ? "default" : op->overload;
    }
  }
  if (known.empty()) return Diagnostic{"", "unknown operator " + std::string(ns_name)};
  return Diagnostic{"", "unknown overload '" + std::string(overload.empty() ? "default" : overload) + "' of " +
                            std::string(ns_name) + " (known: " + known + ")"};
}

}  // namespace

Expected<Target> parseTarget(std::string_view text) {
  if (const OpInfo* op = findResolvedOp(text)) return Target::aten(op);
  // aten::add.Tensor, aten::relu
  if (auto sep = text.find("::"); sep != std::string_view::npos) {
    auto dot = text.find('.', sep + 2);
    auto ns_name = text.substr(0, dot);
    auto overload = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
    if (!isIdentifier(text.substr(0, sep)) || !isIdentifier(ns_name.substr(sep + 2)) ||
        (dot != std::string_view::npos && !isIdentifier(overload))) {
      return Diagnostic{"", "malformed operator name '" + std::string(text) + "'"};
    }
    return resolveAten(ns_name, overload);
  }
  if (!isDottedPath(text)) {
    return Diagnostic{"", "malformed target '" + std::string(text) + "'"};
  }
  // torch.ops.<ns>.<name>.<overload>, torch.ops.higher_order.<name>
  constexpr std::string_view kOps = "torch.ops.";
  if (text.substr(0, kOps.size()) == kOps) {
    auto rest = text.substr(kOps.size());
    auto dot1 = rest.find('.');
    if (dot1 == std::string_view::npos) {
      return Diagnostic{"", "malformed operator name '" + std::string(text) + "'"};
    }
    auto ns = rest.substr(0, dot1);
    auto after = rest.substr(dot1 + 1);
    if (ns == "higher_order") return Target::higherOrder(std::string(after));
    auto dot2 = after.find('.');
    if (dot2 == std::string_view::npos || after.find('.', dot2 + 1) != std::string_view::npos) {
      return Diagnostic{"", "operator '" + std::string(text) + "' must be torch.ops.<namespace>.<name>.<overload>"};
    }
    return resolveAten(std::string(ns) + "::" + std::string(after.substr(0, dot2)), after.substr(dot2 + 1));
  }
  constexpr std::string_view kHop = "higher_order.";
  if (text.substr(0, kHop.size()) == kHop) return Target::higherOrder(std::string(text.substr(kHop.size())));
  if (auto b = builtinNamed(text)) return Target::builtin(*b);
  if (auto f = torchFunctionNamed(text)) return Target::torchFunction(*f);
  return Target::other(std::string(text));
}

}  // namespace epsmith
