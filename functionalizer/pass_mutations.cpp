// The functionalization pass (pass.h), its mutating ops: in-place and out= calls become
// their functional form with the result written back; metadata mutations re-point the
// object at a new record.
#include "functionalizer/pass.h"
#include "functionalizer/planted_faults.h"

#include <algorithm>

#include "formats/text_format.h"
#include "oracle/alias_probe.h"
#include "ops/call_args.h"
#include "functionalizer/dtype_probe.h"

namespace epsmith::functionalizer {

namespace {

bool differentiable(const TensorMeta& m) { return isFloatingPoint(m.dtype) || isComplex(m.dtype); }

}  // namespace

// The functional call that replaces a mutable one `n`: its arguments but those at
// `dropped`, every tensor at its current value, read as `reads` says.
Node* Pass::functionalCall(const Node& n, const OpInfo& fn, const std::vector<int>& dropped, ArgumentReads reads) {
  const TensorMeta* cast_to = reads.cast_to;
  const bool detach_grad = reads.detach_grad;
  std::vector<Argument> args;
  std::vector<std::pair<std::string, Argument>> kwargs;
  keptArguments(n, *n.target.op(), dropped, args, kwargs);
  std::vector<std::pair<const Node*, Node*>> detached;  // source node, its detach
  auto map = [&](Node*& r) {
    const Node* source = r;
    r = resolve(r);
    const TensorMeta* m = source->meta.val.tensor();
    // The sizes the value has now, which an in-place metadata mutation (unsqueeze_) may have
    // changed since the source's meta.val: a cast or detach of it keeps them.
    const TensorMeta* now = r->meta.val.tensor() ? r->meta.val.tensor() : m;
    if (detach_grad && m && requiresGradNow(*source) && differentiable(*m)) {
      auto it = std::find_if(detached.begin(), detached.end(), [&](const auto& d) { return d.first == source; });
      if (it == detached.end()) {
        TensorMeta plain = *now;
        plain.requires_grad = false;
        detached.emplace_back(source, emit_.call(*findOpByName("aten::detach"), {arg::Tensor{r}}, plain));
        it = detached.end() - 1;
      }
      r = it->second;
    }
    if (cast_to && m && m->dtype != cast_to->dtype &&
        (reads.cast_every_dtype || (isFloatingPoint(m->dtype) && isFloatingPoint(cast_to->dtype)))) {
      TensorMeta cast = *now;
      cast.dtype = cast_to->dtype;
      r = castTo(r, m->dtype, cast);
    }
  };
  for (auto& a : args) a.forEachNodeRef(map);
  for (auto& kv : kwargs) kv.second.forEachNodeRef(map);
  return emit_.call(fn, std::move(args), Val(), std::move(kwargs));
}

// `value` cast to `want`'s dtype when `have` differs (eager casts on write).
Node* Pass::castTo(Node* value, ScalarType have, const TensorMeta& want) {
  if (have == want.dtype) return value;
  TensorMeta cast = want;  // requiring grad as the value it casts does
  if (const TensorMeta* v = value->meta.val.tensor()) cast.requires_grad = v->requires_grad && differentiable(want);
  return emit_.call(*findOpByName("aten::_to_copy"), {arg::Tensor{value}}, cast, {{"dtype", arg::Dtype{want.dtype}}});
}

// Note [copy returns its source]
// LibTorch 1.13's functional `copy(self, src)` returns `src` itself when it already has
// self's sizes, dtype and device (whatever the strides), an alias its schema does not
// declare (2.13's makes a fresh tensor; the code does not ask, as clone is right on both).
// In a functional graph nothing writes it, but the exported program's caller does: a
// copy_ of input x into input b became b's mutation output, that output was x, and the
// write-back of x's own new value (from a later le_) reached b before b's was copied in
// (a campaign's D1 case). Such a copy_ takes `clone` of its source instead: the same values,
// always a tensor of its own, and so does copy.out, whose functional form is that `copy`. A
// copy_ that casts or broadcasts keeps `copy`, which makes one.
Node* Pass::sameShapeCopy(const Node& n, const TensorMeta& self_meta) {
  const Argument* a = schemaArgument(n, *n.target.op(), 1);
  const auto* src = a ? a->get<arg::Tensor>() : nullptr;
  if (!src || !src->node || !src->node->meta.val.tensor()) return nullptr;
  // The source as it is now: a metadata mutation (squeeze_) since its node may have
  // changed its sizes.
  const TensorMeta* m = object(src->node, &n)->rec->meta;
  if (!m || m->dtype != self_meta.dtype || !(m->device == self_meta.device) || m->sizes != self_meta.sizes)
    return nullptr;
  // In self's layout where that is contiguous (as eager's self stays), else the source's.
  std::vector<std::pair<std::string, Argument>> format;
  if (isContiguous(self_meta)) format.emplace_back("memory_format", arg::MemFormat{MemoryFormat::Contiguous});
  return emit_.call(*findOpByName("aten::clone"), {arg::Tensor{resolve(src->node)}}, self_meta, std::move(format));
}

// Note [In-place calls that read what they write] (alias_probe.h).
void Pass::refuseReadingItsWrite(const Node& n, const OpRoleInfo& role) {
  const OpInfo& op = *n.target.op();
  const ReadsOfAWrite reads = readsOfAWrite(n, op, role.written[0], [&](const Node* t) {
    const Obj* o = object(t, &n);
    return ArgumentPlace{o->rec->storage, o->rec->meta};
  });
  if (reads.other_layout) {
    fail(&n, "it reads " + quoted(reads.other_layout->name()) + ", which shares memory with the tensor it writes in " +
                 "another layout, so eager's answer depends on its kernel's order " +
                 "(Note [In-place calls that read what they write])");
  }
  if (reads.aliased.empty()) return;
  Graph scratch;
  if (probeAliasedWriteAgrees(withCurrentMetas(n, scratch), reads.aliased) == false) {
    const std::string& as = op.arguments[static_cast<size_t>(reads.aliased[0])].name;
    fail(&n, "it reads the tensor it writes as " + quoted(as) + ", so eager's answer depends on its kernel's order " +
                 "(Note [In-place calls that read what they write])");
  }
}

void Pass::inPlace(const Node& n, const OpRoleInfo& role) {
  Obj* self = object(selfArgument(n), &n);
  if (!role.written.empty()) refuseReadingItsWrite(n, role);
  const TensorMeta* after = n.meta.val.tensor();
  const TensorMeta& meta = after ? *after : *self->rec->meta;
  if (after && after->requires_grad) self->rec->storage->made_to_require_grad = true;
  // addbmm_ of a 0-dim self by an empty product resizes self to [0, 0] in eager; a
  // functional value of new sizes cannot be written back into the tensor.
  if (after && after->sizes != self->rec->meta->sizes) {
    fail(&n, "it changes the tensor it writes in place from " + formatTensorMeta(*self->rec->meta) + " to " +
                 formatTensorMeta(*after) + ", which no in-place write carries");
  }
  if (n.target.op()->qualified_name == "aten::copy_") {
    if (Node* fresh = sameShapeCopy(n, meta)) {
      write(self->rec, fresh, &n);
      slot(n).tensor = self;
      return;
    }
  }
  // conj_physical_ of a real tensor is eager's no-op, which runs no kernel; its functional
  // form (Note [Irregular functional variants]) has none for UInt16/32/64 (2.13). Export
  // still counts the call as a write, so the tensor is written a copy of its own value (the
  // value itself may be the input in other strides, which a write-back cannot copy onto it).
  if (n.target.op()->qualified_name == "aten::conj_physical_" && !isComplex(meta.dtype)) {
    write(self->rec, functionalizer::contiguousCopy(emit_, sync(self->rec), functionalizer::contiguousMeta(meta)), &n);
    slot(n).tensor = self;
    return;
  }
  const OpInfo* functional = role.functional;
  if (functional->qualified_name == "aten::add" && faultPlanted(PlantedFault::AddSubtracts)) {
    functional = findOp("aten::sub", functional->overload);  // Note [Planted functionalizer faults]
  }
  Node* f = functionalCall(n, *functional, {});
  auto dtypes = probeReturnDtypes(*f);
  const ScalarType have = dtypes && !dtypes->empty() ? dtypes->front() : meta.dtype;
  TensorMeta fmeta = meta;
  fmeta.dtype = have;
  f->meta.val = fmeta;
  write(self->rec, castTo(f, have, meta), &n);
  slot(n).tensor = self;
}

// Note [Batch norm's running statistics]
// aten::batch_norm with training=True updates running_mean and running_var in place, a
// write its schema hides (Note [Writes schemas do not declare]); it is what torch.export
// writes for an nn.BatchNorm in training mode. run_decompositions calls
// _native_batch_norm_legit_functional instead, which returns the updated statistics, and
// carries them out as BUFFER_MUTATION outputs (torch 2.13). The pass does the same: the
// functional call's first result is batch_norm's, its last two are written into the
// statistics as an in-place call's result is into its self. Its other hidden writers
// (native_batch_norm, instance_norm, _batch_norm_impl_index) stay refused: no module
// export makes writes them.
void Pass::batchNormTraining(const Node& n, const OpInfo& op) {
  const OpInfo* fn = findOp("aten::_native_batch_norm_legit_functional", "");
  const TensorMeta* out_meta = n.meta.val.tensor();
  const auto* mean_arg = schemaArgument(n, op, 3);
  const auto* var_arg = schemaArgument(n, op, 4);
  const auto* mean_t = mean_arg ? mean_arg->get<arg::Tensor>() : nullptr;
  const auto* var_t = var_arg ? var_arg->get<arg::Tensor>() : nullptr;
  if (!fn || !out_meta || !mean_t || !var_t)
    fail(&n, op.name() +
                 " with training=True updates its running statistics, which epsmith functionalizes only "
                 "where both are tensors (Note [Batch norm's running statistics])");
  Obj* mean = object(mean_t->node, &n);
  Obj* var = object(var_t->node, &n);
  Node* f = functionalCall(n, *fn, {8});  // all but cudnn_enabled, which it does not take
  const auto dtypes = probeReturnDtypes(*f);
  if (!dtypes || dtypes->size() != 5) fail(&n, "_native_batch_norm_legit_functional's dtypes are not known here");
  Val::List metas{*out_meta};
  for (const TensorMeta* stat : {mean->rec->meta, mean->rec->meta, mean->rec->meta, var->rec->meta}) {
    TensorMeta m = functionalizer::contiguousMeta(*stat);
    m.dtype = (*dtypes)[metas.size()];
    m.requires_grad = false;
    metas.push_back(m);
  }
  f->meta.val = metas;
  auto result = [&](int64_t k) {
    return emit_.builtin(Target::builtin(BuiltinOp::GetItem), {arg::Tensor{f}, arg::Int{k}}, metas[k], "getitem");
  };
  bind(n, result(0));
  write(mean->rec, castTo(result(3), (*dtypes)[3], *mean->rec->meta), &n);
  write(var->rec, castTo(result(4), (*dtypes)[4], *var->rec->meta), &n);
}

// Whether some tensor views the storage of `rec` other than through `rec` itself.
bool Pass::hasOtherViews(const Rec& rec) const {
  for (const Obj& o : objs_) {
    if (o.rec && o.rec != &rec && o.rec->storage == rec.storage) return true;
  }
  return false;
}

// Note [out= kernels that skip their functional form's checks]
// 2.13's max.unary_out and min.unary_out of an empty input write the reduction's identity
// (-inf, INT64_MIN), where max and min, and amax and amin, raise "Expected reduction dim to
// be specified for input.numel() == 0" (1.13's out= kernels raise as well, so no such
// program runs there). No functional op computes what eager wrote, so the call is refused
// rather than turned into one that raises (a 2.13 campaign's D1 case). Written once here:
// which out= kernels skip which checks is in no schema.
namespace {
constexpr std::string_view kEmptyReductionOuts[] = {"aten::max.unary_out", "aten::min.unary_out"};

bool isEmptyTensorArgument(const Node& n, const OpInfo& op, size_t i) {
  const Argument* a = schemaArgument(n, op, i);
  const auto* t = a ? a->get<arg::Tensor>() : nullptr;
  const TensorMeta* meta = t && t->node ? t->node->meta.val.tensor() : nullptr;
  if (!meta) return false;
  for (const auto& size : meta->sizes) {
    if (size.isConcrete() && size.concrete() == 0) return true;
  }
  return false;
}
}  // namespace

// The tensors an out= call writes, in the order of its schema's out= arguments.
std::vector<Obj*> Pass::outTensors(const Node& n, const OpInfo& op, const OpRoleInfo& role) {
  for (std::string_view name : kEmptyReductionOuts) {
    if (op.name() == name && isEmptyTensorArgument(n, op, 0)) {
      fail(&n, std::string(name) +
                   " of an empty input writes the reduction's identity, which no functional form "
                   "computes; epsmith does not functionalize that");
    }
  }
  std::vector<Obj*> outs;
  for (int i : role.written) {
    const Argument* a = schemaArgument(n, op, static_cast<size_t>(i));
    const auto* t = a ? a->get<arg::Tensor>() : nullptr;
    if (!t || !t->node)
      fail(&n, "out= argument " + quoted(op.arguments[static_cast<size_t>(i)].name) + " is not a tensor");
    outs.push_back(object(t->node, &n));
  }
  return outs;
}

// The metadata each out= tensor has afterwards: the node's own meta.val.
std::vector<const TensorMeta*> Pass::outMetasAfter(const Node& n, size_t outs) {
  std::vector<const TensorMeta*> after;
  if (const TensorMeta* t = n.meta.val.tensor()) {
    after.push_back(t);
  } else if (const auto* list = n.meta.val.list()) {
    for (const auto& v : *list) {
      if (!v.tensor()) fail(&n, "meta.val lists a non-tensor return");
      after.push_back(v.tensor());
    }
  }
  if (after.size() != outs) fail(&n, "meta.val does not describe each out= tensor");
  return after;
}

// An in-place call may make its self require grad (nextafter_ by an `other` that does),
// which the source node's own meta.val records where it is that call's result, and the
// storage where it is the tensor the call wrote (addcdiv_(b, p, b), then b read).
bool Pass::requiresGradNow(const Node& source) {
  const TensorMeta* m = source.meta.val.tensor();
  if (m && m->requires_grad) return true;
  const Mapped* e = entry(&source);
  return e && e->tensor && e->tensor->rec->storage->made_to_require_grad;
}

// `n`, or a copy of it in `scratch` whose tensor inputs are placeholders carrying their
// current metadata where an in-place metadata mutation (unsqueeze_) changed it since their
// own meta.val was recorded, or an in-place call made them require grad: the probes size
// their values from their inputs' meta.val, and an out= call run on stale sizes raises
// where eager's ran (a campaign's D1 case).
const Node& Pass::withCurrentMetas(const Node& n, Graph& scratch) {
  std::vector<std::pair<const Node*, const TensorMeta*>> changed;
  n.forEachInput([&](const Node* in) {
    Mapped* m = entry(in);
    const TensorMeta* was = in->meta.val.tensor();
    if (!m || !m->tensor || !m->tensor->rec->meta || !was) return;
    if (*m->tensor->rec->meta == *was && requiresGradNow(*in) == was->requires_grad) return;
    for (const auto& [seen, meta] : changed) {
      if (seen == in) return;
    }
    changed.emplace_back(in, m->tensor->rec->meta);
  });
  if (changed.empty()) return n;
  std::vector<std::pair<const Node*, Node*>> stand_ins;
  for (const auto& [in, meta] : changed) {
    Node* p = scratch.append(OpKind::Placeholder, in->name());
    TensorMeta current = *meta;
    current.requires_grad = current.requires_grad || requiresGradNow(*in);
    p->meta.val = current;
    stand_ins.emplace_back(in, p);
  }
  Node* copy = scratch.append(OpKind::CallFunction, n.name());
  copy->target = n.target;
  copy->args = n.args;
  copy->kwargs = n.kwargs;
  auto standIn = [&](Node*& in) {
    for (const auto& [was, now] : stand_ins) {
      if (was == in) in = now;
    }
  };
  for (auto& a : copy->args) a.forEachNodeRef(standIn);
  for (auto& kv : copy->kwargs) kv.second.forEachNodeRef(standIn);
  return *copy;
}

// Note [out= kernels that round in their out mid-way]
// Eager's logsumexp.out (special_logsumexp.out is the same kernel) sums the exponentials
// into `out` and takes the log and adds the maxima there, so into an f16 or bf16 out of an
// f32 input it rounds to the out's dtype twice, where every functional form rounds once.
// The two are an ulp apart on some inputs (one in seven of randn's f32[6, 3], 2.13), which
// is D1's f16 tolerance, and a later cancellation makes it a mismatch (a 2.13 campaign's D1
// case: 3.609 against 3.607, then minus 3). The out= probe's values do not always tell them
// apart, so such a call is refused. Into an f32 or f64 out an ulp is far below D1's
// tolerance, and the probe decides as for any call. Written once here: which out= kernels
// compute in their out is in no schema.
namespace {
constexpr std::string_view kRoundsInOut[] = {"aten::logsumexp.out", "aten::special_logsumexp.out"};

bool roundsInALessPreciseOut(const Node& n, const OpInfo& op, const TensorMeta& after) {
  if (after.dtype != ScalarType::Half && after.dtype != ScalarType::BFloat16) return false;
  if (std::find(std::begin(kRoundsInOut), std::end(kRoundsInOut), op.name()) == std::end(kRoundsInOut)) return false;
  const Argument* a = schemaArgument(n, op, 0);
  const auto* t = a ? a->get<arg::Tensor>() : nullptr;
  const TensorMeta* self = t && t->node ? t->node->meta.val.tensor() : nullptr;
  return self && self->dtype != after.dtype;
}
}  // namespace

// Where the computation converts to the out tensor's dtype
// (Note [out= calls that compute in another dtype]), and whether autograd's refusal must be
// kept out of the graph (Note [out= calls autograd lets through], dtype_probe.h).
Pass::OutPlan Pass::planOut(const Node& n, const OpInfo& op, const OpRoleInfo& role, size_t outs,
                            const TensorMeta& after) {
  // Without a probe's answer, a functional form that takes a dtype is given the out
  // tensor's: a factory's (zeros.out → zeros) makes that dtype itself, as eager does, rather
  // than the default dtype cast afterwards.
  const int dtype_at = role.functional->argumentIndex("dtype");
  const int given_at = op.argumentIndex("dtype");
  const Argument* given_dtype = given_at >= 0 ? schemaArgument(n, op, static_cast<size_t>(given_at)) : nullptr;
  const bool takes_dtype = dtype_at >= 0 &&
                           role.functional->arguments[static_cast<size_t>(dtype_at)].type == ParamType::ScalarType &&
                           !given_dtype;
  // Metadata mutations before the call (unsqueeze_, requires_grad_) change what it reads:
  // every question below is asked of the inputs as they are then.
  Graph scratch;
  const Node& now = withCurrentMetas(n, scratch);
  bool other_dtypes = false;  // an input of another dtype than the out tensor
  bool grad_input = false;    // an input that requires grad
  bool empty_input = false;   // an input of no elements
  now.forEachInput([&](const Node* in) {
    const TensorMeta* m = in->meta.val.tensor();
    other_dtypes = other_dtypes || (m && m->dtype != after.dtype);
    grad_input = grad_input || (m && m->requires_grad && differentiable(*m));
    empty_input = empty_input || (m && numelOf(*m) == 0);
  });
  const bool other_dtype_asked = dtype_at >= 0 && given_dtype && given_dtype->get<arg::Dtype>() &&
                                 given_dtype->get<arg::Dtype>()->value != after.dtype;
  if (roundsInALessPreciseOut(n, op, after)) {
    fail(&n, op.name() +
                 " rounds to its out= tensor's dtype mid-way, which no functional form does; epsmith does "
                 "not functionalize that (Note [out= kernels that round in their out mid-way])");
  }
  std::optional<OutForm> form;
  // An out= kernel may also part from its functional form on empty inputs: eager's
  // binary_cross_entropy.out of one leaves `out` as it was, where the functional form
  // gives NaN, the mean of nothing (a 2.13 campaign's D1 and D2 case). The probe, run on
  // the call's empty inputs, finds no form that writes what eager writes there.
  if (outs == 1 && role.written.size() == 1 && (takes_dtype || other_dtypes || other_dtype_asked || empty_input)) {
    form = probeOutForm(now, *role.functional, op.arguments[static_cast<size_t>(role.written[0])].name);
  }
  if (form == OutForm::Unmatched) {
    fail(&n, "no functional form of " + op.name() + " writes what it writes into " +
                 (empty_input ? "its out= tensor from empty inputs" : "an out= tensor of another dtype") +
                 " (Note [out= calls that compute in another dtype])");
  }
  OutPlan plan;
  plan.form = form.value_or(takes_dtype ? OutForm::DtypeArgument : OutForm::CastResult);
  plan.dtype_argument = outs == 1 && plan.form == OutForm::DtypeArgument && takes_dtype;
  if (grad_enabled_ && grad_input) {
    Node* g = scratchFunctionalCall(scratch, now, *role.functional, role.written);
    if (plan.dtype_argument) g->kwargs.emplace_back("dtype", arg::Dtype{after.dtype});
    plan.detach_grad = probeAutogradRefuses(*g);
  }
  return plan;
}

// The functional call that computes what the out= call writes, with its meta.val: `out`'s
// metadata, but the dtype and sizes it makes. Its results, one a tensor written, and what
// the probe says it makes.
Pass::OutCall Pass::emitOutCall(const Node& n, const OpInfo& op, const OpRoleInfo& role, const OutPlan& plan,
                                const std::vector<const TensorMeta*>& after) {
  // The out= forms read their self's layout as their functional forms do
  // (Note [Reads of eager's layout], Note [dtype views of computed values]).
  const EagerLayoutRead layout_read = readsEagerLayout(*role.functional);
  Node* strided_base = layout_read == EagerLayoutRead::AsStridedCopy      ? asStridedCopyBase(n, op)
                       : layout_read == EagerLayoutRead::AsStridedScatter ? asStridedScatterSelf(n, op)
                                                                          : nullptr;
  Node* laid_out = layout_read == EagerLayoutRead::DtypeViewCopy ? laidOutSelfOfDtypeCopy(n) : nullptr;
  ArgumentReads reads;
  TensorMeta common;  // the dtype every input is cast to, for CastToCommon
  if (plan.form == OutForm::CastToCommon) {
    common = *after[0];
    common.dtype =
        commonInputDtype(n, op.arguments[static_cast<size_t>(role.written[0])].name).value_or(after[0]->dtype);
  }
  reads.cast_to = plan.form == OutForm::CastInputs || plan.form == OutForm::CastEveryInput ? after[0]
                  : plan.form == OutForm::CastToCommon                                     ? &common
                                                                                           : nullptr;
  reads.cast_every_dtype = plan.form == OutForm::CastEveryInput || plan.form == OutForm::CastToCommon;
  reads.detach_grad = plan.detach_grad;
  const OpInfo* functional = role.functional;
  if (role.functional->qualified_name == "aten::mul" && faultPlanted(PlantedFault::MulOutDivides)) {
    functional = findOp("aten::div", functional->overload);  // Note [Planted functionalizer faults]
  }
  Node* f = functionalCall(n, *functional, role.written, reads);
  if (plan.form == OutForm::OutDtype) replaceDtypeArgument(*f, *role.functional, after[0]->dtype);
  if ((laid_out || strided_base) && f->args.empty()) fail(&n, op.name() + " without a positional self");
  if (laid_out) f->args[0] = arg::Tensor{laid_out};
  if (strided_base) {
    f->args[0] = arg::Tensor{strided_base};
    if (!functionalizer::pinStorageOffset(n, op, f->args, f->kwargs)) fail(&n, "its storage offset is symbolic");
  }
  if (plan.dtype_argument) f->kwargs.emplace_back("dtype", arg::Dtype{after[0]->dtype});
  OutCall call;
  call.probed = probeReturns(*f);
  const auto made = [&](size_t k) {
    TensorMeta m = *after[k];
    if (call.probed && k < call.probed->size()) m.dtype = (*call.probed)[k].dtype;
    m.requires_grad = m.requires_grad && !plan.detach_grad && differentiable(m);
    if (call.probed && k < call.probed->size() && !sameSizes((*call.probed)[k].sizes, m)) {
      m.sizes.assign((*call.probed)[k].sizes.begin(), (*call.probed)[k].sizes.end());
      m.strides = TensorMeta::contiguousStrides(m.sizes);
      m.storage_offset = SymIntValue(0);
    }
    return m;
  };
  if (after.size() == 1) {
    f->meta.val = made(0);
    call.values.push_back(f);
    return call;
  }
  Val::List metas;
  for (size_t k = 0; k < after.size(); ++k) metas.push_back(made(k));
  f->meta.val = metas;
  for (size_t k = 0; k < after.size(); ++k) {
    call.values.push_back(emit_.builtin(Target::builtin(BuiltinOp::GetItem),
                                        {arg::Tensor{f}, arg::Int{static_cast<int64_t>(k)}}, metas[k], "getitem"));
  }
  return call;
}

// What `out` holds after the call: the functional result `made` (whose sizes the probe
// gives in `probed`, when it answered), cast, reshaped or copied in as eager wrote it.
Node* Pass::outValue(const Node& n, Obj* out, Node* made, const ProbedReturn* probed, const TensorMeta& after) {
  const ScalarType have = made->meta.val.tensor()->dtype;
  const bool resized = after.sizes != out->rec->meta->sizes;
  const bool other_sizes = probed && !sameSizes(probed->sizes, after);
  if (!other_sizes) return castTo(made, have, after);
  const auto& made_sizes = probed->sizes;
  if (resized && elementCount(made_sizes) != numelOf(after)) {
    fail(&n, "out= resizes its tensor to " + formatTensorMeta(after) +
                 ", which the functional result, of another element count, cannot fill: what eager wrote is not known");
  }
  if (resized || (!broadcastsTo(made_sizes, after) && elementCount(made_sizes) == numelOf(after))) {
    // Factories' out= forms (arange.out, logspace.out) resize `out` only when the element
    // count differs; otherwise they fill it in its own shape, in order. And a kernel that
    // resizes `out` and then copies in a result of the same element count but another
    // shape (huber_loss.out given a reduction it does not know: resize_({}), then the
    // unreduced loss of one element) leaves that result in `out`'s new shape.
    TensorMeta shaped = after;
    shaped.dtype = have;
    shaped.strides = TensorMeta::contiguousStrides(shaped.sizes);
    shaped.storage_offset = SymIntValue(0);
    // numelOf above was not -1: every size is concrete
    const std::vector<int64_t> sizes = *concreteSizes(after);
    return castTo(emit_.call(*findOpByName("aten::reshape"), {arg::Tensor{made}, arg::IntList{sizes}}, shaped), have,
                  after);
  }
  // Eager copied a result of another shape into `out`, broadcasting (and casting): so does
  // the graph. A result that cannot broadcast was never copied whole, yet `out` kept its
  // sizes (binary_cross_entropy.out writes through a squeezed view of `out`, which it
  // resizes instead): what eager wrote is not known here.
  if (!broadcastsTo(made_sizes, after)) {
    std::string sizes;
    for (int64_t size : made_sizes) sizes += (sizes.empty() ? "" : ", ") + std::to_string(size);
    fail(&n, "out= tensor " + formatTensorMeta(after) + " keeps its sizes, but the functional result [" + sizes +
                 "] neither broadcasts into it nor has its element count: what eager wrote is not known");
  }
  Node* current = sync(out->rec);
  return emit_.call(*findOpByName("aten::copy"), {arg::Tensor{current}, arg::Tensor{made}}, after);
}

namespace {

// Whether `after` has `before`'s sizes in other strides, over the dimensions where a stride
// moves something (more than one element).
bool restridesKeepingSizes(const TensorMeta& before, const TensorMeta& after) {
  if (before.strides.size() != after.strides.size() || numelOf(after) <= 1) return false;
  for (size_t d = 0; d < after.sizes.size(); ++d) {
    const SymIntValue &size = after.sizes[d], &was = before.strides[d], &now = after.strides[d];
    if (!size.isConcrete() || !was.isConcrete() || !now.isConcrete()) return false;
    if (size.concrete() > 1 && was.concrete() != now.concrete()) return true;
  }
  return false;
}

}  // namespace

// An out= call that resizes an input: export refuses the program for that, whatever else
// the call does, so its reason comes before any of the functionalizer's own.
void Pass::refuseResizedInput(const Node& n, const Obj& out) {
  const AliasStorage* s = out.rec->storage;
  if (s->input >= 0) {
    fail(&n, "Found an input that received a metadata mutation (input " +
                 quoted(inputs_[static_cast<size_t>(s->input)].node->name()) + " resized by out=)" +
                 std::string(kExportRefuses));
  }
}

// An out= call that resizes a tensor it also reads through another argument
// (binary_cross_entropy.out(x, y, w, out=w)): the kernel resizes first, and what it then
// reads of that argument (bce's weight takes the out's new sizes) follows its own order of
// steps, which no functional form has (count_nonzero.out reads first, and no schema says
// which). A view of the out is another tensor and keeps its sizes.
void Pass::refuseResizedWhileRead(const Node& n, const OpInfo& op, const OpRoleInfo& role, const Obj& out,
                                  const TensorMeta& after) {
  if (numelOf(*out.rec->meta) == 0 && numelOf(after) == 0) return;
  for (size_t i = 0; i < op.arguments.size(); ++i) {
    if (std::find(role.written.begin(), role.written.end(), static_cast<int>(i)) != role.written.end()) continue;
    const Argument* a = schemaArgument(n, op, i);
    const auto* t = a ? a->get<arg::Tensor>() : nullptr;
    if (!t || !t->node || object(t->node, &n) != &out) continue;
    fail(&n, "out= resizes a tensor it also reads as " + quoted(op.arguments[i].name) +
                 ": what the kernel reads after the resize is not modelled");
  }
}

// Writes `value` into `out`, which the out= call resized to `after`: a metadata mutation.
// Its input is none (outVariant refused that first).
void Pass::writeResized(const Node& n, Obj* out, Node* value, const TensorMeta& after) {
  if (out->rec->parent) fail(&n, "out= resizes a view of another tensor; epsmith does not functionalize that");
  if (shrinksInPlace(*out->rec->meta, after)) {
    Graph scratch;
    if (probeWritesPastShrunkOut(withCurrentMetas(n, scratch))) {
      fail(&n,
           "out= shrinks its tensor in place after writing past the result: what the rest of its storage "
           "holds no functional form computes (Note [out= kernels that write past the result they shrink to])");
    }
    // Eager keeps the storage when it shrinks: the result lands in its first elements, where
    // views taken earlier see it, and the tensor becomes a view of them. In the strides eager
    // gave it: contiguous, or, where the kernel's TensorIterator lays a resized output out
    // like its inputs (tan.out of a permuted input), theirs, which `out`'s metadata
    // afterwards records; views taken earlier read the storage in that order.
    ViewStep step;
    step.kind = ViewStep::Kind::Restride;
    for (const auto& size : after.sizes) step.sizes.push_back(size.concrete());
    step.strides.assign(step.sizes.size(), 1);
    for (size_t d = step.sizes.size(); d-- > 1;)
      step.strides[d - 1] = step.strides[d] * std::max<int64_t>(step.sizes[d], 1);
    // dense from offset 0: the first elements, permuted
    if (numelOf(after) > 0 && isNonOverlappingAndDense(after) && after.storage_offset.isConcrete() &&
        after.storage_offset.concrete() == 0) {
      for (size_t d = 0; d < step.sizes.size(); ++d) step.strides[d] = after.strides[d].concrete();
    }
    Rec* view = child(out->rec, step, after, nullptr);
    write(view, value, &n);
    out->rec = view;
    return;
  }
  const int64_t was = numelOf(*out->rec->meta), now = numelOf(after);
  if (now > 0 && was >= now && hasOtherViews(*out->rec)) {
    // Eager kept the storage (the new size does not grow it) and wrote it in the new,
    // contiguous order, which views of the old layout see; not modelled here.
    fail(&n,
         "out= restrides in place a tensor that is not contiguous from offset 0 while views of it are live: "
         "what they see afterwards is not modelled");
  }
  // A grown storage is a new one here. Its value is the result alone, where eager's storage
  // (kept when it was large enough) still holds what was there before: it counts as
  // written, so an as_strided read past the result is refused rather than taken for a view
  // of memory the functional program does not have.
  out->rec = freshTensor(value, after)->rec;
  out->rec->storage->first_write = &n;
  written_ = true;
}

void Pass::outVariant(const Node& n, const OpRoleInfo& role) {
  const OpInfo& op = *n.target.op();
  const std::vector<Obj*> outs = outTensors(n, op, role);
  const std::vector<const TensorMeta*> after = outMetasAfter(n, outs.size());
  for (size_t k = 0; k < outs.size(); ++k) {
    if (after[k]->sizes != outs[k]->rec->meta->sizes) {
      refuseResizedInput(n, *outs[k]);
      refuseResizedWhileRead(n, op, role, *outs[k], *after[k]);
    } else if (restridesKeepingSizes(*outs[k]->rec->meta, *after[k])) {
      // log_sigmoid_forward.output's CPU kernel resizes its buffer with resize_as_(input,
      // Contiguous), which lays a transposed buffer out anew in place: eager writes the
      // storage under it in row-major order, which no view of it says.
      fail(&n, "out= lays its tensor out anew, keeping its sizes (" + formatTensorMeta(*outs[k]->rec->meta) + " to " +
                   formatTensorMeta(*after[k]) + "): where its storage receives the result is not modelled");
    }
    for (size_t j = 0; j < k; ++j) {
      if (outs[j]->rec->storage != outs[k]->rec->storage) continue;
      fail(&n, "out= writes two outs that share a storage: what lands there is its kernel's order of writes");
    }
  }
  if (outs.size() == 1 && role.written.size() == 1) refuseReadingItsWrite(n, role);
  auto writeOut = [&](size_t k, Node* value) {
    if (after[k]->sizes != outs[k]->rec->meta->sizes) {
      writeResized(n, outs[k], value, *after[k]);
    } else {
      write(outs[k]->rec, value, &n);
    }
  };
  // copy.out's functional form may hand back its source (Note [copy returns its source]):
  // where the source is like self, the value written is the source's, if out is like self
  // too (copy(self, src) casts to self's dtype, the write to out's).
  Node* fresh = nullptr;
  if (op.qualified_name == "aten::copy" && outs.size() == 1) {
    const TensorMeta* self = object(selfArgument(n), &n)->rec->meta;
    if (self && self->dtype == after[0]->dtype && self->sizes == after[0]->sizes) fresh = sameShapeCopy(n, *after[0]);
  }
  if (fresh) {
    writeOut(0, fresh);
  } else {
    const OutPlan plan = planOut(n, op, role, outs.size(), *after[0]);
    const OutCall call = emitOutCall(n, op, role, plan, after);
    for (size_t k = 0; k < outs.size(); ++k) {
      const ProbedReturn* probed = call.probed && k < call.probed->size() ? &(*call.probed)[k] : nullptr;
      writeOut(k, outValue(n, outs[k], call.values[k], probed, *after[k]));
    }
  }
  Mapped& m = slot(n);
  if (outs.size() == 1) {
    m.tensor = outs[0];
  } else {
    m.elements = outs;
  }
}

void Pass::metadataMutation(const Node& n, const OpRoleInfo& role) {
  const OpInfo& op = *n.target.op();
  Obj* self = object(selfArgument(n), &n);
  const AliasStorage* s = self->rec->storage;
  const TensorMeta* after = n.meta.val.tensor();
  if (!role.functional) {  // resize_, set_: no view expresses them
    // The input itself, also after an in-place metadata mutation gave it a view's record
    // (t_ of an input, then set_ of it).
    const bool the_input = s->input >= 0 && (!self->rec->parent || self == inputs_[static_cast<size_t>(s->input)].obj);
    if (the_input) {
      fail(&n, "Found an input that received a metadata mutation (input " +
                   quoted(inputs_[static_cast<size_t>(s->input)].node->name()) + ", by " + op.name() + ")" +
                   std::string(kExportRefuses));
    }
    if (op.qualified_name == "aten::resize_" && after && after->sizes == self->rec->meta->sizes) {
      slot(n).tensor = self;  // a resize to the same sizes changes nothing
      return;
    }
    fail(&n, op.name() + " replaces the storage or sizes of a tensor, which has no functional form");
  }
  if (!after) fail(&n, "meta.val is not a tensor");
  ViewStep step = viewStep(role.functional, n, role.view);
  self->rec = child(self->rec, step, *after, nullptr);
  self->metadata_writer = &n;
  slot(n).tensor = self;
  if (op.qualified_name == "aten::detach_") self->rec->storage->detached = true;  // Note [Views of a detached base]
}

}  // namespace epsmith::functionalizer
