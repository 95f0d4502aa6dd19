// The verifier never throws or crashes on a well-formed IR object, however wrong the program:
// thousands of seeded random corruptions of accepted programs, each verified in full and
// with --first, which must agree on the first diagnostic.
#include <gtest/gtest.h>

#include <random>

#include "ops/op_registry.h"
#include "tests/support/program_text.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

using test::parse;

const char* kProgram = R"EPT(program {
  verifiers ["ATEN"]
}
graph {
  %p: f32[2] = placeholder
  %b: f32[2] = placeholder
  %x: f32[2] = placeholder
  %pred: b8[] = placeholder
  %add: f32[2] = aten::add.Tensor(%x, %p)
  %t = get_attr("true_graph_0")
  %f = get_attr("false_graph_0")
  %cond: (f32[2],) = higher_order.cond(%pred, graph(%t), graph(%f), [%add])
  %getitem: f32[2] = operator.getitem(%cond, 0)
  %mul: f32[2] = aten::mul.Tensor(%getitem, %b)
  return (%add, %mul)
  attr "false_graph_0" = graph {
    %a: f32[2] = placeholder
    %neg: f32[2] = aten::neg(%a)
    return (%neg)
  }
  attr "true_graph_0" = graph {
    %a: f32[2] = placeholder
    %relu: f32[2] = aten::relu(%a)
    return (%relu)
  }
}
signature {
  input parameter %p -> "w"
  input buffer %b -> "buf" persistent=True
  input user_input %x
  input user_input %pred
  output buffer_mutation %add -> "buf"
  output user_output %mul
}
module_call_graph {
  entry "" inputs=[%x, %pred] outputs=[%mul] in_spec="" out_spec=""
}
storages {
  $0: f32[2] = [1.0, 2.0]
}
state {
  parameter "w" = $0 f32[2]
  buffer "buf" = $0 f32[2]
}
)EPT";

// One random corruption through the IR API; every result is a well-formed IR object.
void corrupt(ExportedProgram& p, std::mt19937& rng) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % std::max<size_t>(n, 1)); };
  Graph& top = p.graph();
  Graph& g = rng() % 4 == 0 ? *top.attributes().at(rng() % 2 ? "true_graph_0" : "false_graph_0").subgraph : top;
  std::vector<Node*> nodes;
  for (auto& n : g.nodes()) nodes.push_back(&n);
  std::vector<Node*> top_nodes;
  for (auto& n : top.nodes()) top_nodes.push_back(&n);
  Node* n = nodes[pick(nodes.size())];
  switch (rng() % 14) {
    case 0: n->meta.val = Val(); break;
    case 1: n->meta.val = Val::Opaque{"object"}; break;
    case 2:  // an argument now names any node of either graph, earlier or later
      if (!n->args.empty()) {
        Node* other = rng() % 3 ? nodes[pick(nodes.size())] : top_nodes[pick(top_nodes.size())];
        n->args[pick(n->args.size())] = arg::Tensor{other};
      }
      break;
    case 3: n->target = Target::aten(findOpByName(rng() % 2 ? "aten::add_.Tensor" : "aten::relu_")); break;
    case 4: n->target = Target::other("operator.matmul"); break;
    case 5: g.rename(n, nodes[pick(nodes.size())]->name()); break;
    case 6: {
      Node* extra = g.insertRawBefore(nodes[pick(nodes.size())], rng() % 2 ? OpKind::CallModule : OpKind::GetAttr,
                                      nodes[pick(nodes.size())]->name());
      extra->attr = rng() % 2 ? "true_graph_0" : "nowhere.at.all";
      break;
    }
    case 7:
      if (!p.signature.input_specs.empty()) {
        auto& spec = p.signature.input_specs[pick(p.signature.input_specs.size())];
        spec.kind = static_cast<InputKind>(rng() % 7);  // 6 is not a kind at all
        if (rng() % 2) spec.target.reset();
        if (rng() % 2) spec.persistent = rng() % 2;
        if (rng() % 3 == 0) spec.arg.kind = static_cast<SpecArg::Kind>(rng() % 7);
      }
      break;
    case 8:
      if (!p.signature.output_specs.empty()) {
        auto& spec = p.signature.output_specs[pick(p.signature.output_specs.size())];
        spec.kind = static_cast<OutputKind>(rng() % 8);
        spec.arg.name = nodes[pick(nodes.size())]->name();
        if (rng() % 2) spec.target = rng() % 2 ? "buf" : "nope";
      }
      break;
    case 9:
      if (rng() % 2)
        p.signature.input_specs.pop_back();
      else
        p.signature.output_specs.insert(p.signature.output_specs.begin(), OutputSpec{});
      break;
    case 10: p.state_dict.erase(rng() % 2 ? "w" : "buf"); break;
    case 11: p.state_dict["w"].is_parameter = rng() % 2; break;
    case 12:
      if (Node* out = g.outputNode()) {
        if (rng() % 2 && !out->args.empty())
          out->args.pop_back();
        else
          out->args.push_back(rng() % 2 ? Argument(arg::Int{3}) : Argument(arg::IntList{{1, 2}}));
      }
      break;
    case 13: p.module_call_graph[0].signature->outputs.push_back(SpecArg::tensor("ghost")); break;
  }
}

TEST(VerifierRobustness, RandomCorruptionsNeverThrowAndFirstMatchesTheFullList) {
  const ExportedProgram base = parse(kProgram);
  ASSERT_TRUE(verify(base).empty());
  std::mt19937 rng(20261121);
  size_t rejected = 0;
  for (int round = 0; round < 3000; ++round) {
    ExportedProgram p = base.clone();
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) corrupt(p, rng);
    std::vector<Violation> all, first;
    ASSERT_NO_THROW(all = verify(p)) << "round " << round;
    ASSERT_NO_THROW(first = verify(p, VerifyOptions{/*first_only=*/true})) << "round " << round;
    ASSERT_EQ(all.empty(), first.empty()) << "round " << round;
    if (!all.empty()) {
      ++rejected;
      ASSERT_EQ(first.size(), 1u);
      EXPECT_EQ(first[0].str(), all[0].str()) << "round " << round;
    }
  }
  // Most corruptions must be caught (some are harmless, e.g. renaming a node to itself).
  EXPECT_GT(rejected, 2000u);
}

}  // namespace
}  // namespace epsmith
