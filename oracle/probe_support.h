// What the probes share (the functionalizer's dtype_probe.cpp, autograd_probe.cpp,
// out_form_probe.cpp and oracle/alias_probe.cpp, each running a call alone on small CPU
// tensors): their cache, its keys, and the values they run calls on. Includes LibTorch: for
// those files only.
#pragma once

#include <ATen/core/Tensor.h>

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "ir/graph.h"

namespace epsmith::probe_detail {

constexpr size_t kMaxCachedProbes = 4096;

// A probe's settled answers by key, shared by a worker's threads. Keys with sizes are nearly
// unique in a fuzz campaign: a worker that runs for hours must not keep every one, and
// starting over costs a few probes.
template <typename T>
class ProbeCache {
 public:
  std::optional<T> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = answers_.find(key);
    return it == answers_.end() ? std::nullopt : std::optional<T>(it->second);
  }
  void keep(const std::string& key, T answer) {
    std::lock_guard<std::mutex> lock(mu_);
    if (answers_.size() >= kMaxCachedProbes) answers_.clear();
    answers_.emplace(key, std::move(answer));
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, T> answers_;
};

// Note [Read sizes in probes]: `call` with each SymInt argument that names a node (a size
// read as a value, Note [Sizes read as values]) given as the node's value at the example,
// the new node made in `scratch`; `call` itself where it has none, and null where a read
// has no integer value at the example.
const Node* withReadSizesAtTheExample(const Node& call, Graph& scratch);

// Note [Probe answers are the key's alone]: the op, its argument dtypes (and grad), its
// literals and, `with_sizes`, its sizes; `probeable` is cleared where an argument is none
// of those.
std::string cacheKey(const Node& call, bool with_sizes, bool* probeable);
// Whether `m`'s sizes and strides have values at the example (SymIntValue::atHint):
// concrete, or symbolic with a hint. A probe of a symbolic program runs at its example,
// for what does not depend on the size (a dtype, an alias, autograd's refusal).
bool concreteMeta(const TensorMeta& m);
// Whether every input of `call` has such a real meta and the inputs are small enough to
// run the call on (65 536 elements).
bool smallConcreteInputs(const Node& call);
// The step between the Wide set's integers of `dtype`, none of which may overflow it, nor a
// sum of a hundred; 0 for a dtype the set leaves assorted.
double wideScale(ScalarType dtype);
// Which values probeValues fills a tensor with: assorted; near one another; for an integer
// dtype, odd integers of large magnitude, or small odd ones (all true for bool; the
// assorted ones elsewhere).
enum class ProbeFill : uint8_t { Assorted, Close, Wide, Odd };
// Values of `m`'s sizes and dtype, requiring grad where `m` does.
at::Tensor probeValues(const TensorMeta& m, ProbeFill fill = ProbeFill::Assorted);
// How far `candidate` is from `eager`, element by element in order, in units of the
// tolerance: at most 1 where they agree (floating-point values within D1's tolerance for
// their dtype or the probe's tighter one, other values exactly), infinite where they do not.
double distance(const at::Tensor& eager, const at::Tensor& candidate);

}  // namespace epsmith::probe_detail
