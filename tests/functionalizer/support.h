// Test helpers for the functionalizer: programs from text with state and inputs filled in
// from their placeholders' metadata, and the differential check every case runs — the
// original eagerly against the functionalized program through the exported calling
// convention, on the same inputs.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "formats/text_format.h"
#include "functionalizer/functionalize.h"
#include "oracle/compare.h"
#include "oracle/run.h"
#include "tests/support/program_text.h"
#include "verifier/verifier.h"

namespace epsmith::test {

// Distinct, exactly representable values for every element of a storage.
inline std::shared_ptr<Storage> filledStorage(ScalarType dtype, int64_t elements, int seed) {
  auto s = std::make_shared<Storage>();
  s->dtype = dtype;
  s->bytes.resize(static_cast<size_t>(elements) * elementSize(dtype));
  for (int64_t i = 0; i < elements; ++i) {
    const int64_t k = (i * 7 + seed * 3) % 23 - 11;
    uint8_t* at = s->bytes.data() + i * elementSize(dtype);
    switch (dtype) {
      case ScalarType::Float: {
        float v = static_cast<float>(k) * 0.5f;
        std::memcpy(at, &v, 4);
        break;
      }
      case ScalarType::Double: {
        double v = static_cast<double>(k) * 0.25;
        std::memcpy(at, &v, 8);
        break;
      }
      case ScalarType::Long: std::memcpy(at, &k, 8); break;
      case ScalarType::Int: {
        int32_t v = static_cast<int32_t>(k);
        std::memcpy(at, &v, 4);
        break;
      }
      case ScalarType::Bool: *at = static_cast<uint8_t>(k & 1); break;
      default: break;  // zeros
    }
  }
  return s;
}

// A tensor with exactly the placeholder's sizes, strides and offset.
inline TensorValue valueFor(const TensorMeta& m, int seed) {
  TensorValue v;
  for (const auto& s : m.sizes) v.sizes.push_back(s.concrete());
  for (const auto& s : m.strides) v.strides.push_back(s.concrete());
  v.storage_offset = m.storage_offset.concrete();
  v.requires_grad = m.requires_grad;
  v.storage = filledStorage(m.dtype, std::max<int64_t>(v.requiredStorageElements(), 1), seed);
  return v;
}

// Gives every parameter and buffer without state, and every user input, a value.
inline void fillState(ExportedProgram& p) {
  auto placeholders = p.graph().placeholders();
  const bool need_inputs = p.example_inputs.empty();
  for (size_t i = 0; i < p.signature.input_specs.size() && i < placeholders.size(); ++i) {
    const InputSpec& spec = p.signature.input_specs[i];
    const TensorMeta* m = placeholders[i]->meta.val.tensor();
    if (!m) continue;
    if ((spec.kind == InputKind::Parameter || spec.kind == InputKind::Buffer) && spec.target &&
        !p.state_dict.count(*spec.target)) {
      p.state_dict[*spec.target] = StateEntry{spec.kind == InputKind::Parameter, valueFor(*m, static_cast<int>(i))};
    } else if (spec.kind == InputKind::UserInput && need_inputs) {
      InputValue v;
      v.kind = InputValue::Kind::Tensor;
      v.tensor = valueFor(*m, static_cast<int>(i));
      p.example_inputs.push_back(v);
    }
  }
}

inline ExportedProgram program(const std::string& graph_and_signature) {
  auto p = parse("program {\n  verifiers [\"TRAINING\"]\n}\n" + graph_and_signature);
  fillState(p);
  return p;
}

// `body` mutates %x (f32[4, 6]) through views and returns %out.
inline ExportedProgram onX(const std::string& body, const std::string& x_meta = "f32[4, 6]") {
  return program("graph {\n  %x: " + x_meta + " = placeholder\n" + body +
                 "}\nsignature {\n  input user_input %x\n  output user_output %out\n}\n");
}

inline std::string verifyAten(const ExportedProgram& p) {
  std::string out;
  for (const auto& d : verify(p, *findDialect("ATEN"))) out += d.str() + "\n";
  return out;
}

// Note [Programs a LibTorch refuses]
// Some out= and view programs that LibTorch 1.13 runs eagerly are refused by 2.x's stricter
// checks (an out= whose dtype is not its result's, norm's narrowing dtype, view.dtype on a
// stride its element size does not divide). Where eager refuses a program there is nothing
// for the functionalizer to agree with, and the generators never make one: a test of such a
// program is skipped on the LibTorch that refuses it, with eager's message, and runs on the
// others (CI builds both).
inline std::optional<std::string> eagerRefuses(const ExportedProgram& p, bool grad_enabled = true) {
  RunResult eager =
      runProgram(p, RunOptions(RunMode::Eager, Device(), grad_enabled ? GradMode::Enabled : GradMode::NoGrad));
  if (eager.ok()) return std::nullopt;
  return eager.error->str();
}
#define EPSMITH_SKIP_WHERE_EAGER_REFUSES(p)                    \
  if (auto epsmith_refused = ::epsmith::test::eagerRefuses(p)) \
  GTEST_SKIP() << "this LibTorch refuses the program eagerly " \
                  "(Note [Programs a LibTorch refuses]): "     \
               << *epsmith_refused

// Functionalizes `p` and checks the D1 contract; returns the functional program.
inline ExportedProgram functionalAgreesWithEager(const ExportedProgram& p, FunctionalizeOptions options = {}) {
  auto result = functionalize(p, options);
  EXPECT_TRUE(result.ok()) << result.error().str() << "\n" << printProgramText(p);
  if (!result.ok()) return ExportedProgram();
  const ExportedProgram& f = result.value();
  EXPECT_EQ(verifyAten(f), "") << printProgramText(f);
  GradMode grad = options.grad_enabled ? GradMode::Enabled : GradMode::NoGrad;
  RunResult eager = runProgram(p, RunOptions(RunMode::Eager, Device(), grad));
  EXPECT_TRUE(eager.ok()) << "the original must run eagerly: " << eager.error->str();
  RunResult functional = runProgram(f, RunOptions(RunMode::Exported, Device(), grad));
  Verdict v = compareResults(eager, functional);
  EXPECT_TRUE(v.match()) << verdictKindName(v.kind) << " at " << v.where << "\n"
                         << v.report << "\n"
                         << printProgramText(f);
  return f.clone();
}

// For a test of several programs: the D1 contract for each this LibTorch runs eagerly; one
// it refuses is named on standard output and skipped (Note [Programs a LibTorch refuses]).
inline void functionalAgreesWithEagerWhereItRuns(const ExportedProgram& p) {
  if (auto why = eagerRefuses(p)) {
    std::cout << "[ REFUSED  ] this LibTorch refuses one program eagerly: " << *why << "\n";
    return;
  }
  functionalAgreesWithEager(p);
}

inline std::string outputKinds(const ExportedProgram& p) {
  std::string s;
  for (const auto& spec : p.signature.output_specs) {
    if (!s.empty()) s += ", ";
    s += std::string(outputKindName(spec.kind));
    if (spec.target) s += " " + *spec.target;
  }
  return s;
}

inline std::string targets(const ExportedProgram& p) {
  std::string s;
  for (const Node& n : p.graph().nodes()) {
    if (n.op() != OpKind::CallFunction) continue;
    if (!s.empty()) s += " ";
    s += n.target.textName();
  }
  return s;
}

inline std::string rejection(const ExportedProgram& p, FunctionalizeOptions options = {}) {
  auto result = functionalize(p, options);
  EXPECT_FALSE(result.ok()) << printProgramText(result.value());
  return result.ok() ? "" : result.error().str();
}

}  // namespace epsmith::test
