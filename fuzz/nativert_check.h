// D9: a C++ runtime that loads .pt2 archives (NativeRT, oracle/nativert.h) agrees with
// eager on the case's inputs. Internal to fuzz/ (checks.cpp runs it).
#pragma once

#include <cstdint>

#include "fuzz/check_steps.h"

namespace epsmith {
class ArchiveRuntime;
}

namespace epsmith::check_detail {

// The form a case hands the runtime when the options name none, drawn from its seed
// (Note [What D9 hands NativeRT]).
NativeForm drawnNativeForm(uint64_t case_seed);

// D9 on `p`, whose eager run is `eager`, with `runtime` (null: skipped with `why_not`).
CheckOutcome d9(const ExportedProgram& p, const RunResult& eager, ArchiveRuntime* runtime, const std::string& why_not,
                const CheckOptions& options, PhaseTimes* times);

}  // namespace epsmith::check_detail
