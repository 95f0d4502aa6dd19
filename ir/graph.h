// The graph of an exported program: nodes in order, the module attributes get_attr reads,
// and the editing API later passes use.
//
// Ownership: a Graph owns its Nodes (in a std::list, so a Node's address never changes while
// it lives; allocated in chunks, see ir/chunk_allocator.h) and its Attributes; an Attribute that is a subgraph owns that Graph. Every other
// Node* (in arguments, in passes, in indexes) is non-owning and is invalidated by erase().
// Nodes are moved between graphs only by copying (Graph::clone).
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/argument.h"
#include "ir/chunk_allocator.h"
#include "ir/meta.h"
#include "ir/name_table.h"
#include "ir/target.h"
#include "ir/tensor_data.h"

namespace epsmith {

class Graph;
class Node;
using NodeList = std::list<Node, ChunkAllocator<Node>>;

// torch.fx node ops. CallModule and CallMethod are representable so the verifier can reject
// them; epsmith never creates them.
enum class OpKind : uint8_t { Placeholder, CallFunction, GetAttr, Output, CallModule, CallMethod };
std::string_view opKindName(OpKind op);  // "placeholder", "call_function", ...

class Node {
  // Hot fields first: passes that walk every node (the verifier, the interpreter) read these.
  Graph* graph_;
  OpKind op_;

 public:
  // Scratch for passes that walk a graph once (e.g. the verifier's "defined yet?" test):
  // a pass takes a fresh stamp from nextVisitStamp() and marks nodes with it. Never read
  // a stamp you did not take.
  mutable uint64_t visit_stamp = 0;
  // call_function: what is called.
  Target target;
  // call_function / call_module / call_method positional arguments; for output, the returned
  // values in order.
  std::vector<Argument> args;
  // Keyword arguments in the order written.
  std::vector<std::pair<std::string, Argument>> kwargs;
  NodeMeta meta;
  // get_attr / call_module / call_method: the attribute path or method name.
  std::string attr;

  const std::string& name() const { return name_; }
  OpKind op() const { return op_; }
  Graph* owningGraph() const { return graph_; }

  bool isPlaceholder() const { return op_ == OpKind::Placeholder; }
  // The ATen overload a call_function node calls; null for every other node.
  const OpInfo* atenOp() const { return op_ == OpKind::CallFunction ? target.op() : nullptr; }
  bool isOutput() const { return op_ == OpKind::Output; }
  // Calls f(Node*) for every node referenced by args then kwargs, in order.
  template <typename F>
  void forEachInput(F&& f) const {
    for (const auto& a : args) a.forEachNode(f);
    for (const auto& kv : kwargs) kv.second.forEachNode(f);
  }
  template <typename F>
  void forEachInputRef(F&& f) {
    for (auto& a : args) a.forEachNodeRef(f);
    for (auto& kv : kwargs) kv.second.forEachNodeRef(f);
  }

  Node* next() const;  // nullptr at the end
  Node* prev() const;  // nullptr at the start

  // Only a Graph makes nodes (the key is its own); public so that the node list can build
  // one in place.
  class Key {
    friend class Graph;
    Key() {}  // user-provided: not an aggregate, so no one else can brace-make one
  };
  Node(Key, Graph* g, OpKind op, std::string name) : graph_(g), op_(op), name_(std::move(name)) {}

 private:
  friend class Graph;
  std::string name_;
  NodeList::iterator self_;
};

// A process-wide increasing stamp for Node::visit_stamp (thread-safe).
uint64_t nextVisitStamp();
// `count` consecutive stamps, the first returned: a pass that numbers the nodes it walks
// stores first + i in node i and reads the number back (a stamp outside its range is not
// its own).
uint64_t reserveVisitStamps(uint64_t count);

// What a get_attr target names.
struct Attribute {
  enum class Kind : uint8_t { Subgraph, Parameter, Tensor, TreeSpec, Module, Opaque };
  Kind kind = Kind::Opaque;
  std::unique_ptr<Graph> subgraph;    // Subgraph
  std::optional<TensorValue> tensor;  // Parameter / Tensor (may be absent: metadata only)
  std::string text;                   // TreeSpec: its JSON; Module: the class name; Opaque: the Python type
  // Module only: the types of LoweredBackendModule's fields, as Python would name them
  // ("str", "bytes", "list"; empty: absent), and whether original_module exists.
  std::map<std::string, std::string> field_types;
  bool has_original_module = false;

  static Attribute makeSubgraph(std::unique_ptr<Graph> g);
  Attribute clone() const;
};
std::string_view attributeKindName(Attribute::Kind k);

class Graph {
 public:
  friend class Node;
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // --- Reading -------------------------------------------------------------------------
  NodeList& nodes() { return nodes_; }
  const NodeList& nodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  // Linear scan; use NameIndex for many lookups.
  Node* find(std::string_view name);
  const Node* find(std::string_view name) const;
  std::vector<Node*> placeholders();
  std::vector<const Node*> placeholders() const;
  // The last node if it is an output node, else nullptr.
  Node* outputNode();
  const Node* outputNode() const;

  std::map<std::string, Attribute>& attributes() { return attributes_; }
  const std::map<std::string, Attribute>& attributes() const { return attributes_; }

  // The graph returns its one output as it is, not in a tuple: torch.fx's `return lt` where
  // others `return (lt,)`, which torch.export serializes as is_single_tensor_return (a
  // while_loop's condition graph must return so). The text form writes `return %lt`.
  bool returns_one_value = false;
  const Attribute* attribute(std::string_view path) const;

  // --- Editing -------------------------------------------------------------------------
  // Given:   %x = placeholder; %y = aten::relu(%x); return (%y)
  // Execute: g.insertBefore(y, OpKind::CallFunction, "neg")
  // Result:  %x = placeholder; %neg = <empty call_function>; %y = ...; the new node is
  //          returned for the caller to fill. Names are made unique (`neg_1` if taken).
  Node* append(OpKind op, std::string_view name);
  Node* insertBefore(Node* before, OpKind op, std::string_view name);
  Node* insertAfter(Node* after, OpKind op, std::string_view name);
  // Erases a node. Precondition (internal assert): no remaining uses.
  void erase(Node* n);
  // The same without the O(n) check, for passes that count uses themselves.
  void eraseUnused(Node* n);
  // Rewrites every use of `from` in later nodes' arguments to `to`; returns the count.
  size_t replaceAllUsesWith(Node* from, Node* to);
  // Every node that uses `n`, in graph order (a node using it twice appears once).
  std::vector<Node*> users(const Node* n) const;
  // Renames `n` to `wanted` or, when taken, to `wanted_1`, `wanted_2`, ...; returns the name.
  const std::string& rename(Node* n, std::string_view wanted);
  // `base` when free, else `base_N` for the next N after the last one handed out for `base`.
  std::string uniqueName(std::string_view base) const;
  // Adds a node with exactly this name, unique or not (loaders check first; corruption
  // tests need duplicates).
  Node* appendRaw(OpKind op, std::string name);
  Node* insertRawBefore(Node* before, OpKind op, std::string name);
  // Whether some node is called `name` (O(1)).
  bool hasName(std::string_view name) const { return names_.count(name) > 0; }
  // Prepares for about `nodes` nodes (passes that build a graph of known size).
  void reserve(size_t nodes) { names_.reserve(nodes); }
  // Whether two nodes share a name (kept up to date by every edit, O(1)).
  bool hasDuplicateNames() const { return duplicated_names_ > 0; }
  // First node (in order) that uses a node not defined before it, or nullptr.
  const Node* firstOutOfOrderUse() const;
  // Deep copy: nodes, arguments remapped, attributes and subgraphs copied.
  std::unique_ptr<Graph> clone() const;

 private:
  Node* insertAt(NodeList::iterator pos, OpKind op, std::string name);
  NodeList nodes_{ChunkAllocator<Node>()};
  std::map<std::string, Attribute> attributes_;
  NameTable names_;  // names in use (keys view the nodes' own names), for uniqueName
  mutable std::unordered_map<std::string, int> next_suffix_;  // per base: where uniqueName resumes
  size_t duplicated_names_ = 0;                               // names with a count above 1
  void addName(const Node& n);
  void dropName(const Node& n);  // before `n` is erased or renamed
};

// name → node over one graph, for loaders and passes that resolve many names.
class NameIndex {
 public:
  explicit NameIndex(const Graph& g);
  Node* find(std::string_view name) const;

 private:
  std::unordered_map<std::string_view, Node*> map_;
};

}  // namespace epsmith
