// What autograd refuses; see autograd_probe.h.
#include "functionalizer/autograd_probe.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/zeros_like.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

#include "oracle/probe_support.h"
#include "functionalizer/view_steps.h"
#include "oracle/aten_bridge.h"
#include "oracle/interpreter.h"

namespace epsmith {

using probe_detail::cacheKey;
using probe_detail::concreteMeta;
using probe_detail::ProbeCache;
using probe_detail::probeValues;
using probe_detail::withReadSizesAtTheExample;

namespace {

// Whether `call` may be probed for autograd's answer: an aten call whose tensor inputs have
// concrete metadata, small enough to make, and some input that can require grad.
bool probeableUnderGrad(const Node& call) {
  bool probeable = call.target.kind() == Target::Kind::Aten;
  bool grad = false;
  int64_t elements = 0;
  call.forEachInput([&](const Node* n) {
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || !concreteMeta(*m)) {
      probeable = false;
      return;
    }
    grad = grad || (m->requires_grad && (isFloatingPoint(m->dtype) || isComplex(m->dtype)));
    elements += std::max<int64_t>(1, numelOf(*m));
  });
  return probeable && grad && elements <= (1 << 16);
}

// Runs `call` under grad mode as `values` give its inputs, then with every input detached:
// true where autograd refused it (only the detached run went through), false where it ran,
// nullopt where both raised, which says nothing of autograd
// (Note [Probe answers are the key's alone]). The assorted values can be what raises (an
// index of -3 into a dim of 2, a float mask that 1.13's masked_fill takes only as 0 or 1):
// every input is tried again as zeros, those that required grad still requiring it.
std::optional<bool> refusedUnderGrad(const Node& call, const std::function<at::Tensor(const Node*, bool)>& value) {
  const at::AutoGradMode grad_mode(true);
  bool zeros = false;
  auto run = [&](bool detached) {
    std::unordered_map<const Node*, at::Tensor> values;  // one per node, however often bound
    return !runSingleCall(call, [&](const Node* n) -> c10::IValue {
              auto it = values.find(n);
              if (it != values.end()) return it->second;
              at::Tensor t = value(n, detached);
              if (zeros) t = at::zeros_like(t).requires_grad_(t.requires_grad());
              return values.emplace(n, t).first->second;
            }).error;
  };
  for (int round = 0; round < 2; ++round, zeros = true) {
    if (run(false)) return false;
    if (run(true)) return true;
  }
  return std::nullopt;
}

}  // namespace

namespace {

// `decide`'s answer for `call` (true or false; nullopt: it cannot tell), cached per op,
// argument dtypes and literals, asked only where probeableUnderGrad; false where unasked,
// undecided or raising.
bool answerUnderGrad(ProbeCache<bool>& cache, const Node& call, const std::function<std::optional<bool>()>& decide) {
  if (!probeableUnderGrad(call)) return false;
  bool probeable = true;
  const std::string key = cacheKey(call, false, &probeable);
  if (!probeable) return false;
  if (auto known = cache.find(key)) return *known;
  std::optional<bool> answer;
  try {
    answer = decide();
  } catch (const std::exception&) {
    return false;
  }
  if (!answer) return false;
  cache.keep(key, *answer);
  return *answer;
}

}  // namespace

bool probeAutogradRefuses(const Node& given) {
  Graph scratch;  // Note [Read sizes in probes]
  const Node* read = withReadSizesAtTheExample(given, scratch);
  if (!read) return false;
  const Node& call = *read;
  static ProbeCache<bool> cache;
  return answerUnderGrad(cache, call, [&] {
    std::unordered_map<const Node*, at::Tensor> values;
    call.forEachInput([&](const Node* n) {
      if (!values.count(n)) values.emplace(n, probeValues(*n->meta.val.tensor()));
    });
    return refusedUnderGrad(call, [&](const Node* n, bool detached) {
      const at::Tensor& t = values.at(n);
      return detached ? t.detach().clone() : cloneOf(t);
    });
  });
}

bool probeAutogradTakesWrite(const Node& given) {
  Graph scratch;  // Note [Read sizes in probes]
  const Node* read = withReadSizesAtTheExample(given, scratch);
  if (!read) return false;
  const Node& writer = *read;
  static ProbeCache<bool> cache;
  return answerUnderGrad(cache, writer, [&]() -> std::optional<bool> {
    // Fresh leaves on every run: autograd asks whether the written tensor is a leaf, and
    // a run's write changes it.
    const auto refused = refusedUnderGrad(writer, [&](const Node* n, bool detached) {
      at::Tensor t = probeValues(*n->meta.val.tensor());
      return detached ? t.detach() : t;
    });
    if (!refused) return std::nullopt;
    return !*refused;
  });
}

}  // namespace epsmith
