// Text-form parsing of values: number and bool tokens, storages, tensor values, constants
// and spec arguments (graph structure: text_parse_graph.cpp).
#include <charconv>
#include <cmath>
#include <limits>

#include "formats/text_parse_graph.h"

namespace epsmith::text {

double toDouble(const std::string& tok, Loc at) {
  if (tok == "inf" || tok == "+inf") return std::numeric_limits<double>::infinity();
  if (tok == "-inf") return -std::numeric_limits<double>::infinity();
  if (tok == "nan" || tok == "+nan" || tok == "-nan") return std::numeric_limits<double>::quiet_NaN();
  double v = 0;
  const char* first = tok.data() + (tok[0] == '+' ? 1 : 0);
  auto r = std::from_chars(first, tok.data() + tok.size(), v);
  if (r.ec != std::errc() || r.ptr != tok.data() + tok.size()) Cursor::failAt(at, "malformed number " + tok);
  return v;
}

bool looksFloat(const std::string& tok) { return tok.find_first_of(".eEn") != std::string::npos; }

int64_t toInt(const std::string& tok, Loc at) {
  int64_t v = 0;
  const char* first = tok.data() + (tok[0] == '+' ? 1 : 0);
  auto r = std::from_chars(first, tok.data() + tok.size(), v);
  if (r.ec == std::errc::result_out_of_range) Cursor::failAt(at, "integer " + tok + " out of range");
  if (r.ec != std::errc() || r.ptr != tok.data() + tok.size()) Cursor::failAt(at, "malformed number " + tok);
  return v;
}

bool startsNumber(char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+'; }

bool boolWord(Cursor& c, bool* out) {
  if (c.tryKeyword("True")) return *out = true, true;
  if (c.tryKeyword("False")) return *out = false, true;
  return false;
}

std::shared_ptr<Storage> GraphParser::storageRef(int64_t id, Loc at) {
  auto it = storages_.find(id);
  if (it != storages_.end()) return it->second.first;
  auto s = std::make_shared<Storage>();
  storages_[id] = {s, at};
  return s;
}

void GraphParser::defineStorage(int64_t id, Storage s, Loc at) {
  if (storage_defined_[id]) Cursor::failAt(at, "storage $" + std::to_string(id) + " defined twice");
  storage_defined_[id] = true;
  *storageRef(id, at) = std::move(s);
}

TensorValue GraphParser::tensorValue(bool allow_no_storage) {
  Loc at = c_.loc();
  TensorValue t;
  std::optional<int64_t> id;
  if (c_.tryConsume('$')) {
    id = c_.integer("storage id");
  } else if (!allow_no_storage) {
    c_.fail("expected a tensor ($N dtype[sizes])");
  }
  TensorMeta m = tensorMeta();
  auto concrete = [&](const SymIntValue& v) {
    if (!v.isConcrete()) Cursor::failAt(at, "tensor values need concrete sizes, strides and offset");
    return v.concrete();
  };
  for (const auto& s : m.sizes) t.sizes.push_back(concrete(s));
  for (const auto& s : m.strides) t.strides.push_back(concrete(s));
  t.storage_offset = concrete(m.storage_offset);
  t.requires_grad = m.requires_grad;
  if (m.device != Device{} || m.layout != Layout::Strided) {
    Cursor::failAt(at, "tensor values are strided CPU tensors (no device= or layout=)");
  }
  if (id) {
    t.storage = storageRef(*id, at);
    dtype_checks_.push_back({t.storage, m.dtype, at});
  }
  return t;
}

void GraphParser::finishStorages() {
  for (const auto& [id, entry] : storages_) {
    if (!storage_defined_[id]) {
      Cursor::failAt(entry.second, "storage $" + std::to_string(id) + " is not defined in storages { }");
    }
  }
  for (const auto& check : dtype_checks_) {
    if (check.storage->dtype != check.dtype) {
      Cursor::failAt(check.loc, "tensor of dtype " + std::string(shortName(check.dtype)) +
                                    " views a storage of dtype " + std::string(shortName(check.storage->dtype)));
    }
  }
  for (const auto& [t, at] : checks_) {
    if (auto problem = t->checkBounds()) Cursor::failAt(at, *problem);
  }
}

std::optional<ConstantValue> GraphParser::tryConstant() {
  char ch = c_.peek();
  Loc at = c_.loc();
  if (ch == '"') return c_.string("constant");
  if (startsNumber(ch)) {
    std::string tok = c_.numberToken();
    if (looksFloat(tok)) return toDouble(tok, at);
    return toInt(tok, at);
  }
  bool b = false;
  if (boolWord(c_, &b)) return b;
  if (c_.tryKeyword("None")) return std::monostate{};
  if (c_.tryKeyword("inf")) return std::numeric_limits<double>::infinity();
  if (c_.tryKeyword("nan")) return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

ConstantValue GraphParser::constant() {
  if (auto v = tryConstant()) return *v;
  c_.fail("expected a constant (None, a number, True/False or a string)");
}

SpecArg GraphParser::specArg() {
  SpecArg a;
  if (c_.peek() == '%') {
    a.kind = SpecArg::Kind::Tensor;
    a.name = c_.nodeName();
    return a;
  }
  auto mark = c_.mark();
  if (isIdentChar(c_.peek())) {
    std::string w = c_.ident("spec argument");
    if (c_.rawPeek() == '(') {
      c_.expect('(', "");
      if (w == "sym_int")
        a.kind = SpecArg::Kind::SymInt;
      else if (w == "sym_float")
        a.kind = SpecArg::Kind::SymFloat;
      else if (w == "sym_bool")
        a.kind = SpecArg::Kind::SymBool;
      else if (w == "custom_obj")
        a.kind = SpecArg::Kind::CustomObj;
      else if (w == "token")
        a.kind = SpecArg::Kind::Token;
      else
        c_.fail("unknown spec argument '" + w + "(...)'");
      a.name = c_.nodeName();
      if (a.kind == SpecArg::Kind::CustomObj) {
        c_.expect(',', "after the custom object node");
        a.class_fqn = c_.string("class name");
      }
      c_.expect(')', "closing " + w + "(");
      return a;
    }
    c_.reset(mark);
  }
  a.kind = SpecArg::Kind::Constant;
  a.value = constant();
  return a;
}

}  // namespace epsmith::text
