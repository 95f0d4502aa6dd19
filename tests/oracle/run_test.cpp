// The eager oracle against direct ATen calls: every expected value here is computed in the
// test with ATen, independently of the interpreter.
#include <gtest/gtest.h>

#include <map>

#include <ATen/core/Tensor.h>
#include <ATen/FunctionalTensorWrapper.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/add.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/equal.h>
#include <ATen/ops/full.h>
#include <ATen/ops/max.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/split.h>
#include <ATen/ops/sub.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>
#include <ATen/FunctionalTensorWrapper.h>

#include "oracle/program_io.h"
#include "formats/text_format.h"
#include "oracle/aten_bridge.h"
#include "oracle/interpreter.h"
#include "oracle/libtorch_compat.h"
#include "oracle/run.h"
#include "tests/oracle/support.h"
#include "tests/support/planted_fault.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

using test::parse;
using test::tensorInput;

at::Tensor finalInput(const RunResult& r, const std::string& name) {
  for (const auto& [n, t] : r.final_inputs) {
    if (n == name) return t;
  }
  ADD_FAILURE() << "no final value for " << name;
  return at::Tensor();
}

const at::Tensor kX = at::arange(6, at::kFloat).reshape({2, 3}).add(1);
const at::Tensor kY = at::full({2, 3}, 0.5);

TEST(Oracle, InPlaceOnAUserInputMutatesTheCallersTensor) {
  auto p = parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2, 3] = placeholder
  %y: f32[2, 3] = placeholder
  %add_: f32[2, 3] = aten::add_.Tensor(%x, %y, alpha=2)
  %mul: f32[2, 3] = aten::mul.Tensor(%add_, %y)
  return (%mul)
}
signature {
  input user_input %x
  input user_input %y
  output user_output %mul
}
)EPT");
  auto r = runProgram(p, {tensorInput(kX), tensorInput(kY)}, {RunMode::Eager});
  ASSERT_TRUE(r.ok()) << r.error->str();
  at::Tensor x_after = at::add(kX, kY, 2);
  EXPECT_TENSOR_EQ(finalInput(r, "user_input:x"), x_after);
  EXPECT_TENSOR_EQ(finalInput(r, "user_input:y"), kY);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::mul(x_after, kY));
}

TEST(Oracle, WritesThroughViewsReachTheBase) {
  auto p = parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2, 3] = placeholder
  %row: f32[3] = aten::select.int(%x, 0, 1)
  %mul_: f32[3] = aten::mul_.Scalar(%row, 10)
  %t: f32[3, 2]<stride=[1, 3]> = aten::t(%x)
  %diag: f32[2]<stride=[4]> = aten::diagonal(%t)
  %zero_: f32[2]<stride=[4]> = aten::zero_(%diag)
  %clone: f32[2, 3] = aten::clone(%x)
  return (%clone)
}
signature {
  input user_input %x
  output user_output %clone
}
)EPT");
  auto r = runProgram(p, {tensorInput(kX)}, {RunMode::Eager});
  ASSERT_TRUE(r.ok()) << r.error->str();
  at::Tensor expected = kX.clone();
  expected.select(0, 1).mul_(10);
  expected.t().diagonal().zero_();
  EXPECT_TENSOR_EQ(finalInput(r, "user_input:x"), expected);
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), expected);
}

TEST(Oracle, OutOverloadsWriteIntoTheirOutArgument) {
  auto p = parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2, 3] = placeholder
  %y: f32[2, 3] = placeholder
  %z: f32[2, 3] = placeholder
  %add: f32[2, 3] = aten::add.out(%x, %y, out=%z)
  return (%add)
}
signature {
  input user_input %x
  input user_input %y
  input user_input %z
  output user_output %add
}
)EPT");
  auto r = runProgram(p, {tensorInput(kX), tensorInput(kY), tensorInput(at::zeros({2, 3}))}, {RunMode::Eager});
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_TENSOR_EQ(finalInput(r, "user_input:z"), at::add(kX, kY));
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::add(kX, kY));
}

TEST(Oracle, MultiOutputOpsAndGetItem) {
  auto p = parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %max: (f32[2], i64[2]) = aten::max.dim(%x, 1)
  %values: f32[2] = operator.getitem(%max, 0)
  %indices: i64[2] = operator.getitem(%max, 1)
  %split: (f32[2, 2], f32[2, 1]) = aten::split.Tensor(%x, 2, 1)
  %last: f32[2, 1] = operator.getitem(%split, -1)
  return (%values, %indices, %last)
}
signature {
  input user_input %x
  output user_output %values
  output user_output %indices
  output user_output %last
}
)EPT");
  at::Tensor x = at::randn({2, 3});
  auto r = runProgram(p, {tensorInput(x)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  auto [values, indices] = at::max(x, 1);
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), values);
  EXPECT_TENSOR_EQ(r.outputs[1].toTensor(), indices);
  EXPECT_TENSOR_EQ(r.outputs[2].toTensor(), at::split(x, 2, 1).back());
}

// The functional form of buffer and user-input mutation: the calling convention writes the
// mutation outputs back.
const char* kCallingConvention = R"EPT(graph {
  %b_count: f32[3] = placeholder
  %x: f32[3] = placeholder
  %add: f32[3] = aten::add.Tensor(%b_count, 1)
  %mul: f32[3] = aten::mul.Tensor(%x, 2)
  %sum: f32[3] = aten::add.Tensor(%add, %mul)
  return (%add, %mul, %sum)
}
signature {
  input buffer %b_count -> "count" persistent=True
  input user_input %x
  output buffer_mutation %add -> "count"
  output user_input_mutation %mul -> "x"
  output user_output %sum
}
storages {
  $0: f32[3] = [1.0, 2.0, 3.0]
}
state {
  buffer "count" = $0 f32[3]
}
)EPT";

TEST(Oracle, ExportedCallingConventionWritesMutationsBack) {
  auto p = parse(kCallingConvention);
  at::Tensor x = at::tensor({5.0f, 6.0f, 7.0f});
  at::Tensor count = at::tensor({1.0f, 2.0f, 3.0f});
  auto r = runProgram(p, {tensorInput(x)}, {RunMode::Exported});
  ASSERT_TRUE(r.ok()) << r.error->str();
  ASSERT_EQ(r.outputs.size(), 1u);  // only user outputs come back
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::add(count, 1).add(at::mul(x, 2)));
  EXPECT_TENSOR_EQ(finalInput(r, "buffer:count"), at::add(count, 1));
  EXPECT_TENSOR_EQ(finalInput(r, "user_input:x"), at::mul(x, 2));
  // Eager mode skips the write-back: the functional graph mutates nothing.
  auto eager = runProgram(p, {tensorInput(x)}, {RunMode::Eager});
  ASSERT_TRUE(eager.ok());
  EXPECT_TENSOR_EQ(finalInput(eager, "buffer:count"), count);
  EXPECT_TENSOR_EQ(finalInput(eager, "user_input:x"), x);
}

const char* kParameterMutation = R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %p_w: f32[3]<requires_grad=True> = placeholder
  %x: f32[3] = placeholder
  %off = torch._C._set_grad_enabled(False)
  %div_: f32[3]<requires_grad=True> = aten::div_.Scalar(%p_w, 2)
  %on = torch._C._set_grad_enabled(True)
  %mul: f32[3]<requires_grad=True> = aten::mul.Tensor(%x, %p_w)
  return (%mul)
}
signature {
  input parameter %p_w -> "w"
  input user_input %x
  output user_output %mul
}
storages {
  $0: f32[3] = [2.0, 4.0, 6.0]
}
state {
  parameter "w" = $0 f32[3]<requires_grad=True>
}
)EPT";

TEST(Oracle, ParameterMutationUnderNoGradRegion) {
  auto p = parse(kParameterMutation);
  p.graph().find("off")->meta.val = Val::None{};
  p.graph().find("on")->meta.val = Val::None{};
  at::Tensor x = at::tensor({1.0f, 2.0f, 3.0f});
  auto r = runProgram(p, {tensorInput(x)}, {RunMode::Eager});
  ASSERT_TRUE(r.ok()) << r.error->str();
  at::Tensor w = at::tensor({1.0f, 2.0f, 3.0f});
  EXPECT_TENSOR_EQ(finalInput(r, "parameter:w"), w);
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::mul(x, w));
  EXPECT_TRUE(at::GradMode::is_enabled());  // the run restored the caller's grad mode
}

TEST(Oracle, ParameterMutationUnderGradIsAnErrorOfTheOp) {
  auto p = parse(kParameterMutation);
  // Remove the no_grad region: div_ now runs on a leaf that requires grad.
  p.graph().find("off")->args[0] = arg::Bool{true};
  auto r = runProgram(p, {tensorInput(at::ones({3}))}, {RunMode::Eager});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->node, "div_");
  EXPECT_EQ(r.error->op, "aten::div_.Scalar");
  EXPECT_NE(r.error->message.find("leaf Variable that requires grad"), std::string::npos) << r.error->message;
  // The whole run may also be asked to happen without grad (here the region's end keeps it off).
  p.graph().find("on")->args[0] = arg::Bool{false};
  p.graph().find("off")->args[0] = arg::Bool{false};
  auto no_grad = runProgram(p, {tensorInput(at::ones({3}))}, {RunMode::Eager, Device{}, GradMode::NoGrad});
  EXPECT_TRUE(no_grad.ok());
}

TEST(Oracle, AnOpThatThrowsIsAResult) {
  auto p = parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %mm: f32[2, 2] = aten::mm(%x, %x)
  return (%mm)
}
signature {
  input user_input %x
  output user_output %mm
}
)EPT");
  auto r = runProgram(p, {tensorInput(kX)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->node, "mm");
  EXPECT_EQ(r.error->op, "aten::mm");
  EXPECT_NE(r.error->message.find("cannot be multiplied"), std::string::npos) << r.error->message;
  // Wrong number of user inputs is an error too, not a crash.
  EXPECT_FALSE(runProgram(p, std::vector<InputValue>{}).ok());
}

TEST(Oracle, LibTorchFunctionalizationAgreesWithEagerOnMutations) {
  auto p = parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2, 3] = placeholder
  %zeros: f32[2, 3] = aten::zeros([2, 3], dtype=torch.float32)
  %row: f32[3] = aten::select.int(%x, 0, 0)
  %add_: f32[3] = aten::add_.Scalar(%row, 1)
  %copy_: f32[2, 3] = aten::copy_(%zeros, %x)
  %mul_: f32[2, 3] = aten::mul_.Scalar(%zeros, 3)
  return (%zeros)
}
signature {
  input user_input %x
  output user_output %zeros
}
)EPT");
  auto eager = runProgram(p, {tensorInput(kX)}, {RunMode::Eager});
  auto functional = runProgram(p, {tensorInput(kX)}, {RunMode::LibTorchFunctionalize});
  ASSERT_TRUE(eager.ok()) << eager.error->str();
  ASSERT_TRUE(functional.ok()) << functional.error->str();
  at::Tensor x = kX.clone();
  x.select(0, 0).add_(1);
  EXPECT_TENSOR_EQ(finalInput(eager, "user_input:x"), x);
  EXPECT_TENSOR_EQ(finalInput(functional, "user_input:x"), x);
  EXPECT_TENSOR_EQ(eager.outputs[0].toTensor(), x.mul(3));
  EXPECT_TENSOR_EQ(functional.outputs[0].toTensor(), x.mul(3));
  EXPECT_FALSE(at::functionalization::impl::isFunctionalTensor(functional.outputs[0].toTensor()));
}

TEST(Oracle, BuiltinsComputeSymbolicSizes) {
  auto p = parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %n: 3 = aten::size.int(%x, 1)
  %twice: 6 = operator.mul(sym_int(%n), 2)
  %half: 1 = operator.floordiv(sym_int(%n), -2)
  %view: f32[6] = aten::view(%x, sym_ints[%twice])
  return (%view, sym_int(%half))
}
signature {
  input user_input %x
  output user_output %view
  output user_output sym_int(%half)
}
)EPT");
  auto r = runProgram(p, {tensorInput(kX)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), kX.view({6}));
  EXPECT_EQ(r.outputs[1].toInt(), -2);  // Python floors: 3 // -2 == -2
}

TEST(Oracle, CudaRequestsFailCleanlyWithoutCuda) {
  auto p = parse(kCallingConvention);
  RunOptions options;
  options.device = Device{"cuda", 0};
  auto r = runProgram(p, {tensorInput(at::ones({3}))}, options);
  if (cudaAvailable()) {
    ASSERT_TRUE(r.ok()) << r.error->str();
    auto cpu = runProgram(p, {tensorInput(at::ones({3}))});
    EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), cpu.outputs[0].toTensor());
    GTEST_SKIP() << "CUDA is available: ran the CUDA path instead";
  }
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error->message, "CUDA not available in this LibTorch build");
}

// Note [CUDA errors that end the process]: the errors after which a process's CUDA context
// is unusable, as LibTorch words them, and some that are not.
TEST(Oracle, StickyCudaErrorsAreTold) {
  EXPECT_TRUE(leavesCudaUnusable("CUDA error: device-side assert triggered"));
  EXPECT_TRUE(leavesCudaUnusable("CUDA error: an illegal memory access was encountered"));
  EXPECT_TRUE(leavesCudaUnusable("CUDA error: unspecified launch failure"));
  EXPECT_FALSE(leavesCudaUnusable("CUDA error: out of memory"));
  EXPECT_FALSE(leavesCudaUnusable("CUDA error: invalid argument"));
  EXPECT_FALSE(leavesCudaUnusable("index 3 is out of bounds for dimension 0 with size 2"));
}

TEST(Oracle, AliasingStateSharesStorage) {
  auto p = parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %b_a: f32[4] = placeholder
  %b_b: f32[2] = placeholder
  %fill_: f32[2] = aten::fill_.Scalar(%b_b, 9)
  %clone: f32[4] = aten::clone(%b_a)
  return (%clone)
}
signature {
  input buffer %b_a -> "a" persistent=True
  input buffer %b_b -> "b" persistent=True
  output user_output %clone
}
storages {
  $0: f32[4] = [1.0, 2.0, 3.0, 4.0]
}
state {
  buffer "a" = $0 f32[4]
  buffer "b" = $0 f32[2]<offset=2>
}
)EPT");
  auto r = runProgram(p, std::vector<InputValue>{}, {RunMode::Eager});
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::tensor({1.0f, 2.0f, 9.0f, 9.0f}));
}

TEST(Oracle, PythonNumbersForTensorParametersAreWrappedNumbers) {
  // int32 + 1 stays int32 in Python: the literal is a wrapped number, not an int64 tensor;
  // a size computed in the graph and passed for a Tensor is wrapped the same way.
  ExportedProgram fixed = parse(R"EPT(graph {
  %x: i32[] = placeholder
  %v: f32[3] = placeholder
  %s: 3 = aten::size.int(%v, 0)
  %add: i32[] = aten::add.Tensor(%x, 1)
  %mul: f32[3] = aten::mul.Tensor(%v, sym_int(%s))
  return (%add, %mul)
}
signature {
  input user_input %x
  input user_input %v
  output user_output %add
  output user_output %mul
}
)EPT");
  at::Tensor x = at::full({}, 5, at::kInt);
  at::Tensor v = at::tensor({1.0f, 2.0f, 3.0f});
  auto r = runProgram(fixed, {tensorInput(x), tensorInput(v)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_EQ(r.outputs[0].toTensor().scalar_type(), at::kInt);
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::add(x, 1));
  EXPECT_TENSOR_EQ(r.outputs[1].toTensor(), at::mul(v, 3));
}

// Note [One plan for the runs of a program]: a plan whose literals hold no tensor serves
// any number of runs, and each gives what a run with a fresh plan gives (inputs are fresh
// per run, so in-place writes do not carry over); a literal number passed for a Tensor
// parameter is a planned tensor, so that plan serves one run.
TEST(Oracle, OnePlanServesManyRunsUnlessItHoldsTensors) {
  ExportedProgram mutating = parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %row: f32[3] = aten::select.int(%x, 0, 1)
  %mul_: f32[3] = aten::mul_.Scalar(%row, 3)
  %sum: f32[] = aten::sum(%x)
  return (%mul_, %sum)
}
signature {
  input user_input %x
  output user_output %mul_
  output user_output %sum
}
)EPT");
  Interpreter plan(mutating.graph());
  ASSERT_TRUE(plan.servesManyRuns());
  const std::vector<InputValue> inputs = {tensorInput(kX)};
  const RunResult fresh = runProgram(mutating, inputs, {RunMode::Eager});
  ASSERT_TRUE(fresh.ok()) << fresh.error->str();
  for (RunMode mode : {RunMode::Eager, RunMode::LibTorchFunctionalize, RunMode::Eager}) {
    RunOptions options(mode);
    options.plan = &plan;
    const RunResult again = runProgram(mutating, inputs, options);
    ASSERT_TRUE(again.ok()) << again.error->str();
    EXPECT_TENSOR_EQ(again.outputs[0].toTensor(), fresh.outputs[0].toTensor());
    EXPECT_TENSOR_EQ(finalInput(again, "user_input:x"), finalInput(fresh, "user_input:x"));
  }
  at::Tensor written = kX.clone();
  written[1].mul_(3);
  EXPECT_TENSOR_EQ(finalInput(fresh, "user_input:x"), written);

  ExportedProgram wrapped = parse(R"EPT(graph {
  %x: i32[] = placeholder
  %add: i32[] = aten::add.Tensor(%x, 1)
  return (%add)
}
signature {
  input user_input %x
  output user_output %add
}
)EPT");
  EXPECT_FALSE(Interpreter(wrapped.graph()).servesManyRuns());
}

// Note [Programs moved to a device]: planned for another device (the meta device, which
// every build has, stands in for CUDA), a program's number literals and the device of its
// factory calls, given or defaulted, go there too, so nothing is made elsewhere. Planned
// for CPU, the same program on a meta input mixes devices and raises.
TEST(Oracle, AProgramPlannedForADeviceRunsEntirelyThere) {
  ExportedProgram p = parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %zeros: f32[2, 3] = aten::zeros([2, 3])
  %full: f32[3] = aten::full([3], 1.5, device=device("cpu"))
  %add: f32[2, 3] = aten::add.Tensor(%x, 2)
  %mul: f32[2, 3] = aten::mul.Tensor(%add, %zeros)
  %sub: f32[2, 3] = aten::sub.Tensor(%mul, %full)
  return (%sub)
}
signature {
  input user_input %x
  output user_output %sub
}
)EPT");
  const std::vector<c10::IValue> inputs = {at::empty({2, 3}, at::TensorOptions().device(c10::kMeta))};
  Interpreter meta(p.graph(), c10::kMeta);
  EXPECT_EQ(meta.device(), c10::Device(c10::kMeta));
  Interpreter::Outcome moved = meta.run(inputs);
  ASSERT_FALSE(moved.error) << moved.error->str();
  EXPECT_TRUE(moved.outputs[0].toTensor().is_meta());
  EXPECT_EQ(moved.outputs[0].toTensor().sizes(), at::IntArrayRef({2, 3}));
  Interpreter::Outcome mixed = Interpreter(p.graph()).run(inputs);
  ASSERT_TRUE(mixed.error);
  EXPECT_EQ(mixed.error->node, "mul") << mixed.error->str();
}

// cloneOf makes what clone makes (sizes, strides, dtype, values, no shared memory, no
// autograd history), by a byte copy for dense tensors and through clone for the rest.
TEST(Oracle, CloneOfIsClone) {
  const at::Tensor base = at::arange(24, at::kDouble).reshape({2, 3, 4});
  std::vector<at::Tensor> cases = {base,
                                   base.permute({2, 0, 1}),
                                   base.transpose(0, 1),
                                   base[1],
                                   base.select(2, 3),
                                   base.unsqueeze(1),
                                   base.expand({3, 2, 3, 4}),
                                   base.slice(2, 0, 4, 2),
                                   at::empty({0, 3}),
                                   at::full({}, 7, at::kLong),
                                   base[0].to(at::kHalf).t(),
                                   at::ones({2, 2}).requires_grad_(true)};
  for (const at::Tensor& t : cases) {
    const at::Tensor expected = t.clone();
    const at::Tensor copy = cloneOf(t);
    EXPECT_EQ(copy.sizes(), expected.sizes());
    EXPECT_EQ(copy.strides(), expected.strides()) << t.sizes() << " " << t.strides();
    EXPECT_EQ(copy.storage_offset(), expected.storage_offset());
    EXPECT_EQ(copy.scalar_type(), expected.scalar_type());
    EXPECT_EQ(copy.requires_grad(), expected.requires_grad());
    EXPECT_EQ(copy.is_leaf(), expected.is_leaf());
    EXPECT_TRUE(at::equal(copy.detach(), t.detach()));
    if (t.numel() > 0) {
      EXPECT_FALSE(copy.is_alias_of(t));
    }
  }
}

TEST(Oracle, CallingConventionPutsLiftedInputsBeforeUserInputs) {
  // exported_program.py: additional_inputs + flat_args, whatever the spec order.
  auto p = parse(R"EPT(graph {
  %x: f32[2] = placeholder
  %p_w: f32[2] = placeholder
  %sub: f32[2] = aten::sub.Tensor(%x, %p_w)
  return (%sub)
}
signature {
  input user_input %x
  input parameter %p_w -> "w"
  output user_output %sub
}
storages {
  $0: f32[2] = [10.0, 20.0]
}
state {
  parameter "w" = $0 f32[2]
}
)EPT");
  at::Tensor x = at::tensor({1.0f, 2.0f});
  auto r = runProgram(p, {tensorInput(x)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  // Placeholder %x receives the parameter, %p_w the user input.
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::sub(at::tensor({10.0f, 20.0f}), x));
}

TEST(Oracle, FunctionalWrappersKeepRequiresGrad) {
  auto p = parse(kParameterMutation);
  p.graph().find("off")->args[0] = arg::Bool{true};
  for (auto mode : {RunMode::Eager, RunMode::LibTorchFunctionalize}) {
    auto r = runProgram(p, {tensorInput(at::ones({3}))}, {mode});
    ASSERT_FALSE(r.ok()) << runModeName(mode);
    EXPECT_NE(r.error->message.find("leaf Variable that requires grad"), std::string::npos) << r.error->message;
  }
}

TEST(Oracle, AttributesAreFreshPerRunAndFunctionalUnderFunctionalization) {
  auto p = parse(R"EPT(graph {
  %x: f32[2] = placeholder
  %t = get_attr("true_graph_0")
  %f = get_attr("false_graph_0")
  %cond: (f32[2],) = higher_order.cond(True, graph(%t), graph(%f), [%x])
  %getitem: f32[2] = operator.getitem(%cond, 0)
  return (%getitem)
  attr "false_graph_0" = graph {
    %a: f32[2] = placeholder
    %neg: f32[2] = aten::neg(%a)
    return (%neg)
  }
  attr "true_graph_0" = graph {
    %a: f32[2] = placeholder
    %c = get_attr("c")
    %add_: f32[2] = aten::add_.Tensor(%c, %a)
    return (%add_)
    attr "c" = tensor $0 f32[2]
  }
}
signature {
  input user_input %x
  output user_output %getitem
}
storages {
  $0: f32[2] = [100.0, 200.0]
}
)EPT");
  at::Tensor x = at::tensor({1.0f, 2.0f});
  at::Tensor expected = at::tensor({101.0f, 202.0f});
  for (auto mode : {RunMode::Eager, RunMode::Eager, RunMode::LibTorchFunctionalize}) {
    auto r = runProgram(p, {tensorInput(x)}, {mode});
    ASSERT_TRUE(r.ok()) << runModeName(mode) << ": " << r.error->str();
    EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), expected);  // the same on every run
  }
}

TEST(Oracle, IntegerOverflowInBuiltinsIsAnErrorNotACrash) {
  for (const char* expr : {"operator.floordiv(-9223372036854775808, -1)", "operator.pow(3, 100000000000000)",
                           "operator.mul(9223372036854775807, 2)", "operator.lshift(1, 64)", "math.ceil(inf)",
                           "operator.neg(-9223372036854775808)"}) {
    auto p = parse(std::string("graph {\n  %x: f32[2] = placeholder\n  %v: 0 = ") + expr +
                   "\n  return (%x)\n}\nsignature {\n  input user_input %x\n  output user_output %x\n}\n");
    auto r = runProgram(p, {tensorInput(at::ones({2}))});
    ASSERT_FALSE(r.ok()) << expr;
    EXPECT_EQ(r.error->node, "v") << expr;
  }
}

}  // namespace
}  // namespace epsmith
