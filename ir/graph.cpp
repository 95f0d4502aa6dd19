// Graph storage and the editing API.
#include "ir/graph.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

namespace epsmith {

namespace {
[[noreturn]] void internalError(const char* what) {
  std::fprintf(stderr, "epsmith internal error: %s\n", what);
  std::abort();
}
}  // namespace

namespace {
std::atomic<uint64_t> last_stamp{0};
}  // namespace

uint64_t nextVisitStamp() { return ++last_stamp; }

uint64_t reserveVisitStamps(uint64_t count) { return last_stamp.fetch_add(count) + 1; }

std::string_view opKindName(OpKind op) {
  switch (op) {
    case OpKind::Placeholder: return "placeholder";
    case OpKind::CallFunction: return "call_function";
    case OpKind::GetAttr: return "get_attr";
    case OpKind::Output: return "output";
    case OpKind::CallModule: return "call_module";
    case OpKind::CallMethod: return "call_method";
  }
  return "?";
}

std::string_view attributeKindName(Attribute::Kind k) {
  switch (k) {
    case Attribute::Kind::Subgraph: return "graph";
    case Attribute::Kind::Parameter: return "parameter";
    case Attribute::Kind::Tensor: return "tensor";
    case Attribute::Kind::TreeSpec: return "treespec";
    case Attribute::Kind::Module: return "module";
    case Attribute::Kind::Opaque: return "opaque";
  }
  return "?";
}

Attribute Attribute::makeSubgraph(std::unique_ptr<Graph> g) {
  Attribute a;
  a.kind = Kind::Subgraph;
  a.subgraph = std::move(g);
  return a;
}

Attribute Attribute::clone() const {
  Attribute a;
  a.kind = kind;
  if (subgraph) a.subgraph = subgraph->clone();
  a.tensor = tensor;
  a.text = text;
  a.field_types = field_types;
  a.has_original_module = has_original_module;
  return a;
}

Node* Node::next() const {
  auto it = std::next(self_);
  return it == graph_->nodes_.end() ? nullptr : &*it;
}

Node* Node::prev() const { return self_ == graph_->nodes_.begin() ? nullptr : &*std::prev(self_); }

Node* Graph::find(std::string_view name) {
  for (auto& n : nodes_) {
    if (n.name() == name) return &n;
  }
  return nullptr;
}

const Node* Graph::find(std::string_view name) const { return const_cast<Graph*>(this)->find(name); }

std::vector<Node*> Graph::placeholders() {
  std::vector<Node*> out;
  for (auto& n : nodes_) {
    if (n.isPlaceholder()) out.push_back(&n);
  }
  return out;
}

std::vector<const Node*> Graph::placeholders() const {
  std::vector<const Node*> out;
  for (const auto& n : nodes_) {
    if (n.isPlaceholder()) out.push_back(&n);
  }
  return out;
}

Node* Graph::outputNode() {
  if (nodes_.empty() || !nodes_.back().isOutput()) return nullptr;
  return &nodes_.back();
}

const Node* Graph::outputNode() const { return const_cast<Graph*>(this)->outputNode(); }

const Attribute* Graph::attribute(std::string_view path) const {
  auto it = attributes_.find(std::string(path));
  return it == attributes_.end() ? nullptr : &it->second;
}

void Graph::addName(const Node& n) {
  if (names_.add(n.name_) == 2) ++duplicated_names_;
}

void Graph::dropName(const Node& n) {
  const size_t left = names_.remove(n.name_);
  if (left == 1) --duplicated_names_;
  // The table's key views one owner's characters; when that is `n` and others remain, hand
  // the key to one of them (only programs with duplicate names get here).
  if (left > 0 && names_.keyData(n.name_) == n.name_.data()) {
    for (const Node& other : nodes_) {
      if (&other != &n && other.name_ == n.name_) {
        names_.rekey(other.name_);
        break;
      }
    }
  }
}

Node* Graph::insertAt(NodeList::iterator pos, OpKind op, std::string name) {
  auto it = nodes_.emplace(pos, Node::Key(), this, op, std::move(name));  // made in place
  it->self_ = it;
  addName(*it);
  return &*it;
}

Node* Graph::append(OpKind op, std::string_view name) { return insertAt(nodes_.end(), op, uniqueName(name)); }

Node* Graph::appendRaw(OpKind op, std::string name) { return insertAt(nodes_.end(), op, std::move(name)); }

Node* Graph::insertRawBefore(Node* before, OpKind op, std::string name) {
  if (before->graph_ != this) internalError("insertRawBefore: node of another graph");
  return insertAt(before->self_, op, std::move(name));
}

Node* Graph::insertBefore(Node* before, OpKind op, std::string_view name) {
  if (before->graph_ != this) internalError("insertBefore: node of another graph");
  return insertAt(before->self_, op, uniqueName(name));
}

Node* Graph::insertAfter(Node* after, OpKind op, std::string_view name) {
  if (after->graph_ != this) internalError("insertAfter: node of another graph");
  return insertAt(std::next(after->self_), op, uniqueName(name));
}

void Graph::erase(Node* n) {
  if (n->graph_ != this) internalError("erase: node of another graph");
  if (!users(n).empty()) internalError("erase: node still has uses");
  dropName(*n);
  nodes_.erase(n->self_);
}

void Graph::eraseUnused(Node* n) {
  if (n->graph_ != this) internalError("eraseUnused: node of another graph");
  dropName(*n);
  nodes_.erase(n->self_);
}

size_t Graph::replaceAllUsesWith(Node* from, Node* to) {
  size_t count = 0;
  for (auto& n : nodes_) {
    n.forEachInputRef([&](Node*& ref) {
      if (ref == from) {
        ref = to;
        ++count;
      }
    });
  }
  return count;
}

std::vector<Node*> Graph::users(const Node* target) const {
  std::vector<Node*> out;
  for (const auto& n : nodes_) {
    bool uses = false;
    n.forEachInput([&](const Node* in) { uses = uses || in == target; });
    if (uses) out.push_back(const_cast<Node*>(&n));
  }
  return out;
}

namespace {

// Note [Names FX would not give a node]
// torch.fx never names a node after a Python keyword, a builtin or one of the names its
// generated code imports (torch/fx/graph.py, _illegal_names and _custom_builtins): `min`
// becomes `min_1`. torch's deserializer names each node it rebuilds through fx, so a program
// with a node called `min` loads with that node renamed `min_1`, which clashes with a later
// node of that name ("Node min_1 has already been deserialized before"). Fresh names skip
// these as fx does; names read from a file are kept as written. The table is Python 3.11's
// keyword.kwlist and builtins, and torch 2.13's _custom_builtins, sorted.
// clang-format off
constexpr std::string_view kNamesFxAvoids[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError",
    "Exception", "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError",
    "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
    "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError",
    "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError",
    "NameError", "None", "NoneType", "NotADirectoryError", "NotImplemented", "NotImplementedError",
    "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError",
    "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
    "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning",
    "SystemError", "SystemExit", "TabError", "TimeoutError", "True", "TypeError",
    "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
    "UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning",
    "ZeroDivisionError", "__build_class__", "__debug__", "__doc__", "__import__", "__loader__",
    "__name__", "__package__", "__spec__", "abs", "aiter", "all", "and", "anext", "any", "as",
    "ascii", "assert", "async", "await", "bin", "bool", "break", "breakpoint", "bytearray", "bytes",
    "callable", "chr", "class", "classmethod", "compile", "complex", "continue", "copyright",
    "credits", "def", "del", "delattr", "device", "dict", "dir", "divmod", "elif", "else",
    "enumerate", "eval", "except", "exec", "exit", "filter", "finally", "float", "for", "format",
    "from", "frozenset", "fx_pytree", "getattr", "global", "globals", "hasattr", "hash", "help",
    "hex", "id", "if", "import", "in", "inf", "input", "int", "is", "isinstance", "issubclass",
    "iter", "lambda", "len", "license", "list", "locals", "map", "max", "memoryview", "min", "nan",
    "next", "nonlocal", "not", "object", "oct", "open", "or", "ord", "pass", "pow", "print",
    "property", "pytree", "quit", "raise", "range", "repr", "return", "reversed", "round", "set",
    "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "torch", "try", "tuple",
    "type", "vars", "while", "with", "yield", "zip",
};
// clang-format on

bool fxAvoids(std::string_view name) {
  return std::binary_search(std::begin(kNamesFxAvoids), std::end(kNamesFxAvoids), name);
}

}  // namespace

std::string Graph::uniqueName(std::string_view base) const {
  std::string candidate(base.empty() ? "node" : base);
  if (!names_.count(candidate) && !fxAvoids(candidate)) return candidate;
  // Resume after the last suffix handed out for this base, so n nodes sharing a base cost
  // O(n) in all, not O(n^2). A suffix freed by erase() below the hint is not reused: names
  // stay unique and deterministic for a given sequence of edits, just not the smallest.
  int& hint = next_suffix_[candidate];
  for (int i = std::max(hint, 1);; ++i) {
    std::string next = candidate + "_" + std::to_string(i);
    if (!names_.count(next)) {
      hint = i + 1;
      return next;
    }
  }
}

const std::string& Graph::rename(Node* n, std::string_view wanted) {
  if (n->name_ == wanted) return n->name_;
  dropName(*n);
  n->name_ = uniqueName(wanted);
  addName(*n);
  return n->name_;
}

const Node* Graph::firstOutOfOrderUse() const {
  std::unordered_set<const Node*> defined;
  defined.reserve(nodes_.size());
  for (const auto& n : nodes_) {
    bool bad = false;
    n.forEachInput([&](const Node* in) { bad = bad || !defined.count(in); });
    if (bad) return &n;
    defined.insert(&n);
  }
  return nullptr;
}

std::unique_ptr<Graph> Graph::clone() const {
  auto g = std::make_unique<Graph>();
  g->reserve(nodes_.size());
  // Each node and its copy, sorted by the node's address: a reference is remapped by a
  // binary search, with no table to hash into, no write to this graph (clones of one graph
  // may run side by side) and nothing read through the reference itself.
  std::vector<std::pair<const Node*, Node*>> copies;
  copies.reserve(nodes_.size());
  for (const auto& n : nodes_) {
    Node* copy = g->appendRaw(n.op_, n.name_);
    copy->target = n.target;
    copy->attr = n.attr;
    copy->args = n.args;
    copy->kwargs = n.kwargs;
    copy->meta = n.meta;
    copies.emplace_back(&n, copy);
  }
  std::sort(copies.begin(), copies.end());
  for (auto& n : g->nodes_) {
    n.forEachInputRef([&](Node*& ref) {
      auto it = std::lower_bound(copies.begin(), copies.end(),
                                 std::make_pair(static_cast<const Node*>(ref), static_cast<Node*>(nullptr)));
      // A reference to a node outside this graph is kept as is (a broken graph stays broken).
      if (it != copies.end() && it->first == ref) ref = it->second;
    });
  }
  for (const auto& [name, attr] : attributes_) g->attributes_.emplace(name, attr.clone());
  g->returns_one_value = returns_one_value;
  return g;
}

NameIndex::NameIndex(const Graph& g) {
  map_.reserve(g.size());
  for (const auto& n : g.nodes()) map_.emplace(n.name(), const_cast<Node*>(&n));
}

Node* NameIndex::find(std::string_view name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : it->second;
}

}  // namespace epsmith
