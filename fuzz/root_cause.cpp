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
#include "ir/grad_mode.h"
#include "ir/grad_regions.h"
#include "ir/subgraphs.h"
#include "ops/op_aliases.h"
#include "oracle/compare.h"
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

std::string normalizedMessage(std::string_view original) {
  constexpr size_t kLimit = 160;
  // Where in a subgraph a call raised ("in the region, %fill_: ", "in the loop's body, %x: ")
  // is not the bug: one bug raises alike inside and outside a region, a branch or a loop.
  for (bool nested = true; nested;) {
    nested = false;
    for (std::string_view where : {"in the region, %", "in the true branch, %", "in the false branch, %",
                                   "in the loop's body, %", "in the loop's condition, %"}) {
      const size_t colon = original.find(": ");
      if (original.rfind(where, 0) != 0 || colon == std::string_view::npos) continue;
      original.remove_prefix(colon + 2);
      nested = true;
    }
  }
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

// An in-place metadata mutation that applies a view changing sizes or strides (squeeze_,
// transpose_, as_strided_), as opposed to resize_ and set_, whose sizes come from
// elsewhere, and detach_, which changes none.
bool isViewApplyingMetadataMutation(const Node& n) {
  if (!n.atenOp()) return false;
  const OpRoleInfo& role = opRole(*n.target.op());
  return role.role == OpRole::MetadataMutation && role.view != ViewFamily::None && role.view != ViewFamily::Identity;
}

// The sizes a call's `k`-th result has, from its meta.val; null where it records none.
const SymIntList* resultSizes(const Node& n, size_t k) {
  if (const TensorMeta* t = n.meta.val.tensor()) return k == 0 ? &t->sizes : nullptr;
  if (const auto* list = std::get_if<Val::List>(&n.meta.val.variant()); list && k < list->size()) {
    if (const TensorMeta* t = (*list)[k].tensor()) return &t->sizes;
  }
  return nullptr;
}

// `t` and the in-place calls on it, or on what one of them returned, in graph order: one
// tensor under several names (sinc_ of an out is the out; unsqueeze_ of it too, resized).
std::vector<const Node*> inPlaceChain(const Graph& g, const Node& t) {
  std::vector<const Node*> chain{&t};
  for (const Node& u : g.nodes()) {
    const OpInfo* op = u.atenOp();
    const OpRole role = op ? opRole(*op).role : OpRole::Unsupported;
    if (role != OpRole::InPlace && role != OpRole::MetadataMutation) continue;
    if (std::find(chain.begin(), chain.end(), boundTensor(u, *op, 0)) != chain.end()) chain.push_back(&u);
  }
  return chain;
}

// The metadata of `w` when `r` runs: what the last in-place call on it before r left (an
// unsqueeze_ changes its sizes), else its own.
const TensorMeta* metaBefore(const Graph& g, const Node& w, const Node& r, const std::map<const Node*, size_t>& order) {
  const TensorMeta* now = w.meta.val.tensor();
  for (const Node* c : inPlaceChain(g, w)) {
    if (order.at(c) >= order.at(&r)) break;
    if (const TensorMeta* m = c->meta.val.tensor()) now = m;
  }
  return now;
}

// Whether a call changes the sizes of a tensor it writes and `then(r, w)` holds of the call
// r and the tensor w. Out= calls, resize_ and set_ resize; `in_place_views` adds the
// metadata mutations that apply a view (transpose_), which change sizes without a resize.
template <typename F>
bool anyResize(const Graph& g, bool in_place_views, F&& then) {
  const auto order = nodeOrder(g);
  for (const Node& r : g.nodes()) {
    if (!r.atenOp()) continue;
    const OpRoleInfo& role = opRole(*r.target.op());
    const bool resizes =
        role.role == OpRole::Out || (in_place_views && (role.role == OpRole::Unsupported ||
                                                        (role.role == OpRole::MetadataMutation && !role.functional)));
    if (!resizes) continue;
    for (size_t k = 0; k < role.return_alias.size(); ++k) {
      const Node* w = role.return_alias[k] < 0 ? nullptr : boundTensor(r, *r.target.op(), role.return_alias[k]);
      const TensorMeta* before = w ? metaBefore(g, *w, r, order) : nullptr;
      const SymIntList* after = resultSizes(r, k);
      if (before && after && before->sizes != *after && then(r, *w)) return true;
    }
  }
  return false;
}

// Whether a view made before `r`, other than `w`, shares w's storage (`owner`) and is
// read after r (`order`).
bool viewReadAfterResize(const Graph& g, const Node& r, const Node& w, const std::map<const Node*, const Node*>& owner,
                         const std::map<const Node*, size_t>& order) {
  for (const Node& v : g.nodes()) {
    if (order.at(&v) >= order.at(&r)) break;
    if (&v == &w || !isViewTensor(v) || owner.at(&v) != owner.at(&w)) continue;
    for (const Node* u : g.users(&v)) {
      if (order.at(u) > order.at(&r)) return true;
    }
  }
  return false;
}

// Whether an ATen call `c` before `r` of which `is(c)` holds, whose self shares `w`'s
// storage, has `then(c)` hold too.
template <typename Is, typename Then>
bool anyEarlierCallOnStorage(const Graph& g, const Node& r, const Node& w,
                             const std::map<const Node*, const Node*>& owner,
                             const std::map<const Node*, size_t>& order, Is&& is, Then&& then) {
  for (const Node& c : g.nodes()) {
    if (order.at(&c) >= order.at(&r)) break;
    if (!c.atenOp() || !is(c)) continue;
    const Node* self = boundTensor(c, *c.target.op(), 0);
    if (self && owner.at(self) == owner.at(&w) && then(c)) return true;
  }
  return false;
}

// Note [Program traits]: "resizes-a-viewed-tensor".
bool resizesAViewedTensor(const Graph& g) {
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  return anyResize(g, true, [&](const Node& r, const Node& w) {
    return isViewTensor(w) || viewReadAfterResize(g, r, w, owner, order);
  });
}

// Note [Program traits]: "resizes-after-set": out= calls only, into a tensor an earlier
// set_ pointed at its source's storage, the source read after the out= call.
bool resizesAfterSet(const Graph& g) {
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  auto isSet = [](const Node& s) { return coreOpName(s.target.textName()) == "set"; };
  return anyResize(g, false, [&](const Node& r, const Node& w) {
    return anyEarlierCallOnStorage(g, r, w, owner, order, isSet, [&](const Node& s) {
      const Node* source = boundTensor(s, *s.target.op(), 1);
      if (!source) return false;
      const auto& users = g.users(source);
      return std::any_of(users.begin(), users.end(), [&](const Node* u) { return order.at(u) > order.at(&r); });
    });
  });
}

// The tensor an in-place call's result names, followed back through in-place calls to the
// value that first held it (cos_(m) is m).
const Node& inPlaceRoot(const Node& t) {
  const Node* at = &t;
  while (const OpInfo* op = at->atenOp()) {
    const OpRole role = opRole(*op).role;
    const Node* self = boundTensor(*at, *op, 0);
    if ((role != OpRole::InPlace && role != OpRole::MetadataMutation) || !self) break;
    at = self;
  }
  return *at;
}

// Note [Program traits]: "composite-reads-an-out-resize": out= calls only, a
// CompositeImplicitAutograd op reading the out or the call's result afterwards.
bool compositeReadsAnOutResize(const Graph& g) {
  const auto order = nodeOrder(g);
  return anyResize(g, false, [&](const Node& r, const Node& w) {
    auto composite = [&](const Node* u) {
      return order.at(u) > order.at(&r) && u->atenOp() && u->atenOp()->composite_implicit;
    };
    // The out, the call's result, and every name of them that in-place calls give (sinc_ of
    // the out is the out: moveaxis of it meets the same stale sizes; an out that cos_(m)
    // returned is m).
    std::vector<const Node*> aliases = inPlaceChain(g, r);
    for (const Node* a : inPlaceChain(g, inPlaceRoot(w))) aliases.push_back(a);
    return std::any_of(aliases.begin(), aliases.end(), [&](const Node* a) {
      const auto& users = g.users(a);
      return std::any_of(users.begin(), users.end(), composite);
    });
  });
}

// Note [Program traits]: "resizes-an-input": an out= call, resize_, set_ or in-place view
// changing the sizes of a graph input or of a view of one.
bool resizesAnInput(const Graph& g) {
  const auto owner = storageOwners(g);
  auto ofAnInput = [&](const Node* t) { return t && owner.at(t)->op() == OpKind::Placeholder; };
  for (const Node& m : g.nodes()) {
    if (isViewApplyingMetadataMutation(m) && ofAnInput(boundTensor(m, *m.target.op(), 0))) return true;
  }
  return anyResize(g, true, [&](const Node&, const Node& w) { return ofAnInput(&w); });
}

// Note [Program traits]: "resizes-an-out-that-requires-grad".
bool resizesAnOutThatRequiresGrad(const Graph& g) {
  return anyResize(g, false, [](const Node&, const Node& w) {
    const TensorMeta* m = w.meta.val.tensor();
    return m && m->requires_grad;
  });
}

// Note [Program traits]: "resizes-after-a-metadata-mutation": out= calls only, into a
// tensor whose storage an earlier in-place metadata mutation that applies a view
// (unsqueeze_, transpose_) changed.
bool resizesAfterAMetadataMutation(const Graph& g) {
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  return anyResize(g, false, [&](const Node& r, const Node& w) {
    return anyEarlierCallOnStorage(g, r, w, owner, order, isViewApplyingMetadataMutation,
                                   [](const Node&) { return true; });
  });
}

// Note [Program traits]: "writes-a-view-copy-out": an out= call whose functional form is
// the copying form of a view op (squeeze_copy.out, alias_copy.out, view_copy.out).
bool writesAViewCopyOut(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (!n.atenOp()) continue;
    const OpRoleInfo& role = opRole(*n.target.op());
    const auto copied = role.role == OpRole::Out && role.functional ? copiedOpName(*role.functional) : std::nullopt;
    const OpInfo* view = copied ? findOp(*copied, role.functional->overload) : nullptr;
    if (view && (opRole(*view).role == OpRole::View || opRole(*view).role == OpRole::MaybeView)) return true;
  }
  return false;
}

// Note [Program traits]: "sets-from-a-source-with-an-offset".
bool setsFromASourceWithAnOffset(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (!n.atenOp()) continue;
    if (coreOpName(n.target.textName()) != "set" || n.target.op()->overload != "source_Tensor_storage_offset") continue;
    const Node* source = boundTensor(n, *n.target.op(), 1);
    const TensorMeta* m = source ? source->meta.val.tensor() : nullptr;
    if (m && (!m->storage_offset.isConcrete() || m->storage_offset.concrete() != 0)) return true;
  }
  return false;
}

// A set_ (or the functional set) whose source tensor has another dtype than its self.
bool setsAnotherDtype(const Graph& g) {
  for (const Node& n : g.nodes()) {
    if (!n.atenOp()) continue;
    if (coreOpName(n.target.textName()) != "set") continue;
    const Node* self = boundTensor(n, *n.target.op(), 0);
    const Node* source = boundTensor(n, *n.target.op(), 1);
    const TensorMeta* a = self ? self->meta.val.tensor() : nullptr;
    const TensorMeta* b = source ? source->meta.val.tensor() : nullptr;
    if (a && b && a->dtype != b->dtype) return true;
  }
  return false;
}

// Note [Program traits]: "reshape-copies-a-written-tensor".
bool reshapeCopiesAWrittenTensor(const Graph& g) {
  const auto owner = storageOwners(g);
  const auto order = nodeOrder(g);
  auto inPlace = [](const Node& c) { return opRole(*c.target.op()).role == OpRole::InPlace; };
  for (const Node& n : g.nodes()) {
    if (!n.atenOp()) continue;
    const OpInfo& op = *n.target.op();
    const OpRoleInfo& role = opRole(op);
    if (role.role != OpRole::MaybeView ||
        (role.view != ViewFamily::Reshape && op.qualified_name != "aten::contiguous")) {
      continue;
    }
    const Node* in = boundTensor(n, op, 0);
    const TensorMeta* from = in ? in->meta.val.tensor() : nullptr;
    if (!from || !n.meta.val.tensor() || maybeViewAliases(n, op, *from)) continue;  // eager views
    if (anyEarlierCallOnStorage(g, n, *in, owner, order, inPlace, [](const Node&) { return true; })) return true;
  }
  return false;
}

// Note [Program traits]: "views-as-another-dtype".
bool viewsAsAnotherDtype(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const Node& n) {
    if (!n.atenOp()) return false;
    const std::string name = coreOpName(n.target.textName());
    return (name == "view" || name == "view_copy") && n.target.op()->overload.rfind("dtype", 0) == 0;
  });
}

// Note [Program traits]: "resizes-a-strided-view-to-its-sizes".
bool resizesAStridedViewToItsSizes(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const Node& n) {
    const OpInfo* op = n.atenOp();
    if (!op || op->qualified_name != "aten::resize_") return false;
    const Node* self = boundTensor(n, *op, 0);
    const TensorMeta* before = self ? self->meta.val.tensor() : nullptr;
    const TensorMeta* after = n.meta.val.tensor();
    return before && after && before->sizes == after->sizes && isViewTensor(*self) && !isContiguous(*before);
  });
}

// Note [Program traits]: "detaches-a-view".
bool detachesAView(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const Node& n) {
    if (!n.atenOp()) return false;
    if (coreOpName(n.target.textName()) != "detach") return false;
    const Node* self = boundTensor(n, *n.target.op(), 0);
    return self && (isViewTensor(*self) || isHiddenAlias(*self));
  });
}

// Note [Program traits]: "mutates-metadata-in-place".
bool mutatesMetadataInPlace(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), isViewApplyingMetadataMutation);
}

// Note [Program traits]: "writes-a-parameter-under-no-grad".
bool writesAParameterUnderNoGrad(const ExportedProgram& p) {
  const OrderedMap parameters = p.signature.inputsToParameters();
  const auto owners = storageOwners(p.graph());
  bool grad = true;
  for (const Node& n : p.graph().nodes()) {
    if (auto mode = gradModeSet(n)) grad = *mode;
    const OpRole role = n.atenOp() ? opRole(*n.target.op()).role : OpRole::Functional;
    if (grad || (role != OpRole::InPlace && role != OpRole::Out && role != OpRole::MetadataMutation)) continue;
    const int written = aliasedArgument(n, 0);
    const Node* t = written < 0 ? nullptr : boundTensor(n, *n.target.op(), written);
    const auto owner = t ? owners.find(t) : owners.end();
    if (owner != owners.end() && lookup(parameters, owner->second->name())) return true;
  }
  return false;
}

// Note [Program traits]: "submodule-entry-names-an-output".
bool submoduleEntryNamesAnOutput(const ExportedProgram& p) {
  return std::any_of(p.module_call_graph.begin(), p.module_call_graph.end(), [&](const ModuleCallEntry& entry) {
    if (entry.fqn.empty() || !entry.signature) return false;
    const auto& outs = entry.signature->outputs;
    return std::any_of(outs.begin(), outs.end(),
                       [&](const SpecArg& a) { return a.hasNodeName() && p.graph().find(a.name); });
  });
}

// Note [Program traits]: "returns-an-empty-tensor-list".
bool returnsAnEmptyTensorList(const Graph& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const Node& n) {
    const auto* list = n.atenOp() ? n.meta.val.list() : nullptr;
    return list && list->empty();
  });
}

// Whether graph trait `trait` holds of `g` or of a subgraph in it: a grad region's or a
// branch's calls are the program's too. (Traits that read the signature's inputs, as
// resizes-an-input, read the program's graph alone, its grad regions laid out inline.)
bool inAnyGraph(const Graph& g, bool (*trait)(const Graph&)) {
  bool holds = false;
  forEachGraph(g, [&](const Graph& each) { holds = holds || trait(each); });
  return holds;
}

}  // namespace

// Note [Program traits]: "nests-a-higher-order-op".
bool nestsAHigherOrderOp(const Graph& g) {
  for (const auto& [path, attr] : g.attributes()) {
    if (!attr.subgraph) continue;
    for (const Node& n : attr.subgraph->nodes()) {
      if (n.target.kind() == Target::Kind::HigherOrder) return true;
    }
  }
  return false;
}

namespace {

// `p` with its grad regions laid out inline between bare `_set_grad_enabled` calls, as older
// exports wrote them: the traits that follow a write back to a graph input or a parameter,
// or read the grad mode a call runs under, then see a region's calls where they run (a
// region's placeholder is no graph input). `p` itself where it has no region, or one that
// cannot be laid out (a nested higher-order op).
const ExportedProgram& withRegionsInline(const ExportedProgram& p, std::optional<ExportedProgram>& copy) {
  if (gradRegionsOf(const_cast<Graph&>(p.graph()), /*grad_enabled=*/true).empty()) return p;
  copy.emplace(p.clone());
  for (const auto& [hop, around] : gradRegionsOf(copy->graph(), /*grad_enabled=*/true)) {
    if (inlineGradRegion(copy->graph(), hop, around)) return p;
  }
  return *copy;
}

}  // namespace

std::vector<std::string> programTraits(const ExportedProgram& original) {
  std::optional<ExportedProgram> copy;
  const ExportedProgram& p = withRegionsInline(original, copy);
  std::vector<std::string> traits;
  if (inAnyGraph(p.graph(), resizesAViewedTensor)) traits.emplace_back("resizes-a-viewed-tensor");
  if (writesAnUndeclaredAlias(p)) traits.emplace_back("writes-an-undeclared-alias");
  if (inAnyGraph(p.graph(), setsAnotherDtype)) traits.emplace_back("sets-another-dtype");
  if (inAnyGraph(p.graph(), writesAViewCopyOut)) traits.emplace_back("writes-a-view-copy-out");
  if (inAnyGraph(p.graph(), setsFromASourceWithAnOffset)) traits.emplace_back("sets-from-a-source-with-an-offset");
  if (inAnyGraph(p.graph(), mutatesMetadataInPlace)) traits.emplace_back("mutates-metadata-in-place");
  if (writesThroughAnUnfoldWithGaps(p)) traits.emplace_back("writes-through-an-unfold-with-gaps");
  if (writesThroughAnExpand(p)) traits.emplace_back("writes-through-an-expand");
  if (writesThroughABoolView(p)) traits.emplace_back("writes-through-a-bool-view");
  if (inAnyGraph(p.graph(), resizesAfterSet)) traits.emplace_back("resizes-after-set");
  if (inAnyGraph(p.graph(), compositeReadsAnOutResize)) traits.emplace_back("composite-reads-an-out-resize");
  if (resizesAnInput(p.graph())) traits.emplace_back("resizes-an-input");
  if (inAnyGraph(p.graph(), resizesAfterAMetadataMutation)) traits.emplace_back("resizes-after-a-metadata-mutation");
  if (requiresGradOfAFactoryView(p)) traits.emplace_back("requires-grad-of-a-factory-view");
  if (inAnyGraph(p.graph(), viewsAsAnotherDtype)) traits.emplace_back("views-as-another-dtype");
  if (inAnyGraph(p.graph(), detachesAView)) traits.emplace_back("detaches-a-view");
  if (inAnyGraph(p.graph(), reshapeCopiesAWrittenTensor)) traits.emplace_back("reshape-copies-a-written-tensor");
  if (writesUnderAStridedReshape(p)) traits.emplace_back("writes-under-a-strided-reshape");
  if (inAnyGraph(p.graph(), resizesAStridedViewToItsSizes)) traits.emplace_back("resizes-a-strided-view-to-its-sizes");
  if (!p.signature.inputTokens().empty()) traits.emplace_back("takes-an-effect-token");
  if (inAnyGraph(p.graph(), returnsAnEmptyTensorList)) traits.emplace_back("returns-an-empty-tensor-list");
  if (addressesAWrittenStridedTensor(p)) traits.emplace_back("addresses-a-written-strided-tensor");
  if (writesAParameterUnderNoGrad(p)) traits.emplace_back("writes-a-parameter-under-no-grad");
  // The module call graph names the region's getitems, and nesting is the regions' own.
  if (submoduleEntryNamesAnOutput(original)) traits.emplace_back("submodule-entry-names-an-output");
  if (nestsAHigherOrderOp(original.graph())) traits.emplace_back("nests-a-higher-order-op");
  if (inAnyGraph(p.graph(), resizesAnOutThatRequiresGrad)) traits.emplace_back("resizes-an-out-that-requires-grad");
  return traits;
}

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
