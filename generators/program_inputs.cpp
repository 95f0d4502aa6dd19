// See program_inputs.h.
#include "generators/program_inputs.h"

#include <ATen/Dispatch.h>
#include <ATen/ops/empty.h>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <string>
#include <type_traits>

#include "oracle/aten_bridge.h"
#include "oracle/values.h"

namespace epsmith {
namespace {

// An element from a small integer v in [-6, 6]: v > 0 for bool, v for integers, v/2 for
// floating types (exact in every one of them).
template <typename T>
T smallValue(int64_t v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v > 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v);
  } else {
    return static_cast<T>(static_cast<float>(v) * 0.5f);
  }
}

class InputMaker {
 public:
  InputMaker(ExportedProgram& p, const GeneratorConfig& config, RandomSource& random)
      : config_(config), random_(random), p_(p) {}

  MadeInputs take() { return MadeInputs{std::move(pool_), std::move(read_only_), std::move(parameters_), effects_}; }

  // --- Placeholders and the signature -------------------------------------------------
  // torch.export's order: parameters, buffers, constants, then user inputs; each
  // lifted kind drawn by its weight, parameters only where a floating dtype is allowed.
  void addPlaceholders() {
    effects_ = random_.chance(config_.effects_percent);
    std::vector<ScalarType> floating;
    for (ScalarType d : config_.dtypes) {
      if (d == ScalarType::Float || d == ScalarType::Double || d == ScalarType::Half || d == ScalarType::BFloat16) {
        floating.push_back(d);
      }
    }
    std::vector<uint32_t> weights(std::begin(config_.state_weights), std::end(config_.state_weights));
    if (floating.empty()) weights[static_cast<int>(StateKind::Parameter)] = 0;
    std::vector<StateKind> kinds;
    const int64_t lifted = random_.range(0, config_.max_state);
    for (int64_t i = 0; i < lifted; ++i) {
      bool any = false;
      for (uint32_t w : weights) any = any || w > 0;
      if (any) kinds.push_back(static_cast<StateKind>(random_.weighted(weights)));
    }
    std::stable_sort(kinds.begin(), kinds.end(), [](StateKind a, StateKind b) {
      auto group = [](StateKind k) {
        return k == StateKind::NonPersistentBuffer ? 1 : static_cast<int>(k) > 1 ? 2 : static_cast<int>(k);
      };
      return group(a) < group(b);
    });
    int counts[kNumStateKinds] = {};
    for (StateKind k : kinds) addState(k, counts[static_cast<int>(k)]++, floating);
    const int inputs =
        static_cast<int>(random_.range(config_.min_inputs, std::max(config_.min_inputs, config_.max_inputs)));
    for (int i = 0; i < inputs; ++i) addInput("x" + std::to_string(i));
  }

  // A lifted parameter, buffer or constant: contiguous (as a module holds them), recorded in
  // the state dict (persistent buffers, parameters with requires_grad) or the constants
  // (non-persistent buffers, tensor constants). Constants are never written; parameters and
  // buffers only when drawn mutable, and parameters then only under no_grad, which eager
  // itself enforces (an in-place write to a leaf that requires grad raises).
  void addState(StateKind kind, int index, const std::vector<ScalarType>& floating) {
    const bool parameter = kind == StateKind::Parameter;
    const ScalarType dtype =
        parameter ? floating[random_.below(floating.size())] : config_.dtypes[random_.below(config_.dtypes.size())];
    at::Tensor value = randomTensor(dtype, randomSizes());
    if (parameter) value.requires_grad_(true);
    std::string target, name;
    InputKind input_kind = InputKind::Buffer;
    std::optional<bool> persistent;
    switch (kind) {
      case StateKind::Parameter:
        target = "weight" + std::to_string(index), name = "p_" + target, input_kind = InputKind::Parameter;
        break;
      case StateKind::PersistentBuffer:
        target = "running" + std::to_string(index), name = "b_" + target, persistent = true;
        break;
      case StateKind::NonPersistentBuffer:
        target = "scratch" + std::to_string(index), name = "b_" + target, persistent = false;
        break;
      case StateKind::Constant:
        target = "_tensor_constant" + std::to_string(index), name = "c_" + target.substr(1),
        input_kind = InputKind::ConstantTensor;
        break;
    }
    Node* n = p_.graph().append(OpKind::Placeholder, name);
    n->meta.val = tensorMetaOf(value);
    p_.signature.input_specs.push_back({input_kind, SpecArg::tensor(n->name()), target, persistent});
    TensorValue recorded = toTensorValue(value);  // before any op runs
    if (kind == StateKind::Parameter || kind == StateKind::PersistentBuffer) {
      p_.state_dict[target] = StateEntry{parameter, std::move(recorded)};
    } else {
      Constant c;
      c.tensor = std::move(recorded);
      p_.constants[target] = std::move(c);
    }
    const bool writable = kind != StateKind::Constant && random_.chance(config_.mutable_state_percent);
    if (!writable) read_only_.push_back(value);
    if (parameter) parameters_.push_back(value);
    pool_.push_back({n, value, true});
  }

  // --- Inputs -------------------------------------------------------------------------
  // Small integers (halves for floating dtypes, > 0 for bool), from a stream seeded by one
  // draw: a byte source spends 8 bytes on a tensor's values, not 8 per element.
  at::Tensor randomTensor(ScalarType dtype, const std::vector<int64_t>& sizes) {
    SeededSource values(random_.next());
    at::Tensor t = at::empty(sizes, at::TensorOptions().dtype(toAten(dtype)));
    const int64_t n = t.numel();
    AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, t.scalar_type(), "randomTensor", [&] {
      auto* data = t.data_ptr<scalar_t>();
      for (int64_t i = 0; i < n; ++i) data[i] = smallValue<scalar_t>(values.range(-6, 6));
    });
    return t;
  }

  std::vector<int64_t> randomSizes() {
    const int64_t rank = random_.range(0, config_.max_rank);
    std::vector<int64_t> sizes;
    for (int64_t d = 0; d < rank; ++d) sizes.push_back(random_.chance(5) ? 0 : random_.range(1, config_.max_dim));
    return sizes;
  }

  void addInput(const std::string& name) {
    const ScalarType dtype = config_.dtypes[random_.below(config_.dtypes.size())];
    const std::vector<int64_t> sizes = randomSizes();
    const auto rank = static_cast<int64_t>(sizes.size());
    at::Tensor value;
    if (!random_.chance(config_.noncontiguous_percent) || rank == 0) {
      value = randomTensor(dtype, sizes);
    } else {
      switch (random_.below(4)) {
        case 0: {  // a transposed view
          std::vector<int64_t> swapped(sizes.rbegin(), sizes.rend());
          std::vector<int64_t> order(static_cast<size_t>(rank));
          std::iota(order.rbegin(), order.rend(), 0);
          value = randomTensor(dtype, swapped).permute(order);
          break;
        }
        case 1: {  // every other row of a larger tensor
          std::vector<int64_t> bigger = sizes;
          bigger[0] = bigger[0] * 2;
          value = randomTensor(dtype, bigger).slice(0, 0, std::max<int64_t>(bigger[0], 1), 2);
          break;
        }
        case 2: {  // expanded along its first dim (stride 0: elements shared, never written)
          std::vector<int64_t> one = sizes;
          one[0] = 1;
          value = randomTensor(dtype, one).expand(sizes);
          break;
        }
        default: {  // an offset view into a larger storage
          int64_t numel = 1;
          for (int64_t s : sizes) numel *= s;
          at::Tensor base = randomTensor(dtype, {numel + 3});
          value = base.narrow(0, 3, numel).view(sizes);
          break;
        }
      }
    }
    // A leaf over the same memory, as every run's inputs are: a view keeps its base for
    // autograd, and after requires_grad_ of the input the views taken of it before (of
    // that base, which requires no grad) would take in-place calls that eager refuses.
    value = value.detach();
    Node* n = p_.graph().append(OpKind::Placeholder, name);
    n->meta.val = tensorMetaOf(value);
    p_.signature.input_specs.push_back({InputKind::UserInput, SpecArg::tensor(n->name()), std::nullopt, std::nullopt});
    InputValue input;
    input.kind = InputValue::Kind::Tensor;
    input.tensor = toTensorValue(value);  // recorded before any op runs
    p_.example_inputs.push_back(std::move(input));
    pool_.push_back({n, value, true});
  }

 private:
  const GeneratorConfig& config_;
  RandomSource& random_;
  ExportedProgram& p_;
  std::vector<Live> pool_;
  std::vector<at::Tensor> read_only_;
  std::vector<at::Tensor> parameters_;
  bool effects_ = false;
};

}  // namespace

MadeInputs addPlaceholders(ExportedProgram& p, const GeneratorConfig& config, RandomSource& random) {
  InputMaker maker(p, config, random);
  maker.addPlaceholders();
  return maker.take();
}

}  // namespace epsmith
