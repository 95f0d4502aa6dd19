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

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "formats/text_format.h"
#include "functionalizer/effect_tokens.h"
#include "functionalizer/grad_regions.h"
#include "functionalizer/pass.h"
#include "ir/grad_mode.h"
#include "ops/op_roles.h"
#include "oracle/aten_bridge.h"
#include "oracle/autocast_state.h"
#include "verifier/verifier.h"

namespace epsmith {
namespace functionalizer {

ExportedProgram Pass::run() {
  // The regions followAutocast enters are left whatever the pass ends with.
  struct LeaveAutocast {
    size_t depth = autocast_state::openAutocastRegions();
    ~LeaveAutocast() { autocast_state::leaveAutocastRegionsDownTo(depth); }
  } leave_autocast;
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

void Pass::fail(const Node* n, std::string message) {
  throw Failure{Diagnostic{n ? "%" + n->name() : "", std::move(message)}};
}

Obj* Pass::freshTensor(Node* value, const TensorMeta& meta, int input) {
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

Rec* Pass::child(Rec* parent, ViewStep step, const TensorMeta& meta, Node* value) {
  Rec& r = recs_.emplace_back();
  r.storage = parent->storage;
  r.parent = parent;
  r.step = step;
  r.meta = &meta;
  r.value = value;
  r.gen = value ? parent->storage->gen : 0;
  return &r;
}

// Note [View arguments read when the view is taken]
// A view op may take tensors besides self (narrow.Tensor's start, view_as's other): eager
// reads them once, when it takes the view. A replay of the view after its base was written
// must read what they held then, not their current values, which an in-place op may have
// changed since (a campaign's D1 case: narrow's start was an input that a later write
// through a view of it incremented, and the replay started past the end).
ViewStep Pass::viewStep(const OpInfo* op, const Node& n, ViewFamily family) {
  ViewStep step = ViewStep::ofOp(op, &n, family);
  auto readNow = [&](const Argument& a) {
    a.forEachNode([&](const Node* in) { step.read_then.emplace_back(in, resolve(in)); });
  };
  bool self_named = false;
  for (const auto& [name, a] : n.kwargs) {
    if (name == "self")
      self_named = true;
    else
      readNow(a);
  }
  for (size_t i = self_named ? 0 : 1; i < n.args.size(); ++i) readNow(n.args[i]);
  return step;
}

// The current value of a record, replaying stale views from the nearest current one.
Node* Pass::sync(Rec* rec) {
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
    if (addressesStorage(**it) && rec->storage->stridesAreTheGraphs()) {
      value = functionalizer::contiguousCopy(emit_, value, *(*it)->parent->meta);
    } else if (const Node* at = (*it)->step.node;
               at && (*it)->step.kind == ViewStep::Kind::Op && readsAContiguousCopy(*at, (*it)->parent)) {
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
void Pass::write(Rec* rec, Node* value, const Node* writer) {
  AliasStorage* s = rec->storage;
  if (s->input >= 0) checkInputWrite(inputs_[static_cast<size_t>(s->input)], writer);
  const bool computed = s->stridesAreTheGraphs();  // the base's value is the graph's, not the input
  if (!s->first_write) s->first_write = writer;
  written_ = true;
  std::vector<std::pair<Rec*, Node*>> updates{{rec, value}};
  Node* current = value;
  for (Rec* r = rec; r->parent; r = r->parent) {
    requireStorageRoot(*r, writer);
    Node* parent_value = sync(r->parent);
    if (addressesStorage(*r) && computed)
      parent_value = functionalizer::contiguousCopy(emit_, parent_value, *r->parent->meta);
    auto up = functionalizer::invertView(emit_, r->step, parent_value, *r->parent->meta, current);
    if (!up) fail(writer, up.error().message);
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

void Pass::checkInputWrite(const InputInfo& in, const Node* writer) {
  if (in.aliases >= 0) {
    fail(writer, "Encountered aliased inputs that are mutated in the graph: inputs " + quoted(in.node->name()) +
                     " and " + quoted(inputs_[static_cast<size_t>(in.aliases)].node->name()) + " share memory and " +
                     quoted(in.node->name()) + " is mutated, which would need a synthetic base" +
                     std::string(kExportRefuses));
  }
  if (const TensorMeta* m = in.node->meta.val.tensor(); m && overlapsItself(*m)) {
    // The caller of the exported program copies the new value back into the input, and
    // copy_ refuses a destination whose elements share memory (eager's zero_ and fill_
    // accept one).
    fail(writer, "input " + quoted(in.node->name()) + " is mutated, but its elements overlap in memory (" +
                     formatTensorMeta(*m) + "): copying its new value back into it raises");
  }
  // Export refuses only what autograd refuses (Note [Writes autograd lets through]).
  if (in.requires_grad && grad_enabled_ && !probeAutogradTakesWrite(*writer)) {
    fail(writer,
         "Found a graph input that requires gradients, and received a mutation. This is currently "
         "banned in the aot_export workflow. (input " +
             quoted(in.node->name()) + "; mutate it under torch.no_grad() or inference mode instead)" +
             std::string(kExportRefuses));
  }
  if (in.spec && in.spec->kind != InputKind::UserInput && in.spec->kind != InputKind::Parameter &&
      in.spec->kind != InputKind::Buffer) {
    fail(writer, "input " + quoted(in.node->name()) + " (" + std::string(inputKindName(in.spec->kind)) +
                     ") is mutated, and the graph signature has no mutation output for that kind");
  }
}

void Pass::remember(Mapped& m, Node* own) {
  m.own = own;
  m.own_rec = m.tensor->rec;
  m.own_gen = m.tensor->rec->storage->gen;
}

// The entry of a source node already walked, or nullptr.
Mapped* Pass::entry(const Node* n) {
  if (n->owningGraph() != &source_.graph() || n->visit_stamp < first_stamp_ ||
      n->visit_stamp - first_stamp_ >= mapped_.size()) {
    return nullptr;
  }
  Mapped& m = mapped_[n->visit_stamp - first_stamp_];
  return m.tensor || m.node || !m.elements.empty() ? &m : nullptr;
}

// Note [Views of a detached base]
// detach_ of a tensor is, for what it reads from then on, a detach view of it (a metadata
// mutation). But in eager a view's requires_grad follows its base's: views taken before
// the detach_ stop requiring grad too, and autograd then lets through calls on them that it
// refuses on a tensor that requires grad (cumsum(dtype=int64) of a view of a parameter
// trips 1.13's isDifferentiableType assert, and 2.13 raises; a campaign's D1 case). So once
// a storage was detached, a read of any other tensor of it that requires grad goes through
// detach (one per value read); values are the same either way.
// The other way round, an in-place call by a tensor that requires grad makes the tensor it
// writes require grad, but not the tensors of its storage that it is a detach of:
// igamma_(detach(x), p) leaves x without grad in eager, where the functional value of x is
// that igamma's, and binary_cross_entropy_with_logits then refused x as its weight (a 1.13
// campaign's D1 case). So a read of a tensor whose own metadata says no grad, of a storage
// such a call wrote, goes through detach too. Where eager's tensor does require grad after
// all (the call wrote it, not a detach of it), only a call that autograd refuses would see
// the difference, and that call raises in eager, which D1 does not compare.
Node* Pass::readDetachedIfNeeded(Rec& rec, Node* value) {
  if (!rec.meta) return value;
  const bool grad_of_another = rec.storage->made_to_require_grad && !rec.meta->requires_grad;
  if (!grad_of_another && (!rec.storage->detached || !rec.meta->requires_grad)) return value;
  for (const Rec* r = &rec; r && !grad_of_another; r = r->parent) {
    if (r->step.kind == ViewStep::Kind::Op && r->step.op && r->step.op->qualified_name == "aten::detach") return value;
  }
  if (rec.detached_of != value) {
    TensorMeta plain = *rec.meta;
    plain.requires_grad = false;
    rec.detached_value = emit_.call(*findOpByName("aten::detach"), {arg::Tensor{value}}, plain);
    rec.detached_of = value;
  }
  return rec.detached_value;
}

Node* Pass::resolve(const Node* n) {
  Mapped* found = entry(n);
  if (!found) fail(n, "internal: used before it was functionalized");
  Mapped& m = *found;
  if (m.tensor && m.own && m.tensor->rec == m.own_rec && m.own_rec->storage->gen == m.own_gen) {
    return readDetachedIfNeeded(*m.tensor->rec, m.own);
  }
  if (m.tensor) return readDetachedIfNeeded(*m.tensor->rec, sync(m.tensor->rec));
  if (m.node) return m.node;
  fail(n, "its value (the several returns of an out= call) is used other than through getitem");
}

Obj* Pass::object(const Node* n, const Node* user) {
  Mapped* m = entry(n);
  if (!m || !m->tensor) fail(user, "argument " + quoted(n->name()) + " is not a tensor this pass can track");
  return m->tensor;
}

const Node* Pass::selfArgument(const Node& n) {
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
Node* Pass::copyRemapped(const Node& n) {
  std::vector<Argument> args = n.args;
  auto kwargs = n.kwargs;
  for (auto& a : args) a.forEachNodeRef([&](Node*& r) { r = resolve(r); });
  for (auto& kv : kwargs) kv.second.forEachNodeRef([&](Node*& r) { r = resolve(r); });
  return emit_.copy(n, std::move(args), std::move(kwargs));
}

// Records the value of a node that returned something new (not an alias).
void Pass::bind(const Node& n, Node* value) {
  bool from_written = false;  // a tensor read whose strides may not be eager's
  if (written_) {             // before any write, every value has eager's strides
    n.forEachInput([&](const Node* in) {
      const Mapped* e = entry(in);
      if (!e) return;
      if (e->tensor && e->tensor->rec) from_written = from_written || e->tensor->rec->storage->stridesAreTheGraphs();
      for (const Obj* o : e->elements) {
        if (o && o->rec) from_written = from_written || o->rec->storage->stridesAreTheGraphs();
      }
      if (e->list_base) from_written = from_written || e->list_base->storage->stridesAreTheGraphs();
      from_written = from_written || e->from_written;
    });
  }
  Mapped& m = slot(n);
  if (const TensorMeta* t = n.meta.val.tensor()) {
    m.tensor = freshTensor(value, *t);
    m.tensor->rec->storage->from_written = from_written;
    remember(m, value);
  } else {
    m.node = value;
    m.from_written = from_written;
  }
}

void Pass::collectInputs() {
  for (auto& facts : functionalizer::describeInputs(source_)) {
    InputInfo in;
    static_cast<functionalizer::GraphInput&>(in) = facts;
    inputs_.push_back(in);
  }
}

void Pass::placeholder(const Node& n) {
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

void Pass::call(const Node& n) {
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
      if (auto enabled = gradModeSet(n)) grad_enabled_ = *enabled;
      followAutocast(n);
      return;
    }
    case Target::Kind::HigherOrder:
      checkSubgraphsFunctional(n);
      bind(n, copyRemapped(n));
      return;
    default: fail(&n, "cannot functionalize a call to " + n.target.textName());
  }
}

// Note [Probes under the program's autocast]
// The pass enters the autocast regions the graph's bare _enter_autocast calls open (a
// wrap_with_autocast region laid out inline), and leaves them at their _exit_autocast, as
// a run of the program does: the probes that say what a call's functional form returns
// then see the dtypes autocast gives it. A composite op's write stays under autocast
// (Note [Writes inside an autocast region]), and its functional form there computes in
// another dtype than the tensor it writes (linalg_cond of bfloat16 in float32), which the
// written value is cast back from, as eager's out= call copies its result into out.
void Pass::followAutocast(const Node& n) {
  const TorchFunction fn = n.target.torchFunctionId();
  if (fn == TorchFunction::ExitAutocast && !autocast_entered_.empty()) {
    autocast_state::leaveAutocastRegionsDownTo(autocast_entered_.back());
    autocast_entered_.pop_back();
  }
  if (fn != TorchFunction::EnterAutocast) return;
  const auto* device = n.args.size() == 4 ? n.args[0].get<arg::String>() : nullptr;
  const auto* enabled = n.args.size() == 4 ? n.args[2].get<arg::Bool>() : nullptr;
  if (!device || !enabled) fail(&n, "an _enter_autocast whose device or enabled flag is not a literal");
  const auto* dtype = n.args[1].get<arg::Dtype>();
  const auto* cache = n.args[3].get<arg::Bool>();
  const std::vector<c10::IValue> args{device->value,
                                      dtype ? c10::IValue(static_cast<int64_t>(toAten(dtype->value))) : c10::IValue(),
                                      enabled->value, cache ? c10::IValue(cache->value) : c10::IValue()};
  const size_t before = autocast_state::openAutocastRegions();
  try {
    autocast_state::enterAutocast(args);
  } catch (const std::exception& e) {  // a device or dtype LibTorch refuses
    fail(&n, std::string("cannot enter its autocast region: ") + e.what());
  }
  autocast_entered_.push_back(before);
}

void Pass::checkSubgraphsFunctional(const Node& n) {
  n.forEachInput([&](const Node* in) {
    if (in->op() != OpKind::GetAttr) return;
    const Attribute* attr = source_.graph().attribute(in->attr);
    if (!attr || !attr->subgraph) return;
    if (auto why = whyNotCarriedWhole(*attr->subgraph)) fail(&n, "subgraph " + quoted(in->attr) + " " + *why);
  });
}

bool Pass::hiddenWrite(const Node& n, const OpInfo& op) {
  if (!writesItsSchemaHides(n, op)) return false;
  if (op.qualified_name == "aten::batch_norm") {
    batchNormTraining(n, op);
  } else {
    fail(&n, op.name() +
                 " updates its running statistics in place although its schema does not say so "
                 "(Note [Writes schemas do not declare]); epsmith does not functionalize it");
  }
  return true;
}

void Pass::aten(const Node& n) {
  const OpInfo& op = *n.target.op();
  if (hiddenWrite(n, op)) return;
  const OpRoleInfo& role = opRole(op);
  switch (role.role) {
    case OpRole::Functional:
      switch (readsEagerLayout(op)) {  // Note [Reads of eager's layout]
        case EagerLayoutRead::AsStridedCopy: return asStridedCopy(n, op);
        case EagerLayoutRead::AsStridedScatter: {
          Node* self = asStridedScatterSelf(n, op);
          return bind(n, self ? copyWithSelf(n, n.args, n.kwargs, self) : copyRemapped(n));
        }
        case EagerLayoutRead::DtypeViewCopy:
          if (Node* laid_out = laidOutSelfOfDtypeCopy(n)) return bind(n, copyWithSelf(n, n.args, n.kwargs, laid_out));
          break;
        case EagerLayoutRead::None: break;
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
    case OpRole::Unsupported: fail(&n, op.name() + " " + role.reason + ", so it has no functional form");
  }
}

// Finds the placeholder ordinal a mutation output spec names.
int Pass::mutationTarget(const OutputSpec& spec) {
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const InputSpec* in = inputs_[i].spec;
    if (!in || !spec.target) continue;
    const bool match =
        (spec.kind == OutputKind::BufferMutation && in->kind == InputKind::Buffer && in->target == spec.target) ||
        (spec.kind == OutputKind::ParameterMutation && in->kind == InputKind::Parameter && in->target == spec.target) ||
        (spec.kind == OutputKind::UserInputMutation && in->kind == InputKind::UserInput &&
         in->arg.name == *spec.target);
    if (match) return static_cast<int>(i);
  }
  return -1;
}

Argument Pass::remapped(const Argument& a) {
  Argument copy = a;
  copy.forEachNodeRef([&](Node*& r) { r = resolve(r); });
  return copy;
}

SpecArg Pass::specArgFor(const SpecArg& original, const Argument& value) {
  SpecArg arg = original;
  value.forEachNode([&](const Node* n) { arg.name = n->name(); });
  return arg;
}

namespace {

bool isMutationOutput(OutputKind kind) {
  return kind == OutputKind::BufferMutation || kind == OutputKind::ParameterMutation ||
         kind == OutputKind::UserInputMutation;
}

}  // namespace

// A declared mutation output whose value is not the input itself replaces the input at
// the end (the exported calling convention's write-back).
void Pass::writeBackDeclaredMutations(const Node& output) {
  const auto& specs = source_.signature.output_specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!isMutationOutput(specs[i].kind)) continue;
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
}

void Pass::refuseInputMetadataMutations() {
  for (const InputInfo& in : inputs_) {
    if (!in.obj || !in.obj->rec->parent) continue;
    const TensorMeta& now = *in.obj->rec->meta;
    const TensorMeta* before = in.node->meta.val.tensor();
    if (now.sizes != before->sizes || now.strides != before->strides ||
        !(now.storage_offset == before->storage_offset)) {
      fail(in.obj->metadata_writer, "Found an input that received a metadata mutation (input " +
                                        quoted(in.node->name()) + ")" + std::string(kExportRefuses));
    }
  }
}

// The functionalized graph's outputs in export's order: tokens, then one mutation
// output per written input, then the user outputs.
std::vector<Argument> Pass::functionalOutputs(const Node& output, GraphSignature& signature) {
  const auto& specs = source_.signature.output_specs;
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
      case InputKind::Parameter:
        spec.kind = OutputKind::ParameterMutation;
        spec.target = in.spec->target;
        break;
      case InputKind::Buffer:
        spec.kind = OutputKind::BufferMutation;
        spec.target = in.spec->target;
        break;
      default:
        spec.kind = OutputKind::UserInputMutation;
        spec.target = in.node->name();
        break;
    }
    results.push_back(arg::Tensor{value});
    signature.output_specs.push_back(std::move(spec));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto kind = specs[i].kind;
    if (kind == OutputKind::Token || isMutationOutput(kind)) continue;
    results.push_back(remapped(output.args[i]));
    signature.output_specs.push_back({kind, specArgFor(specs[i].arg, results.back()), specs[i].target});
  }
  return results;
}

ExportedProgram Pass::finish(const Node& output) {
  const auto& specs = source_.signature.output_specs;
  if (output.args.size() != specs.size()) {
    fail(&output, "the graph returns " + std::to_string(output.args.size()) + " values but the signature has " +
                      std::to_string(specs.size()) + " outputs");
  }
  writeBackDeclaredMutations(output);
  refuseInputMetadataMutations();

  GraphSignature signature;
  signature.input_specs = source_.signature.input_specs;
  std::vector<Argument> results = functionalOutputs(output, signature);
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

}  // namespace functionalizer

Expected<ExportedProgram> functionalize(const ExportedProgram& program, const FunctionalizeOptions& options) {
  const Dialect* training = findDialect("TRAINING");
  auto diagnostics =
      options.verified_as_training ? std::vector<Violation>{} : verify(program, *training, VerifyOptions{true});
  if (!diagnostics.empty()) {
    return Diagnostic{"", "the program does not verify as TRAINING: " + diagnostics.front().str()};
  }
  // Note [Grad regions inlined before functionalization]
  std::optional<ExportedProgram> prepared;
  if (functionalizer::hasRegionToInline(program)) {
    prepared = program.clone();
    if (auto refused = functionalizer::inlineRegions(*prepared, options.grad_enabled)) return *refused;
  }
  // Note [Ops with effects]
  if (functionalizer::callsAnOpWithEffects(prepared ? *prepared : program)) {
    if (!prepared) prepared = program.clone();
    if (auto refused = functionalizer::threadEffectTokens(*prepared)) return *refused;
  }
  std::optional<ExportedProgram> result;
  try {
    result = functionalizer::Pass(prepared ? *prepared : program, options).run();
  } catch (const functionalizer::Failure& f) {
    return f.error;
  } catch (const std::exception& e) {
    return Diagnostic{"", e.what()};
  }
#ifndef NDEBUG
  auto after = verify(*result, *findDialect("ATEN"));
  if (!after.empty()) {  // a bug of ours: abort loudly (under a fuzzer, a finding)
    std::fprintf(stderr, "epsmith: internal error: functionalize produced a program that fails the ATEN verifier: %s\n",
                 after.front().str().c_str());
    std::abort();
  }
#endif
  return std::move(*result);
}

bool refusedAsExportDoes(const Diagnostic& refusal) {
  const std::string& m = refusal.message;
  return m.size() >= kExportRefuses.size() &&
         m.compare(m.size() - kExportRefuses.size(), kExportRefuses.size(), kExportRefuses) == 0;
}

}  // namespace epsmith
