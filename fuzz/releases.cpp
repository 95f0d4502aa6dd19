// Running a finding's script under every installed torch (fuzz/releases.h).
//
// Note [The releases a finding affects]
// PyTorch's triage asks first whether a bug is a regression from the previous release, and
// treats one as the most urgent kind of report; a bug already fixed in the newest release is
// not worth filing. So a finding's torch-only script is run not only with the peer's torch
// (which classifies it: Note [A finding confirmed by torch alone]) but under every Python
// torch installed beside it, each in its own environment (ci/install-deps.sh makes .venv with
// 2.13 and .venv-2.14 with 2.14.1; a .venv-2.11 is read where someone made one). Each run is
// judged as the classifying one is: it shows the case's finding, passes (exit 0), shows
// another difference, or cannot run. Only the runs that show or pass decide the phrase: a
// release that cannot run the script says nothing of the bug. Oldest first, a release that
// passes followed by one that shows is a regression in the latter; the newest passing after
// the last showing is where it was fixed. The runs happen once per new root cause and once
// per case that `epsmith report` or `replay --releases` is asked about, never per case run.
#include "fuzz/releases.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <tuple>

#include "oracle/torch_peer.h"

namespace epsmith {
namespace {

// "2.14.1+cu130" → (2, 14, 1); parts that are not numbers count as 0.
std::tuple<long, long, long> versionParts(const std::string& torch) {
  long part[3] = {0, 0, 0};
  std::istringstream in(torch.substr(0, torch.find('+')));
  std::string word;
  for (int i = 0; i < 3 && std::getline(in, word, '.'); ++i) part[i] = std::strtol(word.c_str(), nullptr, 10);
  return {part[0], part[1], part[2]};
}

// "2.14.1+cu130" → "2.14.1": the release, as a report names it.
std::string releaseName(const std::string& torch) { return torch.substr(0, torch.find('+')); }

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::string releaseOutcomeOf(const CaseFile& c, const ScriptRun& run) {
  const UpstreamRecord r = classifyScriptRun(c, run);
  if (r.cls == UpstreamClass::TorchConfirmed) return "shows";
  if (run.exit_code == 0) return "passes";
  if (run.exit_code == 1 && run.output.find("\nthe bug shows") != std::string::npos) return "another difference";
  return "cannot run";
}

std::vector<ReleaseRun> runUnderEveryRelease(const CaseFile& c, const std::string& script, int timeout_seconds,
                                             const ScriptRun* first, bool until_shown) {
  std::vector<ReleaseRun> runs;
  for (const std::string& python : releasePythons()) {
    const bool given = runs.empty() && first;
    runs.push_back({python, given ? *first : runCaseScript(c, script, timeout_seconds, python, until_shown)});
  }
  return runs;
}

std::vector<ReleaseOutcome> outcomesOf(const CaseFile& c, const std::vector<ReleaseRun>& runs) {
  std::vector<ReleaseOutcome> outcomes;
  for (const ReleaseRun& r : runs) outcomes.push_back({r.torch(), releaseOutcomeOf(c, r.run)});
  sortByRelease(outcomes);
  return outcomes;
}

std::vector<ReleaseOutcome> runOnReleases(const CaseFile& c, const std::string& script, const ScriptRun& first,
                                          int timeout_seconds) {
  return outcomesOf(c, runUnderEveryRelease(c, script, timeout_seconds, &first));
}

void sortByRelease(std::vector<ReleaseOutcome>& outcomes) {
  std::stable_sort(outcomes.begin(), outcomes.end(), [](const ReleaseOutcome& a, const ReleaseOutcome& b) {
    return versionParts(a.torch) < versionParts(b.torch);
  });
}

std::string releasesPhrase(const std::vector<ReleaseOutcome>& outcomes) {
  std::vector<const ReleaseOutcome*> decided;
  for (const auto& o : outcomes) {
    if (o.outcome == "shows" || o.outcome == "passes") decided.push_back(&o);
  }
  std::vector<std::string> showing, all;
  for (const auto* o : decided) {
    all.push_back(releaseName(o->torch));
    if (o->outcome == "shows") showing.push_back(releaseName(o->torch));
  }
  if (decided.empty()) return "";
  if (showing.empty()) return "shows on none of " + joined(all);
  std::string phrase;
  for (size_t i = decided.size(); i-- > 1;) {
    if (decided[i]->outcome == "shows" && decided[i - 1]->outcome == "passes") {
      phrase = "**regression in " + releaseName(decided[i]->torch) + "** (passes on " +
               releaseName(decided[i - 1]->torch) + "); ";
      break;
    }
  }
  phrase += "affects " + joined(showing);
  if (decided.back()->outcome == "passes") {
    size_t fixed = decided.size() - 1;
    while (fixed > 0 && decided[fixed - 1]->outcome == "passes") --fixed;
    phrase += "; fixed in " + releaseName(decided[fixed]->torch);
  }
  return phrase;
}

std::string releasesTried(const std::vector<ReleaseOutcome>& outcomes) {
  std::vector<std::string> tried;
  for (const auto& o : outcomes) tried.push_back(o.torch + " (" + o.outcome + ")");
  return tried.empty() ? "none" : joined(tried);
}

}  // namespace epsmith
