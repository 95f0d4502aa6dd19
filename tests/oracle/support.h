// Helpers of the oracle's tests: inputs made from ATen tensors, and tensors compared
// exactly, with both printed where they differ.
#pragma once

#include <gtest/gtest.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/equal.h>

#include "oracle/aten_bridge.h"
#include "oracle/program_io.h"

#define EXPECT_TENSOR_EQ(a, b) EXPECT_TRUE(at::equal((a), (b))) << (a) << "\nvs\n" << (b)

namespace epsmith::test {

inline InputValue tensorInput(const at::Tensor& t) {
  InputValue v;
  v.kind = InputValue::Kind::Tensor;
  v.tensor = toTensorValue(t);
  return v;
}

}  // namespace epsmith::test
