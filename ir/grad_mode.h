// The calls of a graph that set autograd's grad mode: torch._C._set_grad_enabled and
// torch.autograd.grad_mode.set_grad_enabled, which TRAINING programs hold around their
// no_grad regions. The functionalizer follows them, the generator's corruptions drop them,
// and D9 leaves them out of what it hands NativeRT, which runs under InferenceMode.
#pragma once

#include <optional>

#include "ir/graph.h"

namespace epsmith {

inline bool setsGradMode(const Node& n) {
  if (n.target.kind() != Target::Kind::TorchFunction) return false;
  const TorchFunction fn = n.target.torchFunctionId();
  return fn == TorchFunction::SetGradEnabled || fn == TorchFunction::CSetGradEnabled;
}

// The mode such a call sets, where its argument is a literal; nullopt for any other call.
inline std::optional<bool> gradModeSet(const Node& n) {
  const auto* enabled = setsGradMode(n) && !n.args.empty() ? n.args[0].get<arg::Bool>() : nullptr;
  return enabled ? std::optional<bool>(enabled->value) : std::nullopt;
}

}  // namespace epsmith
