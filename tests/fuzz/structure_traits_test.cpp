// Program traits (Note [Program traits]) of state, layout, grad mode, effects and
// structure: what a minimized program writes under no_grad or into overlapping inputs,
// reduces, takes as tokens, nests or names, with programs that have each and near misses
// that do not (program_traits_test.cpp has those of writes through views).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/root_cause.h"
#include "tests/support/program_text.h"

namespace epsmith {
namespace {

// A token input is a trait; a program without one has none.
TEST(RootCause, AnEffectTokenInputIsATrait) {
  auto program = [](const std::string& token_input, const std::string& token_output) {
    return test::parse(
        "graph {\n  %token: f32[0] = placeholder\n  %x: f32[2] = placeholder\n"
        "  %neg: f32[2] = aten::neg(%x)\n  return (%token, %neg)\n}\nsignature {\n" +
        token_input + "  input user_input %x\n" + token_output + "  output user_output %neg\n}\n");
  };
  EXPECT_EQ(programTraits(program("  input token token(%token)\n", "  output token token(%token)\n")),
            std::vector<std::string>{"takes-an-effect-token"});
}

// A write into a parameter, or a view of one, under no_grad; not one with grad on, nor a
// write into a user input under no_grad.
TEST(RootCause, AWriteIntoAParameterUnderNoGradIsATrait) {
  auto program = [](const std::string& mode, const std::string& written) {
    return test::parse(
        "graph {\n  %p_w: f32[2, 3]<requires_grad=True> = placeholder\n  %x: f32[2, 3] = placeholder\n"
        "  %g: None = torch._C._set_grad_enabled(" +
        mode +
        ")\n"
        "  %t: f32[3, 2] = aten::t(" +
        written +
        ")\n  %mul_: f32[3, 2] = aten::mul_.Scalar(%t, 2)\n"
        "  %g2: None = torch._C._set_grad_enabled(True)\n  %add: f32[2, 3] = aten::add.Tensor(%p_w, %x)\n"
        "  return (%add)\n}\nsignature {\n  input parameter %p_w -> \"w\"\n  input user_input %x\n"
        "  output user_output %add\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "writes-a-parameter-under-no-grad") != traits.end();
  };
  EXPECT_TRUE(has(program("False", "%p_w")));
  EXPECT_FALSE(has(program("True", "%p_w")));
  EXPECT_FALSE(has(program("False", "%x")));
}

// A grad region's calls run where the region is, under no_grad: a write there into a
// parameter, or an out= call there resizing a user input, is the program's, though inside
// the region each is a write into a placeholder of the subgraph. A submodule entry naming
// the region's result is still read from the program as it is.
TEST(RootCause, WritesInsideAGradRegionAreTraitsOfTheProgram) {
  const std::string spec = R"(in_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]" )"
                           R"(out_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]")";
  auto program = [&](const std::string& call) {
    return test::parse(
        "graph {\n  %p_w: f32[2, 3]<requires_grad=True> = placeholder\n  %x: f32[2, 3] = placeholder\n"
        "  %submod_0 = get_attr(\"submod_0\")\n"
        "  %wrap_with_set_grad_enabled: (f32[2, 3],) = "
        "higher_order.wrap_with_set_grad_enabled(False, graph(%submod_0), %p_w, %x)\n"
        "  %getitem: f32[2, 3] = operator.getitem(%wrap_with_set_grad_enabled, 0)\n"
        "  %add: f32[2, 3] = aten::add.Tensor(%p_w, %getitem)\n  return (%add)\n"
        "  attr \"submod_0\" = graph {\n    %p_w: f32[2, 3]<requires_grad=True> = placeholder\n"
        "    %x: f32[2, 3] = placeholder\n    " +
        call +
        "\n    return (%x)\n  }\n}\nsignature {\n  input parameter %p_w -> \"w\"\n  input user_input %x\n"
        "  output user_output %add\n}\nmodule_call_graph {\n  entry \"block\" inputs=[%x] outputs=[%getitem] " +
        spec + "\n}\n");
  };
  auto has = [](const ExportedProgram& p, const std::string& trait) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), trait) != traits.end();
  };
  const ExportedProgram writes = program("%mul_: f32[2, 3] = aten::mul_.Scalar(%p_w, 2)");
  EXPECT_TRUE(has(writes, "writes-a-parameter-under-no-grad"));
  EXPECT_FALSE(has(writes, "resizes-an-input"));
  const ExportedProgram resizes = program("%sum: f32[3] = aten::sum.IntList_out(%p_w, [0], out=%x)");
  EXPECT_TRUE(has(resizes, "resizes-an-input"));
  EXPECT_FALSE(has(resizes, "writes-a-parameter-under-no-grad"));
  EXPECT_FALSE(has(program("%neg: f32[2, 3] = aten::neg(%x)"), "resizes-an-input"));
  // What the program's own graph names stays named: the entry's output is the region's getitem.
  EXPECT_TRUE(has(writes, "submodule-entry-names-an-output"));
}

// An autocast region's calls are the program's as a grad region's are: an out= call there
// resizing a user input resizes an input of the program.
TEST(RootCause, WritesInsideAnAutocastRegionAreTraitsOfTheProgram) {
  auto program = [](const std::string& call) {
    return test::parse(
        "graph {\n  %x: f32[2, 3] = placeholder\n  %submod_0 = get_attr(\"submod_0\")\n"
        "  %wrap_with_autocast: (f32[2, 3],) = higher_order.wrap_with_autocast(\"cpu\", torch.bfloat16, True, "
        "False, graph(%submod_0), %x)\n"
        "  %getitem: f32[2, 3] = operator.getitem(%wrap_with_autocast, 0)\n  return (%getitem)\n"
        "  attr \"submod_0\" = graph {\n    %x: f32[2, 3] = placeholder\n    " +
        call +
        "\n    %neg: f32[2, 3] = aten::neg(%x)\n    return (%neg)\n  }\n}\nsignature {\n"
        "  input user_input %x\n  output user_output %getitem\n}\n");
  };
  auto has = [](const ExportedProgram& p, const std::string& trait) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), trait) != traits.end();
  };
  EXPECT_TRUE(has(program("%sum: f32[3] = aten::sum.IntList_out(%x, [0], out=%x)"), "resizes-an-input"));
  EXPECT_FALSE(has(program("%sin: f32[2, 3] = aten::sin(%x)"), "resizes-an-input"));
  // And a write there is one that functionalization runs through autocast.
  EXPECT_TRUE(has(program("%sin_: f32[2, 3] = aten::sin_(%x)"), "writes-inside-an-autocast-region"));
  EXPECT_FALSE(has(program("%sin: f32[2, 3] = aten::sin(%x)"), "writes-inside-an-autocast-region"));
}

// An out= call resizing an out that requires grad (made from a parameter); not one that
// keeps its sizes, nor one into an out that needs no grad.
TEST(RootCause, ResizingAnOutThatRequiresGradIsATrait) {
  auto program = [](const std::string& requires_grad, const std::string& sizes) {
    return test::parse("graph {\n  %p_w: f32[2, 2]<requires_grad=True> = placeholder\n  %c: f32[" + sizes +
                       "] = placeholder\n  %fd: f32[2, 2]" + requires_grad +
                       " = aten::floor_divide.Scalar(%p_w, 1)\n  %nd: f32[" + sizes + "]" + requires_grad +
                       " = aten::special_ndtr.out(%c, out=%fd)\n  return (%p_w)\n}\nsignature {\n"
                       "  input parameter %p_w -> \"w\"\n  input user_input %c\n  output user_output %p_w\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "resizes-an-out-that-requires-grad") != traits.end();
  };
  EXPECT_TRUE(has(program("<requires_grad=True>", "")));
  EXPECT_FALSE(has(program("<requires_grad=True>", "2, 2")));
  EXPECT_FALSE(has(program("", "")));
}

// median along a dimension of stride 0 (an expanded input's rows); not along a dense
// dimension of the same input, nor along the rows of a dense input.
TEST(RootCause, ReducingAlongAStride0DimensionIsATrait) {
  auto program = [](const std::string& layout, int dim) {
    const std::string n = dim == 0 ? "3" : "4";
    return test::parse("graph {\n  %x: f32[4, 3]" + layout + " = placeholder\n  %m: (f32[" + n + "], i64[" + n +
                       "]) = aten::median.dim(%x, " + std::to_string(dim) + ")\n  %v: f32[" + n +
                       "] = operator.getitem(%m, 0)\n  return (%v)\n}\n"
                       "signature {\n  input user_input %x\n  output user_output %v\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "reduces-along-a-stride-0-dimension") != traits.end();
  };
  EXPECT_TRUE(has(program("<stride=[0, 1]>", 0)));
  EXPECT_FALSE(has(program("<stride=[0, 1]>", 1)));
  EXPECT_FALSE(has(program("", 0)));
}

// A write into an input holding one element at several positions (stride 0), through a
// view made in a grad region as well (a 2.13 campaign's D2 lead); not into a dense input.
TEST(RootCause, WritingAnInputWhoseElementsOverlapIsATrait) {
  auto program = [](const std::string& layout) {
    return test::parse("graph {\n  %x: f64[7]" + layout +
                       " = placeholder\n  %r = get_attr(\"submod_1\")\n"
                       "  %w: (f64[],) = higher_order.wrap_with_set_grad_enabled(False, graph(%r), %x)\n"
                       "  %g: f64[] = operator.getitem(%w, 0)\n  %s: f64[] = aten::sinh_(%g)\n  return (%s)\n"
                       "  attr \"submod_1\" = graph {\n    %a: f64[7]" +
                       layout +
                       " = placeholder\n    %v: f64[] = aten::select.int(%a, 0, 5)\n    return (%v)\n  }\n}\n"
                       "signature {\n  input user_input %x\n  output user_output %s\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "writes-an-input-whose-elements-overlap") != traits.end();
  };
  EXPECT_TRUE(has(program("<stride=[0]>")));
  EXPECT_FALSE(has(program("")));
}

// A submodule's entry that names a node among its outputs; not one that names none, nor the
// root entry.
TEST(RootCause, ASubmoduleEntryNamingAnOutputIsATrait) {
  auto program = [](const std::string& fqn, const std::string& output) {
    const std::string spec = R"(in_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]" )"
                             R"(out_spec="[1, {\"type\": null, \"context\": null, \"children_spec\": []}]")";
    return test::parse(
        "graph {\n  %x: f32[2, 1] = placeholder\n  %squeeze: f32[2] = aten::squeeze.dim(%x, 1)\n"
        "  %neg: f32[2] = aten::neg(%squeeze)\n  return (%neg)\n}\n"
        "signature {\n  input user_input %x\n  output user_output %neg\n}\n"
        "module_call_graph {\n  entry \"" +
        fqn + "\" inputs=[%x] outputs=[" + output + "] " + spec + "\n}\n");
  };
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "submodule-entry-names-an-output") != traits.end();
  };
  EXPECT_TRUE(has(program("block", "%squeeze")));
  EXPECT_TRUE(has(program("block", "%neg")));
  EXPECT_FALSE(has(program("block", "")));
  EXPECT_FALSE(has(program("", "%squeeze")));
}

// A cond in a cond's branch; not a cond whose branches call only ATen ops, nor two conds
// side by side.
TEST(RootCause, AHigherOrderOpInASubgraphIsATrait) {
  auto program = [](const std::string& inner) {
    return test::parse(R"EPT(graph {
  %x: f32[3] = placeholder
  %p: b8[] = placeholder
  %t = get_attr("true_graph_0")
  %f = get_attr("false_graph_0")
  %cond: (f32[3],) = higher_order.cond(%p, graph(%t), graph(%f), [%x])
  %getitem: f32[3] = operator.getitem(%cond, 0)
  %t2 = get_attr("true_graph_1")
  %f2 = get_attr("false_graph_1")
  %cond_1: (f32[3],) = higher_order.cond(%p, graph(%t2), graph(%f2), [%getitem])
  %getitem_1: f32[3] = operator.getitem(%cond_1, 0)
  return (%getitem_1)
  attr "false_graph_0" = graph {
    %x: f32[3] = placeholder
    %cos: f32[3] = aten::cos(%x)
    return (%cos)
  }
  attr "true_graph_0" = graph {
    %x: f32[3] = placeholder
)EPT" + inner + R"EPT(  }
  attr "false_graph_1" = graph {
    %x: f32[3] = placeholder
    %cos: f32[3] = aten::cos(%x)
    return (%cos)
  }
  attr "true_graph_1" = graph {
    %x: f32[3] = placeholder
    %sin: f32[3] = aten::sin(%x)
    return (%sin)
  }
}
signature {
  input user_input %x
  input user_input %p
  output user_output %getitem_1
}
)EPT");
  };
  const std::string nested = R"EPT(    %sum: f32[] = aten::sum(%x)
    %gt: b8[] = aten::gt.Scalar(%sum, 1)
    %t = get_attr("true_graph_0")
    %f = get_attr("false_graph_0")
    %cond: (f32[3],) = higher_order.cond(%gt, graph(%t), graph(%f), [%x])
    %getitem: f32[3] = operator.getitem(%cond, 0)
    return (%getitem)
    attr "false_graph_0" = graph {
      %x: f32[3] = placeholder
      return (%x)
    }
    attr "true_graph_0" = graph {
      %x: f32[3] = placeholder
      %neg: f32[3] = aten::neg(%x)
      return (%neg)
    }
)EPT";
  auto has = [](const ExportedProgram& p) {
    const auto traits = programTraits(p);
    return std::find(traits.begin(), traits.end(), "nests-a-higher-order-op") != traits.end();
  };
  EXPECT_TRUE(has(program(nested)));
  EXPECT_FALSE(has(program("    %sin: f32[3] = aten::sin(%x)\n    return (%sin)\n")));
}

// requires_grad_ of a periodic window of two elements or more, which eager makes as a view
// (Note [Factories eager returns as views]), or of a view of one; of a symmetric window,
// of a window of one element, or of another factory's result, it is none.
TEST(RootCause, RequiresGradOfAFactoryViewIsATrait) {
  auto program = [](const std::string& made, const std::string& n, const std::string& through) {
    return test::parse(R"EPT(graph {
  %w: f64[)EPT" + n + R"EPT(] = aten::)EPT" +
                       made + R"EPT(
  %m: f64[)EPT" + n + R"EPT(] = aten::movedim.intlist(%w, [0], [0])
  %r: f64[)EPT" + n + R"EPT(]<requires_grad=True> = aten::requires_grad_(%)EPT" +
                       through + R"EPT()
  %c: f64[)EPT" + n + R"EPT(] = aten::cosh_(%m)
  return (%c)
}
signature {
  output user_output %c
}
)EPT");
  };
  const std::vector<std::string> trait{"requires-grad-of-a-factory-view"};
  EXPECT_EQ(programTraits(program("hamming_window(2, dtype=torch.float64)", "2", "w")), trait);
  EXPECT_EQ(programTraits(program("kaiser_window.beta(3, True, 2.0, dtype=torch.float64)", "3", "m")), trait);
  EXPECT_TRUE(programTraits(program("hann_window.periodic(3, False, dtype=torch.float64)", "3", "w")).empty());
  EXPECT_TRUE(programTraits(program("hann_window(1, dtype=torch.float64)", "1", "w")).empty());
  EXPECT_TRUE(programTraits(program("ones([2], dtype=torch.float64)", "2", "w")).empty());
}

// unbind of a dimension of size 0 returns no tensors (torch.export.load cannot read such a
// node back); of size 2, two.
TEST(RootCause, AnEmptyTensorListIsATrait) {
  auto program =
      [](const std::string& rows, const std::string& result) {
        return test::parse(R"EPT(graph {
  %x: f32[)EPT" + rows + R"EPT(, 3] = placeholder
  %unbind: )EPT" + result + R"EPT( = aten::unbind.int(%x)
  %neg: f32[)EPT" + rows + R"EPT(, 3] = aten::neg(%x)
  return (%neg)
}
signature {
  input user_input %x
  output user_output %neg
}
)EPT");
      };
  EXPECT_EQ(programTraits(program("0", "()")), (std::vector<std::string>{"returns-an-empty-tensor-list"}));
  EXPECT_TRUE(programTraits(program("2", "(f32[3], f32[3]<offset=3>)")).empty());
}

// as_strided of a transposed input that triu_ then writes addresses the storage, which
// LibTorch's functionalization holds contiguously after the write (a 2.13 campaign's D2
// case, seed 54802495), and so of an input at a storage offset (a D8 case, seed 9300939);
// of a contiguous input, or with no write, it is no trait.
TEST(RootCause, AnAsStridedOfAWrittenStridedTensorIsATrait) {
  auto program = [](const std::string& layout, bool write) {
    return test::parse(R"EPT(graph {
  %x: f32[2, 3])EPT" + layout +
                       R"EPT( = placeholder
  %as_strided: f32[6] = aten::as_strided(%x, [6], [1])
)EPT" + (write ? "  %triu_: f32[2, 3]" + layout + " = aten::triu_(%x)\n" : std::string()) +
                       R"EPT(  %neg: f32[6] = aten::neg(%as_strided)
  return (%neg)
}
signature {
  input user_input %x
  output user_output %neg
}
)EPT");
  };
  EXPECT_EQ(programTraits(program("<stride=[1, 2]>", true)),
            (std::vector<std::string>{"addresses-a-written-strided-tensor"}));
  EXPECT_EQ(programTraits(program("<offset=3>", true)),
            (std::vector<std::string>{"addresses-a-written-strided-tensor"}));
  EXPECT_TRUE(programTraits(program("", true)).empty());
  EXPECT_TRUE(programTraits(program("<stride=[1, 2]>", false)).empty());
}

// A grad region's calls are the program's: their ops are core ops of its root cause, and
// a graph trait that one of them has is the program's (a lost metadata mutation in a
// region is the same bug as outside one).
TEST(RootCause, ARegionsCallsAreTheProgramsToo) {
  const ExportedProgram p = test::parse(R"EPT(graph {
  %x: f32[2, 3] = placeholder
  %region = get_attr("submod_0")
  %wrap: (f32[3, 2],) = higher_order.wrap_with_set_grad_enabled(False, graph(%region), %x)
  %getitem: f32[3, 2] = operator.getitem(%wrap, 0)
  %neg: f32[3, 2] = aten::neg(%getitem)
  return (%neg)
  attr "submod_0" = graph {
    %a: f32[2, 3] = placeholder
    %clone: f32[2, 3] = aten::clone(%a)
    %t_: f32[3, 2] = aten::t_(%clone)
    return (%t_)
  }
}
signature {
  input user_input %x
  output user_output %neg
}
)EPT");
  EXPECT_EQ(coreOps(p), (std::vector<std::string>{"clone", "neg", "t"}));
  const auto traits = programTraits(p);
  EXPECT_NE(std::find(traits.begin(), traits.end(), "mutates-metadata-in-place"), traits.end());
}

}  // namespace
}  // namespace epsmith
