// The one schema of what crosses a process boundary in a campaign: a check's outcome, a
// failure being minimized, a worker's death and phase times, each as a JSON object whose
// members are the record's own fields. Case replies, minimize requests and replies, and a
// forked re-run's answer all use these, so a finding's fields reach the parent as the
// check made them and nothing is read back out of a report.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fuzz/checks.h"
#include "fuzz/failing.h"
#include "fuzz/phases.h"
#include "fuzz/workers.h"

namespace epsmith {

nlohmann::json toJson(const CheckOutcome& o);
nlohmann::json toJson(const WorkerDeath& d);
nlohmann::json toJson(const Failing& f);
nlohmann::json toJson(const PhaseTimes& t);  // the phases' seconds, then the part in ATen kernels

// A message's text: one line, bytes that are not UTF-8 (a kernel's message may hold any)
// replaced rather than refused.
std::string messageText(const nlohmann::json& message);

// The readers expect what the writers above wrote (both ends are this binary); a missing
// member throws nlohmann's exception, which ends a worker as any bug would.
CheckOutcome outcomeFrom(const nlohmann::json& j);
WorkerDeath deathFrom(const nlohmann::json& j);
Failing failingFrom(const nlohmann::json& j);
PhaseTimes timesFrom(const nlohmann::json& j);

}  // namespace epsmith
