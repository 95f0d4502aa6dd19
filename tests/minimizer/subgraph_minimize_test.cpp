// The minimizer inside higher-order ops: grad and autocast regions, conds and while loops shrink with the
// program, and go, or give way to the calls inside them, where the finding survives that.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "formats/text_format.h"
#include "ir/op_info.h"
#include "ir/subgraphs.h"
#include "minimizer/minimize.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

// A grad region (torch.export's wrap_with_set_grad_enabled subgraph) minimizes as the rest
// does: a shrunk input's sizes reach the region's placeholders and calls, and a region the
// bug does not need goes with its get_attr and its subgraph, so what is left verifies.
TEST(Minimizer, AGradRegionShrinksWithTheProgramAndGoesWhole) {
  const std::string text = R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[4, 3] = placeholder
  %neg: f32[4, 3] = aten::neg(%x)
  %region = get_attr("submod_0")
  %wrap: (f32[4, 3],) = higher_order.wrap_with_set_grad_enabled(False, graph(%region), %x)
  %getitem: f32[4, 3] = operator.getitem(%wrap, 0)
  %exp: f32[4, 3] = aten::exp(%neg)
  return (%exp, %getitem)
  attr "submod_0" = graph {
    %a: f32[4, 3] = placeholder
    %sin: f32[4, 3] = aten::sin(%a)
    return (%sin)
  }
}
signature {
  input user_input %x
  output user_output %exp
  output user_output %getitem
}
storages {
  $0: f32[12] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
}
example_inputs {
  $0 f32[4, 3]
}
)EPT";
  auto p = parseProgramText(text);
  ASSERT_TRUE(p.ok()) << p.error().str();
  // The region stays while the bug needs it, and its call's sizes follow the input's.
  const auto regionAndExp = [](const ExportedProgram& q) {
    auto region = q.graph().attributes().find("submod_0");
    return q.graph().find("wrap") != nullptr && q.graph().find("exp") != nullptr &&
           region != q.graph().attributes().end() && region->second.subgraph->find("sin") != nullptr;
  };
  MinimizeResult kept = minimize(p.value(), regionAndExp);
  const Graph* sub = kept.program.graph().attributes().at("submod_0").subgraph.get();
  ASSERT_TRUE(sub->find("sin") && sub->find("a")) << printProgramText(kept.program);
  const TensorMeta* x = kept.program.graph().find("x")->meta.val.tensor();
  const TensorMeta* sin = sub->find("sin")->meta.val.tensor();
  const TensorMeta* a = sub->find("a")->meta.val.tensor();
  ASSERT_TRUE(x && sin && a);
  EXPECT_EQ(a->sizes, x->sizes) << printProgramText(kept.program);
  EXPECT_NE(x->sizes, p->graph().find("x")->meta.val.tensor()->sizes) << printProgramText(kept.program);
  EXPECT_EQ(sin->sizes, x->sizes) << printProgramText(kept.program);
  EXPECT_TRUE(verify(kept.program).empty()) << printProgramText(kept.program);
  // A bug of exp alone: the region goes whole.
  MinimizeResult gone = minimize(p.value(), [](const ExportedProgram& q) { return q.graph().find("exp") != nullptr; });
  EXPECT_EQ(gone.program.graph().find("wrap"), nullptr);
  EXPECT_EQ(gone.program.graph().find("region"), nullptr) << printProgramText(gone.program);
  EXPECT_TRUE(gone.program.graph().attributes().empty()) << printProgramText(gone.program);
  EXPECT_TRUE(verify(gone.program).empty()) << printProgramText(gone.program);
}

// A region's calls shrink as the program's do: those the bug does not need go, one by one,
// and a call's uses inside the region go to its input.
TEST(Minimizer, CallsInsideARegionGoOneByOne) {
  auto p = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3] = placeholder
  %region = get_attr("submod_0")
  %wrap: (f32[3],) = higher_order.wrap_with_set_grad_enabled(False, graph(%region), %x)
  %getitem: f32[3] = operator.getitem(%wrap, 0)
  return (%getitem)
  attr "submod_0" = graph {
    %a: f32[3] = placeholder
    %sin: f32[3] = aten::sin(%a)
    %cos: f32[3] = aten::cos(%sin)
    %exp: f32[3] = aten::exp(%cos)
    return (%exp)
  }
}
signature {
  input user_input %x
  output user_output %getitem
}
storages {
  $0: f32[3] = [1.0, 2.0, 3.0]
}
example_inputs {
  $0 f32[3]
}
)EPT");
  ASSERT_TRUE(p.ok()) << p.error().str();
  const auto hasCos = [](const ExportedProgram& q) {
    auto it = q.graph().attributes().find("submod_0");
    return it != q.graph().attributes().end() && it->second.subgraph->find("cos") != nullptr;
  };
  MinimizeResult m = minimize(p.value(), hasCos);
  const Graph* sub = m.program.graph().attributes().at("submod_0").subgraph.get();
  EXPECT_EQ(sub->find("sin"), nullptr) << printProgramText(m.program);
  EXPECT_EQ(sub->find("exp"), nullptr) << printProgramText(m.program);
  ASSERT_NE(sub->find("cos"), nullptr);
  EXPECT_EQ(sub->users(sub->find("a")).size(), 1u) << printProgramText(m.program);
  EXPECT_TRUE(verify(m.program).empty()) << printProgramText(m.program);
}

// Whether `g` or a subgraph in it calls `op` ("aten::cos").
bool callsAnywhere(const Graph& g, std::string_view op) {
  for (const Node& n : g.nodes()) {
    if (n.atenOp() && n.atenOp()->qualified_name == op) return true;
  }
  for (const auto& [name, attr] : g.attributes()) {
    if (attr.subgraph && callsAnywhere(*attr.subgraph, op)) return true;
  }
  return false;
}

// A finding that survives without the region's higher-order op keeps its calls laid out
// inline, between bare _set_grad_enabled calls (inline-region), and loses the others (the
// grad calls too, where the finding does not need them).
TEST(Minimizer, ARegionTheFindingDoesNotNeedIsLaidOutInline) {
  auto p = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3] = placeholder
  %region = get_attr("submod_0")
  %wrap: (f32[3],) = higher_order.wrap_with_set_grad_enabled(False, graph(%region), %x)
  %getitem: f32[3] = operator.getitem(%wrap, 0)
  %neg: f32[3] = aten::neg(%getitem)
  return (%neg)
  attr "submod_0" = graph {
    %a: f32[3] = placeholder
    %sin: f32[3] = aten::sin(%a)
    %cos: f32[3] = aten::cos(%sin)
    return (%cos)
  }
}
signature {
  input user_input %x
  output user_output %neg
}
storages {
  $0: f32[3] = [1.0, 2.0, 3.0]
}
example_inputs {
  $0 f32[3]
}
)EPT");
  ASSERT_TRUE(p.ok()) << p.error().str();
  const auto callsCos = [](const ExportedProgram& q) { return callsAnywhere(q.graph(), "aten::cos"); };
  MinimizeResult m = minimize(p.value(), callsCos);
  const std::string text = printProgramText(m.program);
  EXPECT_TRUE(m.program.graph().attributes().empty()) << text;
  EXPECT_NE(m.program.graph().find("cos"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("sin"), nullptr) << text;
  EXPECT_TRUE(verify(m.program).empty()) << text;
  bool logged = false;
  for (const auto& line : m.log) logged = logged || line.find("inline-region: %wrap") != std::string::npos;
  EXPECT_TRUE(logged);
}

// A cond whose finding lives in one branch becomes that branch's calls, whichever way its
// predicate went: the cond, its predicate and both subgraphs go.
TEST(Minimizer, ACondTheFindingDoesNotNeedBecomesTheBranchItNeeds) {
  auto p = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3] = placeholder
  %sum: f32[] = aten::sum(%x)
  %gt: b8[] = aten::gt.Scalar(%sum, 0)
  %true_graph_0 = get_attr("true_graph_0")
  %false_graph_0 = get_attr("false_graph_0")
  %cond: (f32[3],) = higher_order.cond(%gt, graph(%true_graph_0), graph(%false_graph_0), [%x])
  %getitem: f32[3] = operator.getitem(%cond, 0)
  %neg: f32[3] = aten::neg(%getitem)
  return (%neg)
  attr "false_graph_0" = graph {
    %a: f32[3] = placeholder
    %sin: f32[3] = aten::sin(%a)
    %cos: f32[3] = aten::cos(%sin)
    return (%cos)
  }
  attr "true_graph_0" = graph {
    %a: f32[3] = placeholder
    %exp: f32[3] = aten::exp(%a)
    return (%exp)
  }
}
signature {
  input user_input %x
  output user_output %neg
}
storages {
  $0: f32[3] = [1.0, 2.0, 3.0]
}
example_inputs {
  $0 f32[3]
}
)EPT");
  ASSERT_TRUE(p.ok()) << p.error().str();
  ASSERT_TRUE(verify(p.value()).empty());
  const auto callsCos = [](const ExportedProgram& q) { return callsAnywhere(q.graph(), "aten::cos"); };
  MinimizeResult m = minimize(p.value(), callsCos);
  const std::string text = printProgramText(m.program);
  EXPECT_TRUE(m.program.graph().attributes().empty()) << text;
  EXPECT_NE(m.program.graph().find("cos"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("cond"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("exp"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("gt"), nullptr) << text;
  EXPECT_TRUE(verify(m.program).empty()) << text;
  bool logged = false;
  for (const auto& line : m.log) logged = logged || line.find("inline-branch: %cond (false)") != std::string::npos;
  EXPECT_TRUE(logged);
}

// A while loop whose finding lives in its body becomes the body's calls run once: the loop,
// its counter and its test go, and a finding that needs no run of the body loses the loop.
TEST(Minimizer, ALoopTheFindingDoesNotNeedBecomesItsBodyOnce) {
  auto p = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[3] = placeholder
  %scalar_tensor: i64[] = aten::scalar_tensor(0, dtype=torch.int64)
  %while_loop_cond_graph_0 = get_attr("while_loop_cond_graph_0")
  %while_loop_body_graph_0 = get_attr("while_loop_body_graph_0")
  %while_loop: (i64[], f32[3]) = higher_order.while_loop(graph(%while_loop_cond_graph_0), graph(%while_loop_body_graph_0), [%scalar_tensor, %x], tensors[])
  %getitem: i64[] = operator.getitem(%while_loop, 0)
  %getitem_1: f32[3] = operator.getitem(%while_loop, 1)
  %neg: f32[3] = aten::neg(%getitem_1)
  return (%neg)
  attr "while_loop_body_graph_0" = graph {
    %i: i64[] = placeholder
    %a: f32[3] = placeholder
    %sin: f32[3] = aten::sin(%a)
    %cos: f32[3] = aten::cos(%sin)
    %add: i64[] = aten::add.Tensor(%i, 1)
    return (%add, %cos)
  }
  attr "while_loop_cond_graph_0" = graph {
    %i: i64[] = placeholder
    %a: f32[3] = placeholder
    %lt: b8[] = aten::lt.Scalar(%i, 2)
    return %lt
  }
}
signature {
  input user_input %x
  output user_output %neg
}
storages {
  $0: f32[3] = [1.0, 2.0, 3.0]
}
example_inputs {
  $0 f32[3]
}
)EPT");
  ASSERT_TRUE(p.ok()) << p.error().str();
  ASSERT_TRUE(verify(p.value()).empty()) << verify(p.value()).front().str();
  const auto callsCos = [](const ExportedProgram& q) { return callsAnywhere(q.graph(), "aten::cos"); };
  MinimizeResult m = minimize(p.value(), callsCos);
  std::string text = printProgramText(m.program);
  EXPECT_TRUE(m.program.graph().attributes().empty()) << text;
  EXPECT_NE(m.program.graph().find("cos"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("while_loop"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("sin"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("add"), nullptr) << text;
  EXPECT_TRUE(verify(m.program).empty()) << text;
  bool logged = false;
  for (const auto& line : m.log) logged = logged || line.find("inline-loop: %while_loop (once)") != std::string::npos;
  EXPECT_TRUE(logged);
  // A finding of neg alone: the loop goes, its result read where it was given.
  const auto callsNeg = [](const ExportedProgram& q) { return callsAnywhere(q.graph(), "aten::neg"); };
  m = minimize(p.value(), callsNeg);
  text = printProgramText(m.program);
  EXPECT_TRUE(m.program.graph().attributes().empty()) << text;
  EXPECT_EQ(m.program.graph().find("while_loop"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("scalar_tensor"), nullptr) << text;
  EXPECT_TRUE(verify(m.program).empty()) << text;
}

// A map or a scan whose finding lives in its function becomes the function run once on each
// xs's first element (inline-map, inline-scan): the higher-order op and its subgraph go, the
// stacked results read the one element's results unsqueezed, and the program verifies and
// runs. A finding that needs all four rows keeps the map.
TEST(Minimizer, AMapOrAScanTheFindingDoesNotNeedBecomesItsFunctionOnce) {
  auto p = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %xs: f32[4, 3] = placeholder
  %init: f32[3] = placeholder
  %body = get_attr("body_graph_0")
  %map_impl: (f32[4, 3],) = higher_order.map_impl(graph(%body), [%xs], [%init])
  %getitem: f32[4, 3] = operator.getitem(%map_impl, 0)
  %combine = get_attr("scan_combine_graph_0")
  %scan: (f32[3], f32[4, 3]) = higher_order.scan(graph(%combine), [%init], [%getitem], tensors[])
  %carry: f32[3] = operator.getitem(%scan, 0)
  %ys: f32[4, 3] = operator.getitem(%scan, 1)
  %neg: f32[4, 3] = aten::neg(%ys)
  return (%carry, %neg)
  attr "body_graph_0" = graph {
    %x: f32[3] = placeholder
    %y: f32[3] = placeholder
    %sin: f32[3] = aten::sin(%x)
    %mul: f32[3] = aten::mul.Tensor(%sin, %y)
    return (%mul)
  }
  attr "scan_combine_graph_0" = graph {
    %c: f32[3] = placeholder
    %x: f32[3] = placeholder
    %add: f32[3] = aten::add.Tensor(%c, %x)
    %cos: f32[3] = aten::cos(%c)
    return (%add, %cos)
  }
}
signature {
  input user_input %xs
  input user_input %init
  output user_output %carry
  output user_output %neg
}
storages {
  $0: f32[12] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]
  $1: f32[3] = [0.5, -1.0, 3.0]
}
example_inputs {
  $0 f32[4, 3]
  $1 f32[3]
}
)EPT");
  ASSERT_TRUE(p.ok()) << p.error().str();
  ASSERT_TRUE(verify(p.value()).empty()) << verify(p.value()).front().str();
  const auto callsSinAndCos = [](const ExportedProgram& q) {
    return callsAnywhere(q.graph(), "aten::sin") && callsAnywhere(q.graph(), "aten::cos");
  };
  MinimizeResult m = minimize(p.value(), callsSinAndCos);
  std::string text = printProgramText(m.program);
  EXPECT_TRUE(m.program.graph().attributes().empty()) << text;
  EXPECT_EQ(m.program.graph().find("map_impl"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("scan"), nullptr) << text;
  EXPECT_NE(m.program.graph().find("sin"), nullptr) << text;
  EXPECT_NE(m.program.graph().find("cos"), nullptr) << text;
  EXPECT_TRUE(verify(m.program).empty()) << text;
  bool map_logged = false, scan_logged = false;
  for (const auto& line : m.log) {
    map_logged = map_logged || line.find("inline-map: %map_impl") != std::string::npos;
    scan_logged = scan_logged || line.find("inline-scan: %scan") != std::string::npos;
  }
  EXPECT_TRUE(map_logged && scan_logged);
  // The stacked value of a map over all four rows: the map stays.
  const auto stacksFourRows = [](const ExportedProgram& q) {
    const Node* map = q.graph().find("map_impl");
    const Node* stacked = map ? q.graph().find("getitem") : nullptr;
    const TensorMeta* t = stacked ? stacked->meta.val.tensor() : nullptr;
    return t && !t->sizes.empty() && t->sizes[0] == SymIntValue{4};
  };
  m = minimize(p.value(), stacksFourRows);
  text = printProgramText(m.program);
  ASSERT_NE(m.program.graph().find("map_impl"), nullptr) << text;
  EXPECT_TRUE(verify(m.program).empty()) << text;
  // Its body's placeholder for xs holds one row of what the program passes, shrunk or not.
  const TensorMeta* xs = m.program.graph().find("xs")->meta.val.tensor();
  const TensorMeta* row = m.program.graph().attributes().at("body_graph_0").subgraph->find("x")->meta.val.tensor();
  ASSERT_TRUE(xs && row) << text;
  ASSERT_EQ(xs->sizes.size(), 2u) << text;
  EXPECT_EQ(row->sizes, SymIntList{xs->sizes[1]}) << text;
}

// An autocast region whose casts the finding does not need gives way to its calls, run at
// their operands' dtypes (inline-autocast); one whose casts it needs (a finding about an mm
// that comes out bfloat16) stays a region.
TEST(Minimizer, AnAutocastRegionTheFindingDoesNotNeedIsLaidOutInline) {
  auto p = parseProgramText(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2, 2] = placeholder
  %submod_1 = get_attr("submod_1")
  %wrap: (bf16[2, 2], f32[2, 2]) = higher_order.wrap_with_autocast("cpu", torch.bfloat16, True, False, graph(%submod_1), %x)
  %mm: bf16[2, 2] = operator.getitem(%wrap, 0)
  %cos: f32[2, 2] = operator.getitem(%wrap, 1)
  %neg: f32[2, 2] = aten::neg(%cos)
  return (%mm, %neg)
  attr "submod_1" = graph {
    %a: f32[2, 2] = placeholder
    %mm: bf16[2, 2] = aten::mm(%a, %a)
    %cos: f32[2, 2] = aten::cos(%a)
    return (%mm, %cos)
  }
}
signature {
  input user_input %x
  output user_output %mm
  output user_output %neg
}
storages {
  $0: f32[4] = [1.0, 2.0, 3.0, 4.0]
}
example_inputs {
  $0 f32[2, 2]
}
)EPT");
  ASSERT_TRUE(p.ok()) << p.error().str();
  ASSERT_TRUE(verify(p.value()).empty()) << verify(p.value()).front().str();
  const auto callsCos = [](const ExportedProgram& q) { return callsAnywhere(q.graph(), "aten::cos"); };
  MinimizeResult m = minimize(p.value(), callsCos);
  std::string text = printProgramText(m.program);
  EXPECT_TRUE(m.program.graph().attributes().empty()) << text;
  EXPECT_EQ(m.program.graph().find("wrap"), nullptr) << text;
  EXPECT_EQ(m.program.graph().find("mm"), nullptr) << text;
  EXPECT_EQ(text.find("autocast"), std::string::npos) << text;
  EXPECT_TRUE(verify(m.program).empty()) << text;
  bool logged = false;
  for (const auto& line : m.log) logged = logged || line.find("inline-autocast: %wrap") != std::string::npos;
  EXPECT_TRUE(logged);
  // A finding that needs the cast: some mm still comes out bfloat16.
  const auto castsDown = [](const ExportedProgram& q) {
    bool cast = false;
    forEachGraph(q.graph(), [&](const Graph& g) {
      for (const Node& n : g.nodes()) {
        const TensorMeta* t = n.meta.val.tensor();
        cast =
            cast || (n.atenOp() && n.atenOp()->qualified_name == "aten::mm" && t && t->dtype == ScalarType::BFloat16);
      }
    });
    return cast;
  };
  m = minimize(p.value(), castsDown);
  text = printProgramText(m.program);
  EXPECT_NE(text.find("higher_order.wrap_with_autocast"), std::string::npos) << text;
  EXPECT_EQ(text.find("aten::cos"), std::string::npos) << text;
  EXPECT_TRUE(verify(m.program).empty()) << text;
}

}  // namespace
}  // namespace epsmith
