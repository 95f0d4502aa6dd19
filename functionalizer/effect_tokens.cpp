// See effect_tokens.h.
#include "functionalizer/effect_tokens.h"

#include <string>
#include <vector>

#include "ops/op_roles.h"

namespace epsmith::functionalizer {
namespace {

TensorMeta tokenMeta() {
  TensorMeta m;
  m.dtype = ScalarType::Float;
  m.sizes.emplace_back(int64_t{0});
  m.strides.emplace_back(int64_t{1});
  return m;
}

bool callsWithEffects(const Node& n) { return n.atenOp() && hasEffects(*n.atenOp()); }

// Replaces call `n` by with_effects(token, op, *args) and a getitem of its new token,
// which it returns.
Node* wrapInWithEffects(Graph& g, Node& n, Node* token) {
  Node* hop = g.insertBefore(&n, OpKind::CallFunction, "with_effects");
  hop->target = Target::higherOrder("with_effects");
  hop->args = {arg::Tensor{token}, arg::Operator{n.atenOp()->name()}};
  hop->args.insert(hop->args.end(), n.args.begin(), n.args.end());
  hop->meta = n.meta;
  hop->meta.val = Val::List{Val(tokenMeta()), Val(Val::None{})};
  Node* next = g.insertBefore(&n, OpKind::CallFunction, "getitem");
  next->target = Target::builtin(BuiltinOp::GetItem);
  next->args = {arg::Tensor{hop}, arg::Int{0}};
  next->meta.val = tokenMeta();
  g.erase(&n);
  return next;
}

}  // namespace

bool callsAnOpWithEffects(const ExportedProgram& p) {
  for (const Node& n : p.graph().nodes()) {
    if (callsWithEffects(n)) return true;
  }
  return false;
}

std::optional<Diagnostic> threadEffectTokens(ExportedProgram& p) {
  Graph& g = p.graph();
  std::vector<Node*> calls;
  for (Node& n : g.nodes()) {
    if (callsWithEffects(n)) calls.push_back(&n);
  }
  if (calls.empty()) return std::nullopt;
  const std::string where = "%" + calls.front()->name();
  if (!p.signature.inputTokens().empty())
    return Diagnostic{where, "a program with effect tokens of its own calls an op with effects; export writes none"};
  for (Node* n : calls) {
    if (!n->atenOp()->returns.empty() || !n->kwargs.empty())
      return Diagnostic{"%" + n->name(), n->atenOp()->name() + " returns a value or takes keyword arguments: " +
                                             "its call is not threaded on a token here"};
  }
  Node* first = g.insertBefore(&*g.nodes().begin(), OpKind::Placeholder, "token");
  first->meta.val = tokenMeta();
  Node* token = first;
  for (Node* n : calls) token = wrapInWithEffects(g, *n, token);
  Node* out = g.outputNode();
  if (!out) return Diagnostic{where, "the graph has no output node"};
  out->args.insert(out->args.begin(), arg::Tensor{token});
  auto& ins = p.signature.input_specs;
  ins.insert(ins.begin(),
             {InputKind::Token, SpecArg{SpecArg::Kind::Token, first->name(), {}, {}}, std::nullopt, std::nullopt});
  auto& outs = p.signature.output_specs;
  outs.insert(outs.begin(), {OutputKind::Token, SpecArg{SpecArg::Kind::Token, token->name(), {}, {}}, std::nullopt});
  return std::nullopt;
}

}  // namespace epsmith::functionalizer
