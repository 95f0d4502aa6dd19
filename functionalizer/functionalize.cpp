// The functionalization pass; see functionalize.h.
//
// Note [Alias tracking]
// The pass walks the source graph once and builds the functional graph as it goes. Every
// tensor the source program handles is an object (an identity: `%x` and the `%t_ =
// t_(%x)` that returns it are one object) pointing at a view record: its storage, the view
// step that takes it from its parent record, its metadata, and its value in the new graph
// together with the storage generation that value is current for. A storage (a graph input
// or the result of a functional op) holds the current functional value of its base and a
// generation counter.
//  - Reading an object syncs its record: when the storage changed since the record's value
//    was made, the view chain is replayed from the current base (view replay).
//  - Writing value v into a record walks up the chain, emitting each step's inverse on the
//    parent's current value (slice_scatter, select_scatter, reshape back, ...), sets the
//    storage's base to the result and bumps the generation. The records on the chain take
//    their new values on the way, so only views off the chain are replayed later.
//  - A metadata mutation (transpose_, squeeze_, ...) points the object at a new record, a
//    view of the old one; for a graph input, a final geometry that differs from the
//    original is refused, as export does.
// Every mutated input's storage base at the end becomes a mutation output.
//
#include "functionalizer/functionalize.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iterator>
#include <stdexcept>
#include <unordered_map>

#include "functionalizer/dtype_probe.h"
#include "functionalizer/emitter.h"
#include "functionalizer/graph_io.h"
#include "functionalizer/op_roles.h"
#include "functionalizer/view_steps.h"
#include "ir/text_format.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace {

using functionalizer::Emitter;
using functionalizer::ViewStep;

struct Failure {
  FunctionalizeError error;
};

struct AliasStorage {
  Node* base = nullptr;  // current value of the whole base in the new graph
  uint32_t gen = 1;
  int input = -1;               // placeholder ordinal when this is a graph input's storage
  const Node* first_write = nullptr;
};

struct Rec {
  AliasStorage* storage = nullptr;
  Rec* parent = nullptr;  // nullptr: the storage's base itself
  ViewStep step;
  Node* value = nullptr;
  uint32_t gen = 0;
  const TensorMeta* meta = nullptr;  // the source node's meta.val (outlives the pass)
  bool fresh = false;  // `value` was made by a write: a new tensor, not a view of the storage
};

struct Obj {
  Rec* rec = nullptr;
  const Node* metadata_writer = nullptr;  // the last metadata mutation applied to it
};

struct Mapped {
  Node* node = nullptr;        // non-tensor values and lists: their node in the new graph
  Obj* tensor = nullptr;       // tensors
  std::vector<Obj*> elements;  // out= ops with several returns: the objects they return
  Rec* list_base = nullptr;    // list views (split, unbind): the records their elements view
  uint32_t list_gen = 0;       // the storage generation the list node was made at
  ViewFamily list_family = ViewFamily::None;
  // A tensor's own node in the new graph, while nothing has written its storage or changed
  // its metadata since: reads use it, so untouched code keeps its names (and a functional
  // program comes back unchanged).
  Node* own = nullptr;
  const Rec* own_rec = nullptr;
  uint32_t own_gen = 0;
  int64_t list_dim = 0;
};

struct InputInfo : functionalizer::GraphInput {
  Obj* obj = nullptr;  // its identity in the pass
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

class Pass {
 public:
  Pass(const ExportedProgram& p, const FunctionalizeOptions& o)
      : source_(p), graph_(std::make_unique<Graph>()), emit_(*graph_, p.graph()), grad_enabled_(o.grad_enabled) {}

  ExportedProgram run() {
    collectInputs();
    const Node* output = nullptr;
    first_stamp_ = reserveVisitStamps(source_.graph().size());
    mapped_.resize(source_.graph().size());
    uint64_t stamp = first_stamp_;
    for (const Node& n : source_.graph().nodes()) n.visit_stamp = stamp++;
    for (const auto& [name, attr] : source_.graph().attributes()) graph_->attributes().emplace(name, attr.clone());
    for (const Node& n : source_.graph().nodes()) {
      switch (n.op()) {
        case OpKind::Placeholder: placeholder(n); break;
        case OpKind::GetAttr: bind(n, emit_.copy(n, n.args, n.kwargs)); break;
        case OpKind::CallFunction: call(n); break;
        case OpKind::Output: output = &n; break;
        default: fail(&n, "cannot functionalize a " + std::string(opKindName(n.op())) + " node");
      }
    }
    if (!output) fail(nullptr, "the graph has no output node");
    return finish(*output);
  }

 private:
  [[noreturn]] void fail(const Node* n, std::string message) {
    throw Failure{FunctionalizeError{n ? n->name() : "", std::move(message)}};
  }

  // --- Objects and records --------------------------------------------------------------
  Obj* freshTensor(Node* value, const TensorMeta& meta, int input = -1) {
    AliasStorage& s = storages_.emplace_back();
    s.base = value;
    s.input = input;
    Rec& r = recs_.emplace_back();
    r.storage = &s;
    r.meta = &meta;
    Obj& o = objs_.emplace_back();
    o.rec = &r;
    return &o;
  }

  Rec* child(Rec* parent, ViewStep step, const TensorMeta& meta, Node* value) {
    Rec& r = recs_.emplace_back();
    r.storage = parent->storage;
    r.parent = parent;
    r.step = step;
    r.meta = &meta;
    r.value = value;
    r.gen = value ? parent->storage->gen : 0;
    return &r;
  }

  // The current value of a record, replaying stale views from the nearest current one.
  Node* sync(Rec* rec) {
    const uint32_t gen = rec->storage->gen;
    if (!rec->parent) return rec->storage->base;
    if (rec->value && rec->gen == gen) return rec->value;
    std::vector<Rec*> stale;
    Rec* r = rec;
    while (r->parent && !(r->value && r->gen == gen)) {
      stale.push_back(r);
      r = r->parent;
    }
    Node* value = r->parent ? r->value : r->storage->base;
    for (auto it = stale.rbegin(); it != stale.rend(); ++it) {
      requireStorageRoot(**it, (*it)->step.node);
      if ((*it)->value) superseded_.push_back((*it)->value);
      if (isAsStridedStep(**it) && rec->storage->first_write) {
        value = functionalizer::contiguousCopy(emit_, value, *(*it)->parent->meta);
      } else if (const Node* at = (*it)->step.node; at && (*it)->step.kind == ViewStep::Kind::Op &&
                                                     readsAContiguousCopy(*at, (*it)->parent)) {
        value = functionalizer::laidOutForDtypeView(emit_, value, *(*it)->parent->meta);
      }
      value = functionalizer::replayView(emit_, (*it)->step, value, *(*it)->meta, resolver_);
      (*it)->value = value;
      (*it)->gen = gen;
      (*it)->fresh = false;
    }
    return value;
  }

  // Writes `value` into the tensor `rec` denotes; `writer` is the node responsible.
  void write(Rec* rec, Node* value, const Node* writer) {
    AliasStorage* s = rec->storage;
    if (s->input >= 0) checkInputWrite(inputs_[static_cast<size_t>(s->input)], writer);
    const bool computed = s->first_write != nullptr;  // the base's value is the graph's, not the input
    if (!s->first_write) s->first_write = writer;
    std::vector<std::pair<Rec*, Node*>> updates{{rec, value}};
    Node* current = value;
    for (Rec* r = rec; r->parent; r = r->parent) {
      requireStorageRoot(*r, writer);
      Node* parent_value = sync(r->parent);
      if (isAsStridedStep(*r) && computed) parent_value = functionalizer::contiguousCopy(emit_, parent_value, *r->parent->meta);
      std::string error;
      auto up = functionalizer::invertView(emit_, r->step, parent_value, *r->parent->meta, current, &error);
      if (!up) fail(writer, error);
      current = *up;
      updates.emplace_back(r->parent, current);
    }
    s->base = current;
    ++s->gen;
    for (auto& [r, v] : updates) {
      if (r->parent && r->value && r->value != v) superseded_.push_back(r->value);
      r->value = v;
      r->gen = s->gen;
      r->fresh = r->parent != nullptr;
    }
  }

  void checkInputWrite(const InputInfo& in, const Node* writer) {
    if (in.aliases >= 0) {
      fail(writer, "Encountered aliased inputs that are mutated in the graph: inputs " + quoted(in.node->name()) +
                       " and " + quoted(inputs_[static_cast<size_t>(in.aliases)].node->name()) +
                       " share memory and " + quoted(in.node->name()) +
                       " is mutated; export would need a synthetic base, which it does not allow");
    }
    if (const TensorMeta* m = in.node->meta.val.tensor(); m && functionalizer::overlapsItself(*m)) {
      // The caller of the exported program copies the new value back into the input, and
      // copy_ refuses a destination whose elements share memory (eager's zero_ and fill_
      // accept one).
      fail(writer, "input " + quoted(in.node->name()) + " is mutated, but its elements overlap in memory (" +
                       formatTensorMeta(*m) + "): copying its new value back into it raises");
    }
    if (in.requires_grad && grad_enabled_) {
      fail(writer, "Found a graph input that requires gradients, and received a mutation. This is currently "
                   "banned in the aot_export workflow. (input " + quoted(in.node->name()) +
                       "; mutate it under torch.no_grad() or inference mode instead)");
    }
    if (in.spec && in.spec->kind != InputKind::UserInput && in.spec->kind != InputKind::Parameter &&
        in.spec->kind != InputKind::Buffer) {
      fail(writer, "input " + quoted(in.node->name()) + " (" + std::string(inputKindName(in.spec->kind)) +
                       ") is mutated, and the graph signature has no mutation output for that kind");
    }
  }

  // --- Values -------------------------------------------------------------------------
  Mapped& slot(const Node& n) { return mapped_[n.visit_stamp - first_stamp_]; }
  void remember(Mapped& m, Node* own) {
    m.own = own;
    m.own_rec = m.tensor->rec;
    m.own_gen = m.tensor->rec->storage->gen;
  }
  // The entry of a source node already walked, or nullptr.
  Mapped* entry(const Node* n) {
    if (n->owningGraph() != &source_.graph() || n->visit_stamp < first_stamp_ ||
        n->visit_stamp - first_stamp_ >= mapped_.size()) {
      return nullptr;
    }
    Mapped& m = mapped_[n->visit_stamp - first_stamp_];
    return m.tensor || m.node || !m.elements.empty() ? &m : nullptr;
  }
  Node* resolve(const Node* n) {
    Mapped* found = entry(n);
    if (!found) fail(n, "internal: used before it was functionalized");
    Mapped& m = *found;
    if (m.tensor && m.own && m.tensor->rec == m.own_rec && m.own_rec->storage->gen == m.own_gen) return m.own;
    if (m.tensor) return sync(m.tensor->rec);
    if (m.node) return m.node;
    fail(n, "its value (the several returns of an out= call) is used other than through getitem");
  }
  const functionalizer::Resolve resolver_ = [this](const Node* n) { return resolve(n); };

  Obj* object(const Node* n, const Node* user) {
    Mapped* m = entry(n);
    if (!m || !m->tensor) fail(user, "argument " + quoted(n->name()) + " is not a tensor this pass can track");
    return m->tensor;
  }

  const Node* selfArgument(const Node& n) {
    if (!n.args.empty()) {
      if (const auto* t = n.args[0].get<arg::Tensor>()) return t->node;
    }
    for (const auto& [name, a] : n.kwargs) {
      if (name == "self") {
        if (const auto* t = a.get<arg::Tensor>()) return t->node;
      }
    }
    fail(&n, "its `self` argument is not a tensor");
  }

  // A copy of a source node reading the current value of each argument. The arguments are
  // resolved first: resolving may emit view replays, which must precede the copy.
  Node* copyRemapped(const Node& n) {
    std::vector<Argument> args = n.args;
    auto kwargs = n.kwargs;
    for (auto& a : args) a.forEachNodeRef([&](Node*& r) { r = resolve(r); });
    for (auto& kv : kwargs) kv.second.forEachNodeRef([&](Node*& r) { r = resolve(r); });
    return emit_.copy(n, std::move(args), std::move(kwargs));
  }

  // Records the value of a node that returned something new (not an alias).
  void bind(const Node& n, Node* value) {
    Mapped& m = slot(n);
    if (const TensorMeta* t = n.meta.val.tensor()) {
      m.tensor = freshTensor(value, *t);
      remember(m, value);
    } else {
      m.node = value;
    }
  }

  // --- Inputs -------------------------------------------------------------------------
  void collectInputs() {
    for (auto& facts : functionalizer::describeInputs(source_)) {
      InputInfo in;
      static_cast<functionalizer::GraphInput&>(in) = facts;
      inputs_.push_back(in);
    }
  }

  void placeholder(const Node& n) {
    Node* c = emit_.copy(n, {}, {});
    const size_t ordinal = placeholders_++;
    if (const TensorMeta* t = n.meta.val.tensor()) {
      Obj* o = freshTensor(c, *t, static_cast<int>(ordinal));
      slot(n).tensor = o;
      remember(slot(n), c);
      inputs_[ordinal].obj = o;
    } else {
      slot(n).node = c;
    }
  }

  // --- Calls --------------------------------------------------------------------------
  void call(const Node& n) {
    switch (n.target.kind()) {
      case Target::Kind::Aten: aten(n); return;
      case Target::Kind::Builtin:
        if (n.target.builtinOp() == BuiltinOp::GetItem) {
          getitem(n);
        } else {
          bind(n, copyRemapped(n));
        }
        return;
      case Target::Kind::TorchFunction: {
        bind(n, copyRemapped(n));
        auto fn = n.target.torchFunctionId();
        if ((fn == TorchFunction::SetGradEnabled || fn == TorchFunction::CSetGradEnabled) && !n.args.empty()) {
          if (const auto* b = n.args[0].get<arg::Bool>()) grad_enabled_ = b->value;
        }
        return;
      }
      case Target::Kind::HigherOrder:
        checkSubgraphsFunctional(n);
        bind(n, copyRemapped(n));
        return;
      default:
        fail(&n, "cannot functionalize a call to " + n.target.textName());
    }
  }

  void checkSubgraphsFunctional(const Node& n) {
    n.forEachInput([&](const Node* in) {
      if (in->op() != OpKind::GetAttr) return;
      const Attribute* attr = source_.graph().attribute(in->attr);
      if (!attr || !attr->subgraph) return;
      for (const Node& s : attr->subgraph->nodes()) {
        if (s.op() == OpKind::CallFunction && s.target.kind() == Target::Kind::Aten && s.target.op()->is_mutable) {
          fail(&n, "subgraph " + quoted(in->attr) + " mutates (" + s.target.textName() +
                       "); mutation inside higher-order ops is not functionalized");
        }
      }
    });
  }

  void checkHiddenWrites(const Node& n, const OpInfo& op) {
    if (writesItsSchemaHides(n, op)) {
      fail(&n, op.name() + " updates its running statistics in place although its schema does not say so "
                           "(Note [Writes schemas do not declare]); epsmith does not functionalize it");
    }
  }

  void aten(const Node& n) {
    const OpInfo& op = *n.target.op();
    checkHiddenWrites(n, op);
    const OpRoleInfo& role = opRole(op);
    switch (role.role) {
      case OpRole::Functional:
        if (op.qualified_name == "aten::as_strided_copy") return asStridedCopy(n, op);
        if (op.qualified_name == "aten::view_copy") {
          const Node* self = selfArgument(n);
          Rec* rec = self && self->meta.val.tensor() ? object(self, &n)->rec : nullptr;
          if (rec && readsAContiguousCopy(n, rec)) return bind(n, copyOnContiguousSelf(n, *rec));
        }
        bind(n, copyRemapped(n));
        return;
      case OpRole::View: view(n, role); return;
      case OpRole::MaybeView:
        if (returnsAlias(n, op)) {
          view(n, role);
        } else {
          bind(n, copyRemapped(n));
        }
        return;
      case OpRole::InPlace: inPlace(n, role); return;
      case OpRole::Out: outVariant(n, role); return;
      case OpRole::MetadataMutation: metadataMutation(n, role); return;
      case OpRole::Unsupported:
        fail(&n, op.name() + " " + role.reason + ", so it has no functional form");
    }
  }

  // Note [Maybe-aliasing ops] in op_roles.cpp: decided from the input's metadata.
  bool returnsAlias(const Node& n, const OpInfo& op) {
    const Node* self = selfArgument(n);
    const TensorMeta& in = *object(self, &n)->rec->meta;
    const TensorMeta* out = n.meta.val.tensor();
    if (!out) return false;
    const std::string& name = op.qualified_name;
    if (name == "aten::contiguous") {
      auto* fmt = functionalizer::schemaArgument(n, op, 1);
      const auto* f = fmt ? fmt->get<arg::MemFormat>() : nullptr;
      if (f && f->value == MemoryFormat::Preserve) return true;
      return (!f || f->value == MemoryFormat::Contiguous) && functionalizer::isContiguous(in);
    }
    if (name == "aten::to") {
      if (out->dtype != in.dtype || !(out->device == in.device)) return false;
      for (const auto& [key, a] : n.kwargs) {
        if (key == "copy" && a.get<arg::Bool>() && a.get<arg::Bool>()->value) return false;
        if (key == "memory_format" && a.kind() == ArgKind::MemoryFormat) {
          auto f = a.get<arg::MemFormat>()->value;
          if (f != MemoryFormat::Preserve && !(f == MemoryFormat::Contiguous && functionalizer::isContiguous(in))) return false;
        }
      }
      for (size_t i = 1; i < n.args.size(); ++i) {  // positional copy= (after non_blocking)
        if (op.arguments.size() > i && op.arguments[i].name == "copy") {
          if (const auto* b = n.args[i].get<arg::Bool>(); b && b->value) return false;
        }
      }
      return true;
    }
    return functionalizer::viewable(in, out->sizes);  // reshape, reshape_as, flatten, ravel
  }

  void view(const Node& n, const OpRoleInfo& role) {
    const OpInfo& op = *n.target.op();
    Obj* self = object(selfArgument(n), &n);
    Rec* parent = self->rec;
    if (role.view == ViewFamily::AsStrided && n.meta.val.tensor()) {
      asStrided(n, op, parent, slot(n));
      return;
    }
    Node* c = readsAContiguousCopy(n, parent) ? copyOnContiguousSelf(n, *parent) : copyRemapped(n);
    const TensorMeta* shape = n.meta.val.tensor();
    const OpInfo* sized = functionalizer::sizedForm(op);
    if (sized && parent->storage->first_write && shape && !c->args.empty()) {
      // A view of a storage that was written is taken on a value the graph computed, whose
      // strides view may refuse (Note [Views replayed by their sizes]).
      if (auto sizes = functionalizer::concreteSizes(*shape)) {
        c->target = Target::aten(sized);
        c->args.resize(1);
        c->args.push_back(arg::IntList{*sizes});
        c->kwargs.clear();
      }
    }
    Mapped& m = slot(n);
    if (role.returns_self && n.meta.val.tensor()) {
      // The same tensor object (Note [Maybe-aliasing ops]): `c` is its current value.
      m.tensor = self;
      remember(m, c);
      return;
    }
    if (const TensorMeta* t = n.meta.val.tensor()) {
      ViewStep step = ViewStep::ofOp(&op, &n, role.view);
      Obj& o = objs_.emplace_back();
      o.rec = child(parent, step, *t, c);
      m.tensor = &o;
      remember(m, c);
      return;
    }
    m.node = c;
    if (role.view == ViewFamily::SplitList || role.view == ViewFamily::UnbindList) {
      m.list_base = parent;
      m.list_gen = parent->storage->gen;
      m.list_family = role.view;
      m.list_dim = listDim(n, op, static_cast<int64_t>(parent->meta->sizes.size()));
    } else if (n.meta.val.list()) {
      // Its elements would be taken as tensors of their own, and a later write to the base
      // would not reach them.
      fail(&n, "a view op returning a list whose elements the functionalizer cannot replay from their base");
    }
  }

  // Note [as_strided views hang off the storage root]
  // as_strided's offset and strides address the storage, not the tensor it is called on.
  // After a write, a view's functional value is a fresh tensor with a storage of its own,
  // where those offsets mean something else; and as_strided_scatter clones the tensor it
  // writes into, dropping its offset. So an as_strided view's record hangs off the storage's
  // root: it is replayed from, and written back through, the root's current value, with its
  // storage offset spelled out (left out, it means the offset of the tensor it was called
  // on, not the root's). Before any write, the node reads its own argument, a view of the
  // storage itself (so an already functional program comes back unchanged). After one, the
  // root's value is a tensor the graph computed, starting at offset 0 in strides of the
  // kernel's choosing (triu of a column-major input is row-major), so it is read through a
  // contiguous copy; that addresses the same elements as eager only when the root is
  // contiguous from offset 0 and the view stays within the root's elements. Other roots, and
  // views reaching past the root into the rest of its storage, are refused once a write
  // makes them matter. as_strided_copy reads the same way.
  // The root's current value as as_strided may address it: once written, the root's value
  // is a tensor the graph computed, whose strides need not be the root's, so it is read
  // through a contiguous copy (the root is contiguous).
  Node* rootForAsStrided(Rec* root) {
    Node* value = sync(root);
    return root->storage->first_write ? functionalizer::contiguousCopy(emit_, value, *root->meta) : value;
  }

  static bool isAsStridedStep(const Rec& r) {
    return r.step.family == ViewFamily::AsStrided && r.step.kind == ViewStep::Kind::Op;
  }

  void requireStorageRoot(const Rec& r, const Node* blame) {
    if (!isAsStridedStep(r)) return;
    if (!r.parent->parent && functionalizer::addressesOnlyItsRoot(*r.step.node, *r.step.op, *r.parent->meta)) return;
    fail(blame, "as_strided" + std::string(kStorageRootRefusal));
  }
  static constexpr std::string_view kStorageRootRefusal =
      " of a storage that was written, where the storage base is not contiguous from offset 0 or the view "
      "reaches past it: its offsets address memory the functional program does not have";

  // Note [dtype views of computed values]
  // view.dtype to a dtype of another element size reinterprets the bytes along the last
  // dim, which needs that dim's stride to be 1 (and divisible sizes and strides elsewhere).
  // Eager's tensor has the strides eager gave it; once its storage was written, the
  // functional value is one the graph computed, in strides of the kernel's choosing (a
  // 0-element relu of a permuted tensor, a divide_ of an f32[0, 1], came back with a last
  // stride of 2 and 0). Row by row the bytes are the same in a contiguous copy, so such a
  // view, and view_copy.dtype, read one; a 0-element one has no bytes, and reads an
  // as_strided of the value in eager's strides instead.
  bool readsAContiguousCopy(const Node& n, const Rec* self) {
    const TensorMeta* in = self ? self->meta : nullptr;
    const TensorMeta* out = n.meta.val.tensor();
    return in && out && self->storage->first_write && elementSize(in->dtype) != elementSize(out->dtype) &&
           n.target.op()->overload == "dtype";
  }

  Node* copyOnContiguousSelf(const Node& n, Rec& self) {
    return copyWithSelf(n, n.args, n.kwargs, functionalizer::laidOutForDtypeView(emit_, sync(&self), *self.meta));
  }

  // as_strided_copy addresses the storage as as_strided does: once the storage was written,
  // it reads the root's value with its offset spelled out, which only a root that stands
  // for its storage allows.
  void asStridedCopy(const Node& n, const OpInfo& op) {
    Obj* self = object(selfArgument(n), &n);
    Rec* root = self->rec;
    while (root->parent) root = root->parent;
    if (!root->storage->first_write) return bind(n, copyRemapped(n));
    if (!functionalizer::addressesOnlyItsRoot(n, op, *root->meta)) fail(&n, "as_strided_copy" + std::string(kStorageRootRefusal));
    bind(n, copyOnBase(n, op, rootForAsStrided(root)));
  }

  void asStrided(const Node& n, const OpInfo& op, Rec* parent, Mapped& m) {
    Rec* root = parent;
    while (root->parent) root = root->parent;
    if (root != parent) {
      std::vector<Argument> args = n.args;
      auto kwargs = n.kwargs;
      if (!functionalizer::pinStorageOffset(n, op, args, kwargs)) {
        fail(&n, "as_strided of a view, with a symbolic storage offset: its replay from the storage root "
                 "cannot say where it starts");
      }
    }
    // Before any write, the argument is a view of the storage itself; after one, values are
    // tensors the graph computed, read through the root laid out as it is.
    Node* c = nullptr;
    if (!root->storage->first_write) {
      c = copyRemapped(n);
    } else {
      if (!functionalizer::addressesOnlyItsRoot(n, op, *root->meta)) fail(&n, "as_strided" + std::string(kStorageRootRefusal));
      c = copyOnBase(n, op, rootForAsStrided(root));
    }
    Obj& o = objs_.emplace_back();
    o.rec = child(root, ViewStep::ofOp(&op, &n, ViewFamily::AsStrided), *n.meta.val.tensor(), c);
    m.tensor = &o;
    remember(m, c);
  }

  // A copy of the as_strided call `n` on `base`, its storage offset spelled out.
  Node* copyOnBase(const Node& n, const OpInfo& op, Node* base) {
    std::vector<Argument> args = n.args;
    auto kwargs = n.kwargs;
    if (!functionalizer::pinStorageOffset(n, op, args, kwargs)) fail(&n, "its storage offset is symbolic");
    return copyWithSelf(n, std::move(args), std::move(kwargs), base);
  }

  // A copy of `n` (arguments `args` and `kwargs`) reading `self_value` as its self.
  Node* copyWithSelf(const Node& n, std::vector<Argument> args, std::vector<std::pair<std::string, Argument>> kwargs,
                     Node* self_value) {
    functionalizer::setSelf(args, kwargs, self_value, resolver_);
    return emit_.copy(n, std::move(args), std::move(kwargs));
  }

  int64_t listDim(const Node& n, const OpInfo& op, int64_t rank) {
    const std::string& name = op.qualified_name;
    std::optional<int64_t> d;
    if (name == "aten::hsplit") d = rank == 1 ? 0 : 1;
    else if (name == "aten::vsplit") d = 0;
    else if (name == "aten::dsplit") d = 2;
    else if (name == "aten::unbind") d = functionalizer::intArgument(n, op, 1, 0);
    else d = functionalizer::intArgument(n, op, 2, 0);
    if (!d) fail(&n, "its dim is not a literal");
    return *d < 0 ? *d + rank : *d;
  }

  void getitem(const Node& n) {
    const Node* src = nullptr;
    if (!n.args.empty()) {
      if (const auto* t = n.args[0].get<arg::Tensor>()) src = t->node;
    }
    const auto* index = n.args.size() > 1 ? n.args[1].get<arg::Int>() : nullptr;
    Mapped* found = src ? entry(src) : nullptr;
    if (!found || !index) {
      bind(n, copyRemapped(n));
      return;
    }
    Mapped& m = *found;
    const auto k = static_cast<size_t>(index->value);
    if (!m.elements.empty()) {
      if (k >= m.elements.size()) fail(&n, "getitem index out of range");
      slot(n).tensor = m.elements[k];
      return;
    }
    if (!m.list_base || !n.meta.val.tensor()) {
      bind(n, copyRemapped(n));
      return;
    }
    // An element of a split or unbind: a slice or select of the list's base.
    ViewStep step;
    step.dim = m.list_dim;
    if (m.list_family == ViewFamily::UnbindList) {
      step.kind = ViewStep::Kind::Select;
      step.start = index->value;
    } else {
      step.kind = ViewStep::Kind::Slice;
      const auto* list = src->meta.val.list();
      if (!list || k >= list->size()) fail(&n, "the split's meta.val does not list its elements");
      int64_t start = 0;
      for (size_t i = 0; i <= k; ++i) {
        const TensorMeta* e = (*list)[i].tensor();
        if (!e || static_cast<size_t>(step.dim) >= e->sizes.size() || !e->sizes[step.dim].isConcrete()) {
          fail(&n, "the split's elements have symbolic or missing sizes");
        }
        if (i < k) start += e->sizes[step.dim].concrete();
        else step.end = start + e->sizes[step.dim].concrete();
      }
      step.start = start;
      if (auto bounds = functionalizer::tensorSplitBounds(*src, k, *m.list_base->meta, step.dim)) {
        std::tie(step.start, step.end) = *bounds;
      }
      // tensor_split with indices out of order makes elements that do not follow one
      // another: the element's offset into the base says where it starts.
      const TensorMeta& base = *m.list_base->meta;
      const TensorMeta* e = n.meta.val.tensor();  // the element as its getitem records it
      const auto d = static_cast<size_t>(step.dim);
      if (d < base.strides.size() && base.strides[d].isConcrete() && base.strides[d].concrete() > 0 &&
          e->storage_offset.isConcrete() && base.storage_offset.isConcrete() && d < e->sizes.size() &&
          e->sizes[d].isConcrete() && e->sizes[d].concrete() > 0) {
        const int64_t delta = e->storage_offset.concrete() - base.storage_offset.concrete();
        if (delta >= 0 && delta % base.strides[d].concrete() == 0) {
          step.start = delta / base.strides[d].concrete();
          step.end = step.start + e->sizes[d].concrete();
        }
      }
    }
    const bool current = m.list_gen == m.list_base->storage->gen;
    Node* value = current ? copyRemapped(n) : nullptr;  // stale: replayed when read
    Obj& o = objs_.emplace_back();
    o.rec = child(m.list_base, step, *n.meta.val.tensor(), value);
    slot(n).tensor = &o;
  }

  // The functional call that replaces a mutable one: same arguments minus the out= ones,
  // every tensor at its current value.
  // The functional form of `n`: its arguments but those at `dropped`; with `cast_to`, its
  // floating-point tensor arguments first cast to that dtype (a floating one).
  Node* functionalCall(const Node& n, const OpInfo& fn, const std::vector<int>& dropped,
                       const std::optional<TensorMeta>& cast_to = std::nullopt) {
    const OpInfo& op = *n.target.op();
    auto isDropped = [&](std::string_view name) {
      for (int i : dropped) {
        if (op.arguments[static_cast<size_t>(i)].name == name) return true;
      }
      return false;
    };
    std::vector<Argument> args;
    args.reserve(n.args.size());
    for (size_t i = 0; i < n.args.size(); ++i) {
      if (i < op.arguments.size() && isDropped(op.arguments[i].name)) continue;
      args.push_back(n.args[i]);
    }
    std::vector<std::pair<std::string, Argument>> kwargs;
    for (const auto& kv : n.kwargs) {
      if (!isDropped(kv.first)) kwargs.push_back(kv);
    }
    auto map = [&](Node*& r) {
      const Node* source = r;
      r = resolve(r);
      const TensorMeta* m = source->meta.val.tensor();
      if (cast_to && m && isFloatingPoint(m->dtype) && isFloatingPoint(cast_to->dtype) && m->dtype != cast_to->dtype) {
        TensorMeta cast = *m;
        cast.dtype = cast_to->dtype;
        r = castTo(r, m->dtype, cast);
      }
    };
    for (auto& a : args) a.forEachNodeRef(map);
    for (auto& kv : kwargs) kv.second.forEachNodeRef(map);
    return emit_.call(fn, std::move(args), Val(), std::move(kwargs));
  }

  // `value` cast to `want`'s dtype when `have` differs (eager casts on write).
  Node* castTo(Node* value, ScalarType have, const TensorMeta& want) {
    if (have == want.dtype) return value;
    return emit_.call(*findOpByName("aten::_to_copy"), {arg::Tensor{value}}, want,
                      {{"dtype", arg::Dtype{want.dtype}}});
  }

  void inPlace(const Node& n, const OpRoleInfo& role) {
    Obj* self = object(selfArgument(n), &n);
    const TensorMeta* after = n.meta.val.tensor();
    const TensorMeta& meta = after ? *after : *self->rec->meta;
    Node* f = functionalCall(n, *role.functional, {});
    auto dtypes = probeReturnDtypes(*f);
    const ScalarType have = dtypes && !dtypes->empty() ? dtypes->front() : meta.dtype;
    TensorMeta fmeta = meta;
    fmeta.dtype = have;
    f->meta.val = fmeta;
    write(self->rec, castTo(f, have, meta), &n);
    slot(n).tensor = self;
  }

  // Whether some tensor views the storage of `rec` other than through `rec` itself.
  bool hasOtherViews(const Rec& rec) const {
    for (const Obj& o : objs_) {
      if (o.rec && o.rec != &rec && o.rec->storage == rec.storage) return true;
    }
    return false;
  }

  void outVariant(const Node& n, const OpRoleInfo& role) {
    const OpInfo& op = *n.target.op();
    std::vector<Obj*> outs;
    for (int i : role.written) {
      const Argument* a = functionalizer::schemaArgument(n, op, static_cast<size_t>(i));
      const auto* t = a ? a->get<arg::Tensor>() : nullptr;
      if (!t || !t->node) fail(&n, "out= argument " + quoted(op.arguments[static_cast<size_t>(i)].name) + " is not a tensor");
      outs.push_back(object(t->node, &n));
    }
    // The metadata each out= tensor has afterwards: the node's own meta.val.
    std::vector<const TensorMeta*> after;
    if (const TensorMeta* t = n.meta.val.tensor()) {
      after.push_back(t);
    } else if (const auto* list = n.meta.val.list()) {
      for (const auto& v : *list) {
        if (!v.tensor()) fail(&n, "meta.val lists a non-tensor return");
        after.push_back(v.tensor());
      }
    }
    if (after.size() != outs.size()) fail(&n, "meta.val does not describe each out= tensor");

    // Where the computation converts to the out tensor's dtype (Note [out= calls that compute
    // in another dtype]). Without a probe's answer, a functional form that takes a dtype is
    // given the out tensor's: a factory's (zeros.out → zeros) makes that dtype itself, as
    // eager does, rather than the default dtype cast afterwards.
    const int dtype_at = role.functional->argumentIndex("dtype");
    const int given_at = op.argumentIndex("dtype");
    const bool takes_dtype = dtype_at >= 0 && role.functional->arguments[static_cast<size_t>(dtype_at)].type == ParamType::ScalarType &&
                             !(given_at >= 0 && functionalizer::schemaArgument(n, op, static_cast<size_t>(given_at)));
    bool other_dtypes = false;  // an input of another dtype than the out tensor
    n.forEachInput([&](const Node* in) {
      const TensorMeta* m = in->meta.val.tensor();
      other_dtypes = other_dtypes || (m && m->dtype != after[0]->dtype);
    });
    std::optional<OutForm> form;
    if (outs.size() == 1 && role.written.size() == 1 && (takes_dtype || other_dtypes)) {
      form = probeOutForm(n, *role.functional, op.arguments[static_cast<size_t>(role.written[0])].name);
    }
    if (!form) form = takes_dtype ? OutForm::DtypeArgument : OutForm::CastResult;
    Node* f = functionalCall(n, *role.functional, role.written,
                             *form == OutForm::CastInputs ? std::optional<TensorMeta>(*after[0]) : std::nullopt);
    if (outs.size() == 1 && *form == OutForm::DtypeArgument && takes_dtype) {
      f->kwargs.emplace_back("dtype", arg::Dtype{after[0]->dtype});
    }
    auto probed = probeReturns(*f);
    std::optional<std::vector<ScalarType>> dtypes;
    if (probed) {
      dtypes.emplace();
      for (const auto& r : *probed) dtypes->push_back(r.dtype);
    }
    std::vector<Node*> values;
    // The functional call's own result: `out`'s metadata, but the dtype and sizes it makes.
    const auto made = [&](size_t k) {
      TensorMeta m = *after[k];
      if (dtypes && k < dtypes->size()) m.dtype = (*dtypes)[k];
      if (probed && k < probed->size() && !functionalizer::sameSizes((*probed)[k].sizes, m)) {
        m.sizes.assign((*probed)[k].sizes.begin(), (*probed)[k].sizes.end());
        m.strides = TensorMeta::contiguousStrides(m.sizes);
        m.storage_offset = SymIntValue(0);
      }
      return m;
    };
    if (outs.size() == 1) {
      f->meta.val = made(0);
      values.push_back(f);
    } else {
      Val::List metas;
      for (size_t k = 0; k < outs.size(); ++k) metas.push_back(made(k));
      f->meta.val = metas;
      for (size_t k = 0; k < outs.size(); ++k) {
        values.push_back(emit_.builtin(Target::builtin(BuiltinOp::GetItem),
                                       {arg::Tensor{f}, arg::Int{static_cast<int64_t>(k)}}, metas[k], "getitem"));
      }
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      Obj* out = outs[k];
      const ScalarType have = values[k]->meta.val.tensor()->dtype;
      const bool resized = after[k]->sizes != out->rec->meta->sizes;
      const bool reshaped = !resized && probed && k < probed->size() && !functionalizer::sameSizes((*probed)[k].sizes, *after[k]);
      Node* value = nullptr;
      if (!reshaped) {
        value = castTo(values[k], have, *after[k]);
      } else if (const auto& made_sizes = (*probed)[k].sizes;
                 !functionalizer::broadcastsTo(made_sizes, *after[k]) &&
                 functionalizer::elementCount(made_sizes) == functionalizer::numelOf(*after[k])) {
        // Factories' out= forms (arange.out, logspace.out) resize `out` only when the element
        // count differs; otherwise they fill it in its own shape, in order.
        TensorMeta shaped = *after[k];
        shaped.dtype = have;
        shaped.strides = TensorMeta::contiguousStrides(shaped.sizes);
        shaped.storage_offset = SymIntValue(0);
        // numelOf above was not -1: every size is concrete
        const std::vector<int64_t> sizes = *functionalizer::concreteSizes(*after[k]);
        value = castTo(emit_.call(*findOpByName("aten::reshape"), {arg::Tensor{values[k]}, arg::IntList{sizes}}, shaped),
                       have, *after[k]);
      } else {
        // Eager copied a result of another shape into `out`, broadcasting (and casting): so
        // does the graph. A result that cannot broadcast was never copied whole, yet `out`
        // kept its sizes (binary_cross_entropy.out writes through a squeezed view of `out`,
        // which it resizes instead): what eager wrote is not known here.
        if (!functionalizer::broadcastsTo(made_sizes, *after[k])) {
          std::string sizes;
          for (int64_t size : made_sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
          fail(&n, "out= tensor " + formatTensorMeta(*after[k]) + " keeps its sizes, but the functional result [" + sizes +
                       "] neither broadcasts into it nor has its element count: what eager wrote is not known");
        }
        Node* current = sync(out->rec);
        value = emit_.call(*findOpByName("aten::copy"), {arg::Tensor{current}, arg::Tensor{values[k]}}, *after[k]);
      }
      if (resized) {
        // out= resized its tensor: a metadata mutation.
        const AliasStorage* s = out->rec->storage;
        if (s->input >= 0) {
          fail(&n, "Found an input that received a metadata mutation (input " +
                       quoted(inputs_[static_cast<size_t>(s->input)].node->name()) + " resized by out=)");
        }
        if (out->rec->parent) fail(&n, "out= resizes a view of another tensor; epsmith does not functionalize that");
        if (functionalizer::shrinksInPlace(*out->rec->meta, *after[k])) {
          // Eager keeps the storage when it shrinks: the result lands in its first elements,
          // where views taken earlier see it, and the tensor becomes a view of them.
          ViewStep step;
          step.kind = ViewStep::Kind::Restride;
          for (const auto& size : after[k]->sizes) step.sizes.push_back(size.concrete());
          step.strides.assign(step.sizes.size(), 1);
          for (size_t d = step.sizes.size(); d-- > 1;) step.strides[d - 1] = step.strides[d] * std::max<int64_t>(step.sizes[d], 1);
          Rec* view = child(out->rec, step, *after[k], nullptr);
          write(view, value, &n);
          out->rec = view;
          continue;
        }
        const int64_t was = functionalizer::numelOf(*out->rec->meta), now = functionalizer::numelOf(*after[k]);
        if (now > 0 && was >= now && hasOtherViews(*out->rec)) {
          // Eager kept the storage (the new size does not grow it) and wrote it in the new,
          // contiguous order, which views of the old layout see; not modelled here.
          fail(&n, "out= restrides in place a tensor that is not contiguous from offset 0 while views of it are live: "
                   "what they see afterwards is not modelled");
        }
        out->rec = freshTensor(value, *after[k])->rec;  // a grown storage is a new one here
        continue;
      }
      write(out->rec, value, &n);
    }
    Mapped& m = slot(n);
    if (outs.size() == 1) {
      m.tensor = outs[0];
    } else {
      m.elements = outs;
    }
  }

  void metadataMutation(const Node& n, const OpRoleInfo& role) {
    const OpInfo& op = *n.target.op();
    Obj* self = object(selfArgument(n), &n);
    const AliasStorage* s = self->rec->storage;
    const TensorMeta* after = n.meta.val.tensor();
    if (!role.functional) {  // resize_, set_: no view expresses them
      if (s->input >= 0 && !self->rec->parent) {
        fail(&n, "Found an input that received a metadata mutation (input " +
                     quoted(inputs_[static_cast<size_t>(s->input)].node->name()) + ", by " + op.name() + ")");
      }
      if (op.qualified_name == "aten::resize_" && after && after->sizes == self->rec->meta->sizes) {
        slot(n).tensor = self;  // a resize to the same sizes changes nothing
        return;
      }
      fail(&n, op.name() + " replaces the storage or sizes of a tensor, which has no functional form");
    }
    if (!after) fail(&n, "meta.val is not a tensor");
    ViewStep step = ViewStep::ofOp(role.functional, &n, role.view);
    self->rec = child(self->rec, step, *after, nullptr);
    self->metadata_writer = &n;
    slot(n).tensor = self;
  }

  // --- Outputs ------------------------------------------------------------------------
  // Finds the placeholder ordinal a mutation output spec names.
  int mutationTarget(const OutputSpec& spec) {
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const InputSpec* in = inputs_[i].spec;
      if (!in || !spec.target) continue;
      const bool match = (spec.kind == OutputKind::BufferMutation && in->kind == InputKind::Buffer && in->target == spec.target) ||
                         (spec.kind == OutputKind::ParameterMutation && in->kind == InputKind::Parameter && in->target == spec.target) ||
                         (spec.kind == OutputKind::UserInputMutation && in->kind == InputKind::UserInput && in->arg.name == *spec.target);
      if (match) return static_cast<int>(i);
    }
    return -1;
  }

  Argument remapped(const Argument& a) {
    Argument copy = a;
    copy.forEachNodeRef([&](Node*& r) { r = resolve(r); });
    return copy;
  }

  static SpecArg specArgFor(const SpecArg& original, const Argument& value) {
    SpecArg arg = original;
    value.forEachNode([&](const Node* n) { arg.name = n->name(); });
    return arg;
  }

  ExportedProgram finish(const Node& output) {
    const auto& specs = source_.signature.output_specs;
    if (output.args.size() != specs.size()) {
      fail(&output, "the graph returns " + std::to_string(output.args.size()) + " values but the signature has " +
                        std::to_string(specs.size()) + " outputs");
    }
    // A declared mutation output whose value is not the input itself replaces the input at
    // the end (the exported calling convention's write-back).
    for (size_t i = 0; i < specs.size(); ++i) {
      const auto kind = specs[i].kind;
      if (kind != OutputKind::BufferMutation && kind != OutputKind::ParameterMutation &&
          kind != OutputKind::UserInputMutation) {
        continue;
      }
      const int target = mutationTarget(specs[i]);
      const auto* t = output.args[i].get<arg::Tensor>();
      if (target < 0 || !t || !t->node || !inputs_[static_cast<size_t>(target)].obj) {
        fail(&output, "output " + std::to_string(i) + " is a mutation output naming no tensor input");
      }
      Obj* in = inputs_[static_cast<size_t>(target)].obj;
      if (object(t->node, &output) == in) continue;
      Rec* root = in->rec;
      while (root->parent) root = root->parent;
      write(root, resolve(t->node), &output);
    }
    for (const InputInfo& in : inputs_) {
      if (!in.obj || !in.obj->rec->parent) continue;
      const TensorMeta& now = *in.obj->rec->meta;
      const TensorMeta* before = in.node->meta.val.tensor();
      if (now.sizes != before->sizes || now.strides != before->strides || !(now.storage_offset == before->storage_offset)) {
        fail(in.obj->metadata_writer, "Found an input that received a metadata mutation (input " +
                                          quoted(in.node->name()) + "); export does not allow it");
      }
    }

    GraphSignature signature;
    signature.input_specs = source_.signature.input_specs;
    std::vector<Argument> results;
    for (size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].kind != OutputKind::Token) continue;
      results.push_back(remapped(output.args[i]));
      signature.output_specs.push_back({OutputKind::Token, specArgFor(specs[i].arg, results.back()), specs[i].target});
    }
    for (const InputInfo& in : inputs_) {
      if (!in.obj || !in.obj->rec->storage->first_write) continue;
      Node* value = in.obj->rec->storage->base;
      OutputSpec spec;
      spec.arg = SpecArg::tensor(value->name());
      switch (in.spec ? in.spec->kind : InputKind::UserInput) {
        case InputKind::Parameter: spec.kind = OutputKind::ParameterMutation; spec.target = in.spec->target; break;
        case InputKind::Buffer: spec.kind = OutputKind::BufferMutation; spec.target = in.spec->target; break;
        default: spec.kind = OutputKind::UserInputMutation; spec.target = in.node->name(); break;
      }
      results.push_back(arg::Tensor{value});
      signature.output_specs.push_back(std::move(spec));
    }
    for (size_t i = 0; i < specs.size(); ++i) {
      const auto kind = specs[i].kind;
      if (kind == OutputKind::Token || kind == OutputKind::BufferMutation || kind == OutputKind::ParameterMutation ||
          kind == OutputKind::UserInputMutation) {
        continue;
      }
      results.push_back(remapped(output.args[i]));
      signature.output_specs.push_back({kind, specArgFor(specs[i].arg, results.back()), specs[i].target});
    }
    Node* out = graph_->appendRaw(OpKind::Output, output.name());
    out->args = std::move(results);
    out->meta = output.meta;
    functionalizer::dropSupersededViews(*graph_, superseded_);

    ExportedProgram result = source_.cloneWithGraph(std::move(graph_));
    result.signature = std::move(signature);
    result.setDialect(IrDialect::Aten);
    functionalizer::renameModuleCallOutputs(source_.signature, result);
    return result;
  }

  // View nodes whose record took a newer value (a replay after a write, or the write's own
  // result) and that nothing reads: the source took them, the functional graph needs them
  // no more. Views cannot fail where the source's did not, so dropping them is safe.
  const ExportedProgram& source_;
  std::unique_ptr<Graph> graph_;
  Emitter emit_;
  bool grad_enabled_;
  std::vector<InputInfo> inputs_;
  size_t placeholders_ = 0;
  // Per source node, indexed by the visit stamp the pass gave it (Node::visit_stamp).
  uint64_t first_stamp_ = 0;
  std::vector<Mapped> mapped_;
  std::deque<AliasStorage> storages_;
  std::deque<Rec> recs_;
  std::deque<Obj> objs_;
  std::vector<Node*> superseded_;  // view values replaced by newer ones (dropSupersededViews)
};

}  // namespace

FunctionalizeResult functionalize(const ExportedProgram& program, const FunctionalizeOptions& options) {
  FunctionalizeResult result;
  const Dialect* training = findDialect("TRAINING");
  auto diagnostics = options.verified_as_training ? std::vector<Diagnostic>{}
                                                  : verify(program, *training, VerifyOptions{true});
  if (!diagnostics.empty()) {
    result.error = FunctionalizeError{"", "the program does not verify as TRAINING: " + diagnostics.front().str()};
    return result;
  }
  try {
    result.program = Pass(program, options).run();
  } catch (const Failure& f) {
    result.error = f.error;
    return result;
  } catch (const std::exception& e) {
    result.error = FunctionalizeError{"", e.what()};
    return result;
  }
#ifndef NDEBUG
  auto after = verify(*result.program, *findDialect("ATEN"));
  if (!after.empty()) {  // a bug of ours: abort loudly (under a fuzzer, a finding)
    std::fprintf(stderr, "epsmith: internal error: functionalize produced a program that fails the ATEN verifier: %s\n",
                 after.front().str().c_str());
    std::abort();
  }
#endif
  return result;
}

}  // namespace epsmith
