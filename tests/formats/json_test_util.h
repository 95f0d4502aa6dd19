// Helpers for the JSON format tests: small program builders and the round-trip check
// write → read → write (read back structurally equal, ir/program_diff.h).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "formats/json_format.h"
#include "ir/program.h"
#include "ops/targets.h"

namespace epsmith::testing {

Target target(const std::string& name);  // Target::parse, failing the test on error
Node* placeholder(Graph& g, const std::string& name, Val val);
Node* call(Graph& g, const std::string& name, const std::string& target_name, std::vector<Argument> args, Val val,
           std::vector<std::pair<std::string, Argument>> kwargs = {});
Node* output(Graph& g, std::vector<Argument> args);
TensorMeta f32(std::vector<int64_t> sizes);
// A contiguous tensor over a fresh storage holding `bytes`.
TensorValue tensorOf(ScalarType dtype, std::vector<int64_t> sizes, std::vector<uint8_t> bytes);

// write(p) reads back structurally equal to p and writes back byte for byte; `text` gets
// write(p).
::testing::AssertionResult roundTrips(const ExportedProgram& p, std::string* text = nullptr);

// x: f32[2, 3], y: f32[2, 3]; add = aten::add.Tensor(x, y); return (add), with its signature.
ExportedProgram addProgram();

}  // namespace epsmith::testing
