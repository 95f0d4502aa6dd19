// The eager oracle's higher-order ops (oracle/higher_order_ops.cpp) against direct ATen
// calls: cond, while_loop, map, scan, autocast and grad regions, run whole and as single
// calls.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/sin.h>
#include <ATen/ops/sinh.h>
#include <ATen/ops/stack.h>
#include <ATen/ops/tensor.h>
#include <ATen/ops/zeros.h>

#include "oracle/interpreter.h"
#include "oracle/run.h"
#include "tests/oracle/support.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

using test::parse;
using test::tensorInput;

// cond as torch.export (2.13) writes `torch.cond(pred, torch.exp, torch.neg, (x,))`.
const char* const kCond = R"EPT(graph {
  %pred: b8[] = placeholder
  %x: f32[3] = placeholder
  %t = get_attr("true_graph_0")
  %f = get_attr("false_graph_0")
  %cond: (f32[3],) = higher_order.cond(%pred, graph(%t), graph(%f), [%x])
  %getitem: f32[3] = operator.getitem(%cond, 0)
  return (%getitem)
  attr "false_graph_0" = graph {
    %a: f32[3] = placeholder
    %neg: f32[3] = aten::neg(%a)
    return (%neg)
  }
  attr "true_graph_0" = graph {
    %a: f32[3] = placeholder
    %exp: f32[3] = aten::exp(%a)
    return (%exp)
  }
}
signature {
  input user_input %pred
  input user_input %x
  output user_output %getitem
}
)EPT";

// while_loop as torch.export (2.13) writes `while_loop(lambda i, x: i < n, lambda i, x: (i + 1,
// x * 2), (i, x))` with n an additional input: the condition graph returns its bool tensor
// as it is (`return %lt`).
const char* const kWhileLoop = R"EPT(graph {
  %i: i64[] = placeholder
  %x: f32[3] = placeholder
  %n: i64[] = placeholder
  %c = get_attr("while_loop_cond_graph_0")
  %b = get_attr("while_loop_body_graph_0")
  %loop: (i64[], f32[3]) = higher_order.while_loop(graph(%c), graph(%b), [%i, %x], [%n])
  %i_out: i64[] = operator.getitem(%loop, 0)
  %x_out: f32[3] = operator.getitem(%loop, 1)
  return (%i_out, %x_out)
  attr "while_loop_body_graph_0" = graph {
    %i: i64[] = placeholder
    %x: f32[3] = placeholder
    %n: i64[] = placeholder
    %add: i64[] = aten::add.Scalar(%i, 1)
    %mul: f32[3] = aten::mul.Scalar(%x, 2)
    return (%add, %mul)
  }
  attr "while_loop_cond_graph_0" = graph {
    %i: i64[] = placeholder
    %x: f32[3] = placeholder
    %n: i64[] = placeholder
    %lt: b8[] = aten::lt.Tensor(%i, %n)
    return %lt
  }
}
signature {
  input user_input %i
  input user_input %x
  input user_input %n
  output user_output %i_out
  output user_output %x_out
}
)EPT";

TEST(Oracle, CondRunsTheBranchThePredicateSelects) {
  auto p = parse(kCond);
  at::Tensor x = at::tensor({0.0f, 1.0f, -2.0f});
  auto yes = runProgram(p, {tensorInput(at::ones({}, at::kBool)), tensorInput(x)});
  auto no = runProgram(p, {tensorInput(at::zeros({}, at::kBool)), tensorInput(x)});
  ASSERT_TRUE(yes.ok() && no.ok());
  EXPECT_TENSOR_EQ(yes.outputs[0].toTensor(), at::exp(x));
  EXPECT_TENSOR_EQ(no.outputs[0].toTensor(), at::neg(x));
}

// kWhileLoop runs its body while its condition holds. No iteration returns copies of the
// carried values, as torch's while_loop_dense does, never the inputs themselves.
TEST(Oracle, WhileLoopRunsItsBodyWhileItsConditionHolds) {
  auto p = parse(kWhileLoop);
  const at::Tensor x = at::tensor({0.5f, -1.0f, 3.0f});
  auto three = runProgram(p, {tensorInput(at::tensor(int64_t{0}).reshape({})), tensorInput(x),
                              tensorInput(at::tensor(int64_t{3}).reshape({}))});
  ASSERT_TRUE(three.ok()) << three.error->str();
  EXPECT_EQ(three.outputs[0].toTensor().item().toLong(), 3);
  EXPECT_TENSOR_EQ(three.outputs[1].toTensor(), x.mul(8));
  const at::Tensor start = at::tensor(int64_t{5}).reshape({});
  auto none = runProgram(p, {tensorInput(start), tensorInput(x), tensorInput(at::tensor(int64_t{3}).reshape({}))});
  ASSERT_TRUE(none.ok()) << none.error->str();
  EXPECT_TENSOR_EQ(none.outputs[1].toTensor(), x);
  EXPECT_FALSE(none.outputs[1].toTensor().is_alias_of(x));
}

// Note [Subgraphs observed where they do not run]: with observe_untaken the observer sees
// the branch a cond does not take, run on the same operands, and the body of a loop that
// runs no iteration, once; what the program returns is what it is without.
TEST(Oracle, AnObservedRunShowsTheSubgraphsItDoesNotRun) {
  auto cond = parse(kCond);
  auto loop = parse(kWhileLoop);
  const at::Tensor x = at::tensor({0.0f, 1.0f, -2.0f});
  std::map<std::string, at::Tensor> seen;
  RunOptions observed(RunMode::Eager);
  observed.observe = [&](const Node& n, const c10::IValue& v) {
    if (v.isTensor()) seen[n.name()] = v.toTensor().clone();
  };
  for (bool untaken : {false, true}) {
    seen.clear();
    observed.observe_untaken = untaken;
    auto yes = runProgram(cond, {tensorInput(at::ones({}, at::kBool)), tensorInput(x)}, observed);
    ASSERT_TRUE(yes.ok()) << yes.error->str();
    EXPECT_TENSOR_EQ(yes.outputs[0].toTensor(), at::exp(x));
    EXPECT_TENSOR_EQ(seen.at("exp"), at::exp(x));
    ASSERT_EQ(seen.count("neg"), untaken ? 1U : 0U);
    if (untaken) {
      EXPECT_TENSOR_EQ(seen.at("neg"), at::neg(x));  // on the operands the taken branch got
    }

    seen.clear();
    const auto five = tensorInput(at::tensor(int64_t{5}).reshape({}));
    auto none = runProgram(loop, {five, tensorInput(x), tensorInput(at::tensor(int64_t{3}).reshape({}))}, observed);
    ASSERT_TRUE(none.ok()) << none.error->str();
    EXPECT_TENSOR_EQ(none.outputs[1].toTensor(), x);  // no iteration, whatever was observed
    ASSERT_EQ(seen.count("mul"), untaken ? 1U : 0U);
    if (untaken) {
      EXPECT_TENSOR_EQ(seen.at("mul"), x.mul(2));
    }
  }
}

// map_impl as torch.export (2.13) writes `torch._higher_order_ops.map(lambda x, y: x.sin() +
// y, xs, y)`: the body runs on each row of xs with y, and the rows come back stacked, a
// view as torch's are; a leading size of 0 is refused as torch's map refuses it.
TEST(Oracle, MapRunsItsBodyOnEachElementAndStacksThem) {
  auto p = parse(R"EPT(graph {
  %xs: f32[4, 3] = placeholder
  %y: f32[3] = placeholder
  %body = get_attr("body_graph_0")
  %map_impl: (f32[4, 3],) = higher_order.map_impl(graph(%body), [%xs], [%y])
  %getitem: f32[4, 3] = operator.getitem(%map_impl, 0)
  return (%getitem)
  attr "body_graph_0" = graph {
    %x: f32[3] = placeholder
    %y: f32[3] = placeholder
    %sin: f32[3] = aten::sin(%x)
    %mul: f32[3] = aten::mul.Tensor(%sin, %y)
    return (%mul)
  }
}
signature {
  input user_input %xs
  input user_input %y
  output user_output %getitem
}
)EPT");
  const at::Tensor xs = at::linspace(-2, 2, 12).reshape({4, 3});
  const at::Tensor y = at::tensor({0.5f, -1.0f, 3.0f});
  auto r = runProgram(p, {tensorInput(xs), tensorInput(y)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::sin(xs).mul(y));
  EXPECT_TRUE(r.outputs[0].toTensor().is_view());  // as torch's map_impl returns it
  auto empty = runProgram(p, {tensorInput(at::zeros({0, 3})), tensorInput(y)});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error->message.find("Leading dimensions of mapped xs cannot be 0"), std::string::npos);
}

// Under LibTorch's functionalization (D2) a map's results are fresh tensors, as torch's
// Functionalize rule for map_impl wraps them, not views of one flat buffer as its eager
// map returns: an out= call that lays such a result out anew (sinh.out from a permuted
// input) then runs as in eager, where LibTorch's replay of a view of the buffer raised
// ("view size is not compatible"; nine root causes of a 30-minute default campaign).
TEST(Oracle, AMapsResultsUnderFunctionalizationAreViewsOfNothing) {
  auto p = parse(R"EPT(graph {
  %x0: f32[1, 1, 1] = placeholder
  %x1: f32[1, 1, 2, 3] = placeholder
  %permute: f32[3, 1, 1, 2]<stride=[1, 6, 6, 3]> = aten::permute(%x1, [3, 1, 0, 2])
  %body_graph_0 = get_attr("body_graph_0")
  %map_impl: (f32[1, 1, 2, 3],) = higher_order.map_impl(graph(%body_graph_0), [%x1], [%x0])
  %getitem: f32[1, 1, 2, 3] = operator.getitem(%map_impl, 0)
  %sinh: f32[3, 1, 1, 2]<stride=[1, 6, 6, 3]> = aten::sinh.out(%permute, out=%getitem)
  return (%sinh)
  attr "body_graph_0" = graph {
    %x1: f32[1, 1, 2, 3] = placeholder
    %x0: f32[1, 1, 1] = placeholder
    return (%x1)
  }
}
signature {
  input user_input %x0
  input user_input %x1
  output user_output %sinh
}
)EPT");
  const at::Tensor x0 = at::ones({1, 1, 1});
  const at::Tensor x1 = at::linspace(-1, 1, 6).reshape({1, 1, 2, 3});
  auto eager = runProgram(p, {tensorInput(x0), tensorInput(x1)}, {RunMode::Eager});
  auto functional = runProgram(p, {tensorInput(x0), tensorInput(x1)}, {RunMode::LibTorchFunctionalize});
  ASSERT_TRUE(eager.ok()) << eager.error->str();
  ASSERT_TRUE(functional.ok()) << functional.error->str();
  EXPECT_TENSOR_EQ(functional.outputs[0].toTensor(), eager.outputs[0].toTensor());
  EXPECT_TENSOR_EQ(eager.outputs[0].toTensor(), at::sinh(x1.permute({3, 1, 0, 2})));
}

// scan as torch.export (2.13) writes `scan(lambda c, x: (c + x * w, c * 2), init, xs)` with
// w a closure (an additional input): the carry runs through the rows of xs, each step's
// second output stacked, and the last carry comes first.
TEST(Oracle, ScanCarriesThroughTheElementsAndStacksTheOutputs) {
  auto p = parse(R"EPT(graph {
  %init: f32[3] = placeholder
  %xs: f32[4, 3] = placeholder
  %w: f32[3] = placeholder
  %combine = get_attr("scan_combine_graph_0")
  %scan: (f32[3], f32[4, 3]) = higher_order.scan(graph(%combine), [%init], [%xs], [%w])
  %carry: f32[3] = operator.getitem(%scan, 0)
  %ys: f32[4, 3] = operator.getitem(%scan, 1)
  return (%carry, %ys)
  attr "scan_combine_graph_0" = graph {
    %c: f32[3] = placeholder
    %x: f32[3] = placeholder
    %w: f32[3] = placeholder
    %mul: f32[3] = aten::mul.Tensor(%x, %w)
    %add: f32[3] = aten::add.Tensor(%c, %mul)
    %twice: f32[3] = aten::mul.Scalar(%c, 2)
    return (%add, %twice)
  }
}
signature {
  input user_input %init
  input user_input %xs
  input user_input %w
  output user_output %carry
  output user_output %ys
}
)EPT");
  const at::Tensor init = at::tensor({1.0f, 0.0f, -1.0f});
  const at::Tensor xs = at::linspace(-2, 2, 12).reshape({4, 3});
  const at::Tensor w = at::tensor({0.5f, -1.0f, 3.0f});
  auto r = runProgram(p, {tensorInput(init), tensorInput(xs), tensorInput(w)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  at::Tensor c = init;
  std::vector<at::Tensor> ys;
  for (int64_t i = 0; i < 4; ++i) {
    ys.push_back(c.mul(2));
    c = c.add(xs[i].mul(w));
  }
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), c);
  EXPECT_TENSOR_EQ(r.outputs[1].toTensor(), at::stack(ys));
}

// wrap_with_autocast as torch.export (2.13) writes `with torch.autocast("cpu",
// dtype=torch.bfloat16):` around a linear: the region's linear runs in bfloat16 (autocast's
// cast policy), and the same linear after the region in float32, autocast off again.
TEST(Oracle, AnAutocastRegionRunsItsCallsUnderAutocast) {
  auto p = parse(R"EPT(graph {
  %x: f32[2, 4] = placeholder
  %w: f32[3, 4] = placeholder
  %region = get_attr("submod_1")
  %wrap: (bf16[2, 3],) = higher_order.wrap_with_autocast("cpu", torch.bfloat16, True, False, graph(%region), %x, %w)
  %y: bf16[2, 3] = operator.getitem(%wrap, 0)
  %z: f32[2, 3] = aten::linear(%x, %w)
  return (%y, %z)
  attr "submod_1" = graph {
    %a: f32[2, 4] = placeholder
    %b: f32[3, 4] = placeholder
    %linear: bf16[2, 3] = aten::linear(%a, %b)
    return (%linear)
  }
}
signature {
  input user_input %x
  input user_input %w
  output user_output %y
  output user_output %z
}
)EPT");
  const at::Tensor x = at::tensor({0.5f, -1.0f, 3.0f, 0.25f, 1.5f, 2.0f, -0.75f, 1.0f}).reshape({2, 4});
  const at::Tensor w =
      at::tensor({1.0f, 0.5f, -2.0f, 0.125f, 0.0f, 1.5f, 1.0f, -1.0f, 2.0f, 0.25f, 0.5f, 3.0f}).reshape({3, 4});
  auto r = runProgram(p, {tensorInput(x), tensorInput(w)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::linear(x.to(at::kBFloat16), w.to(at::kBFloat16)));
  EXPECT_TENSOR_EQ(r.outputs[1].toTensor(), at::linear(x, w));
}

// The same region as bare _enter_autocast/_exit_autocast calls (the form older exports
// wrote, and the functionalizer's): autocast is on between them and off after; a region a
// program leaves open, or an exit of the wrong region, does not reach what runs next.
TEST(Oracle, BareAutocastCallsBoundARegion) {
  const std::string text = R"EPT(graph {
  %x: f32[2, 4] = placeholder
  %w: f32[3, 4] = placeholder
  %enter: None = torch.amp.autocast_mode._enter_autocast("cpu", torch.bfloat16, True, None)
  %y: bf16[2, 3] = aten::linear(%x, %w)
  %exit: None = torch.amp.autocast_mode._exit_autocast(%enter)
  %z: f32[2, 3] = aten::linear(%x, %w)
  return (%y, %z)
}
signature {
  input user_input %x
  input user_input %w
  output user_output %y
  output user_output %z
}
)EPT";
  const at::Tensor x = at::tensor({0.5f, -1.0f, 3.0f, 0.25f, 1.5f, 2.0f, -0.75f, 1.0f}).reshape({2, 4});
  const at::Tensor w =
      at::tensor({1.0f, 0.5f, -2.0f, 0.125f, 0.0f, 1.5f, 1.0f, -1.0f, 2.0f, 0.25f, 0.5f, 3.0f}).reshape({3, 4});
  auto r = runProgram(parse(text), {tensorInput(x), tensorInput(w)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_TENSOR_EQ(r.outputs[0].toTensor(), at::linear(x.to(at::kBFloat16), w.to(at::kBFloat16)));
  EXPECT_TENSOR_EQ(r.outputs[1].toTensor(), at::linear(x, w));

  std::string open = text;
  open.erase(open.find("  %exit"), open.find("  %z") - open.find("  %exit"));
  open.replace(open.find("%z: f32"), 7, "%z: bf16");
  r = runProgram(parse(open), {tensorInput(x), tensorInput(w)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  EXPECT_EQ(r.outputs[1].toTensor().scalar_type(), at::kBFloat16);
  EXPECT_EQ(at::linear(x, w).scalar_type(), at::kFloat) << "the open region outlived its run";

  std::string wrong = text;
  wrong.replace(wrong.find("_exit_autocast(%enter)"), 22, "_exit_autocast(3)");
  r = runProgram(parse(wrong), {tensorInput(x), tensorInput(w)});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error->str().find("_exit_autocast leaves region 3 where 1 is the innermost open one"), std::string::npos)
      << r.error->str();
  EXPECT_EQ(at::linear(x, w).scalar_type(), at::kFloat);
}

// with_effects, as run_decompositions threads a token through an op with effects: the op
// runs on the arguments after it, and the call returns a fresh token (an empty float
// tensor, never the one given) and what the op returned; an op this LibTorch does not
// define is an error that names it.
TEST(Oracle, WithEffectsRunsItsOpAndReturnsAFreshToken) {
  const std::string text = R"EPT(graph {
  %token: f32[0] = placeholder
  %x: f32[3] = placeholder
  %with_effects: (f32[0], None) = higher_order.with_effects(%token, operator("OP"), "from a test")
  %getitem: f32[0] = operator.getitem(%with_effects, 0)
  %sin: f32[3] = aten::sin(%x)
  return (%getitem, %sin)
}
signature {
  input user_input %token
  input user_input %x
  output user_output %getitem
  output user_output %sin
}
)EPT";
  const auto with = [&](const std::string& op) {
    std::string t = text;
    return parse(t.replace(t.find("OP"), 2, op));
  };
  const at::Tensor token = at::zeros({0}), x = at::tensor({0.5f, 1.0f, -2.0f});
  auto r = runProgram(with("aten::_print"), {tensorInput(token), tensorInput(x)});
  ASSERT_TRUE(r.ok()) << r.error->str();
  const at::Tensor fresh = r.outputs[0].toTensor();
  EXPECT_EQ(fresh.numel(), 0);
  EXPECT_EQ(fresh.scalar_type(), at::kFloat);
  EXPECT_FALSE(fresh.is_same(token));
  EXPECT_TENSOR_EQ(r.outputs[1].toTensor(), at::sin(x));
  auto unknown = runProgram(with("aten::no_such_op"), {tensorInput(token), tensorInput(x)});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error->str().find("aten::no_such_op, which this LibTorch does not define"), std::string::npos)
      << unknown.error->str();
}

// A call that owns subgraphs runs alone too, as a generator's trial runs a candidate: its
// subgraphs are the attributes of the graph it is drawn into, and it computes what the
// whole program's run of it does. Without that graph it cannot be planned.
TEST(Oracle, AHigherOrderCallRunsAloneWithTheGraphThatOwnsItsSubgraphs) {
  auto p = parse(R"EPT(graph {
  %x: f32[3] = placeholder
  %w: f32[3] = placeholder
  %region = get_attr("submod_0")
  %wrap: (f32[3],) = higher_order.wrap_with_set_grad_enabled(False, graph(%region), %x, %w)
  %getitem: f32[3] = operator.getitem(%wrap, 0)
  return (%getitem)
  attr "submod_0" = graph {
    %a: f32[3] = placeholder
    %b: f32[3] = placeholder
    %mul_: f32[3] = aten::mul_.Tensor(%b, %a)
    %exp: f32[3] = aten::exp(%b)
    return (%exp)
  }
}
signature {
  input user_input %x
  input user_input %w
  output user_output %getitem
}
)EPT");
  const Node* wrap = nullptr;
  for (const Node& n : p.graph().nodes()) wrap = n.name() == "wrap" ? &n : wrap;
  ASSERT_NE(wrap, nullptr);
  const at::Tensor x = at::tensor({0.5f, 1.0f, -2.0f});
  at::Tensor w = at::tensor({2.0f, -1.0f, 0.25f});
  const at::Tensor w_before = w.clone();
  std::map<std::string, at::Tensor> values{{"x", x}, {"w", w}};
  const auto value_of = [&](const Node* in) -> c10::IValue {
    auto it = values.find(in->name());
    return it == values.end() ? c10::IValue() : c10::IValue(it->second);
  };
  auto alone = runSingleCall(*wrap, value_of, &p.graph());
  ASSERT_FALSE(alone.error) << alone.error->message;
  const auto items = alone.outputs[0].toTupleRef().elements();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_TENSOR_EQ(items[0].toTensor(), at::exp(at::mul(w_before, x)));
  EXPECT_TENSOR_EQ(w, at::mul(w_before, x));  // the region wrote the caller's tensor
  auto whole = runProgram(p, {tensorInput(x), tensorInput(w_before.clone())});
  ASSERT_TRUE(whole.ok());
  EXPECT_TENSOR_EQ(whole.outputs[0].toTensor(), items[0].toTensor());
  auto unowned = runSingleCall(*wrap, value_of);
  ASSERT_TRUE(unowned.error.has_value());
  EXPECT_NE(unowned.error->message.find("names no subgraph"), std::string::npos) << unowned.error->message;
}

}  // namespace
}  // namespace epsmith
