// Replaying case files: each case's program (or, for a case without one, the program its
// seed and config make) runs the check that found it again, in a forked child so a crash
// replays as a crash. The signature now is compared with the one recorded; a run that does
// not match is tried again under other heap layouts (Note [Replaying memory errors]).
#pragma once

#include <string>

#include "fuzz/corpus.h"
#include "fuzz/workers.h"

namespace epsmith {

enum class ReplayVerdict : uint8_t {
  Reproduces,  // the recorded signature and message template again
  Fixed,       // no finding any more
  Changed,     // a different finding
};
std::string_view replayVerdictName(ReplayVerdict v);  // "reproduces", "fixed", "changed"

struct ReplayOutcome {
  ReplayVerdict verdict = ReplayVerdict::Reproduces;
  std::string now;          // the signature now ("" when fixed)
  std::string now_message;  // the template of its message (Note [A replay keeps the message])
  bool reproduced = false;  // `now` is the recorded failure, message included
  bool as_expected = true;  // what the case's status expects (open/known-upstream: reproduces;
                            // fixed: fixed; open/known-upstream found on another LibTorch:
                            // anything, Note [Cases found on another LibTorch])
  std::string fixed_in;     // this LibTorch ("2.13"), when a case found on another one no
                            // longer shows its recorded failure here
  std::string error;        // the case could not be replayed (its config no longer reads, ...)
  bool not_here = false;    // ... because this machine cannot run it, as expected: it calls
                            // operators only another LibTorch has
                            // (Note [Cases found on another LibTorch]), or its check is D3 and there is no CUDA here
  int runs = 0;             // runs made: 1, or more when the first did not reproduce
};

// Runs the case at most this many times, each under another heap layout, until one run
// shows the recorded signature.
constexpr int kReplayLayouts = 8;

ReplayOutcome replayCase(const CaseFile& c, const WorkerLimits& limits);

}  // namespace epsmith
