// Stable identifiers of verifier checks. Tests, corruptions, the corpus and reports key on
// the kebab-case names; never renumber or rename one, only add.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace epsmith {

#define EPSMITH_CHECK_IDS(X)                                                                                           \
  /* graph lint (torch.fx Graph.lint) */                                                                               \
  X(ArgNotInGraph, "arg-not-in-graph", "an argument is a node of another graph")                                       \
  X(UseBeforeDef, "use-before-def", "an argument is used before its node is defined")                                  \
  X(DuplicateNodeName, "duplicate-node-name", "two nodes of one graph share a name")                                   \
  X(NonexistentAttribute, "nonexistent-attribute", "get_attr/call_module names nothing")                               \
  X(CallModuleTargetNotModule, "call-module-target-not-module", "call_module names an attribute that is not a module") \
  X(MultipleOutputs, "multiple-outputs", "a graph has more than one output node")                                      \
  X(OutputNotLast, "output-not-last", "the last node of a graph is not its output node")                               \
  /* per node (Verifier._check_graph_module) */                                                                        \
  X(CallModule, "call-module", "call_module nodes are not valid")                                                      \
  X(CallMethod, "call-method", "call_method nodes are not valid")                                                      \
  X(MissingVal, "missing-val", "a node has no meta['val']")                                                            \
  X(InvalidVal, "invalid-val", "meta['val'] holds a value of a type the verifier refuses")                             \
  X(DisallowedOp, "disallowed-op", "call_function of an operator kind that is not allowed")                            \
  X(NonFunctionalOp, "non-functional-op", "a mutable OpOverload outside the TRAINING dialect")                         \
  X(DialectOp, "dialect-op", "the dialect's per-operator check refused an operator")                                   \
  X(InvalidGetAttrType, "invalid-getattr-type", "get_attr reads an attribute of a refused type")                       \
  X(InvalidLoweredModule, "invalid-lowered-module", "a LoweredBackendModule lacks its fields")                         \
  X(DialectGraph, "dialect-graph", "the dialect's additional graph check failed")                                      \
  /* module call graph */                                                                                              \
  X(CallGraphInputMissing, "call-graph-input-missing", "a module call input is not a node")                            \
  X(CallGraphOutputMissing, "call-graph-output-missing", "a module call output is not a node")                         \
  /* graph signature */                                                                                                \
  X(InputCount, "input-count", "placeholder count differs from the input spec count")                                  \
  X(InputName, "input-name", "an input spec names another placeholder")                                                \
  X(SpecMissingTarget, "spec-missing-target", "a lifted input spec has no target")                                     \
  X(ParameterNotTensor, "parameter-not-tensor", "a PARAMETER spec's argument is not a tensor")                         \
  X(ParameterNotInStateDict, "parameter-not-in-state-dict", "a parameter is missing from the state dict")              \
  X(ParameterNotParameter, "parameter-not-parameter", "a parameter's state entry is a plain tensor")                   \
  X(BufferNotTensor, "buffer-not-tensor", "a BUFFER spec's argument is not a tensor")                                  \
  X(BufferMissingPersistence, "buffer-missing-persistence", "a BUFFER spec has no persistent flag")                    \
  X(BufferNotInStateDict, "buffer-not-in-state-dict", "a persistent buffer is missing from the state dict")            \
  X(NonPersistentBufferInStateDict, "non-persistent-buffer-in-state-dict",                                             \
    "a non-persistent buffer is in the state dict")                                                                    \
  X(ConstantNotTensor, "constant-not-tensor", "a CONSTANT_TENSOR spec's argument is not a tensor")                     \
  X(ConstantNotInConstants, "constant-not-in-constants", "a tensor constant is missing from constants")                \
  X(CustomObjNotCustomObj, "custom-obj-not-custom-obj", "a CUSTOM_OBJ spec's argument is not a custom object")         \
  X(CustomObjNotInConstants, "custom-obj-not-in-constants", "a custom object is missing from constants")               \
  X(TokenNotToken, "token-not-token", "a TOKEN spec's argument is not a token")                                        \
  X(UnknownInputKind, "unknown-input-kind", "an input spec of an unknown kind")                                        \
  X(OutputCount, "output-count", "output count differs from the output spec count")                                    \
  X(BufferMutationTarget, "buffer-mutation-target", "a buffer mutation names no buffer input")                         \
  X(ParameterMutationTarget, "parameter-mutation-target", "a parameter mutation names no parameter input")             \
  X(UserInputMutationTarget, "user-input-mutation-target", "a user input mutation names no user input")                \
  X(MutationOutputKind, "mutation-output-kind", "an output in the mutation slice is not a mutation")                   \
  X(UserOutputOrder, "user-output-order", "user outputs differ from the signature's, or their order")                  \
  /* dialect selection */                                                                                              \
  X(UnknownDialect, "unknown-dialect", "the program names a dialect with no verifier")

enum class CheckId : uint8_t {
#define EPSMITH_CHECK_ENUM(id, name, help) id,
  EPSMITH_CHECK_IDS(EPSMITH_CHECK_ENUM)
#undef EPSMITH_CHECK_ENUM
};

constexpr int kNumCheckIds = 0
#define EPSMITH_CHECK_COUNT(id, name, help) +1
    EPSMITH_CHECK_IDS(EPSMITH_CHECK_COUNT)
#undef EPSMITH_CHECK_COUNT
    ;

std::string_view checkIdName(CheckId id);  // "non-functional-op"
std::string_view checkIdHelp(CheckId id);  // one line
std::optional<CheckId> checkIdFromName(std::string_view name);

}  // namespace epsmith
