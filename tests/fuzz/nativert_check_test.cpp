// D9 (Note [What D9 hands NativeRT]): where this LibTorch has no NativeRT, D9 is skipped
// with the reason; with a runtime handed in, it finds what the runtime gets wrong and only
// that. Most builds link no NativeRT (Note [Where NativeRT is]), so the runtime of most
// tests here is a test double that keeps NativeRT's conventions (user inputs in, user outputs out,
// in-place writes landing in the inputs handed over, mutation outputs not applied,
// InferenceMode) and runs
// the archive with epsmith's eager interpreter, into which faults are planted.
#include <gtest/gtest.h>

#include <c10/core/InferenceMode.h>

#include <fstream>
#include <sstream>

#include "fuzz/checks.h"
#include "fuzz/workers.h"
#include "generators/graph_generator.h"
#include "generators/op_catalog.h"
#include "generators/random_source.h"
#include "oracle/aten_bridge.h"
#include "oracle/nativert.h"
#include "oracle/program_io.h"
#include "oracle/pt2_archive.h"
#include "oracle/run.h"
#include "tests/support/generator_config.h"

namespace epsmith {
namespace {

struct Faults {
  bool negate_first_output = false;
  bool drop_input_writes = false;
  std::string load_error;  // thrown at load when set
};

class InterpretedRuntime final : public ArchiveRuntime {
 public:
  explicit InterpretedRuntime(Faults faults = {}) : faults_(std::move(faults)) {}
  std::string name() const override { return "a NativeRT double"; }

  ArchiveRun run(const std::string& path, const std::string& model, std::vector<c10::IValue> inputs) override {
    ++runs;
    if (!faults_.load_error.empty()) return {ArchiveRun::Stage::Load, faults_.load_error, {}};
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    auto p = readProgramPt2(bytes.str());
    if (!p.ok() || model != "model")
      return {ArchiveRun::Stage::Load, "models/" + model + ".json not found in package", {}};
    std::vector<InputValue> user;
    StorageMemo memo;  // inputs that share memory keep sharing it
    for (const auto& v : inputs) {
      InputValue iv;
      if (v.isTensor()) iv.kind = InputValue::Kind::Tensor, iv.tensor = toTensorValue(v.toTensor(), memo);
      user.push_back(iv);
    }
    // Eager: the graph as it is, mutation outputs not applied (as NativeRT leaves them),
    // under InferenceMode (as NativeRT runs every model).
    c10::InferenceMode inference;
    RunResult r = runProgram(p.value(), user, RunOptions(RunMode::Eager));
    if (!r.ok()) return {ArchiveRun::Stage::Run, "Exception while executing node: " + r.error->str(), {}};
    size_t k = 0;
    for (const auto& spec : p->signature.input_specs) {
      if (spec.kind != InputKind::UserInput) continue;
      const c10::IValue& handed = inputs[k++];
      for (const auto& [name, value] : r.final_inputs) {
        if (name != "user_input:" + spec.arg.name || !handed.isTensor() || faults_.drop_input_writes) continue;
        // Written in place, as the graph's own ops would: only inputs the run changed (a
        // read-only expanded one cannot be), resized ones taking the new size.
        at::Tensor h = handed.toTensor();
        if (h.sizes() != value.sizes() || h.strides() != value.strides()) {
          h.set_(value);
        } else if (!h.equal(value)) {
          h.copy_(value);
        }
      }
    }
    if (faults_.negate_first_output && !r.outputs.empty() && r.outputs[0].isTensor()) {
      r.outputs[0] = r.outputs[0].toTensor().neg();
    }
    return {ArchiveRun::Stage::Ran, "", std::move(r.outputs)};
  }

  int runs = 0;

 private:
  Faults faults_;
};

ExportedProgram example(const char* name) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/examples/" + name);
  EXPECT_TRUE(p.ok()) << p.error().str();
  return std::move(p.value());
}

CheckOutcome d9(const ExportedProgram& p, ArchiveRuntime* runtime, std::optional<NativeForm> form) {
  CheckOptions options;
  options.archive_runtime = runtime;
  options.native_form = form;
  auto out = runChecks(p, {DiffCheck::D9}, options);
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? CheckOutcome{} : out[0];
}

std::string describe(const CheckOutcome& o) { return o.kind + " " + o.where + ": " + o.report; }

// Where this LibTorch links NativeRT (the `nativert` preset), D9 runs the real runtime: it
// agrees with eager on the examples in both forms, and on most flat generated programs it is
// handed (what it makes of higher-order ops is for campaigns to find, not for this test to
// assume). Each generated program runs in a child, for NativeRT's own kernels may write past
// their memory (2.11's mul.Scalar of a strided input does; docs/fuzzing.md).
TEST(NativeRtCheck, TheRealRuntimeAgreesWithEager) {
  std::string why;
  ArchiveRuntime* runtime = nativeRuntime(&why);
  if (!runtime) GTEST_SKIP() << why;
  for (const char* name : {"linear_counter.ept", "writes_through_views.ept"}) {
    for (NativeForm form : {NativeForm::Training, NativeForm::Aten}) {
      CheckOutcome o = d9(example(name), runtime, form);
      EXPECT_EQ(o.status, CheckOutcome::Status::Pass) << name << " " << nativeFormName(form) << ": " << describe(o);
    }
  }
  static const OpCatalog catalog = OpCatalog::build().value();
  const GeneratorConfig flat = test::withSources({{NodeSource::AtenCall, 1}});
  int passed = 0, ran = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededSource random(seed);
    auto p = generateProgram(catalog, flat, random);
    ASSERT_TRUE(p.ok());
    IsolatedOutcome o = runIsolated(
        [&] {
          CheckOptions options;
          options.archive_runtime = runtime;
          options.case_seed = seed;
          const CheckOutcome out = runChecks(p.value(), {DiffCheck::D9}, options)[0];
          return std::string(out.status == CheckOutcome::Status::Pass      ? "pass"
                             : out.status == CheckOutcome::Status::Skipped ? "skip"
                                                                           : "finding");
        },
        WorkerLimits{});
    ran += o.result && *o.result != "skip";
    passed += o.result == std::optional<std::string>("pass");
  }
  EXPECT_GT(ran, 10);
  EXPECT_GT(passed, ran / 2) << passed << " of " << ran;
}

TEST(NativeRtCheck, SkippedWithTheReasonWhereThisLibTorchHasNone) {
  std::string why;
  if (nativeRuntime(&why)) GTEST_SKIP() << "this LibTorch links NativeRT";
  EXPECT_NE(why.find("no NativeRT"), std::string::npos) << why;
  CheckOutcome o = d9(example("linear_counter.ept"), nullptr, std::nullopt);
  EXPECT_EQ(o.status, CheckOutcome::Status::Skipped);
  EXPECT_EQ(o.report, why);
}

TEST(NativeRtCheck, AFaithfulRuntimePassesBothForms) {
  InterpretedRuntime runtime;
  for (const char* name : {"linear_counter.ept", "writes_through_views.ept"}) {
    for (NativeForm form : {NativeForm::Training, NativeForm::Aten}) {
      CheckOutcome o = d9(example(name), &runtime, form);
      EXPECT_EQ(o.status, CheckOutcome::Status::Pass) << name << " " << nativeFormName(form) << ": " << describe(o);
    }
  }
  static const OpCatalog catalog = OpCatalog::build().value();
  int passed = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SeededSource random(seed);
    auto p = generateProgram(catalog, {}, random);
    ASSERT_TRUE(p.ok());
    CheckOptions options;
    options.archive_runtime = &runtime;
    options.case_seed = seed;  // the form drawn from it
    auto out = runChecks(p.value(), {DiffCheck::D9}, options);
    EXPECT_NE(out[0].status, CheckOutcome::Status::Finding) << "seed " << seed << ": " << describe(out[0]);
    passed += out[0].status == CheckOutcome::Status::Pass;
  }
  EXPECT_GT(passed, 30);
}

// linear_counter scales its input in place and returns relu(x @ w).
TEST(NativeRtCheck, FindsWhatTheRuntimeGetsWrong) {
  const ExportedProgram p = example("linear_counter.ept");
  InterpretedRuntime wrong_output({true, false, ""});
  for (NativeForm form : {NativeForm::Training, NativeForm::Aten}) {
    CheckOutcome o = d9(p, &wrong_output, form);
    ASSERT_EQ(o.status, CheckOutcome::Status::Finding) << describe(o);
    EXPECT_EQ(o.kind, "value-mismatch");
    EXPECT_EQ(o.where, "output 0");
    EXPECT_EQ(o.variant, nativeFormName(form));
    EXPECT_EQ(focusedOn(o).native_form, form);
    EXPECT_NE(o.report.find("a NativeRT double (the " + std::string(nativeFormName(form)) + " form)"),
              std::string::npos)
        << o.report;
  }
  // A write into a user input that does not land is seen in the TRAINING form; the ATEN
  // form's mutation outputs are out of NativeRT's sight.
  InterpretedRuntime lost_write({false, true, ""});
  CheckOutcome training = d9(p, &lost_write, NativeForm::Training);
  ASSERT_EQ(training.status, CheckOutcome::Status::Finding) << describe(training);
  EXPECT_EQ(training.where, "input user_input:x");
  EXPECT_EQ(d9(p, &lost_write, NativeForm::Aten).status, CheckOutcome::Status::Pass);
}

TEST(NativeRtCheck, RefusalsAreUnsupportedOrFindings) {
  const ExportedProgram p = example("linear_counter.ept");
  InterpretedRuntime unsupported({false, false, "Unsupported operator: torch._C._set_grad_enabled"});
  CheckOutcome o = d9(p, &unsupported, NativeForm::Training);
  EXPECT_EQ(o.status, CheckOutcome::Status::Skipped);
  EXPECT_EQ(o.report,
            "unsupported by a NativeRT double (Unsupported operator): Unsupported operator: "
            "torch._C._set_grad_enabled");
  InterpretedRuntime broken({false, false, "Missing weight: weight"});
  o = d9(p, &broken, NativeForm::Aten);
  ASSERT_EQ(o.status, CheckOutcome::Status::Finding);
  EXPECT_EQ(o.kind, "load-error");
  EXPECT_EQ(o.variant, "aten");
  EXPECT_EQ(o.message, "Missing weight: weight");
  // A kernel's exception comes wrapped with the node and its arguments: the finding's
  // message is the kernel's, the node's arguments cut.
  InterpretedRuntime kernel({false, false,
                             "Exception while executing node: %cos_ = torch.ops.aten.cos_.default(self=%mul)\n"
                             "with args:\narg0 self: Tensor double[8, 1, 7, 5]cpu\n\nunsupported operation: more "
                             "than one element of the written-to tensor refers to a single memory location.\n"
                             "Exception raised from assert_no_internal_overlap"});
  o = d9(p, &kernel, NativeForm::Aten);
  ASSERT_EQ(o.status, CheckOutcome::Status::Finding);
  EXPECT_EQ(
      o.message,
      "unsupported operation: more than one element of the written-to tensor refers to a single memory location.");
}

// A campaign case runs D9 on one case in N, drawn from its seed apart from the other draws.
TEST(NativeRtCheck, CampaignCasesSampleIt) {
  int drawn = 0;
  for (uint64_t seed = 1; seed <= 2000; ++seed) drawn += drawnFor(CheckDraw::NativeRt, seed, 10);
  EXPECT_GT(drawn, 120);
  EXPECT_LT(drawn, 300);
  EXPECT_TRUE(drawnFor(CheckDraw::NativeRt, 7, 1));
}

}  // namespace
}  // namespace epsmith
