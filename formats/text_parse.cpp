// Text-form parsing of the program-level sections (program, signature, module call graph,
// range constraints, storages, state, constants, example inputs) on top of GraphParser.
#include <algorithm>
#include <set>

#include "formats/scalar_format.h"
#include "formats/text_format.h"
#include "formats/text_parse_graph.h"

namespace epsmith {
namespace text {
namespace {

class ProgramParser {
 public:
  explicit ProgramParser(std::string_view source) : c_(source), g_(c_) {}
  ExportedProgram parse();

 private:
  void programSection();
  void signatureSection();
  void moduleCallGraphSection();
  void rangeConstraintsSection();
  void storagesSection();
  void stateSection();
  void constantsSection();
  void exampleInputsSection();
  std::vector<std::string> stringList();
  std::optional<std::string> optionalTarget();  // `-> "target"` or nothing
  std::vector<SpecArg> specArgList();
  template <typename F>
  void block(F&& item) {
    c_.expect('{', "opening the section");
    while (!c_.tryConsume('}')) {
      if (c_.atEnd()) c_.fail("unterminated section");
      item();
    }
  }

  Cursor c_;
  GraphParser g_;
  ExportedProgram p_;
  std::vector<Loc> example_locs_;
};

std::vector<std::string> ProgramParser::stringList() {
  std::vector<std::string> out;
  c_.expect('[', "opening a list of strings");
  if (c_.tryConsume(']')) return out;
  do out.push_back(c_.string("list element"));
  while (c_.tryConsume(','));
  c_.expect(']', "closing the list");
  return out;
}

std::optional<std::string> ProgramParser::optionalTarget() {
  if (c_.peek() != '-') return std::nullopt;
  c_.expect('-', "");
  if (c_.rawPeek() != '>') c_.fail("expected '->'");
  c_.expect('>', "");
  return c_.string("target");
}

std::vector<SpecArg> ProgramParser::specArgList() {
  std::vector<SpecArg> out;
  c_.expect('[', "opening a list of arguments");
  if (c_.tryConsume(']')) return out;
  do out.push_back(g_.specArg());
  while (c_.tryConsume(','));
  c_.expect(']', "closing the list");
  return out;
}

void ProgramParser::programSection() {
  block([&] {
    Loc at = c_.loc();
    std::string key = c_.ident("program field");
    if (key == "verifiers") {
      p_.verifiers = stringList();
    } else if (key == "schema_version") {
      Loc v_at = c_.loc();
      std::string tok = c_.numberToken();
      auto dot = tok.find('.');
      auto all_digits = [](const std::string& s) {
        return !s.empty() && s.size() < 10 && s.find_first_not_of("0123456789") == std::string::npos;
      };
      if (dot == std::string::npos || !all_digits(tok.substr(0, dot)) || !all_digits(tok.substr(dot + 1))) {
        Cursor::failAt(v_at, "expected MAJOR.MINOR, found " + tok);
      }
      p_.schema_version.major = std::stoll(tok.substr(0, dot));
      p_.schema_version.minor = std::stoll(tok.substr(dot + 1));
    } else if (key == "torch_version") {
      p_.torch_version = c_.string("torch version");
    } else if (key == "opset") {
      p_.opset_version.clear();
      c_.stringKeyedMap("opset", [&](const std::string& ns) { p_.opset_version[ns] = c_.integer("opset version"); });
    } else if (key == "metadata") {
      c_.stringKeyedMap("metadata", [&](const std::string& k) { p_.metadata[k] = c_.string("metadata value"); });
    } else if (key == "guards_code") {
      p_.guards_code = stringList();
    } else if (key == "namedtuple_fields") {
      c_.stringKeyedMap("namedtuple_fields",
                        [&](const std::string& k) { p_.treespec_namedtuple_fields[k] = stringList(); });
    } else {
      Cursor::failAt(at, "unknown program field '" + key + "'");
    }
  });
}

void ProgramParser::signatureSection() {
  block([&] {
    Loc at = c_.loc();
    std::string dir = c_.ident("input or output");
    Loc kind_at = c_.loc();
    std::string kind = c_.ident("spec kind");
    if (dir == "input") {
      InputSpec s;
      if (kind == "constant_input") {
        s.kind = InputKind::UserInput;
        s.arg.kind = SpecArg::Kind::Constant;
        s.arg.name = c_.string("constant input name");
        c_.expect('=', "after the constant input name");
        s.arg.value = g_.constant();
        p_.signature.input_specs.push_back(std::move(s));
        return;
      }
      auto k = inputKindFromName(kind);
      if (!k) Cursor::failAt(kind_at, "unknown input kind '" + kind + "'");
      s.kind = *k;
      s.arg = g_.specArg();
      s.target = optionalTarget();
      if (c_.tryKeyword("persistent")) {
        c_.expect('=', "after persistent");
        if (c_.tryKeyword("True"))
          s.persistent = true;
        else if (c_.tryKeyword("False"))
          s.persistent = false;
        else
          c_.fail("expected True or False");
      }
      p_.signature.input_specs.push_back(std::move(s));
    } else if (dir == "output") {
      OutputSpec s;
      auto k = outputKindFromName(kind);
      if (!k) Cursor::failAt(kind_at, "unknown output kind '" + kind + "'");
      s.kind = *k;
      s.arg = g_.specArg();
      s.target = optionalTarget();
      p_.signature.output_specs.push_back(std::move(s));
    } else {
      Cursor::failAt(at, "expected 'input' or 'output', found '" + dir + "'");
    }
  });
}

void ProgramParser::moduleCallGraphSection() {
  block([&] {
    if (!c_.tryKeyword("entry")) c_.fail("expected 'entry'");
    ModuleCallEntry e;
    e.fqn = c_.string("module fqn");
    std::set<std::string> seen;
    while (isIdentChar(c_.peek())) {
      auto before = c_.mark();
      Loc at = c_.loc();
      std::string key = c_.ident("entry field");
      if (c_.peek() != '=') {  // the next `entry` line
        c_.reset(before);
        break;
      }
      if (!seen.insert(key).second) Cursor::failAt(at, "field '" + key + "' given twice");
      c_.expect('=', "after " + key);
      if (!e.signature) e.signature.emplace();
      auto& s = *e.signature;
      if (key == "inputs")
        s.inputs = specArgList();
      else if (key == "outputs")
        s.outputs = specArgList();
      else if (key == "in_spec")
        s.in_spec = c_.string("in_spec");
      else if (key == "out_spec")
        s.out_spec = c_.string("out_spec");
      else if (key == "forward_arg_names")
        s.forward_arg_names = stringList();
      else
        Cursor::failAt(at, "unknown entry field '" + key + "'");
    }
    p_.module_call_graph.push_back(std::move(e));
  });
}

void ProgramParser::rangeConstraintsSection() {
  block([&] {
    std::string sym = c_.string("symbol");
    c_.expect('=', "after the symbol");
    c_.expect('[', "opening the range");
    RangeConstraint r;
    auto bound = [&]() -> std::optional<int64_t> {
      if (c_.tryKeyword("null")) return std::nullopt;
      return c_.integer("range bound");
    };
    r.min_val = bound();
    c_.expect(',', "between the bounds");
    r.max_val = bound();
    c_.expect(']', "closing the range");
    p_.range_constraints[sym] = r;
  });
}

void ProgramParser::storagesSection() {
  block([&] {
    Loc at = c_.loc();
    c_.expect('$', "before a storage id");
    int64_t id = c_.integer("storage id");
    c_.expect(':', "after the storage id");
    Loc dtype_at = c_.loc();
    std::string dtype = c_.ident("dtype");
    auto t = scalarTypeFromShortName(dtype);
    if (!t || *t == ScalarType::Unknown) Cursor::failAt(dtype_at, "unknown dtype '" + dtype + "'");
    c_.expect('[', "after the dtype");
    int64_t numel = c_.integer("element count");
    if (numel < 0 || numel > (int64_t{1} << 32)) Cursor::failAt(at, "bad element count");
    c_.expect(']', "closing the element count");
    c_.expect('=', "before the values");
    c_.expect('[', "opening the values");
    Storage s;
    s.dtype = *t;
    const size_t size = static_cast<size_t>(elementSize(*t));
    // Room for what it declares, filled (and zeroed) only as far as elements are listed:
    // a declared count is not trusted with memory before the elements are there.
    s.bytes.reserve(static_cast<size_t>(numel) * size);
    int64_t listed = 0;
    if (!c_.tryConsume(']')) {
      do {
        Loc el_at = c_.loc();
        if (listed >= numel) {
          Cursor::failAt(
              el_at, "storage $" + std::to_string(id) + " lists more than its " + std::to_string(numel) + " elements");
        }
        const size_t end = static_cast<size_t>(listed + 1) * size;
        if (end > s.bytes.size()) s.bytes.resize(std::min(s.bytes.capacity(), std::max(end, 2 * s.bytes.size())));
        uint8_t* out = s.bytes.data() + static_cast<size_t>(listed++) * size;
        if (isComplex(*t)) {
          ScalarType part = *t == ScalarType::ComplexHalf    ? ScalarType::Half
                            : *t == ScalarType::ComplexFloat ? ScalarType::Float
                                                             : ScalarType::Double;
          if (!c_.tryKeyword("complex")) c_.fail("expected complex(re, im)");
          c_.expect('(', "after complex");
          Loc re_at = c_.loc();
          if (auto e = parseRealElement(part, c_.rawUntil(",)"), out)) Cursor::failAt(re_at, *e);
          c_.expect(',', "between real and imaginary parts");
          Loc im_at = c_.loc();
          if (auto e = parseRealElement(part, c_.rawUntil(",)"), out + size / 2)) Cursor::failAt(im_at, *e);
          c_.expect(')', "closing complex(");
        } else {
          // An element is nearly always one plain token ("2.5", "-3", "True"); anything
          // else (a stray character, a comment) is read as before, to the next , or ].
          const Cursor::Mark before = c_.mark();
          std::string_view token = c_.plainToken();
          const char next = c_.peek();
          if (token.empty() || (next != ',' && next != ']')) {
            c_.reset(before);
            token = c_.rawUntil(",]");
          }
          if (auto e = parseRealElement(*t, token, out)) Cursor::failAt(el_at, *e);
        }
      } while (c_.tryConsume(','));
      c_.expect(']', "closing the values");
    }
    if (listed != numel) {
      Cursor::failAt(at, "storage $" + std::to_string(id) + " declares " + std::to_string(numel) +
                             " elements but lists " + std::to_string(listed));
    }
    s.bytes.resize(static_cast<size_t>(numel) * size);
    g_.defineStorage(id, std::move(s), at);
  });
}

void ProgramParser::stateSection() {
  block([&] {
    Loc at = c_.loc();
    std::string kind = c_.ident("parameter or buffer");
    if (kind != "parameter" && kind != "buffer") {
      Cursor::failAt(at, "expected 'parameter' or 'buffer', found '" + kind + "'");
    }
    Loc name_at = c_.loc();
    std::string name = c_.string("state name");
    if (p_.state_dict.count(name)) Cursor::failAt(name_at, "duplicate state entry \"" + name + "\"");
    c_.expect('=', "after the state name");
    Loc t_at = c_.loc();
    StateEntry& e = p_.state_dict[name];
    e.is_parameter = kind == "parameter";
    e.tensor = g_.tensorValue();
    g_.deferCheck(&e.tensor, t_at);
  });
}

void ProgramParser::constantsSection() {
  block([&] {
    Loc name_at = c_.loc();
    std::string name = c_.string("constant name");
    if (p_.constants.count(name)) Cursor::failAt(name_at, "duplicate constant \"" + name + "\"");
    c_.expect('=', "after the constant name");
    Loc t_at = c_.loc();
    Constant& k = p_.constants[name];
    if (c_.tryKeyword("custom_obj")) {
      c_.expect('(', "after custom_obj");
      k.class_fqn = c_.string("class name");
      c_.expect(')', "closing custom_obj(");
    } else {
      k.tensor = g_.tensorValue();
      g_.deferCheck(&*k.tensor, t_at);
    }
  });
}

void ProgramParser::exampleInputsSection() {
  block([&] {
    InputValue v;
    example_locs_.push_back(c_.loc());
    if (c_.peek() == '$') {
      v.kind = InputValue::Kind::Tensor;
      v.tensor = g_.tensorValue();
    } else {
      ConstantValue k = g_.constant();
      if (auto* i = std::get_if<int64_t>(&k))
        v.kind = InputValue::Kind::Int, v.i = *i;
      else if (auto* f = std::get_if<double>(&k))
        v.kind = InputValue::Kind::Float, v.f = *f;
      else if (auto* b = std::get_if<bool>(&k))
        v.kind = InputValue::Kind::Bool, v.b = *b;
      else if (std::holds_alternative<std::monostate>(k))
        v.kind = InputValue::Kind::None;
      else
        Cursor::failAt(example_locs_.back(), "example inputs are tensors, numbers, booleans or None");
    }
    p_.example_inputs.push_back(std::move(v));
  });
}

ExportedProgram ProgramParser::parse() {
  static constexpr std::string_view kOrder[] = {"program",           "graph",    "signature", "module_call_graph",
                                                "range_constraints", "storages", "state",     "constants",
                                                "example_inputs"};
  std::set<std::string> seen;
  bool has_graph = false;
  while (!c_.atEnd()) {
    Loc at = c_.loc();
    std::string section = c_.ident("a section name");
    bool known = false;
    for (auto s : kOrder) known = known || s == section;
    if (!known) Cursor::failAt(at, "unknown section '" + section + "'");
    if (!seen.insert(section).second) Cursor::failAt(at, "section '" + section + "' given twice");
    if (section == "program")
      programSection();
    else if (section == "graph") {
      p_.replaceGraph(g_.graphBlock());
      has_graph = true;
    } else if (section == "signature")
      signatureSection();
    else if (section == "module_call_graph")
      moduleCallGraphSection();
    else if (section == "range_constraints")
      rangeConstraintsSection();
    else if (section == "storages")
      storagesSection();
    else if (section == "state")
      stateSection();
    else if (section == "constants")
      constantsSection();
    else
      exampleInputsSection();
  }
  if (!has_graph) c_.fail("missing graph { } section");
  g_.finishStorages();
  for (size_t i = 0; i < p_.example_inputs.size(); ++i) {
    const auto& v = p_.example_inputs[i];
    if (v.kind != InputValue::Kind::Tensor) continue;
    if (auto problem = v.tensor.checkBounds()) Cursor::failAt(example_locs_[i], *problem);
  }
  return std::move(p_);
}

}  // namespace
}  // namespace text

Expected<ExportedProgram> parseProgramText(std::string_view source) {
  try {
    return text::ProgramParser(source).parse();
  } catch (const text::TextParseError& e) {
    return Diagnostic{e.loc.str(), e.message};
  }
}

}  // namespace epsmith
