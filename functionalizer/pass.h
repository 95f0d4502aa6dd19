// The functionalization pass's state and steps, for the files that implement it (internal to
// functionalizer/): functionalize.cpp walks the graph and keeps the alias records
// (Note [Alias tracking]), pass_views.cpp handles view ops, pass_mutations.cpp in-place, out= and
// metadata-mutating ops.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "functionalizer/autograd_probe.h"
#include "functionalizer/dtype_probe.h"
#include "functionalizer/emitter.h"
#include "functionalizer/functionalize.h"
#include "functionalizer/graph_io.h"
#include "functionalizer/view_steps.h"
#include "ops/op_roles.h"

namespace epsmith::functionalizer {

// Thrown by Pass::fail; functionalize() hands it back as its error.
struct Failure {
  Diagnostic error;
};

// The records and objects of Note [Alias tracking] (functionalize.cpp): a storage...
struct AliasStorage {
  Node* base = nullptr;  // current value of the whole base in the new graph
  uint32_t gen = 1;
  int input = -1;  // placeholder ordinal when this is a graph input's storage
  const Node* first_write = nullptr;
  // Computed from a value in strides of the graph's choosing
  // (Note [dtype views of computed values]): a written storage's, or another such.
  bool from_written = false;
  // Whether the value's strides may not be eager's: written, or computed from such a value.
  bool stridesAreTheGraphs() const { return first_write || from_written; }
  bool detached = false;  // detach_ was applied to it (Note [Views of a detached base])
  // An in-place call made it require grad (addcdiv_ by a parameter), which the records'
  // metas, taken from the nodes that made them, do not say.
  bool made_to_require_grad = false;
};

// ...a view record over it...
struct Rec {
  AliasStorage* storage = nullptr;
  Rec* parent = nullptr;  // nullptr: the storage's base itself
  ViewStep step;
  Node* value = nullptr;
  uint32_t gen = 0;
  const TensorMeta* meta = nullptr;  // the source node's meta.val (outlives the pass)
  bool fresh = false;                // `value` was made by a write: a new tensor, not a view of the storage
  Node* detached_of = nullptr;       // the value last read through detach (Note [Views of a detached base])
  Node* detached_value = nullptr;    // and its detach
};

// ...and a tensor's identity, pointing at its current record.
struct Obj {
  Rec* rec = nullptr;
  const Node* metadata_writer = nullptr;  // the last metadata mutation applied to it
};

// What a source node became in the new graph.
struct Mapped {
  Node* node = nullptr;        // non-tensor values and lists: their node in the new graph
  Obj* tensor = nullptr;       // tensors
  std::vector<Obj*> elements;  // out= ops with several returns: the objects they return
  bool from_written = false;   // a non-tensor value (a tuple) computed as AliasStorage::from_written says
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

struct InputInfo : GraphInput {
  Obj* obj = nullptr;  // its identity in the pass
};

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

// How a functional call reads its tensor arguments (Pass::functionalCall).
struct ArgumentReads {
  const TensorMeta* cast_to = nullptr;  // cast first to this dtype: floating inputs to a floating one,
  bool cast_every_dtype = false;        // or, with this, every input of another dtype
  bool detach_grad = false;             // Note [out= calls autograd lets through]
};

// One functionalization: walks the source graph once (Pass::run) and builds the functional
// program as it goes.
class Pass {
 public:
  Pass(const ExportedProgram& p, const FunctionalizeOptions& o)
      : source_(p), graph_(std::make_unique<Graph>()), emit_(*graph_, p.graph()), grad_enabled_(o.grad_enabled) {}
  ExportedProgram run();

 private:
  [[noreturn]] void fail(const Node* n, std::string message);

  // --- Objects and records --------------------------------------------------------------
  Obj* freshTensor(Node* value, const TensorMeta& meta, int input = -1);
  Rec* child(Rec* parent, ViewStep step, const TensorMeta& meta, Node* value);
  ViewStep viewStep(const OpInfo* op, const Node& n,
                    ViewFamily family);  // Note [View arguments read when the view is taken]
  Node* sync(Rec* rec);
  void write(Rec* rec, Node* value, const Node* writer);
  void checkInputWrite(const InputInfo& in, const Node* writer);

  // --- Values -------------------------------------------------------------------------
  Mapped& slot(const Node& n) { return mapped_[n.visit_stamp - first_stamp_]; }
  void remember(Mapped& m, Node* own);
  Mapped* entry(const Node* n);
  Node* resolve(const Node* n);
  Node* readDetachedIfNeeded(Rec& rec, Node* value);  // Note [Views of a detached base]
  const Resolve resolver_ = [this](const Node* n) { return resolve(n); };
  Obj* object(const Node* n, const Node* user);
  const Node* selfArgument(const Node& n);
  Node* copyRemapped(const Node& n);
  void bind(const Node& n, Node* value);

  // --- Inputs -------------------------------------------------------------------------
  void collectInputs();
  void placeholder(const Node& n);

  // --- Calls --------------------------------------------------------------------------
  void call(const Node& n);
  // Note [Probes under the program's autocast] (functionalize.cpp)
  void followAutocast(const Node& n);
  void checkSubgraphsFunctional(const Node& n);
  // A call whose schema hides a write (Note [Writes schemas do not declare]): batch_norm in
  // training functionalized with its running statistics as mutations, any other refused.
  // Whether `n` was one.
  bool hiddenWrite(const Node& n, const OpInfo& op);
  void batchNormTraining(const Node& n, const OpInfo& op);  // Note [Batch norm's running statistics]
  void aten(const Node& n);
  bool returnsAlias(const Node& n, const OpInfo& op);
  void view(const Node& n, const OpRoleInfo& role);
  Node* rootForAsStrided(Rec* root);
  static bool isAsStridedStep(const Rec& r);
  static bool addressesStorage(const Rec& r);
  void requireStorageRoot(const Rec& r, const Node* blame);
  static constexpr std::string_view kStorageRootRefusal =
      " of a storage that was written, where the storage base is not contiguous from offset 0 or the view "
      "reaches past it: its offsets address memory the functional program does not have";
  // as_strided reads its input's storage in its input's dtype; replayed on the storage root
  // it would read the root's.
  static constexpr std::string_view kOtherDtypeRefusal =
      " of a view that reads its written storage as another dtype (view.dtype): replayed on the storage root it "
      "would read the root's dtype";
  bool readsAContiguousCopy(const Node& n, const Rec* self);
  Node* copyOnContiguousSelf(const Node& n, Rec& self);
  Node* laidOutSelfOfDtypeCopy(const Node& n);
  void asStridedCopy(const Node& n, const OpInfo& op);
  // What as_strided_copy `n` (or its out= form) reads once its storage was written: the
  // root's value as as_strided may address it; nullptr before any write (it reads its self).
  Node* asStridedCopyBase(const Node& n, const OpInfo& op);
  void asStrided(const Node& n, const OpInfo& op, Rec* parent, Mapped& m);
  // What as_strided_scatter `n` (or its out= form) reads as its self once its storage was
  // written (Note [as_strided_scatter clones its self's storage]); nullptr before any write.
  Node* asStridedScatterSelf(const Node& n, const OpInfo& op);
  Node* copyOnBase(const Node& n, const OpInfo& op, Node* base);
  Node* copyWithSelf(const Node& n, std::vector<Argument> args, std::vector<std::pair<std::string, Argument>> kwargs,
                     Node* self_value);
  int64_t listDim(const Node& n, const OpInfo& op, int64_t rank);
  ViewStep splitElementStep(const Node& n, const Node& src, const Mapped& m, size_t k);
  void getitem(const Node& n);
  Node* functionalCall(const Node& n, const OpInfo& fn, const std::vector<int>& dropped,
                       ArgumentReads reads = ArgumentReads());
  Node* castTo(Node* value, ScalarType have, const TensorMeta& want);
  void inPlace(const Node& n, const OpRoleInfo& role);
  void refuseReadingItsWrite(const Node& n, const OpRoleInfo& role);
  Node* sameShapeCopy(const Node& n, const TensorMeta& self_meta);  // Note [copy returns its source]
  bool hasOtherViews(const Rec& rec) const;
  void outVariant(const Node& n, const OpRoleInfo& role);
  // outVariant's parts (pass_mutations.cpp).
  struct OutPlan {
    OutForm form = OutForm::CastResult;
    bool dtype_argument = false;  // the functional call is given the out tensor's dtype
    bool detach_grad = false;     // Note [out= calls autograd lets through]
  };
  struct OutCall {
    std::vector<Node*> values;  // one per out= tensor
    std::optional<std::vector<ProbedReturn>> probed;
  };
  std::vector<Obj*> outTensors(const Node& n, const OpInfo& op, const OpRoleInfo& role);
  std::vector<const TensorMeta*> outMetasAfter(const Node& n, size_t outs);
  OutPlan planOut(const Node& n, const OpInfo& op, const OpRoleInfo& role, size_t outs, const TensorMeta& after);
  const Node& withCurrentMetas(const Node& n, Graph& scratch);
  // Whether the tensor `source` names requires grad at this point of the program.
  bool requiresGradNow(const Node& source);
  OutCall emitOutCall(const Node& n, const OpInfo& op, const OpRoleInfo& role, const OutPlan& plan,
                      const std::vector<const TensorMeta*>& after);
  Node* outValue(const Node& n, Obj* out, Node* made, const ProbedReturn* probed, const TensorMeta& after);
  void refuseResizedInput(const Node& n, const Obj& out);
  void refuseResizedWhileRead(const Node& n, const OpInfo& op, const OpRoleInfo& role, const Obj& out,
                              const TensorMeta& after);
  void writeResized(const Node& n, Obj* out, Node* value, const TensorMeta& after);
  void metadataMutation(const Node& n, const OpRoleInfo& role);

  // --- Outputs ------------------------------------------------------------------------
  int mutationTarget(const OutputSpec& spec);
  Argument remapped(const Argument& a);
  static SpecArg specArgFor(const SpecArg& original, const Argument& value);
  void writeBackDeclaredMutations(const Node& output);
  void refuseInputMetadataMutations();
  std::vector<Argument> functionalOutputs(const Node& output, GraphSignature& signature);
  ExportedProgram finish(const Node& output);
  const ExportedProgram& source_;
  std::unique_ptr<Graph> graph_;
  Emitter emit_;
  bool grad_enabled_;
  std::vector<size_t> autocast_entered_;  // the open regions before each _enter_autocast met, innermost last
  bool written_ = false;                  // some storage was written (so some value's strides may not be eager's)
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

}  // namespace epsmith::functionalizer
