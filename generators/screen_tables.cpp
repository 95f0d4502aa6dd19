// See screen_tables.h. Each table's rows are in screens.def's order, which is the order the
// generator has always asked them in: programs stay what they were.
#include "generators/screen_tables.h"

#include "oracle/values.h"

namespace epsmith {

namespace {

using Kwargs = std::vector<std::pair<std::string, Argument>>;

struct BeforeRunRow {
  Screen screen;
  bool (*refuses)(const OpInfo&, const std::vector<Argument>&, const Kwargs&, LiveValueOf, HeldElements);
};

constexpr BeforeRunRow kBeforeRun[] = {
    {Screen::OutAliasesAnInput, [](const OpInfo& o, const std::vector<Argument>& a, const Kwargs& k, LiveValueOf v,
                                   HeldElements) { return outAliasesAnInput(o, a, k, v); }},
    {Screen::LapackOnNonFinite, [](const OpInfo& o, const std::vector<Argument>& a, const Kwargs& k, LiveValueOf v,
                                   HeldElements) { return lapackOnNonFinite(o, a, k, v); }},
    {Screen::ReadsANaNsBits, [](const OpInfo& o, const std::vector<Argument>& a, const Kwargs& k, LiveValueOf v,
                                HeldElements) { return readsANaNsBits(o, a, k, v); }},
    {Screen::MisplacesTriangularOut, [](const OpInfo& o, const std::vector<Argument>& a, const Kwargs& k, LiveValueOf v,
                                        HeldElements) { return misplacesTriangularOut(o, a, k, v); }},
    {Screen::GrowsPastTheValueCap, [](const OpInfo& o, const std::vector<Argument>& a, const Kwargs& k, LiveValueOf v,
                                      HeldElements) { return growsPastTheValueCap(o, a, k, v); }},
    {Screen::MultipliesZeroByAnOverflow,
     [](const OpInfo& o, const std::vector<Argument>& a, const Kwargs&, LiveValueOf v, HeldElements) {
       return multipliesZeroByAnOverflow(o, a, v);
     }},
    {Screen::ChoosesBetweenSignedZeros,
     [](const OpInfo& o, const std::vector<Argument>& a, const Kwargs& k, LiveValueOf v, HeldElements) {
       return choosesBetweenSignedZeros(o, a, k, v);
     }},
    {Screen::AddressesPastWhatItHolds,
     [](const OpInfo& o, const std::vector<Argument>& a, const Kwargs& k, LiveValueOf v, HeldElements h) {
       return addressesPastWhatItHolds(o, a, k, v, h);
     }},
};

struct AfterRunRow {
  Screen screen;
  bool (*refuses)(const RanCall&);
};

// Every row past the first reads the call's result, which the first made sure of.
constexpr AfterRunRow kAfterRun[] = {
    {Screen::Raises,
     [](const RanCall& r) {
       return r.outcome.error || r.outcome.outputs.empty() || !valOf(r.outcome.outputs[0], r.val);
     }},
    {Screen::ReturnsAnArgumentUndeclared,
     [](const RanCall& r) { return returnsAnArgumentUndeclared(r.op, r.outcome.outputs[0], r.node, r.value_of); }},
    {Screen::ReachesPastItsStorage, [](const RanCall& r) { return reachesPastItsStorage(r.outcome.outputs[0]); }},
    {Screen::GrowsIntoUninitializedMemory,
     [](const RanCall& r) { return growsIntoUninitializedMemory(r.op, r.outcome.outputs[0], r.node, r.value_of); }},
    {Screen::FactorizesIntoNonFinite,
     [](const RanCall& r) { return factorizesIntoNonFinite(r.op, r.outcome.outputs[0]); }},
    {Screen::LeavesBitsNoOpMade, [](const RanCall& r) { return r.op.is_mutable && r.leaves_bits_no_op_made(); }},
    {Screen::HoldsBoolsOfOtherBytes,
     [](const RanCall& r) { return viewsAsAnotherDtype(r.op) && holdsBoolsOfOtherBytes(r.outcome.outputs[0]); }},
    {Screen::WritesByLayout, [](const RanCall& r) { return writesThroughIndices(r.op) && r.index_writes_by_layout(); }},
    {Screen::ReadsAnEmptyTensorDifferently,
     [](const RanCall& r) {
       return !r.op.is_mutable && readsAnEmptyTensor(r.node, r.value_of) &&
              !sameResult(r.outcome.outputs[0], r.run_again());
     }},
};

}  // namespace

std::optional<Screen> refusedBeforeRun(const OpInfo& op, const std::vector<Argument>& args, const Kwargs& kwargs,
                                       LiveValueOf value_of, HeldElements held) {
  for (const BeforeRunRow& row : kBeforeRun) {
    if (row.refuses(op, args, kwargs, value_of, held)) return row.screen;
  }
  return std::nullopt;
}

std::optional<Screen> refusedAfterRun(const RanCall& r) {
  for (const AfterRunRow& row : kAfterRun) {
    if (row.refuses(r)) return row.screen;
  }
  return std::nullopt;
}

}  // namespace epsmith
