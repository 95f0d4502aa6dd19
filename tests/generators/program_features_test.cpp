// Note [Program features]: what a program is made of, read from every graph of it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generators/program_features.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

// The names of the features `p` has.
std::vector<std::string> featuresOf(const ExportedProgram& p) {
  std::vector<std::string> names;
  const auto has = programFeatures(p);
  for (size_t f = 0; f < has.size(); ++f) {
    if (has[f]) names.emplace_back(kProgramFeatures[f]);
  }
  return names;
}

TEST(ProgramFeatures, RegionsBareCallsAnEffectASymbolItsReadAndASubmodule) {
  const ExportedProgram p = test::parse(R"EPT(graph {
  %x: f32[sym("s0", hint=2)] = placeholder
  %sym_size_int: sym_int("s0", hint=2) = aten::sym_size.int(%x, 0)
  %_print: None = aten::_print("epsmith")
  %g: None = torch._C._set_grad_enabled(False)
  %neg: f32[sym("s0", hint=2)] = aten::neg(%x)
  %g2: None = torch._C._set_grad_enabled(True)
  %submod_0 = get_attr("submod_0")
  %wrap_with_set_grad_enabled: (f32[sym("s0", hint=2)],) = higher_order.wrap_with_set_grad_enabled(False, graph(%submod_0), %neg)
  %getitem: f32[sym("s0", hint=2)] = operator.getitem(%wrap_with_set_grad_enabled, 0)
  %submod_1 = get_attr("submod_1")
  %wrap_with_autocast: (f32[sym("s0", hint=2)],) = higher_order.wrap_with_autocast("cpu", torch.bfloat16, True, False, graph(%submod_1), %getitem)
  %getitem_1: f32[sym("s0", hint=2)] = operator.getitem(%wrap_with_autocast, 0)
  return (%getitem_1)
  attr "submod_0" = graph {
    %neg: f32[sym("s0", hint=2)] = placeholder
    %exp: f32[sym("s0", hint=2)] = aten::exp(%neg)
    return (%exp)
  }
  attr "submod_1" = graph {
    %getitem: f32[sym("s0", hint=2)] = placeholder
    %sin: f32[sym("s0", hint=2)] = aten::sin(%getitem)
    return (%sin)
  }
}
signature {
  input user_input %x
  output user_output %getitem_1
}
module_call_graph {
  entry "" inputs=[%x] outputs=[%getitem_1] in_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]" out_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]"
  entry "block" inputs=[%x] outputs=[%getitem] in_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]" out_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]"
}
range_constraints {
  "s0" = [2, 8]
}
)EPT");
  EXPECT_EQ(featuresOf(p), (std::vector<std::string>{"grad-region", "no-grad-calls", "autocast-region", "symbolic-size",
                                                     "size-read", "module-tree", "effect"}));
}

// A cond in a branch is nested; a while loop; a bare `_set_grad_enabled(True)` alone turns
// no grad off, and a root entry alone is no module tree.
TEST(ProgramFeatures, ANestedCondAndAWhileLoop) {
  const ExportedProgram p = test::parse(R"EPT(graph {
  %pred: b8[] = placeholder
  %x: f32[3] = placeholder
  %i: i64[] = placeholder
  %g: None = torch._C._set_grad_enabled(True)
  %t = get_attr("true_graph_0")
  %f = get_attr("false_graph_0")
  %cond: (f32[3],) = higher_order.cond(%pred, graph(%t), graph(%f), [%pred, %x])
  %getitem: f32[3] = operator.getitem(%cond, 0)
  %c = get_attr("while_loop_cond_graph_0")
  %b = get_attr("while_loop_body_graph_0")
  %loop: (i64[],) = higher_order.while_loop(graph(%c), graph(%b), [%i], tensors[])
  %out: i64[] = operator.getitem(%loop, 0)
  return (%getitem, %out)
  attr "false_graph_0" = graph {
    %p: b8[] = placeholder
    %a: f32[3] = placeholder
    %neg: f32[3] = aten::neg(%a)
    return (%neg)
  }
  attr "true_graph_0" = graph {
    %p: b8[] = placeholder
    %a: f32[3] = placeholder
    %t = get_attr("true_graph_0")
    %f = get_attr("false_graph_0")
    %cond: (f32[3],) = higher_order.cond(%p, graph(%t), graph(%f), [%a])
    %getitem: f32[3] = operator.getitem(%cond, 0)
    return (%getitem)
    attr "false_graph_0" = graph {
      %b: f32[3] = placeholder
      %sin: f32[3] = aten::sin(%b)
      return (%sin)
    }
    attr "true_graph_0" = graph {
      %b: f32[3] = placeholder
      %cos: f32[3] = aten::cos(%b)
      return (%cos)
    }
  }
  attr "while_loop_body_graph_0" = graph {
    %j: i64[] = placeholder
    %add: i64[] = aten::add.Scalar(%j, 1)
    return (%add)
  }
  attr "while_loop_cond_graph_0" = graph {
    %j: i64[] = placeholder
    %lt: b8[] = aten::lt.Scalar(%j, 3)
    return %lt
  }
}
signature {
  input user_input %pred
  input user_input %x
  input user_input %i
  output user_output %getitem
  output user_output %out
}
)EPT");
  EXPECT_EQ(featuresOf(p), (std::vector<std::string>{"cond", "nested-cond", "while-loop"}));
}

}  // namespace
}  // namespace epsmith
