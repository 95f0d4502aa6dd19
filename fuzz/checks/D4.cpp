// D4: the program vs its text, JSON and .pt2 forms read back: structurally equal
// (ir/program_diff.h), and the form read back last, run, gives the same results.
#include "fuzz/check_steps.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "formats/json_format.h"
#include "formats/text_format.h"
#include "ir/program_diff.h"
#include "oracle/pt2_archive.h"
#include "oracle/torch_schema.h"

namespace epsmith::check_detail {

namespace {

// Note [Round trips drawn per case]
// D4 keeps the harness honest: written in the text form, the JSON form or a .pt2 archive
// and read back, a program must be itself again, and run the same. Both round trips together cost a third
// of a whole case (printing, parsing, writing and reading a program is far more work than
// running its 16 ops), and whether a form gives a program back depends on what the program
// holds, not on which other form was tried first. So, as with D6's corruptions
// (Note [Corruptions drawn per case]), a campaign case round-trips one form, drawn from its
// seed, and runs what it read back; over a campaign each form still goes round thousands
// of programs a minute. `epsmith check` tries all three, text first, and runs the last;
// minimization and replay try the form the finding names
// (Note [Re-runs focus on the finding]): every D4 kind names its form, a program read back equal that runs
// differently too.
using Form = RoundTripForm;

std::string_view formName(Form f) { return f == Form::Text ? "text" : f == Form::Json ? "JSON" : ".pt2"; }
std::string_view variantName(Form f) { return roundTripVariant(f); }
constexpr const auto& kForms = kRoundTripForms;

// A D4 finding where LibTorch's generated serialization types read the program's JSON
// otherwise than epsmith wrote it (Note [Schema conformance in C++]). Asked in the JSON
// form's round trip only: a question costs ~0.4 ms for a 16-op program, a third of a case.
std::optional<CheckOutcome> conformsToTorchSchema(const ExportedProgram& p) {
  if (!torchSchemaTypesAvailable()) return std::nullopt;
  auto json = exportedProgramJson(p);
  if (!json.ok()) return std::nullopt;  // the forms' own round trips say why
  auto d = torchSchemaDisagreement(json.value());
  if (!d) return std::nullopt;
  CheckOutcome o = finding(DiffCheck::D4, "schema-nonconforming", "",
                           "LibTorch's generated serialization types read the JSON otherwise: " + *d,
                           std::string(variantName(Form::Json)));
  o.message = d->substr(0, d->find(':'));
  return o;
}

// `p` written in `form` and read back, or the D4 finding that says why it is not `p` again
// (structurally: ir/program_diff.h), or nothing where the form cannot hold `p`.
std::variant<ExportedProgram, CheckOutcome, std::monostate> readBack(Form form, const ExportedProgram& p) {
  const std::string prefix = kindPrefix(form), variant(variantName(form));
  std::optional<Expected<ExportedProgram>> back;
  if (form == Form::Text) {
    back.emplace(parseProgramText(printProgramText(p)));
  } else if (form == Form::Pt2) {
    auto archive = writeProgramPt2(p);
    if (!archive.ok()) {
      if (pt2CannotHold(p)) return std::monostate{};  // docs/pt2-format.md: the form is skipped
      return finding(DiffCheck::D4, "pt2-unwritable", "", archive.error().str(), variant);
    }
    back.emplace(readProgramPt2(archive.value()));
  } else {
    auto json = writeProgramJson(p, JsonLayout::Compact);  // the indented layout only adds spaces
    if (!json.ok()) return finding(DiffCheck::D4, "json-unwritable", "", json.error().str(), variant);
    if (auto d = conformsToTorchSchema(p)) return std::move(*d);
    back.emplace(readProgramJson(json.value()));
  }
  if (!back->ok()) return finding(DiffCheck::D4, prefix + "unreadable", "", back->error().str(), variant);
  if (auto d = programDiff(p, back->value()); !d.empty()) {
    return finding(DiffCheck::D4, prefix + "round-trip-differs", "",
                   "the " + std::string(formName(form)) + " form read back differs: " + d, variant);
  }
  return std::move(back->value());
}

CheckOutcome d4(const ExportedProgram& p, const RunResult& eager, const CheckOptions& options, PhaseTimes* times) {
  std::vector<Form> forms(std::begin(kForms), std::end(kForms));
  if (options.round_trip) forms = {*options.round_trip};
  std::optional<ExportedProgram> back;
  std::vector<Form> read;  // the forms that could hold the program
  {
    PhaseClock clock(times, Phase::Compare);
    for (Form form : forms) {
      auto r = readBack(form, p);
      if (auto* o = std::get_if<CheckOutcome>(&r)) return std::move(*o);
      if (auto* program = std::get_if<ExportedProgram>(&r)) back = std::move(*program), read.push_back(form);
    }
  }
  if (!back) return skip(DiffCheck::D4, "a .pt2 cannot hold this program (docs/pt2-format.md)");
  forms = read;
  const std::string ran(formName(forms.back()));
  CheckOutcome o = compare(DiffCheck::D4, eager, run(*back, RunOptions(RunMode::Eager, options.device), times), times);
  if (o.status == Status::Finding) {
    o.kind = kindPrefix(forms.back()) + "round-trip-runs-differently";
    o.variant = variantName(forms.back());
    o.op.clear();  // an exception in a round trip's run is the round trip's finding
    o.report = "the " + ran + " form read back runs differently: " + o.report;
  } else {
    std::string names;
    for (size_t i = 0; i < forms.size(); ++i) {
      names += std::string(i == 0 ? "" : i + 1 == forms.size() ? " and " : ", ") + std::string(formName(forms[i]));
    }
    o.report = forms.size() == 1 ? "the " + ran + " form read back, run"
                                 : "the " + names + " forms read back, the " + ran + " form run";
  }
  return o;
}

}  // namespace

std::string_view roundTripVariant(RoundTripForm f) {
  return f == Form::Text ? "text" : f == Form::Json ? "json" : "pt2";
}

std::string kindPrefix(RoundTripForm f) { return std::string(roundTripVariant(f)) + "-"; }

CheckOutcome runD4(CheckContext& c) { return d4(c.program, c.eager, c.options, c.options.times); }

void focusD4(const CheckOutcome& finding, CheckOptions& options) {
  for (RoundTripForm form : kRoundTripForms) {
    if (finding.variant == roundTripVariant(form)) options.round_trip = form;
  }
}

}  // namespace epsmith::check_detail
