// Entry points, dialect registry and message helpers of the verifier.
#include "verifier/verifier.h"

#include <map>
#include <mutex>

#include "formats/scalar_format.h"
#include "verifier/walk.h"

namespace epsmith {

std::string Violation::str() const { return where + ": error[" + std::string(checkIdName(check)) + "]: " + message; }

std::optional<std::string> Dialect::checkValidOp(const Target&) const { return std::nullopt; }
void Dialect::checkAdditional(const Graph&, std::vector<std::string>&) const {}

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<Dialect>, std::less<>> dialects;
  Registry() {
    dialects["ATEN"] = std::make_unique<Dialect>("ATEN");
    dialects["TRAINING"] = std::make_unique<Dialect>("TRAINING");
  }
};

Registry& registry() {
  static Registry* r = new Registry();  // dialects live for the whole process
  return *r;
}

}  // namespace

const Dialect& registerDialect(std::unique_ptr<Dialect> dialect) {
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto& slot = r.dialects[dialect->name()];
  slot = std::move(dialect);
  return *slot;
}

const Dialect* findDialect(std::string_view name) {
  if (name.empty()) name = "ATEN";
  auto& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.dialects.find(name);
  return it == r.dialects.end() ? nullptr : it->second.get();
}

std::vector<Violation> verify(const ExportedProgram& p, const Dialect& dialect, VerifyOptions options) {
  std::vector<Violation> out;
  verifier_detail::Sink sink(out, options.first_only);
  // Verifier.check: the graph modules, then the module call graph, then the signature.
  auto graphs = verifier_detail::checkGraphs(p, dialect, sink);
  if (!sink.done()) verifier_detail::checkModuleCallGraph(p, sink);
  if (!sink.done()) verifier_detail::checkSignature(p, graphs.placeholders, sink);
  // Structural checks of epsmith's own come after everything Python checks, so that the
  // first diagnostic stays the error Python raises (Note [Lint beyond torch.fx]).
  for (auto& d : graphs.epsmith_only) sink.report(d.check, std::move(d.where), std::move(d.message));
  return out;
}

std::vector<Violation> verify(const ExportedProgram& p, VerifyOptions options) {
  // ExportedProgram._validate runs every verifier the program names, in order.
  std::vector<std::string> names = p.verifiers;
  if (names.empty()) names.push_back("ATEN");
  std::vector<Violation> out;
  for (const auto& name : names) {
    const Dialect* dialect = findDialect(name);
    if (!dialect) {
      out.push_back({CheckId::UnknownDialect, "verifiers", "no verifier is registered for dialect '" + name + "'"});
    } else {
      auto more = verify(p, *dialect, options);
      out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    if (options.first_only && !out.empty()) {
      out.resize(1);
      break;
    }
  }
  return out;
}

namespace verifier_detail {

std::string pyStr(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string pyRepr(const OrderedMap& m) {
  std::string out = "{";
  for (size_t i = 0; i < m.size(); ++i) {
    out += (i ? ", " : "") + pyStr(m[i].first) + ": " + pyStr(m[i].second);
  }
  return out + "}";
}

std::string pyRepr(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + pyStr(v[i]);
  return out + "]";
}

std::string pyRepr(const ConstantValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>)
          return "None";
        else if constexpr (std::is_same_v<X, int64_t>)
          return std::to_string(x);
        else if constexpr (std::is_same_v<X, double>)
          return formatFloat(x);
        else if constexpr (std::is_same_v<X, bool>)
          return x ? "True" : "False";
        else
          return pyStr(x);
      },
      v);
}

std::string pyRepr(const std::vector<UserInputEntry>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    out += i ? ", " : "";
    if (auto* name = std::get_if<std::string>(&v[i]))
      out += pyStr(*name);
    else
      out += pyRepr(std::get<ConstantValue>(v[i]));
  }
  return out + "]";
}

std::string pyRepr(const SpecArg& a) {
  switch (a.kind) {
    case SpecArg::Kind::Tensor: return "TensorArgument(name=" + pyStr(a.name) + ")";
    case SpecArg::Kind::SymInt: return "SymIntArgument(name=" + pyStr(a.name) + ")";
    case SpecArg::Kind::SymFloat: return "SymFloatArgument(name=" + pyStr(a.name) + ")";
    case SpecArg::Kind::SymBool: return "SymBoolArgument(name=" + pyStr(a.name) + ")";
    case SpecArg::Kind::CustomObj:
      return "CustomObjArgument(name=" + pyStr(a.name) + ", class_fqn=" + pyStr(a.class_fqn) + ")";
    case SpecArg::Kind::Token: return "TokenArgument(name=" + pyStr(a.name) + ")";
    case SpecArg::Kind::Constant: return "ConstantArgument(name=" + pyStr(a.name) + ", value=" + pyRepr(a.value) + ")";
  }
  return "?";
}

}  // namespace verifier_detail
}  // namespace epsmith
