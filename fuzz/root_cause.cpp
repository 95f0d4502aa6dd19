// See root_cause.h.
#include "fuzz/root_cause.h"
#include "fuzz/report_messages.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>

#include "ir/tensor_geometry.h"
#include "fuzz/aliases.h"
#include "fuzz/corpus.h"
#include "ir/subgraphs.h"
#include "ops/op_aliases.h"
#include "oracle/compare.h"
#include "oracle/subgraph_places.h"
#include "ops/op_registry.h"
#include "ops/op_roles.h"

namespace epsmith {
namespace {

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// Lower-case letters, digits and single dashes.
std::string slug(std::string_view s) {
  std::string out;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out.push_back(static_cast<char>(std::tolower(u)));
    else if (!out.empty() && out.back() != '-')
      out.push_back('-');
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A dtype as LibTorch's messages name it: "Float", "BFloat16", "CPUHalfType", "Float8_e4m3fn".
bool isDtypeWord(std::string_view w) {
  static constexpr std::string_view kNames[] = {"Byte",        "Char",          "Short",           "Int",
                                                "Long",        "Half",          "Float",           "Double",
                                                "ComplexHalf", "ComplexFloat",  "ComplexDouble",   "Bool",
                                                "BFloat16",    "UInt16",        "UInt32",          "UInt64",
                                                "Float8_e5m2", "Float8_e4m3fn", "Float8_e5m2fnuz", "Float8_e4m3fnuz"};
  if (w.size() > 7 && w.substr(0, 3) == "CPU" && w.substr(w.size() - 4) == "Type") w = w.substr(3, w.size() - 7);
  for (std::string_view name : kNames) {
    if (w == name) return true;
  }
  return false;
}

}  // namespace

std::string RootCause::str() const {
  std::string ops_text;
  for (const auto& op : ops) ops_text += (ops_text.empty() ? "" : ",") + op;
  return check + "|" + kind + "|" + message + "|" + ops_text;
}

std::string RootCause::id() const {
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(fnv1a(str()) & 0xffffffffu));
  return slug(check) + "-" + slug(kind) + "-" + hash;
}

std::string RootCause::family() const { return check + " " + kind + (message.empty() ? "" : ": " + message); }

// Note [Ops that take another tensor's sizes]
// reshape_as(x, y) is reshape(x, y.sizes()), and view_as, expand_as and resize_as_ are
// view, expand and resize_ alike: a bug met through either form is the op's, so a root
// cause names the op (a 1.13 campaign filed reshape and reshape_as of one strided input as
// two causes). No schema says so; the list holds on LibTorch 1.13 and 2.13.
std::string coreOpName(std::string_view name) {
  if (name.rfind("aten::", 0) == 0) name.remove_prefix(6);
  name = name.substr(0, name.find('.'));
  const bool dunder = name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__";
  if (!dunder && name.size() > 1 && name.back() == '_') name.remove_suffix(1);
  for (std::string_view sized : {"reshape_as", "view_as", "expand_as", "resize_as"}) {
    if (name == sized) name.remove_suffix(3);
  }
  return canonicalOpName(name);  // Note [Op aliases from the JIT's normalization]
}

namespace {
// The core op names of `g`'s calls and of its subgraphs' (a grad region's, a branch's).
void addCoreOps(const Graph& g, std::set<std::string>& ops) {
  forEachGraph(g, [&](const Graph& each) {
    for (const auto& n : each.nodes()) {
      if (n.atenOp()) ops.insert(coreOpName(n.target.textName()));
    }
  });
}
}  // namespace

std::vector<std::string> coreOps(const ExportedProgram& p) {
  std::set<std::string> ops;
  addCoreOps(p.graph(), ops);
  return {ops.begin(), ops.end()};
}

std::string messageTemplate(const CheckOutcome& o) {
  // A value or shape mismatch is keyed by its kind alone, not by its dtype nor by where it
  // shows: one bug of a kernel or of a write's path shows in every dtype, at the outputs
  // and at the inputs it mutates. Which dtypes a dtype mismatch names is the bug itself.
  if (o.kind == "value-mismatch" || o.kind == "shape-mismatch") return o.kind.substr(0, 5) + " mismatch";
  std::string message = o.message;
  if (message.empty() && !o.report.empty()) {  // a case file's finding that kept no message
    if (o.kind == "dtype-mismatch")
      message = dtypesInReport(o.report);
    else if (o.kind.find("exception") != std::string::npos)
      message = exceptionInReport(o.report);
  }
  return normalizedMessage(message);
}

std::string messageTemplate(const WorkerDeath& d) {
  return d.frame.empty() ? std::string() : normalizedMessage("in " + d.frame);
}

std::string skipReasonTemplate(std::string_view reason) {
  std::string named;
  for (size_t i = 0; i < reason.size();) {
    const char c = reason[i];
    if (c == '%' && i + 1 < reason.size() && isWordChar(reason[i + 1])) {
      named += "%NODE";
      for (++i; i < reason.size() && isWordChar(reason[i]); ++i) {}
      continue;
    }
    const size_t close = c == '\'' ? reason.find('\'', i + 1) : std::string_view::npos;
    if (close != std::string_view::npos && reason.substr(i + 1, 6) != "aten::" &&
        std::all_of(reason.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                    reason.begin() + static_cast<std::ptrdiff_t>(close), isWordChar)) {
      named += "'NAME'";
      i = close + 1;
      continue;
    }
    named += c;
    ++i;
  }
  return normalizedMessage(named);
}

namespace {

// `message` with the C++ type names that caffe2::TypeMeta prints for a dtype ("Expected out
// tensor to have dtype float, but got long int instead") as DTYPE, where a dtype is named.
std::string typeMetaNamesOut(std::string_view message) {
  // Every skipped check's reason comes through here once a case: most name no dtype, and
  // need not pay for the regex.
  if (message.find("dtype ") == std::string_view::npos && message.find("but got ") == std::string_view::npos) {
    return std::string(message);
  }
  static const std::regex named(
      R"(\b(dtype |but got )(long int|short int|unsigned char|signed char|c10::[A-Za-z0-9_]+(<[a-z]+>)?|float|double|bool|int)(?![A-Za-z0-9_]))");
  return std::regex_replace(std::string(message), named, "$1DTYPE");
}

}  // namespace

std::string_view outsideSubgraphs(std::string_view message) {
  for (bool nested = true; nested;) {
    nested = false;
    for (std::string_view place : kSubgraphPlaces) {
      const size_t colon = message.find(": ");
      if (message.rfind("in ", 0) != 0 || message.substr(3, place.size()) != place ||
          message.substr(3 + place.size(), 3) != ", %" || colon == std::string_view::npos)
        continue;
      message.remove_prefix(colon + 2);
      nested = true;
    }
  }
  return message;
}

std::string normalizedMessage(std::string_view original) {
  constexpr size_t kLimit = 160;
  original = outsideSubgraphs(original);
  const std::string typed = typeMetaNamesOut(original);
  const std::string_view message = typed;
  std::string out;
  for (size_t i = 0; i < message.size() && out.size() < kLimit;) {
    const char c = message[i];
    if (c == '[') {  // a list of numbers, spaces, commas and signs: [2, 3], [-1], []
      size_t j = i + 1;
      while (j < message.size() && (isDigit(message[j]) || message[j] == ',' || message[j] == ' ' || message[j] == '-'))
        ++j;
      if (j < message.size() && message[j] == ']') {
        out += "[...]";
        i = j + 1;
        continue;
      }
    }
    if (c == '\'' && message.substr(i + 1, 6) == "aten::") {  // 'aten::logical_not.out'
      const size_t close = message.find('\'', i + 1);
      if (close != std::string_view::npos) {
        out += "'aten::*'";
        i = close + 1;
        continue;
      }
    }
    if (message.substr(i, 6) == "aten::") {  // aten::abs.out: ...
      i += 6;
      while (i < message.size() && (std::isalnum(static_cast<unsigned char>(message[i])) || message[i] == '_' ||
                                    (message[i] == '.' && i + 1 < message.size() && message[i + 1] != ' '))) {
        ++i;
      }
      out += "aten::*";
      continue;
    }
    const bool in_word = i > 0 && isWordChar(message[i - 1]);
    if (std::isalpha(static_cast<unsigned char>(c)) && !in_word) {  // a word: a dtype's name goes
      size_t end = i;
      while (end < message.size() && isWordChar(message[end])) ++end;
      const std::string_view word = message.substr(i, end - i);
      out += isDtypeWord(word) ? std::string_view("DTYPE") : word;  // digits in a name stay: Caffe2
      i = end;
      continue;
    }
    if (isDigit(c) || (c == '-' && !in_word && i + 1 < message.size() && isDigit(message[i + 1]))) {
      ++i;  // a sign or the first digit
      while (i < message.size() &&
             (isDigit(message[i]) || (message[i] == '.' && i + 1 < message.size() && isDigit(message[i + 1])))) {
        ++i;
      }
      out += 'N';
      continue;
    }
    out += c;
    ++i;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

namespace {

// The node the value at `where` starts from: an output's argument, an input's placeholder.
const Node* startOf(const ExportedProgram& p, const std::string& where) {
  const Graph& g = p.graph();
  if (where.rfind("output ", 0) == 0) {  // the i-th user output, as the oracle counts them
    const Node* out = g.outputNode();
    size_t i = static_cast<size_t>(std::atoll(where.c_str() + 7));
    const auto& specs = p.signature.output_specs;
    for (size_t k = 0; out && k < specs.size() && k < out->args.size(); ++k) {
      if (specs[k].kind != OutputKind::UserOutput && specs[k].kind != OutputKind::LossOutput) continue;
      if (i-- > 0) continue;
      const Node* found = nullptr;
      out->args[k].forEachNode([&](const Node* n) { found = found ? found : n; });
      return found;
    }
    return nullptr;
  }
  if (where.rfind("input ", 0) == 0) {  // "input user_input:x0": the placeholder is the spec's arg
    const size_t colon = where.find(':');
    if (colon == std::string::npos) return nullptr;
    const std::string target = where.substr(colon + 1);
    for (const InputSpec& spec : p.signature.input_specs) {
      const bool named = spec.arg.name == target || (spec.target && *spec.target == target);
      if (named) return g.find(spec.arg.name);
    }
  }
  return nullptr;
}

bool writesOrViews(const Node& n) {
  if (!n.atenOp()) return false;
  const OpRole role = opRole(*n.target.op()).role;
  return role != OpRole::Functional;
}

}  // namespace

namespace {

// The nodes of the slice of the value that starts at `start`: what it is computed from,
// and what writes into it or into a tensor it is computed from (an in-place or out= user,
// or a view of it that one writes through), with what those read: to a fixpoint, a few
// rounds on a small program.
std::set<const Node*> sliceNodes(const Graph& g, const Node* start) {
  std::set<const Node*> in{start};
  for (bool grew = true; grew;) {
    grew = false;
    for (const Node& n : g.nodes()) {
      bool reads_slice = false, in_slice = in.count(&n) > 0;
      n.forEachInput([&](const Node* i) { reads_slice = reads_slice || in.count(i) > 0; });
      if (!in_slice && reads_slice && writesOrViews(n)) in_slice = grew = in.insert(&n).second;
      if (!in_slice) continue;
      n.forEachInput([&](const Node* i) { grew = in.insert(i).second || grew; });
    }
  }
  return in;
}

// Whether `v` holds a tensor of `dtype`: itself, or one of the tensors of a tuple result.
bool roundsIn(const Val& v, ScalarType dtype) {
  if (const TensorMeta* m = v.tensor()) return m->dtype == dtype;
  const Val::List* l = v.list();
  return l && std::any_of(l->begin(), l->end(), [&](const Val& e) { return roundsIn(e, dtype); });
}

}  // namespace

std::vector<std::string> sliceOps(const ExportedProgram& p, const std::string& where) {
  const Node* start = startOf(p, where);
  if (!start) return coreOps(p);
  const std::set<const Node*> in = sliceNodes(p.graph(), start);
  std::set<std::string> ops;
  for (const Node* n : in) {
    if (n->atenOp()) ops.insert(coreOpName(n->target.textName()));
    // A higher-order call in the slice computes it with its subgraph's calls.
    const Attribute* named = n->op() == OpKind::GetAttr ? p.graph().attribute(n->attr) : nullptr;
    if (named && named->subgraph) addCoreOps(*named->subgraph, ops);
  }
  return {ops.begin(), ops.end()};
}

std::optional<ComputedIn> computedIn(const ExportedProgram& p, const std::string& where) {
  const Node* start = startOf(p, where);
  if (!start) return std::nullopt;
  const std::set<const Node*> slice = sliceNodes(p.graph(), start);
  std::optional<ScalarType> least;
  auto consider = [&](const Node* n) {
    const TensorMeta* m = n->meta.val.tensor();
    if (!m || !(isFloatingPoint(m->dtype) || isComplex(m->dtype))) return;
    if (!least || defaultTolerance(m->dtype).rtol > defaultTolerance(*least).rtol) least = m->dtype;
  };
  for (const Node* n : slice) {
    if (n->op() != OpKind::CallFunction) continue;
    consider(n);
    n->forEachInput(consider);
  }
  if (!least) return std::nullopt;
  // A view or a metadata mutation moves no value, so it rounds none. A call with several
  // results (max.dim, sort) rounds once whichever of them the value read.
  int roundings = 0;
  for (const Node* n : slice) {
    if (!n->atenOp() || !roundsIn(n->meta.val, *least)) continue;
    const OpRole role = opRole(*n->target.op()).role;
    roundings += role == OpRole::Functional || role == OpRole::InPlace || role == OpRole::Out;
  }
  return ComputedIn{*least, std::max(roundings, 1)};
}

bool isMismatchKind(std::string_view kind) {
  return kind == "value-mismatch" || kind == "shape-mismatch" || kind == "dtype-mismatch";
}

}  // namespace epsmith
