// Drawing a call's arguments from the values a program under generation holds
// (Note [Arguments from names], argument_draws.cpp): the graph generator's, split out.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "generators/graph_generator.h"
#include "generators/random_source.h"
#include "ir/argument.h"
#include "ir/graph.h"
#include "ir/op_info.h"

namespace epsmith {

// A value of the program under generation: a node and the tensor it holds.
struct Live {
  Node* node;
  at::Tensor value;
  bool input = false;  // the very tensor object of a graph input (export bans changing its metadata)
};

class ArgumentDraws {
 public:
  // The generator's own state, read as it grows: its values, the tensors never written,
  // and whether the program may call ops the functionalizer refuses.
  ArgumentDraws(const GeneratorConfig& config, RandomSource& random, const std::vector<Live>& pool,
                const std::vector<at::Tensor>& read_only, const bool& may_call_refused)
      : config_(config), random_(random), pool_(pool), read_only_(read_only), may_call_refused_(may_call_refused) {}

  // Before the first argument of a call; `first`, where given, is the call's first tensor
  // argument unless the call writes it (a view chain's link before).
  void startCall(const Live* first = nullptr) {
    last_list_.clear();
    first_ = first;
  }
  // An argument for `p` of `op`: `ref` is the call's first tensor, `self` says that the
  // call writes it (`metadata`: its metadata); nullopt where none can be drawn.
  std::optional<Argument> argumentFor(const OpInfo& op, const ParamInfo& p, const at::Tensor* ref, bool self,
                                      bool metadata);

 private:
  const Live& anyTensor();
  const Live& firstTensor();
  const Live* writableTensor(bool metadata = false);
  bool readOnly(const at::Tensor& t) const;
  const Live& likeTensor(const at::Tensor* ref);
  std::vector<int64_t> shapeLike(const at::Tensor& ref, bool infer);

  const GeneratorConfig& config_;
  RandomSource& random_;
  const std::vector<Live>& pool_;
  const std::vector<at::Tensor>& read_only_;
  const bool& may_call_refused_;
  std::vector<int64_t> last_list_;  // the int list drawn last (as_strided's sizes, movedim's source)
  const Live* first_ = nullptr;     // startCall's `first`
};

}  // namespace epsmith
