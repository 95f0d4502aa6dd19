// The releases a finding affects: its torch-only script run under every installed Python
// torch, and the phrase a report gives it ("affects 2.13.0; fixed in 2.14.1",
// "**regression in 2.14.1** (passes on 2.13.0); ..."). Note [The releases a finding affects].
#pragma once

#include <string>
#include <vector>

#include "fuzz/corpus.h"
#include "fuzz/upstream.h"
#include "oracle/torch_peer.h"

namespace epsmith {

// What one run of case `c`'s script says of its finding: "shows", "passes", "another
// difference" or "cannot run".
std::string releaseOutcomeOf(const CaseFile& c, const ScriptRun& run);

// Case `c`'s script run under each Python of releasePythons() (oracle/torch_peer.h), in its
// order (the peer's first); `first`, where given, is the peer's run already made;
// `until_shown` as runCaseScript's.
struct ReleaseRun {
  std::string python;
  ScriptRun run;
  std::string torch() const { return run.torch.empty() ? python : run.torch; }
};
std::vector<ReleaseRun> runUnderEveryRelease(const CaseFile& c, const std::string& script, int timeout_seconds,
                                             const ScriptRun* first = nullptr, bool until_shown = false);

// The outcome of each run of runUnderEveryRelease, oldest release first.
std::vector<ReleaseOutcome> outcomesOf(const CaseFile& c, const std::vector<ReleaseRun>& runs);

// outcomesOf(c, runUnderEveryRelease(c, script, timeout_seconds, &first)).
std::vector<ReleaseOutcome> runOnReleases(const CaseFile& c, const std::string& script, const ScriptRun& first,
                                          int timeout_seconds);

// Orders `outcomes` oldest release first.
void sortByRelease(std::vector<ReleaseOutcome>& outcomes);

// "affects 2.13.0, 2.14.1"; "affects 2.13.0; fixed in 2.14.1"; "**regression in 2.14.1**
// (passes on 2.13.0); affects 2.14.1"; "shows on none of 2.13.0, 2.14.1"; "" when no run
// decided. Only runs that show or pass decide; the others are named in "releases tried".
std::string releasesPhrase(const std::vector<ReleaseOutcome>& outcomes);

// "2.13.0+cpu (shows), 2.14.1+cu130 (passes)".
std::string releasesTried(const std::vector<ReleaseOutcome>& outcomes);

}  // namespace epsmith
