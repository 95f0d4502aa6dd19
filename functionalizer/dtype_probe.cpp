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
std::string cacheKey(const Node& call, bool* probeable) {
  std::string key = call.target.textName();
  auto tensorKey = [&](const Node* n) {
    const TensorMeta* m = n ? n->meta.val.tensor() : nullptr;
    if (!m) {
      *probeable = false;
      return;
    }
    key += shortName(m->dtype);
    key += m->sizes.empty() ? "z" : "t";
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
      case ArgKind::IntList: case ArgKind::SymIntList: break;  // sizes never decide a dtype
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

at::Tensor placeholderTensor(const TensorMeta& m, c10::Device device) {
  std::vector<int64_t> sizes, strides;
  for (const auto& s : m.sizes) sizes.push_back(s.concrete());
  for (const auto& s : m.strides) strides.push_back(s.concrete());
  if (strides.size() != sizes.size()) return at::empty(sizes, at::TensorOptions().dtype(toAten(m.dtype)).device(device));
  auto t = at::empty_strided(sizes, strides, at::TensorOptions().dtype(toAten(m.dtype)).device(device));
  if (device.is_cpu()) t.zero_();
  return t;
}

bool concreteMeta(const TensorMeta& m) {
  for (const auto& s : m.sizes) if (!s.isConcrete()) return false;
  for (const auto& s : m.strides) if (!s.isConcrete()) return false;
  return true;
}

// Copies `call` into a graph of its own whose placeholders stand for its tensor inputs, and
// runs it on `device` (meta first; CPU zeros of the same shapes for kernels without a meta
// implementation, when they are small).
std::optional<std::vector<ScalarType>> runAlone(const Node& call, c10::Device device) {
  Graph g;
  std::unordered_map<const Node*, Node*> inputs;
  std::vector<c10::IValue> values;
  int64_t elements = 0;
  bool ok = true;
  const_cast<Node&>(call).forEachInputRef([&](Node*& n) {
    if (inputs.count(n)) return;
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || !concreteMeta(*m)) {
      ok = false;
      return;
    }
    Node* p = g.appendRaw(OpKind::Placeholder, "p" + std::to_string(inputs.size()));
    p->meta.val = *m;
    inputs.emplace(n, p);
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
    values.push_back(c10::IValue());
  });
  if (!ok || (device.is_cpu() && elements > (1 << 16))) return std::nullopt;
  Node* copy = g.appendRaw(OpKind::CallFunction, "call");
  copy->target = call.target;
  copy->args = call.args;
  copy->kwargs = call.kwargs;
  copy->meta = call.meta;
  copy->forEachInputRef([&](Node*& n) { n = inputs.at(n); });
  Node* out = g.appendRaw(OpKind::Output, "output");
  out->args.push_back(arg::Tensor{copy});
  try {
    size_t i = 0;
    for (Node* p : g.placeholders()) values[i++] = placeholderTensor(*p->meta.val.tensor(), device);
    Interpreter interpreter(g);
    auto outcome = interpreter.run(values);
    if (outcome.error || outcome.outputs.empty()) return std::nullopt;
    std::vector<ScalarType> dtypes;
    const c10::IValue& v = outcome.outputs[0];
    if (v.isTensor()) {
      dtypes.push_back(fromAten(v.toTensor().scalar_type()));
    } else if (v.isTuple()) {
      for (const auto& e : v.toTupleRef().elements()) {
        if (!e.isTensor()) return std::nullopt;
        dtypes.push_back(fromAten(e.toTensor().scalar_type()));
      }
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) dtypes.push_back(fromAten(t.scalar_type()));
    } else {
      return std::nullopt;
    }
    return dtypes;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::vector<ScalarType>> probeReturnDtypes(const Node& call) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::optional<std::vector<ScalarType>>> cache;
  bool probeable = call.target.kind() == Target::Kind::Aten;
  const std::string key = cacheKey(call, &probeable);
  if (!probeable) return std::nullopt;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  auto dtypes = runAlone(call, c10::Device(c10::kMeta));
  if (!dtypes) dtypes = runAlone(call, c10::Device(c10::kCPU));
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(key, dtypes);
  return dtypes;
}

}  // namespace epsmith
