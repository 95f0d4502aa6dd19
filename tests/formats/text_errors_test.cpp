// Bad text input: every class of error gives one located message and never a crash.
#include <gtest/gtest.h>

#include "formats/text_format.h"

namespace epsmith {
namespace {

struct BadText {
  const char* name;
  std::string text;
  std::string where;    // "line:col"
  std::string message;  // a fragment of the message
};

class TextErrors : public ::testing::TestWithParam<BadText> {};

TEST_P(TextErrors, ReportsTheLocationAndTheReason) {
  const BadText& c = GetParam();
  auto p = parseProgramText(c.text);
  ASSERT_FALSE(p.ok()) << c.name << " was accepted";
  EXPECT_EQ(p.error().where, c.where) << p.error().str();
  EXPECT_NE(p.error().message.find(c.message), std::string::npos) << p.error().str();
}

const std::string kHead = "graph {\n  %x: f32[2] = placeholder\n";

INSTANTIATE_TEST_SUITE_P(
    AllClasses, TextErrors,
    ::testing::Values(
        BadText{"unknown_op", kHead + "  %y: f32[2] = aten::frobnicate(%x)\n  return (%y)\n}\n", "3:16",
                "unknown operator aten::frobnicate"},
        BadText{"unknown_overload", kHead + "  %y: f32[2] = aten::add.Tensorr(%x, %x)\n}\n", "3:16",
                "unknown overload 'Tensorr' of aten::add (known: "},
        BadText{"too_many_args", kHead + "  %y: f32[2] = aten::neg(%x, %x)\n}\n", "3:16",
                "aten::neg takes at most 1 positional arguments, got 2"},
        BadText{"missing_arg", kHead + "  %y: f32[2] = aten::add.Tensor(%x)\n}\n", "3:16",
                "missing argument 'other' of aten::add.Tensor"},
        BadText{"wrong_arg_type", kHead + "  %y: f32[2] = aten::add.Tensor(%x, %x, alpha=%x)\n}\n", "3:16",
                "argument 'alpha' of aten::add.Tensor expects Scalar, got as_tensor"},
        BadText{"unknown_kwarg", kHead + "  %y: f32[2] = aten::add.Tensor(%x, %x, beta=2)\n}\n", "3:16",
                "unknown keyword argument 'beta'"},
        BadText{"undefined_node", kHead + "  %y: f32[2] = aten::neg(%nope)\n  return (%y)\n}\n", "3:26",
                "reference to undefined node %nope"},
        BadText{"duplicate_node", kHead + "  %x: f32[2] = placeholder\n}\n", "3:3",
                "duplicate node name %x (first defined at 2:3)"},
        BadText{"unknown_dtype", "graph {\n  %x: f31[2] = placeholder\n}\n", "2:7", "unknown dtype 'f31'"},
        // Found by the text_parser libFuzzer target (UBSan: the strides overflowed int64).
        BadText{"sizes_past_int64", "graph {\n  %x: f32[4611686018427387904, 4] = placeholder\n}\n", "2:7",
                "the sizes have more elements than int64 counts"},
        BadText{"unknown_layout", "graph {\n  %x: f32[2]<layout=torch.sparse_foo> = placeholder\n}\n", "2:21",
                "unknown layout"},
        BadText{"unknown_memory_format_arg",
                kHead + "  %y: f32[2] = aten::clone(%x, memory_format=torch.channels_lost)\n}\n", "3:46",
                "unknown argument 'torch.channels_lost'"},
        BadText{"truncated_storage", "graph {\n  return ()\n}\nstorages {\n  $0: f32[3] = [1.0, 2.0]\n}\n", "5:3",
                "storage $0 declares 3 elements but lists 2"},
        BadText{"storage_too_long", "graph {\n  return ()\n}\nstorages {\n  $0: f32[1] = [1.0, 2.0]\n}\n", "5:22",
                "lists more than its 1 elements"},
        BadText{"view_out_of_bounds",
                "graph {\n  return ()\n}\nstorages {\n  $0: f32[4] = [1.0, 2.0, 3.0, 4.0]\n}\n"
                "state {\n  buffer \"b\" = $0 f32[2, 3]\n}\n",
                "8:16", "view needs 6 storage elements but the storage has 4"},
        BadText{"overflowing_stride",
                "graph {\n  return ()\n}\nstorages {\n  $0: f32[1] = [1.0]\n}\n"
                "state {\n  buffer \"b\" = $0 f32[3]<stride=[9223372036854775807]>\n}\n",
                "8:16", "view needs 9223372036854775807 storage elements but the storage has 1"},
        BadText{"undefined_storage", "graph {\n  return ()\n}\nstate {\n  buffer \"b\" = $7 f32[2]\n}\n", "5:16",
                "storage $7 is not defined"},
        BadText{"storage_dtype_mismatch",
                "graph {\n  return ()\n}\nstorages {\n  $0: i64[2] = [1, 2]\n}\n"
                "state {\n  buffer \"b\" = $0 f32[2]\n}\n",
                "8:16", "tensor of dtype f32 views a storage of dtype i64"},
        BadText{"bad_element", "graph {\n  return ()\n}\nstorages {\n  $0: i32[1] = [1.5]\n}\n", "5:17",
                "expected an integer"},
        BadText{"int_overflow", kHead + "  %y: f32[2] = aten::add.Scalar(%x, 99999999999999999999)\n}\n", "3:37",
                "out of range"},
        BadText{"unterminated_string", kHead + "  %y: f32[2] = aten::neg(%x) {stack_trace=\"abc\n}\n", "3:43",
                "unterminated string"},
        BadText{"unterminated_graph", kHead, "3:1", "unterminated graph block"},
        BadText{"missing_graph", "program {\n}\n", "3:1", "missing graph { } section"},
        BadText{"unknown_section", "grph {\n}\n", "1:1", "unknown section 'grph'"},
        BadText{"duplicate_section", "graph {\n}\ngraph {\n}\n", "3:1", "section 'graph' given twice"},
        BadText{"unknown_input_kind", kHead + "  return ()\n}\nsignature {\n  input paramter %x\n}\n", "6:9",
                "unknown input kind 'paramter'"},
        BadText{"mixed_list", kHead + "  %y = mylib.f([1, 2.0])\n}\n", "3:20",
                "list element of kind as_float in a list of as_int"},
        BadText{"deep_nesting", "graph {\n  %x: " + std::string(200, '(') + " = placeholder\n}\n", "2:72",
                "values nested too deeply"},
        BadText{"bad_escape", kHead + "  %y = mylib.f(\"\\q\")\n}\n", "3:17", "unknown escape \\q"},
        BadText{"garbage", "graph {\n  ??\n}\n", "2:3", "expected a node (%name = ...), return, attr or '}'"}),
    [](const ::testing::TestParamInfo<BadText>& info) { return std::string(info.param.name); });

TEST(TextErrors, EmptyInputIsAnErrorNotACrash) {
  auto p = parseProgramText("");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message, "missing graph { } section");
}

TEST(TextErrors, EveryTruncationOfAValidFileFailsCleanlyOrParses) {
  const std::string good = R"(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[2, 3]<stride=[1, 2]> = placeholder
  %y: f32[2, 3] = aten::add.Tensor(%x, %x, alpha=2) {stack_trace="a"}
  return (%y)
}
signature {
  input user_input %x
  output user_output %y
}
storages {
  $0: f32[6] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
}
example_inputs {
  $0 f32[2, 3]<stride=[1, 2]>
}
)";
  ASSERT_TRUE(parseProgramText(good).ok());
  for (size_t n = 0; n < good.size(); ++n) {
    auto p = parseProgramText(good.substr(0, n));  // must return, never crash or hang
    if (!p.ok()) {
      EXPECT_FALSE(p.error().where.empty()) << n;
    }
  }
}

}  // namespace
}  // namespace epsmith
