// The differential checks on one program: generated programs pass D1, D4 and D6 (or skip
// with a reason), a known LibTorch 1.13 divergence is reported by D2 and by nothing else,
// a program that does not verify is reported as such, a finding that depends on
// memory the kernel does not own is flaky, a minimization whose steps crash survives in
// forked steps, and check lists parse with errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "oracle/program_io.h"
#include "formats/text_format.h"
#include "functionalizer/functionalize.h"
#include "fuzz/aliases.h"
#include "fuzz/case_runner.h"
#include "fuzz/checks.h"
#include "fuzz/corpus.h"
#include "fuzz/messages.h"
#include "fuzz/root_cause.h"
#include "fuzz/workers.h"
#include "generators/graph_generator.h"
#include "oracle/run.h"
#include "tests/support/planted_fault.h"
#include "tests/support/program_text.h"
#include "verifier/check_ids.h"

namespace epsmith {
namespace {

std::string describe(const CheckOutcome& o) {
  return std::string(diffCheckName(o.check)) + " " + o.kind + " " + o.where + "\n" + o.report;
}

TEST(Checks, GeneratedProgramsPassTheHarnessChecks) {
  const OpCatalog catalog = OpCatalog::build().value();
  std::map<std::string, int> tally;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededSource random(seed);
    auto p = generateProgram(catalog, {}, random);
    ASSERT_TRUE(p.ok());
    // Not D3: generated programs meet real differences between CPU and CUDA kernels, which
    // campaigns file (docs/gpu.md); and a test process that starts CUDA
    // could not fork children that use it.
    for (const auto& o : runChecks(p.value(), {DiffCheck::D1, DiffCheck::D4, DiffCheck::D6})) {
      EXPECT_NE(o.status, CheckOutcome::Status::Finding) << "seed " << seed << ": " << describe(o);
      ++tally[std::string(diffCheckName(o.check)) + (o.status == CheckOutcome::Status::Pass ? " pass" : " skip")];
    }
  }
  // The rest refused by the functionalizer, as export would (28 of 40 on 2.13, more on 1.13).
  EXPECT_GE(tally["D1 pass"], 24);
  EXPECT_EQ(tally["D4 pass"], 40);
  EXPECT_EQ(tally["D6 pass"], 40);
}

// The check ids D6's pass report lists ("3 corruptions, ...: a b c").
std::vector<std::string> corruptionsTried(const CheckOutcome& o) {
  std::vector<std::string> ids;
  const size_t colon = o.report.find(": ");
  for (size_t at = colon + 2; colon != std::string::npos && at < o.report.size();) {
    const size_t space = std::min(o.report.find(' ', at), o.report.size());
    ids.push_back(o.report.substr(at, space - at));
    at = space + 1;
  }
  return ids;
}

// Note [Corruptions drawn per case]: a campaign case tries a few corruptions, drawn from its
// seed; over many seeds every corruption the program has a place for is tried.
// Note [Values compared at the precision they were computed in]: the out is f64, but what
// lands in it was computed from the f32 input, so D1 and D2 compare it at f32's tolerance
// (eager's kernel for the strided input and the functional sinh differ by two f32 ulps on
// the development machine).
TEST(Checks, AnOutCallIntoAWiderDtypeIsComparedAtThePrecisionItComputesIn) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d1_out_into_a_wider_dtype.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  EXPECT_EQ(computedIn(p.value(), "output 0")->dtype, ScalarType::Float);
  EXPECT_EQ(computedIn(p.value(), "input user_input:to_cut")->dtype, ScalarType::Float);
  EXPECT_EQ(computedIn(p.value(), "output 7"), std::nullopt);
  for (const auto& o : runChecks(p.value(), {DiffCheck::D1, DiffCheck::D2})) {
    EXPECT_EQ(o.status, CheckOutcome::Status::Pass) << describe(o);
  }
}

// The same Note, over a chain: a value that several f16 calls rounded differs by an ulp or
// two by the layout each call read (campaign cases of 2.13 and 1.13), and D1 and D2
// compare it at f16's tolerance times those roundings. Views and metadata mutations
// (transpose, detach, transpose_) round nothing. 1.13 has no f16 rsqrt, so there the
// first program raises eagerly and is skipped.
TEST(Checks, AValueRoundedByAChainOfF16CallsIsComparedAtItsRoundings) {
  const std::pair<const char*, int> cases[] = {{"d1_f16_rsqrt_then_div.ept", 3}, {"d1_f16_renorm_then_norm.ept", 2}};
  for (const auto& [file, roundings] : cases) {
    auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/" + file);
    ASSERT_TRUE(p.ok()) << p.error().str();
    const std::optional<ComputedIn> in = computedIn(p.value(), "output 0");
    ASSERT_TRUE(in) << file;
    EXPECT_EQ(in->dtype, ScalarType::Half) << file;
    EXPECT_EQ(in->roundings, roundings) << file;
    for (const auto& o : runChecks(p.value(), {DiffCheck::D1, DiffCheck::D2})) {
      EXPECT_NE(o.status, CheckOutcome::Status::Finding) << file << ": " << describe(o);
    }
  }
}

// A call with several results rounds once, whichever of them the value reads: sort's
// values, then exp, are two f16 roundings; the getitem and the transpose round nothing.
TEST(Checks, ACallWithSeveralResultsRoundsOnce) {
  auto p = test::parse(R"EPT(graph {
  %x: f16[2, 3] = placeholder
  %sort: (f16[2, 3], i64[2, 3]) = aten::sort(%x)
  %values: f16[2, 3] = operator.getitem(%sort, 0)
  %t: f16[3, 2]<stride=[1, 3]> = aten::t(%values)
  %exp: f16[3, 2] = aten::exp(%t)
  return (%exp)
}
signature {
  input user_input %x
  output user_output %exp
}
)EPT");
  const std::optional<ComputedIn> in = computedIn(p, "output 0");
  ASSERT_TRUE(in);
  EXPECT_EQ(in->dtype, ScalarType::Half);
  EXPECT_EQ(in->roundings, 2);
}

// An out= call that resizes a tensor it also reads (a 2.13 campaign's D1 case: bce's
// weight is its out, which eager's kernel resizes to the input's sizes before it reads the
// weight): the functionalizer refuses it, so D1 is skipped with that reason, and D2 too,
// eager's answer being its kernel's order (count_nonzero.out reads before it resizes, and
// no schema says which a kernel does). A view of the out is another tensor, and a resize
// of no elements to none reads none: neither is refused so.
TEST(Checks, AnOutResizedWhileReadIsRefusedByTheFunctionalizer) {
  auto program =
      [](const std::string& weight) {
        return test::parse(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %c: f32[)EPT" + weight + R"EPT(] = placeholder
  %x: f32[2] = placeholder
  %mul: f32[)EPT" + weight +
                           R"EPT(] = aten::mul.Scalar(%c, 0)
  %bce: f32[] = aten::binary_cross_entropy.out(%x, %x, %mul, out=%mul)
  %neg: f32[] = aten::neg(%bce)
  return (%neg)
}
signature {
  input user_input %c
  input user_input %x
  output user_output %neg
}
storages {
  $0: f32[5] = [0.0, 1.5, -1.5, -1.5, -1.5]
  $1: f32[2] = [0.25, 0.5]
}
example_inputs {
  $0 f32[)EPT" + weight + R"EPT(]
  $1 f32[2]
}
)EPT");
      };
  const ExportedProgram resized = program("1, 1, 1, 5");
  auto outcomes = runChecks(resized, {DiffCheck::D1, DiffCheck::D2});
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_EQ(outcomes[0].status, CheckOutcome::Status::Skipped) << describe(outcomes[0]);
  EXPECT_NE(outcomes[0].report.find("out= resizes a tensor it also reads as 'weight'"), std::string::npos)
      << outcomes[0].report;
  EXPECT_EQ(outcomes[1].status, CheckOutcome::Status::Skipped) << describe(outcomes[1]);
  EXPECT_NE(outcomes[1].report.find("%bce resizes the %mul it also reads as 'weight'"), std::string::npos)
      << outcomes[1].report;
  EXPECT_TRUE(functionalize(program("")).ok());
  EXPECT_NE(runChecks(program(""), {DiffCheck::D2})[0].status, CheckOutcome::Status::Skipped);
  auto refusal = [](const std::string& text) {
    auto f = functionalize(test::parse(text));
    return f.ok() ? std::string() : f.error().str();
  };
  const std::string viewed = refusal(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %x: f32[4] = placeholder
  %c: f32[4] = aten::clone(%x)
  %v: f32[2, 2] = aten::view(%c, [2, 2])
  %r: f32[2, 2] = aten::neg.out(%v, out=%c)
  return (%r)
}
signature {
  input user_input %x
  output user_output %r
}
)EPT");
  EXPECT_EQ(viewed.find("it also reads"), std::string::npos) << viewed;
  const std::string empty = refusal(R"EPT(program {
  verifiers ["TRAINING"]
}
graph {
  %e: f32[0] = aten::zeros([0])
  %u: f32[1, 0] = aten::unfold_copy.out(%e, 0, 0, 1, out=%e)
  return (%u)
}
signature {
  output user_output %u
}
)EPT");
  EXPECT_EQ(empty.find("it also reads"), std::string::npos) << empty;
}

TEST(Checks, ACaseTriesAFewCorruptionsAndManyCasesTryThemAll) {
  const OpCatalog catalog = OpCatalog::build().value();
  SeededSource random(7);
  auto p = generateProgram(catalog, {}, random);
  ASSERT_TRUE(p.ok());
  auto all = runChecks(p.value(), {DiffCheck::D6});
  ASSERT_EQ(all[0].status, CheckOutcome::Status::Pass) << describe(all[0]);
  const std::vector<std::string> every = corruptionsTried(all[0]);
  ASSERT_GT(every.size(), 10u) << all[0].report;
  EXPECT_TRUE(std::is_sorted(
      every.begin(), every.end(),
      [](const std::string& a, const std::string& b) { return checkIdFromName(a) < checkIdFromName(b); }))
      << "without a limit, every corruption in check-id order: " << all[0].report;
  std::set<std::string> seen;
  std::set<std::vector<std::string>> orders;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    CheckOptions options;
    options.case_seed = seed;
    options.corruptions_per_case = 3;
    auto drawn = runChecks(p.value(), {DiffCheck::D6}, options);
    ASSERT_EQ(drawn[0].status, CheckOutcome::Status::Pass) << describe(drawn[0]);
    const auto ids = corruptionsTried(drawn[0]);
    ASSERT_EQ(ids.size(), 3u) << drawn[0].report;
    for (const auto& id : ids) {
      EXPECT_NE(std::find(every.begin(), every.end(), id), every.end()) << id << " has no place in the program";
      seen.insert(id);
    }
    orders.insert(ids);
    // The same seed draws the same corruptions.
    EXPECT_EQ(corruptionsTried(runChecks(p.value(), {DiffCheck::D6}, options)[0]), ids);
  }
  EXPECT_EQ(seen.size(), every.size());
  EXPECT_GT(orders.size(), 40u);
}

// Note [Round trips drawn per case]: a campaign case round-trips one form, drawn from its
// seed, and runs it; given no form, D4 reads all three back and runs the .pt2 form. Over
// many seeds every form comes up, and the same seed draws the same form.
TEST(Checks, ACaseRoundTripsOneFormAndManyCasesTryBoth) {
  const OpCatalog catalog = OpCatalog::build().value();
  SeededSource random(11);
  auto p = generateProgram(catalog, {}, random);
  ASSERT_TRUE(p.ok());
  auto both = runChecks(p.value(), {DiffCheck::D4});
  ASSERT_EQ(both[0].status, CheckOutcome::Status::Pass) << describe(both[0]);
  EXPECT_EQ(both[0].report, "the text, JSON and .pt2 forms read back, the .pt2 form run");
  std::map<std::string, int> drawn;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    CheckOptions options;
    options.round_trip = drawnRoundTrip(seed);
    auto one = runChecks(p.value(), {DiffCheck::D4}, options);
    ASSERT_EQ(one[0].status, CheckOutcome::Status::Pass) << describe(one[0]);
    ++drawn[one[0].report];
    EXPECT_EQ(runChecks(p.value(), {DiffCheck::D4}, options)[0].report, one[0].report) << "seed " << seed;
  }
  EXPECT_EQ(drawn.size(), 3u);
  EXPECT_GE(drawn["the text form read back, run"], 10);
  EXPECT_GE(drawn["the JSON form read back, run"], 10);
  EXPECT_GE(drawn["the .pt2 form read back, run"], 10);
}

// Note [Re-runs focus on the finding]: a signature that names its variant (D4's form, D6's
// corruption) re-runs that variant alone; others re-run everything.
// Note [Round trips sampled]: a campaign case runs D4 on one case in `round_trip_every`,
// drawn from its seed (the same seed draws the same), and on each when it is 1.
TEST(Checks, ACampaignRoundTripsASampleOfItsCases) {
  CaseSetup setup;
  setup.checks = {DiffCheck::D4};
  auto runner = CaseRunner::create(setup);
  ASSERT_TRUE(runner.ok()) << runner.error().str();
  int with_d4 = 0;
  for (uint64_t seed = 1; seed <= 160; ++seed) {
    const bool drawn = drawnFor(CheckDraw::RoundTrip, seed, 8);
    EXPECT_EQ(drawn, drawnFor(CheckDraw::RoundTrip, seed, 8)) << "seed " << seed;
    EXPECT_TRUE(drawnFor(CheckDraw::RoundTrip, seed, 1));
    with_d4 += drawn ? 1 : 0;
    if (seed <= 24) {
      CaseResult r = runner.value()->run(seed);
      if (r.generation_error) continue;
      EXPECT_EQ(r.outcomes.size(), drawn ? 1u : 0u) << "seed " << seed;
    }
  }
  EXPECT_GE(with_d4, 8);  // 20 expected
  EXPECT_LE(with_d4, 36);
}

// A finding as a check records it: its kind, and the variant that found it.
CheckOutcome aFinding(DiffCheck check, std::string kind, std::string variant = "", std::string op = "") {
  CheckOutcome o;
  o.check = check;
  o.status = CheckOutcome::Status::Finding;
  o.kind = std::move(kind);
  o.variant = std::move(variant);
  o.op = std::move(op);
  return o;
}

TEST(Checks, ReRunsFocusOnTheVariantAFindingNames) {
  EXPECT_EQ(focusedOn(aFinding(DiffCheck::D4, "json-round-trip-differs", "json")).round_trip, RoundTripForm::Json);
  EXPECT_EQ(focusedOn(aFinding(DiffCheck::D4, "text-unreadable", "text")).round_trip, RoundTripForm::Text);
  EXPECT_EQ(focusedOn(aFinding(DiffCheck::D4, "pt2-round-trip-differs", "pt2")).round_trip, RoundTripForm::Pt2);
  EXPECT_FALSE(focusedOn(aFinding(DiffCheck::D4, "escaped-exception")).round_trip.has_value());
  EXPECT_FALSE(focusedOn(aFinding(DiffCheck::D2, "exception-in-one", "", "aten::logical_not_")).round_trip.has_value());
  EXPECT_EQ(focusedOn(aFinding(DiffCheck::D6, "corruption-unreported:input-count", "input-count")).corruption,
            CheckId::InputCount);
  EXPECT_EQ(focusedOn(aFinding(DiffCheck::D6, "corruption-misreported:use-before-def", "use-before-def")).corruption,
            CheckId::UseBeforeDef);
  EXPECT_FALSE(focusedOn(aFinding(DiffCheck::D6, "corruption-unreported:x", "no-such-check")).corruption.has_value());
  EXPECT_FALSE(focusedOn(aFinding(DiffCheck::D6, "escaped-exception")).corruption.has_value());

  const OpCatalog catalog = OpCatalog::build().value();
  SeededSource random(7);
  auto p = generateProgram(catalog, {}, random);
  ASSERT_TRUE(p.ok());
  // Each corruption the program has a place for, alone.
  const std::vector<std::string> every = corruptionsTried(runChecks(p.value(), {DiffCheck::D6})[0]);
  ASSERT_GT(every.size(), 10u);
  for (const std::string& id : every) {
    auto one =
        runChecks(p.value(), {DiffCheck::D6}, focusedOn(aFinding(DiffCheck::D6, "corruption-unreported:" + id, id)));
    ASSERT_EQ(one[0].status, CheckOutcome::Status::Pass) << describe(one[0]);
    EXPECT_EQ(corruptionsTried(one[0]), std::vector<std::string>{id});
  }
  // One form of the round trip, read back and run.
  auto json =
      runChecks(p.value(), {DiffCheck::D4}, focusedOn(aFinding(DiffCheck::D4, "json-round-trip-differs", "json")));
  EXPECT_EQ(json[0].report, "the JSON form read back, run") << describe(json[0]);
  auto text =
      runChecks(p.value(), {DiffCheck::D4}, focusedOn(aFinding(DiffCheck::D4, "text-round-trip-differs", "text")));
  EXPECT_EQ(text[0].report, "the text form read back, run") << describe(text[0]);
}

// A finding's signature is made of its fields: a report that quotes other ops does not
// change it, and the op is named only where the check recorded one.
TEST(Checks, ASignatureComesFromTheFindingsFieldsNotItsReport) {
  CheckOutcome o;
  o.check = DiffCheck::D2;
  o.status = CheckOutcome::Status::Finding;
  o.kind = "exception-in-one";
  o.report = "exception in actual only: node %x: aten::add.Tensor: 'aten::mul.out' said no";
  EXPECT_EQ(failureSignature(o), "D2 exception-in-one");
  o.op = "aten::sub.Tensor";
  EXPECT_EQ(failureSignature(o), "D2 exception-in-one aten::sub.Tensor");
}

// What crosses from a worker is the record itself: every field comes back, bytes that are
// not UTF-8 in a kernel's message included (replaced, not refused).
TEST(Messages, AnOutcomeCrossesAProcessBoundaryWithEveryField) {
  CheckOutcome o;
  o.check = DiffCheck::D6;
  o.status = CheckOutcome::Status::Finding;
  o.kind = "corruption-unreported:input-count";
  o.where = "%add_";
  o.op = "aten::add_.Tensor";
  o.variant = "input-count";
  o.report = std::string("bad byte \xff here\nand a second line");
  const auto read = readOutcome(writeOutcome(o));
  ASSERT_TRUE(read.ok()) << read.error().str();
  const CheckOutcome& back = read.value();
  EXPECT_EQ(back.check, o.check);
  EXPECT_EQ(back.status, o.status);
  EXPECT_EQ(back.kind, o.kind);
  EXPECT_EQ(back.where, o.where);
  EXPECT_EQ(back.op, o.op);
  EXPECT_EQ(back.variant, o.variant);
  EXPECT_EQ(back.report.substr(0, 9), "bad byte ");
  EXPECT_NE(back.report.find("and a second line"), std::string::npos);
  EXPECT_EQ(focusedOn(back).corruption, CheckId::InputCount);

  WorkerDeath d;
  d.kind = WorkerDeath::Kind::Signal;
  d.code = 11;
  d.phase = "D2";
  d.op = "aten::polygamma_";
  auto request = readRequest(writeRequest({WorkRequest::Type::Minimize, 7, Failing::of(d), true}));
  ASSERT_TRUE(request.ok()) << request.error().str();
  EXPECT_EQ(request->seed, 7u);
  EXPECT_TRUE(request->fork_steps);
  ASSERT_TRUE(request->failing.has_value());
  const Failing& f = *request->failing;
  EXPECT_EQ(f.signature, deathSignature(d));
  EXPECT_EQ(f.check, "D2");
  ASSERT_TRUE(f.crash.has_value());
  EXPECT_EQ(f.crash->op, d.op);
  EXPECT_FALSE(f.finding.has_value());
  auto again = readRequest(writeRequest({WorkRequest::Type::Minimize, 8, Failing::of(o), false}));
  ASSERT_TRUE(again.ok() && again->failing.has_value());
  const Failing& g = *again->failing;
  EXPECT_EQ(g.signature, failureSignature(o));
  ASSERT_TRUE(g.finding.has_value());
  EXPECT_EQ(g.finding->variant, "input-count");
}

// A case's reply and a minimization's reply carry every field, the minimized program
// embedded as JSON (Note [One JSON stack]); a reply missing a field is a located error.
TEST(Messages, RepliesCarryTheirRecordsAndTheProgram) {
  CaseResult r;
  r.seed = UINT64_MAX - 1;
  r.times.seconds[0] = 0.25;
  r.times.in_ops = 0.125;
  r.generation_error = "no program";
  r.nodes = 17;
  r.outcomes.resize(2);
  r.outcomes[1].check = DiffCheck::D4;
  r.outcomes[1].status = CheckOutcome::Status::Skipped;
  r.outcomes[1].report = "why";
  auto back = readCaseReply(writeCaseReply(r));
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->seed, r.seed);
  EXPECT_EQ(back->times.seconds, r.times.seconds);
  EXPECT_EQ(back->times.in_ops, r.times.in_ops);
  EXPECT_EQ(back->generation_error, r.generation_error);
  EXPECT_EQ(back->nodes, r.nodes);
  ASSERT_EQ(back->outcomes.size(), 2u);
  EXPECT_EQ(back->outcomes[1].check, DiffCheck::D4);
  EXPECT_EQ(back->outcomes[1].status, CheckOutcome::Status::Skipped);
  EXPECT_EQ(back->outcomes[1].report, "why");

  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/examples/linear_counter.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  MinimizedFinding m;
  m.signature = "D2 exception-in-one aten::add_";
  m.root = {"D2", "exception-in-one", "planted", {"*op", "add"}};
  m.check = "D2";
  m.finding.kind = "exception-in-one";
  m.finding.where = "%add_";
  m.finding.report = "bad \xfe byte";
  m.finding.op = "aten::add_";
  m.nodes_before = 12;
  m.nodes_after = 2;
  m.oracle_calls = 40;
  m.program = std::move(p.value());
  auto mb = readMinimizeReply(writeMinimizeReply(m));
  ASSERT_TRUE(mb.ok()) << mb.error().str();
  EXPECT_EQ(mb->root.id(), m.root.id());
  EXPECT_EQ(mb->root.str(), m.root.str());
  EXPECT_EQ(mb->finding.where, m.finding.where);
  EXPECT_EQ(mb->finding.op, m.finding.op);
  EXPECT_EQ(mb->finding.report, "bad \xef\xbf\xbd byte");
  EXPECT_EQ(mb->nodes_before, 12u);
  EXPECT_EQ(mb->oracle_calls, 40);
  ASSERT_TRUE(mb->program.has_value());
  EXPECT_EQ(printProgramText(*mb->program), printProgramText(*m.program));

  auto missing = readCaseReply("{\"seed\": 3}");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().str(), "case reply: $: missing required field \"times\"");
  auto bad_check = readOutcome("{\"check\": \"D10\", \"status\": 0, \"report\": \"\"}");
  ASSERT_FALSE(bad_check.ok());
  EXPECT_EQ(bad_check.error().where, "check outcome: $.check");
}

// Note [Planted faults]: LibTorch's functionalization of logical_not_ raises in this binary.
TEST(Checks, AFunctionalizationFaultIsAD2Finding) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d2_planted_logical_not.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  auto outcomes = runChecks(p.value(), {DiffCheck::D1, DiffCheck::D2, DiffCheck::D4});
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(outcomes[0].status, CheckOutcome::Status::Pass) << describe(outcomes[0]);
  EXPECT_EQ(outcomes[1].status, CheckOutcome::Status::Finding);
  EXPECT_EQ(outcomes[1].kind, "exception-in-one");
  EXPECT_NE(outcomes[1].report.find("logical_not"), std::string::npos) << outcomes[1].report;
  EXPECT_EQ(outcomes[2].status, CheckOutcome::Status::Pass) << describe(outcomes[2]);
  // Its signature, what minimizing keeps and buckets count: check, kind, the op that raised,
  // which the check records as a field of its own.
  EXPECT_EQ(outcomes[1].op, "aten::logical_not_");
  EXPECT_EQ(failureSignature(outcomes[1]), "D2 exception-in-one aten::logical_not_");
  // Its message template: the message without the op, so the same refusal by another op
  // has the same one (Note [Root causes]).
  EXPECT_EQ(messageTemplate(outcomes[1]),
            "planted fault: 'aten::*' refused under functionalization (EPSMITH_PLANTED_FAULT)");
}

// Note [One rule for still failing]: the same signature with another message template is
// another failure, in-process and in a child alike (`epsmith minimize` once kept it).
TEST(Checks, StillFailingNeedsTheSignatureAndTheTemplate) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d2_planted_logical_not.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  const auto outcomes = runChecks(p.value(), {DiffCheck::D2});
  ASSERT_EQ(outcomes.at(0).status, CheckOutcome::Status::Finding);
  const Failing found = Failing::of(outcomes[0]);
  Failing other = found;
  other.message = "some other refusal of '*'";
  const WorkerLimits limits;
  for (const WorkerLimits* in : {static_cast<const WorkerLimits*>(nullptr), &limits}) {
    EXPECT_TRUE(stillFails(p.value(), {DiffCheck::D2}, found, Device(), in));
    EXPECT_FALSE(stillFails(p.value(), {DiffCheck::D2}, other, Device(), in));
    EXPECT_FALSE(stillFails(p.value(), {DiffCheck::D1}, found, Device(), in));  // D1 passes
  }
}

// Note [Planted faults]: special_zeta's CUDA kernel is off by one in this binary. Where
// CUDA is, D3 (CPU against CUDA) reports it at the output and D1 and D4 pass; elsewhere D3
// says why it did not run.
// The checks run in a child, as a campaign's do: a test process that started CUDA could not
// fork children that use it (Note [Asking for CUDA in a child]).
TEST(Checks, AWrongCudaKernelIsAD3Finding) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d3_planted_special_zeta.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  IsolatedOutcome o = runIsolated(
      [&] {
        std::string said;
        for (const auto& c : runChecks(p.value(), {DiffCheck::D1, DiffCheck::D3, DiffCheck::D4})) {
          said += c.status == CheckOutcome::Status::Finding ? failureSignature(c) + " at " + c.where
                  : c.status == CheckOutcome::Status::Pass  ? std::string(diffCheckName(c.check)) + " pass"
                                                            : std::string(diffCheckName(c.check)) + " skip";
          said += "\n";
        }
        return said;
      },
      WorkerLimits{});
  ASSERT_TRUE(o.result) << "the checks' child died";
  if (!cudaAvailable()) {
    EXPECT_EQ(*o.result, "D1 pass\nD3 skip\nD4 pass\n");
    GTEST_SKIP() << "no CUDA here";
  }
  EXPECT_EQ(*o.result, "D1 pass\nD3 value-mismatch at output 0\nD4 pass\n");
}

// Note [Results a device may choose]: D3 skips a program whose result a device may
// choose, naming the call, on any machine.
TEST(Checks, D3SkipsResultsADeviceMayChoose) {
  auto p = test::parse(R"EPT(graph {
  %x: f32[4] = placeholder
  %sort: (f32[4], i64[4]) = aten::sort(%x)
  %values: f32[4] = operator.getitem(%sort, 0)
  return (%values)
}
signature {
  input user_input %x
  output user_output %values
}
storages {
  $0: f32[4] = [1.0, 1.0, 0.5, 2.0]
}
example_inputs {
  $0 f32[4]
}
)EPT");
  auto outcomes = runChecks(p, {DiffCheck::D3});
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].status, CheckOutcome::Status::Skipped);
  EXPECT_EQ(outcomes[0].report.rfind("%sort: aten::sort reports one of several equal elements", 0), 0u)
      << outcomes[0].report;
}

TEST(Checks, AProgramThatDoesNotVerifyIsReportedAsSuch) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/examples/linear_counter.ept");
  ASSERT_TRUE(p.ok());
  p.value().setDialect(IrDialect::Aten);  // its in-place ops are not ATEN
  auto outcomes = runChecks(p.value(), {DiffCheck::D1, DiffCheck::D4});
  ASSERT_EQ(outcomes.size(), 2u);
  for (const auto& o : outcomes) {
    EXPECT_EQ(o.status, CheckOutcome::Status::Finding);
    EXPECT_EQ(o.kind, "invalid-program");
    EXPECT_EQ(o.where, "%add_");
  }
}

// The planted polygamma kernel reads the byte past its input's storage
// (Note [Planted faults]), so its value is whatever lies there, and a plain D4 sees the round trip "run
// differently". The campaign's re-runs (Note [Re-runs on a perturbed heap]) must call that
// flaky whatever the heap looked like beforehand, and still let a real, deterministic
// finding through.
TEST(Checks, AFindingThatDependsOnMemoryTheKernelDoesNotOwnIsFlaky) {
  auto runner = CaseRunner::create(CaseSetup{});
  ASSERT_TRUE(runner.ok());
  auto garbage =
      loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d4_planted_overread_polygamma.ept");
  ASSERT_TRUE(garbage.ok()) << garbage.error().str();
  auto real = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d2_planted_logical_not.ept");
  ASSERT_TRUE(real.ok()) << real.error().str();
  // A plain run of D4 does see the garbage (not on every heap: the bytes may happen to agree).
  const std::string seen = "D4 pt2-round-trip-runs-differently";  // D4 runs its last form, the .pt2
  bool plain_sees_it = false;
  for (int i = 0; i < 8 && !plain_sees_it; ++i) {
    plain_sees_it = runner.value()->firstSignature(garbage.value(), {DiffCheck::D4}) == seen;
  }
  EXPECT_TRUE(plain_sees_it);
  std::vector<std::unique_ptr<char[]>> ballast;
  for (int layout = 0; layout < 12; ++layout) {
    SCOPED_TRACE("heap layout " + std::to_string(layout));
    for (size_t size : {24, 40, 56, 88, 120, 248, 1016}) ballast.emplace_back(new char[size * (layout % 5 + 1)]);
    EXPECT_FALSE(comesBackEveryTime(garbage.value(), {DiffCheck::D4},
                                    Failing::of(aFinding(DiffCheck::D4, "pt2-round-trip-runs-differently", "pt2")),
                                    Device{}));
    EXPECT_TRUE(comesBackEveryTime(real.value(), {DiffCheck::D2},
                                   Failing::of(aFinding(DiffCheck::D2, "exception-in-one", "", "aten::logical_not_")),
                                   Device{}));
  }
}

// An exception in one run compares no values: eager's values changing with the heap (the
// planted over-reading polygamma) must not make the planted logical_not_ refusal under
// functionalization flaky, while a value mismatch on the same program still is
// (Note [Re-runs on a perturbed heap]).
TEST(Checks, AnExceptionInOneRunComesBackThoughEagerReadsMemoryItDoesNotOwn) {
  auto p = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d2_planted_raise_after_overread.ept");
  ASSERT_TRUE(p.ok()) << p.error().str();
  const Failing raised = Failing::of(aFinding(DiffCheck::D2, "exception-in-one", "", "aten::logical_not_"));
  EXPECT_TRUE(comesBackEveryTime(p.value(), {DiffCheck::D2}, raised, Device{}));
  const Failing differs = Failing::of(aFinding(DiffCheck::D2, "value-mismatch"));
  EXPECT_FALSE(comesBackEveryTime(p.value(), {DiffCheck::D2}, differs, Device{}));
}

// A kernel that crashes (the planted polygamma_ functionalization fault,
// Note [Planted faults], as LibTorch's memory errors do): minimized in-process, the first step would end
// the campaign's worker. Minimized in forked steps (Note [Minimizing in forked steps]) it
// comes back not flaky, down to the crashing call, still crashing there, and this process
// lives on.
TEST(CaseRunner, MinimizingInForkedStepsOutlivesAKernelThatCrashes) {
  auto runner = CaseRunner::create(CaseSetup{});
  ASSERT_TRUE(runner.ok());
  const std::string signature = "D2 crash-SIGSEGV aten::polygamma_";
  auto found = loadProgram(std::string(EPSMITH_SOURCE_DIR) + "/tests/data/findings/d2_planted_crash_polygamma.ept");
  ASSERT_TRUE(found.ok()) << found.error().str();
  const ExportedProgram& program = found.value();
  auto run = [&](const ExportedProgram& p) {
    return runIsolated([&] { return runner.value()->firstSignature(p, {DiffCheck::D2}); }, WorkerLimits{});
  };
  IsolatedOutcome first = run(program);
  ASSERT_TRUE(first.death.has_value()) << first.result.value_or("");
  ASSERT_TRUE(sameFailure(deathSignature(*first.death), signature)) << deathSignature(*first.death);
  MinimizedFinding m = runner.value()->minimizeProgram(program, Failing::of(*first.death), /*fork_steps=*/true);
  EXPECT_FALSE(m.flaky) << m.finding.report;
  ASSERT_TRUE(m.program.has_value());
  EXPECT_GT(m.oracle_calls, 1);
  EXPECT_LT(m.nodes_after, m.nodes_before);
  EXPECT_NE(m.program->graph().find("polygamma_"), nullptr) << printProgramText(*m.program);
  IsolatedOutcome again = run(*m.program);
  ASSERT_TRUE(again.death.has_value());
  EXPECT_TRUE(sameFailure(deathSignature(*again.death), signature));
  // Its forked steps took time, which the finding carries to the campaign's minimize phase.
  EXPECT_GT(m.times.seconds[static_cast<size_t>(Phase::Minimize)], 0.0);
}

// Note [A finding must come back in a fresh process]: a worker that died in a case whose program
// runs to its end in a child of its own (a heap that an earlier case corrupted) gives no
// bucket; nor does a death while generating a seed that a child generates.
TEST(CaseRunner, ACrashThatDoesNotComeBackIsFlaky) {
  auto runner = CaseRunner::create(CaseSetup{});
  ASSERT_TRUE(runner.ok());
  auto p = runner.value()->generate(3);
  ASSERT_TRUE(p.ok()) << p.error().str();
  WorkerDeath died;
  died.phase = "D2";
  died.op = "aten::add";
  MinimizedFinding m = runner.value()->minimizeProgram(p.value(), Failing::of(died));
  EXPECT_TRUE(m.flaky);
  EXPECT_EQ(m.root.kind, "flaky");
  EXPECT_EQ(m.oracle_calls, 0);
  EXPECT_NE(m.finding.report.find("fresh child"), std::string::npos) << m.finding.report;

  died.phase = "generate";
  died.frame = "tc_newarray";
  const Failing in_generation = Failing::of(died);
  m = runner.value()->minimize(3, in_generation);
  EXPECT_TRUE(m.flaky) << m.finding.report;
  EXPECT_EQ(m.root.check, in_generation.check);
  EXPECT_FALSE(m.program.has_value());
}

}  // namespace
}  // namespace epsmith
