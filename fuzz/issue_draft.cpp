// issue.md: a finding as PyTorch's bug report template asks for one (pytorch/pytorch's
// .github/ISSUE_TEMPLATE/pt2-bug-report.yml): what happens, a self-contained script, what it
// printed, the versions; with the labels, severity and duplicate search a filer needs.
#include <algorithm>
#include <filesystem>
#include <set>

#include "fuzz/releases.h"
#include "fuzz/root_cause.h"
#include "fuzz/upstream.h"
#include "ir/op_info.h"
#include "oracle/program_io.h"

namespace epsmith {
namespace {

struct PathWords {
  const char* area;   // the title's tag
  const char* path;   // what ran, in a phrase
  const char* label;  // the oncall or module label
};

PathWords wordsOf(const std::string& check) {
  // Note [The functional form in scripts]: both runs are eager, the path in the functional
  // ops (and layouts) of the program's writes.
  if (check == "D1") return {"aten", "the functional form", "module: cpu"};
  if (check == "D2") return {"functionalization", "torch.func.functionalize", "module: functionalization"};
  if (check == "D3") return {"cuda", "the CUDA kernel", "module: cuda"};
  if (check == "D5") return {"export", "ExportedProgram.module()", "oncall: export"};
  if (check == "D7") return {"export", "torch.export.save/load", "oncall: export"};
  return {"export", "run_decompositions({}).module()", "oncall: export"};
}

// The API whose line of the script's `path` raised: "torch.export.export" where export
// itself raised; "" where the output names no step or the step is the module's run, which
// the check's own words name. Note [Scripts name the step that raised]
std::string raisingStep(const std::string& output) {
  const size_t raised = output.find("the path raised");
  if (raised == std::string::npos) return "";
  const std::string line = output.substr(raised, output.find('\n', raised) - raised);
  const size_t at = line.rfind(" in `");
  if (at == std::string::npos) return "";
  const std::string step = line.substr(at + 5);
  for (const char* api : {"run_decompositions({})", "torch.export.save", "torch.export.load", "torch.export.export"}) {
    if (step.find(std::string(api).substr(0, std::string(api).find('('))) != std::string::npos) return api;
  }
  if (step.find("ep.module()") != std::string::npos) return "ExportedProgram.module()";
  return "";
}

std::string severityOf(const std::string& kind, const std::string& output, const UpstreamRecord& r) {
  if (kind.rfind("crash", 0) == 0 || r.reason.find("a crash in torch") != std::string::npos) return "crash";
  if (kind == "value-mismatch" || kind == "shape-mismatch" || kind == "dtype-mismatch") return "silent wrong result";
  if (output.find("eager ran; the path raised") != std::string::npos) return "spurious error (eager runs the program)";
  if (output.find("; the path ran") != std::string::npos) return "silent: an error eager raises is not raised";
  return "spurious error";
}

// The ATen ops the case's program calls, in order, each once ("aten::broadcast_to").
std::vector<std::string> programOps(const CaseFile& c) {
  std::vector<std::string> ops;
  if (!c.program) return ops;
  for (const Node& n : c.program->graph().nodes()) {
    const OpInfo* op = n.atenOp();
    if (op && std::find(ops.begin(), ops.end(), op->name()) == ops.end()) ops.push_back(op->name());
  }
  return ops;
}

// "`aten::prod.int_out`", or the program's ops where the finding names none.
std::string opsPhrase(const CaseFile& c) {
  if (!c.finding.op.empty()) return "`" + c.finding.op + "`";
  const std::vector<std::string> ops = programOps(c);
  if (ops.empty() || ops.size() > 4) return "a program of " + std::to_string(ops.size()) + " ops";
  std::string phrase;
  for (size_t i = 0; i < ops.size(); ++i)
    phrase += (i == 0 ? "`" : i + 1 == ops.size() ? " and `" : ", `") + ops[i] + "`";
  return phrase;
}

std::string titleOf(const CaseFile& c, const std::string& output) {
  const PathWords w = wordsOf(c.check);
  const std::string step = raisingStep(output);
  const std::string op = opsPhrase(c);
  // The message in torch's words: where in a subgraph epsmith's run raised is not.
  const std::string said(outsideSubgraphs(c.finding.message).substr(0, 90));
  std::string what;
  if (c.finding.kind == "value-mismatch")
    what = " computes other values than eager for " + op;
  else if (c.finding.kind == "shape-mismatch")
    what = " gives another shape than eager for " + op;
  else if (c.finding.kind == "dtype-mismatch")
    what = " gives another dtype than eager for " + op;
  else if (c.finding.kind.rfind("crash", 0) == 0)
    what = " crashes the process (" + c.finding.kind + ") in " + op;
  else if (output.find("eager ran; the path raised") != std::string::npos)
    what = " raises where eager runs: " + said;
  else if (output.find("; the path ran") != std::string::npos)
    what = " runs where eager raises: " + said;
  else if (!c.finding.message.empty())
    what = " disagrees with eager on raising: " + said;
  else
    what = " disagrees with eager on " + op;
  return "[" + std::string(w.area) + "] " + (step.empty() ? std::string(w.path) : step) + what;
}

std::vector<std::string> labelsOf(const CaseFile& c) {
  std::vector<std::string> labels{wordsOf(c.check).label, "topic: fuzzer"};
  if (c.finding.kind == "value-mismatch" || c.finding.kind == "shape-mismatch" || c.finding.kind == "dtype-mismatch") {
    labels.push_back("module: correctness (silent)");
  }
  if (c.finding.kind.rfind("crash", 0) == 0) labels.push_back("module: crash");
  return labels;
}

// Terms to search pytorch/pytorch's issues with before filing.
std::vector<std::string> searchTermsOf(const CaseFile& c) {
  std::vector<std::string> terms;
  std::vector<std::string> ops = c.finding.op.empty() ? programOps(c) : std::vector<std::string>{c.finding.op};
  for (std::string op : ops) {
    if (auto colons = op.find("::"); colons != std::string::npos) op = op.substr(colons + 2);
    op = op.substr(0, op.find('.'));
    terms.push_back(op + " " + wordsOf(c.check).path);
    terms.push_back(std::string("label:\"") + wordsOf(c.check).label + "\" " + op);
  }
  if (c.finding.kind.find("mismatch") == std::string::npos && !c.finding.message.empty())
    terms.push_back("\"" + c.finding.message.substr(0, 60) + "\"");
  return terms;
}

}  // namespace

std::string issueDraft(const CaseFile& c, const std::string& script, const ScriptRun& run, const UpstreamRecord& r,
                       const std::string& environment) {
  std::string labels;
  for (const auto& l : labelsOf(c)) labels += (labels.empty() ? "`" : ", `") + l + "`";
  std::string md = "# " + titleOf(c, run.output) + "\n\n";
  md += "Suggested labels: " + labels + "\n\n";
  md += "### 🐛 Describe the bug\n\n";
  const std::string step = raisingStep(run.output);
  md += (step.empty() ? std::string(wordsOf(c.check).path) : step) + " and eager disagree on the program below (" +
        severityOf(c.finding.kind, run.output, r) +
        "). Found by a fuzzer (epsmith) and minimized; the script needs only torch, compares with eager under "
        "default tolerances and an fp64 reference, and exits 1 when the bug shows.\n\n";
  md += "```python\n" + script + (script.empty() || script.back() == '\n' ? "" : "\n") + "```\n\n";
  md += "Output on torch " + (run.torch.empty() ? std::string("(unknown)") : run.torch) + ":\n\n```\n" + run.output +
        (run.output.empty() || run.output.back() == '\n' ? "" : "\n") + "```\n\n";
  md += "Expected: what eager computes. Actual: " + r.reason + "\n\n";
  if (const std::string releases = releasesPhrase(r.releases); !releases.empty()) {
    md += "Releases: " + releases + " (the script run under each installed torch).\n\n";
  }
  md += "### Versions\n\n```\n" + (environment.empty() ? "(torch.utils.collect_env could not run)\n" : environment) +
        "```\n\n";
  md += "### Before filing\n\n";
  md += "- class: " + std::string(upstreamClassName(r.cls)) + " (" + r.date + ")\n";
  md += "- severity: " + severityOf(c.finding.kind, run.output, r) + "\n";
  if (r.releases.empty()) {
    md += "- releases tried: " + (run.torch.empty() ? std::string("none") : run.torch) +
          (r.cls == UpstreamClass::TorchConfirmed ? " (shows)" : " (does not show)") + "\n";
  } else {
    md += "- releases tried: " + releasesTried(r.releases) + "\n";
  }
  md += "- search for duplicates:";
  for (const auto& t : searchTermsOf(c)) md += " `" + t + "`;";
  md += "\n- found by epsmith: " + c.bucket + ", seed " + std::to_string(c.provenance.seed) + "\n";
  return md;
}

Expected<UpstreamRecord> writeUpstreamBundle(const CaseFile& c, const std::string& dir, int timeout_seconds) {
  auto script = caseReproScript(c);
  if (!script.ok()) return script.error();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Diagnostic{dir, "cannot create the directory: " + ec.message()};
  const std::string repro = (std::filesystem::path(dir) / "repro.py").string();
  if (auto e = writeFileAtomically(repro, script.value())) return *e;
  const ScriptRun run = runCaseScript(c, script.value(), timeout_seconds);
  UpstreamRecord record = classifyScriptRun(c, run);
  record.releases = runOnReleases(c, script.value(), run, timeout_seconds);
  const std::string issue = (std::filesystem::path(dir) / "issue.md").string();
  if (auto e = writeFileAtomically(issue, issueDraft(c, script.value(), run, record, torchEnvironment()))) return *e;
  return record;
}

}  // namespace epsmith
