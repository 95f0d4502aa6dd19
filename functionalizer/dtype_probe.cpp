// Result dtypes by meta execution; see dtype_probe.h.
#include "functionalizer/dtype_probe.h"

#include <ATen/ATen.h>

#include <mutex>
#include <unordered_map>

#include "ir/text_format.h"
#include "oracle/aten_bridge.h"
#include "oracle/interpreter.h"

namespace epsmith {
namespace {

// Type promotion depends on each tensor's dtype and on whether it is 0-dim (or a wrapped
// number), and on the literal arguments (a float scalar, a dtype= keyword, rounding_mode),
// never on sizes: the cache key holds exactly those.
std::string cacheKey(const Node& call, bool with_sizes, bool* probeable) {
  std::string key = call.target.textName();
  auto tensorKey = [&](const Node* n) {
    const TensorMeta* m = n ? n->meta.val.tensor() : nullptr;
    if (!m) {
      *probeable = false;
      return;
    }
    key += shortName(m->dtype);
    key += m->sizes.empty() ? "z" : "t";
    if (with_sizes) {
      for (const auto& size : m->sizes) key += size.isConcrete() ? std::to_string(size.concrete()) + "," : "?,";
    }
  };
  auto one = [&](const Argument& a) {
    key += '|';
    switch (a.kind()) {
      case ArgKind::Tensor: tensorKey(a.get<arg::Tensor>()->node); break;
      case ArgKind::OptionalTensor:
        if (const Node* n = a.get<arg::OptionalTensor>()->node) tensorKey(n);
        break;
      case ArgKind::TensorList:
        for (const Node* n : a.get<arg::TensorList>()->nodes) tensorKey(n);
        break;
      case ArgKind::OptionalTensorList:
        for (const Node* n : a.get<arg::OptionalTensorList>()->nodes) {
          if (n) tensorKey(n);
          key += ',';
        }
        break;
      case ArgKind::IntList: case ArgKind::SymIntList:
        if (with_sizes) key += formatArgument(a);  // sizes never decide a dtype, but a shape
        break;
      default: {
        bool symbolic = false;
        a.forEachNode([&](const Node*) { symbolic = true; });
        if (symbolic) *probeable = false;
        key += formatArgument(a);
      }
    }
  };
  for (const auto& a : call.args) one(a);
  for (const auto& [name, a] : call.kwargs) {
    key += name;
    one(a);
  }
  return key;
}

at::Tensor placeholderTensor(const TensorMeta& m, c10::Device device, int fill) {
  std::vector<int64_t> sizes, strides;
  for (const auto& s : m.sizes) sizes.push_back(s.concrete());
  for (const auto& s : m.strides) strides.push_back(s.concrete());
  if (strides.size() != sizes.size()) return at::empty(sizes, at::TensorOptions().dtype(toAten(m.dtype)).device(device));
  auto t = at::empty_strided(sizes, strides, at::TensorOptions().dtype(toAten(m.dtype)).device(device));
  if (device.is_cpu()) t.fill_(fill);
  return t;
}

bool concreteMeta(const TensorMeta& m) {
  for (const auto& s : m.sizes) if (!s.isConcrete()) return false;
  for (const auto& s : m.strides) if (!s.isConcrete()) return false;
  return true;
}

// Runs `call` alone on tensors of its inputs' metadata on `device` (meta first; for kernels
// without a meta implementation, small CPU tensors of the same shapes, all `fill`).
std::optional<std::vector<ProbedReturn>> runAlone(const Node& call, c10::Device device, int fill = 0) {
  int64_t elements = 0;
  bool ok = true;
  call.forEachInput([&](const Node* n) {
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || !concreteMeta(*m)) {
      ok = false;
      return;
    }
    int64_t numel = 1;
    for (const auto& s : m->sizes) {
      const int64_t size = s.concrete();
      if (size < 0 || (size > 0 && numel > (int64_t{1} << 40) / size)) {
        ok = false;  // nonsense metadata: nothing to probe
        return;
      }
      numel *= size;
    }
    elements += numel;
  });
  if (!ok || (device.is_cpu() && elements > (1 << 16))) return std::nullopt;
  try {
    auto outcome = runSingleCall(call, [&](const Node* n) -> c10::IValue {
      return placeholderTensor(*n->meta.val.tensor(), device, fill);
    });
    if (outcome.error || outcome.outputs.empty()) return std::nullopt;
    std::vector<ProbedReturn> returns;
    auto add = [&](const at::Tensor& t) {
      returns.push_back({fromAten(t.scalar_type()), std::vector<int64_t>(t.sizes().begin(), t.sizes().end())});
    };
    const c10::IValue& v = outcome.outputs[0];
    if (v.isTensor()) {
      add(v.toTensor());
    } else if (v.isTuple()) {
      for (const auto& e : v.toTupleRef().elements()) {
        if (!e.isTensor()) return std::nullopt;
        add(e.toTensor());
      }
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) add(t);
    } else {
      return std::nullopt;
    }
    return returns;
  } catch (const std::exception&) {
    return std::nullopt;  // placeholder tensors that cannot be made (bad strides)
  }
}

}  // namespace

namespace {

constexpr size_t kMaxCachedProbes = 4096;

std::optional<std::vector<ProbedReturn>> probe(const Node& call, bool with_sizes) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::optional<std::vector<ProbedReturn>>> cache;
  bool probeable = call.target.kind() == Target::Kind::Aten;
  const std::string key = (with_sizes ? "S" : "D") + cacheKey(call, with_sizes, &probeable);
  if (!probeable) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  // On CPU, zeros first (a valid index into any dimension), then ones: an integer division
  // or remainder by a zero tensor raises (remainder.Scalar_Tensor has no meta kernel).
  auto returns = runAlone(call, c10::Device(c10::kMeta));
  if (!returns) returns = runAlone(call, c10::Device(c10::kCPU), 0);
  if (!returns) returns = runAlone(call, c10::Device(c10::kCPU), 1);
  std::lock_guard<std::mutex> lock(mu);
  // Keys with sizes are nearly unique in a fuzz campaign: a worker that runs for hours must
  // not keep every one. Starting over costs a few probes.
  if (cache.size() >= kMaxCachedProbes) cache.clear();
  cache.emplace(key, returns);
  return returns;
}

}  // namespace

std::optional<std::vector<ScalarType>> probeReturnDtypes(const Node& call) {
  auto returns = probe(call, false);
  if (!returns) return std::nullopt;
  std::vector<ScalarType> dtypes;
  for (const auto& r : *returns) dtypes.push_back(r.dtype);
  return dtypes;
}

std::optional<std::vector<ProbedReturn>> probeReturns(const Node& call) { return probe(call, true); }

}  // namespace epsmith
