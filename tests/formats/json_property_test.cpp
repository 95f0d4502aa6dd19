// Properties of the JSON file over many random programs, valid and not: every one
// round-trips exactly, and byte-level corruptions of a written file never crash the reader
// (each read returns a program or a located error).
#include <gtest/gtest.h>

#include <iterator>
#include <random>

#include <nlohmann/json.hpp>

#include "tests/formats/json_test_util.h"

namespace epsmith::testing {
namespace {

class RandomProgram {
 public:
  explicit RandomProgram(uint32_t seed) : rng_(seed) {}

  ExportedProgram build() {
    ExportedProgram p;
    fillGraph(p.graph(), /*depth=*/0);
    for (int i = pick(4); i > 0; --i) p.signature.input_specs.push_back(inputSpec());
    for (int i = pick(4); i > 0; --i) p.signature.output_specs.push_back(outputSpec());
    std::vector<TensorValue> pool;
    for (int i = pick(5); i > 0; --i) {
      TensorValue t = tensor(pool);
      pool.push_back(t);
      if (coin(50)) {
        p.state_dict["s" + std::to_string(i)] = {coin(50), t};
      } else if (coin(50)) {
        p.constants["c" + std::to_string(i)] = Constant{t, ""};
      } else {
        InputValue in;
        in.kind = InputValue::Kind::Tensor;
        in.tensor = t;
        p.example_inputs.push_back(in);
      }
    }
    if (coin(30)) p.constants["obj"] = Constant{std::nullopt, text()};
    InputValue scalar;
    scalar.kind = static_cast<InputValue::Kind>(1 + pick(4));
    scalar.i = pick(100) - 50;
    scalar.f = coin(20) ? std::nan("") : pick(100) / 8.0;
    scalar.b = coin(50);
    p.example_inputs.push_back(scalar);
    if (coin(50)) p.range_constraints["s0"] = {coin(50) ? std::optional<int64_t>(2) : std::nullopt, std::nullopt};
    if (coin(30)) p.module_call_graph.push_back({text(), std::nullopt});
    return p;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool coin(int percent) { return pick(100) < percent; }

  std::string text() {
    static const std::vector<std::string> parts = {"a",  "b_1", ",", ";", "[",        ")", "epsmith.",
                                                   "\"", "\\",  "/", "~", "\xc3\xa9", " ", ""};
    std::string s;
    for (int i = pick(4); i > 0; --i) s += parts[pick(static_cast<int>(parts.size()))];
    return s;
  }

  SymExpr expr() {
    SymExpr e{"s" + std::to_string(pick(3)), std::nullopt};
    switch (pick(4)) {
      case 0: e.hint = int64_t{pick(9)}; break;
      case 1: e.hint = coin(50); break;
      case 2: e.hint = pick(9) / 4.0; break;
      default: break;
    }
    return e;
  }

  TensorMeta meta() {
    TensorMeta m = TensorMeta::contiguous(kDtypes[pick(kDtypes.size())], {pick(3), 2});
    if (coin(30)) m.sizes[0] = SymIntValue(expr());
    m.requires_grad = coin(20);
    if (coin(20)) m.device = Device{"cuda", coin(50) ? std::optional<int64_t>(1) : std::nullopt};
    return m;
  }

  // Only kinds a node output or getitem can carry are "foldable".
  Val val(int depth, bool foldable_only = false) {
    switch (pick(foldable_only ? 8 : 17)) {
      case 0: return meta();
      case 1: return Val::SymInt{expr()};
      case 2: return Val::SymFloat{expr()};
      case 3: return Val::SymBool{expr()};
      case 4: return int64_t{pick(20) - 10};
      case 5: return coin(20) ? std::nan("") : pick(20) / 3.0;
      case 6: return coin(50);
      case 7: return Val::None{};
      case 8: return Val::Missing{};
      case 9: {
        Val::List list;
        for (int i = depth < 2 ? pick(3) : 0; i > 0; --i) list.push_back(val(depth + 1));
        return list;
      }
      case 10: return text();
      case 11: return ScalarType::Half;
      case 12: return Device{"cpu", std::nullopt};
      case 13: return Layout::SparseCsc;
      case 14: return MemoryFormat::ChannelsLast3d;
      case 15: return Val::CustomObj{text()};
      default: return Val::Opaque{text()};
    }
  }

  NodeMeta nodeMeta() {
    NodeMeta m;
    if (coin(20)) m.stack_trace = text();
    if (coin(20)) {
      m.nn_module_stack.emplace();
      for (int i = pick(3); i > 0; --i) m.nn_module_stack->push_back({text(), text(), text()});
    }
    if (coin(20)) m.torch_fn = std::make_pair(text(), text());
    static const std::vector<std::string> keys = {
        "k", "stack_trace", "epsmith.val", "torch_fn", "epsmith.custom.x", "custom", "nn_module_stack"};
    for (int i = coin(20) ? pick(3) : 0; i > 0; --i) m.custom[keys[pick(keys.size())]] = text();
    return m;
  }

  Node* any(const std::vector<Node*>& nodes) { return nodes[pick(static_cast<int>(nodes.size()))]; }

  Argument argument(const std::vector<Node*>& nodes) {
    auto sym = [&](auto literal) {
      using T = decltype(literal);
      return arg::SymScalar<T>{coin(50) ? any(nodes) : nullptr, literal};
    };
    switch (pick(kNumArgKinds)) {
      case 0: return arg::None{};
      case 1: return arg::Tensor{any(nodes)};
      case 2: return arg::TensorList{{any(nodes), any(nodes)}};
      case 3: return arg::OptionalTensor{coin(50) ? any(nodes) : nullptr};
      case 4: return arg::OptionalTensorList{{nullptr, any(nodes)}};
      case 5: return arg::Int{pick(9)};
      case 6: return arg::IntList{{pick(9)}};
      case 7: return arg::Float{coin(10) ? -std::numeric_limits<double>::infinity() : pick(9) / 7.0};
      case 8: return arg::FloatList{{std::nan(""), 0.25}};
      case 9: return arg::Bool{coin(50)};
      case 10: return arg::BoolList{{coin(50)}};
      case 11: return arg::String{text()};
      case 12: return arg::StringList{{text()}};
      case 13: return arg::SymInt{sym(int64_t{pick(5)})};
      case 14: return arg::SymIntList{{sym(int64_t{1}), sym(int64_t{2})}};
      case 15: return arg::SymFloat{sym(0.5)};
      case 16: return arg::SymFloatList{{sym(1.5)}};
      case 17: return arg::SymBool{sym(true)};
      case 18: return arg::SymBoolList{{sym(false)}};
      case 19: return arg::Dtype{kDtypes[pick(kDtypes.size())]};
      case 20: return arg::MemFormat{MemoryFormat::Preserve};
      case 21: return arg::TensorLayout{Layout::Mkldnn};
      case 22: return arg::DeviceArg{{"cuda", 0}};
      case 23: return arg::Graph{any(nodes)};
      case 24: return arg::CustomObj{any(nodes), text()};
      case 25: return arg::Operator{coin(50) ? "aten::mul.Tensor" : "my.op"};
      default: return arg::Complex{1.0, -0.5};
    }
  }

  Target target() {
    static const std::vector<std::string> names = {"my_lib.fn",
                                                   "_operator.add",
                                                   "operator.mul",
                                                   "math.ceil",
                                                   "builtins.round",
                                                   "torch.sym_int",
                                                   "torch.ops.higher_order.cond",
                                                   "higher_order.map_impl"};
    switch (pick(4)) {
      case 0: return Target::other(coin(50) ? "torch.ops.aten.add.Tensor" : "what ever");
      case 1: return Target::higherOrder(coin(50) ? "" : "cond");
      default: return epsmith::testing::target(names[pick(names.size())]);
    }
  }

  void fillGraph(Graph& g, int depth) {
    std::vector<Node*> nodes;
    for (int i = pick(4); i > 0; --i) {
      Node* p = g.append(OpKind::Placeholder, "p");
      p->meta = nodeMeta();
      p->meta.val = val(0);
      nodes.push_back(p);
    }
    if (nodes.empty()) nodes.push_back(placeholder(g, "x", meta()));
    for (int i = 2 + pick(8); i > 0; --i) {
      switch (pick(7)) {
        case 0: {  // an ATen call the schema binds
          Node* n = call(g, "add", "aten::add.Tensor", {arg::Tensor{any(nodes)}, arg::Tensor{any(nodes)}},
                         coin(80) ? Val(meta()) : val(0));
          if (coin(30)) n->kwargs = {{"alpha", arg::Int{2}}};
          n->meta.stack_trace = coin(20) ? std::optional<std::string>(text()) : std::nullopt;
          nodes.push_back(n);
          break;
        }
        case 1: {  // a list producer and some of its getitems
          Node* n = g.append(OpKind::CallFunction, "multi");
          n->target = coin(50) ? epsmith::testing::target("aten::split.Tensor") : target();
          if (n->target.kind() == Target::Kind::Aten) n->args = {arg::Tensor{any(nodes)}, arg::Int{1}};
          n->meta = nodeMeta();
          Val::List list;
          for (int k = 1 + pick(3); k > 0; --k) list.push_back(coin(70) ? Val(meta()) : val(0, true));
          n->meta.val = list;
          nodes.push_back(n);
          for (size_t k = 0; k < list.size(); ++k) {
            if (coin(40)) continue;
            Node* item = call(g, "getitem", "operator.getitem",
                              {arg::Tensor{n}, arg::Int{static_cast<int64_t>(coin(90) ? k : 0)}}, list[k]);
            item->meta.stack_trace = n->meta.stack_trace;
            item->meta.nn_module_stack = n->meta.nn_module_stack;
            item->meta.torch_fn = n->meta.torch_fn;
            item->meta.custom = n->meta.custom;
            if (coin(10)) item->meta = nodeMeta();
            nodes.push_back(item);
          }
          break;
        }
        case 2: {  // a subgraph read by get_attr, used by the next node or later
          if (depth >= 2) break;
          std::string name = g.uniqueName("sub");
          auto sub = std::make_unique<Graph>();
          fillGraph(*sub, depth + 1);
          g.attributes().emplace(name, Attribute::makeSubgraph(std::move(sub)));
          Node* ga = g.append(OpKind::GetAttr, coin(80) ? name : "renamed");
          ga->attr = name;
          if (coin(10)) ga->meta = nodeMeta();
          nodes.push_back(ga);
          Node* user = g.append(OpKind::CallFunction, "use");
          user->target = target();
          user->args = {arg::Graph{ga}, argument(nodes)};
          if (coin(30)) user->args.push_back(arg::Graph{ga});
          user->meta.val = val(0);
          nodes.push_back(user);
          break;
        }
        case 3: {  // a non-subgraph attribute
          std::string name = g.uniqueName("attr");
          Attribute& a = g.attributes()[name];
          a.kind = coin(50) ? Attribute::Kind::Parameter : Attribute::Kind::Opaque;
          if (coin(50)) a.tensor = TensorValue::zeros(ScalarType::Double, {2});
          a.text = text();
          if (coin(30)) a.field_types["f"] = text();
          Node* ga = g.append(OpKind::GetAttr, name);
          ga->attr = name;
          nodes.push_back(ga);
          break;
        }
        case 4: {  // call_module / call_method / a late placeholder
          Node* n = g.append(coin(40)   ? OpKind::CallModule
                             : coin(50) ? OpKind::CallMethod
                                        : OpKind::Placeholder,
                             "odd");
          if (!n->isPlaceholder()) {
            n->attr = text();
            n->args = {argument(nodes)};
            n->kwargs = {{"k", argument(nodes)}};
          }
          n->meta = nodeMeta();
          n->meta.val = val(0);
          nodes.push_back(n);
          break;
        }
        default: {  // any other call with arbitrary arguments and value
          Node* n = g.append(OpKind::CallFunction, "f");
          n->target = target();
          for (int k = pick(4); k > 0; --k) n->args.push_back(argument(nodes));
          if (coin(30)) n->kwargs = {{text(), argument(nodes)}};
          n->meta = nodeMeta();
          n->meta.val = val(0);
          nodes.push_back(n);
          break;
        }
      }
    }
    // Some uses before their definitions.
    if (coin(30)) {
      Node* first = nullptr;
      for (auto& n : g.nodes()) {
        if (!n.isPlaceholder() && n.target.kind() != Target::Kind::Aten && !n.args.empty()) first = &n;
      }
      if (first) first->args.back() = arg::Tensor{nodes.back()};
    }
    Node* out = output(g, {arg::Tensor{any(nodes)}, argument(nodes)});
    if (coin(20)) g.rename(out, text().empty() ? "out" : "out" + std::to_string(pick(9)));
    if (coin(20)) out->meta = nodeMeta();
  }

  SpecArg specArg() {
    SpecArg a{static_cast<SpecArg::Kind>(pick(7)), coin(80) ? "n" : "", "", {}};
    if (a.kind == SpecArg::Kind::CustomObj || coin(10)) a.class_fqn = text();
    if (a.kind == SpecArg::Kind::Constant || coin(10)) a.value = coin(50) ? ConstantValue(2.5) : ConstantValue(text());
    return a;
  }
  InputSpec inputSpec() {
    InputSpec s{static_cast<InputKind>(pick(6)), specArg(), {}, {}};
    if (coin(70)) s.target = text();
    if (coin(40)) s.persistent = coin(50);
    return s;
  }
  OutputSpec outputSpec() {
    OutputSpec s{static_cast<OutputKind>(pick(8)), specArg(), {}};
    if (coin(60)) s.target = text();
    return s;
  }

  TensorValue tensor(const std::vector<TensorValue>& pool) {
    if (!pool.empty() && coin(40)) {
      TensorValue view = pool[pick(static_cast<int>(pool.size()))];
      if (!view.sizes.empty() && view.sizes[0] > 1) {
        view.sizes[0] -= 1;
        view.storage_offset += view.strides[0];
      }
      return view;
    }
    ScalarType t = kDtypes[pick(kDtypes.size())];
    TensorValue v = TensorValue::zeros(t, {pick(3), 2});
    for (auto& byte : v.storage->bytes) byte = static_cast<uint8_t>(pick(256));
    v.requires_grad = coin(20);
    return v;
  }

  static inline const std::vector<ScalarType> kDtypes = {
      ScalarType::Byte,   ScalarType::Float,         ScalarType::Double,         ScalarType::Half,
      ScalarType::Bool,   ScalarType::ComplexDouble, ScalarType::Float8E5M2FNUZ, ScalarType::UInt16,
      ScalarType::UInt32, ScalarType::UInt64,        ScalarType::Float8E8M0FNU};
  std::mt19937 rng_;
};

TEST(JsonProperties, RandomProgramsRoundTripExactly) {
  for (uint32_t seed = 0; seed < 400; ++seed) {
    ExportedProgram p = RandomProgram(seed).build();
    ASSERT_TRUE(roundTrips(p)) << "seed " << seed;
  }
}

// The writer spells its text itself (formats/json_out.h): an independent reader must read the
// same values from it, laid out one space per level as nlohmann lays it out.
TEST(JsonProperties, WrittenFilesAreJsonInTheIndentedLayout) {
  for (uint32_t seed = 0; seed < 200; ++seed) {
    auto text = writeProgramJson(RandomProgram(3000 + seed).build());
    ASSERT_TRUE(text) << text.error().str();
    nlohmann::ordered_json j;
    ASSERT_NO_THROW(j = nlohmann::ordered_json::parse(*text)) << "seed " << seed;
    std::string layout = j.dump(1) + "\n";
    // nlohmann spells some doubles differently (1e+15 as 1000000000000000.0): compare the
    // layout on the text with every number the same.
    auto numbersBlanked = [](const std::string& s) {
      std::string out;
      bool in_string = false;
      for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (in_string) {
          out += c;
          if (c == '\\') out += s[++i];
          if (c == '"') in_string = false;
        } else if (c == '"') {
          in_string = true;
          out += c;
        } else if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
          if (out.empty() || out.back() != '#') out += '#';
        } else {
          out += c;
        }
      }
      return out;
    };
    ASSERT_EQ(numbersBlanked(*text), numbersBlanked(layout)) << "seed " << seed;
    ASSERT_EQ(nlohmann::ordered_json::parse(layout), j);
    // The compact layout is the same JSON without whitespace.
    auto compact = writeProgramJson(RandomProgram(3000 + seed).build(), JsonLayout::Compact);
    ASSERT_TRUE(compact);
    ASSERT_EQ(numbersBlanked(*compact), numbersBlanked(j.dump() + "\n"));
    ASSERT_EQ(nlohmann::ordered_json::parse(*compact), j);
  }
}

TEST(JsonProperties, CorruptedFilesNeverCrashTheReader) {
  std::mt19937 rng(7);
  const std::string alphabet = "{}[]\":,0123456789-.eE nulltruefalse\\\"a_\xc3\xa9";
  size_t accepted = 0, rejected = 0;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    auto text = writeProgramJson(RandomProgram(1000 + seed).build());
    ASSERT_TRUE(text) << text.error().str();
    for (int round = 0; round < 60; ++round) {
      std::string mutated = *text;
      for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
        size_t pos = rng() % mutated.size();
        char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
          case 0: mutated[pos] = c; break;
          case 1: mutated.insert(pos, 1, c); break;
          default: mutated.erase(pos, 1); break;
        }
      }
      auto r = readProgramJson(mutated);
      if (r) {
        ++accepted;
        // Whatever is accepted writes and reads back.
        auto again = writeProgramJson(*r);
        if (again) {
          auto reread = readProgramJson(*again);
          EXPECT_TRUE(reread) << reread.error().str();
        }
      } else {
        ++rejected;
        EXPECT_FALSE(r.error().where.empty()) << r.error().message;
      }
    }
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(accepted, 0u);
}

// Replaces one value of a written file (or drops one key) with a value of another shape.
TEST(JsonProperties, CorruptedValuesNeverCrashTheReader) {
  using Json = nlohmann::json;
  std::mt19937 rng(11);
  const std::vector<Json> replacements = {nullptr,
                                          0,
                                          -1,
                                          7,
                                          1e300,
                                          "x",
                                          "NaN",
                                          "torch.ops.aten.add.Tensor",
                                          Json::array(),
                                          Json::object(),
                                          true,
                                          Json::parse(R"({"as_int": 1})"),
                                          Json::parse(R"({"name": "x"})"),
                                          Json::parse(R"([{"as_tensor": {"name": "x"}}])")};
  size_t rejected = 0;
  for (uint32_t seed = 0; seed < 40; ++seed) {
    Json base = Json::parse(*writeProgramJson(RandomProgram(2000 + seed).build()));
    for (int round = 0; round < 60; ++round) {
      Json j = base;
      // Walk down a random path, then replace the value there or drop a key of it.
      Json* at = &j;
      while ((at->is_object() || at->is_array()) && !at->empty() && rng() % 4 != 0) {
        auto it = at->begin();
        std::advance(it, rng() % at->size());
        at = &*it;
      }
      if (at->is_object() && !at->empty() && rng() % 2) {
        at->erase(at->begin());
      } else {
        *at = replacements[rng() % replacements.size()];
      }
      auto r = readProgramJson(j.dump());
      if (!r) {
        ++rejected;
        EXPECT_FALSE(r.error().where.empty()) << r.error().message;
      }
    }
  }
  EXPECT_GT(rejected, 0u);
}

}  // namespace
}  // namespace epsmith::testing
