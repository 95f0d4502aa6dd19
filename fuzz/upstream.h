// What PyTorch is told of a finding attributed to it: the case's torch-only script
// (repro/python_repro.h) run with the Python torch the peer uses, the class that run
// establishes, and a bundle beside the case file: repro.py and an issue draft in PyTorch's
// style, issue.md (docs/repro.md, "Confirmed with torch alone").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "fuzz/corpus.h"
#include "ir/diagnostic.h"
#include "repro/python_repro.h"

namespace epsmith {

// One run of a script: `python -I repro.py` in a fresh empty directory.
struct ScriptRun {
  int exit_code = -1;  // -1: it did not exit (a signal, a time-out, a failure to start)
  int signal = 0;      // the signal that ended it
  bool timed_out = false;
  std::string output;  // standard output and error, interleaved
  std::string torch;   // the version its first line printed ("2.13.0+cpu"), or ""
};
// `python`: the interpreter, the peer's (torchPython()) when empty.
ScriptRun runReproScript(const std::string& script, int timeout_seconds, const std::string& python = "");

// The class a run of case `c`'s script establishes, with the reason in one line.
UpstreamRecord classifyScriptRun(const CaseFile& c, const ScriptRun& run);

// Case `c`'s script run until one run shows the case's difference, and that run; where what
// it shows may be a memory error, or `until_shown` (a known-bugs entry, which claims it
// shows), up to kMemoryErrorRuns runs (Note [A memory error in a script shows when it will]),
// else once.
inline constexpr int kMemoryErrorRuns = 5;
ScriptRun runCaseScript(const CaseFile& c, const std::string& script, int timeout_seconds,
                        const std::string& python = "", bool until_shown = false);

// The script `c`'s finding asks for on `path`: what it is named, and what it looks for.
ReproRequest reproRequestOf(const CaseFile& c, ReproPath path);

// The script of `p` for `request`, functionalized first by epsmith's functionalizer where the
// path is its functional form (an error says why the functionalizer refuses it).
Expected<std::string> reproScriptOf(const ExportedProgram& p, ReproRequest request);

// The script of case `c`: its program on its check's path (an error names why there is none:
// epsmith's own checks, a D1 case no one judged LibTorch's, D9, no program kept).
Expected<std::string> caseReproScript(const CaseFile& c);

// issue.md for case `c`: a title in PyTorch's style, suggested labels, the script inline, what
// it printed, severity, the releases tried, the versions (`environment`: the lines of
// torch.utils.collect_env) and terms for a duplicate search.
std::string issueDraft(const CaseFile& c, const std::string& script, const ScriptRun& run, const UpstreamRecord& r,
                       const std::string& environment);

// torch.utils.collect_env's report from the peer's Python, run once per process ("" where it
// cannot run).
const std::string& torchEnvironment();

// Writes `dir`/repro.py and `dir`/issue.md for case `c`, running the script once; returns
// what it established (an error where the case has no script or a file cannot be written).
Expected<UpstreamRecord> writeUpstreamBundle(const CaseFile& c, const std::string& dir, int timeout_seconds);

// Records `r` as case `c`'s class and rewrites its case file at `path` in place (written
// whole, then renamed); the error names the file.
std::optional<Diagnostic> recordUpstream(const std::string& path, CaseFile& c, const UpstreamRecord& r);

}  // namespace epsmith
