// What each libFuzzer target (fuzz/targets/README.md) makes of its input, in one place: the
// targets run it, and `epsmith import-crash` remakes from a crash input the very program the
// target ran.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/checks.h"
#include "generators/op_catalog.h"
#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith {

enum class FuzzTarget : uint8_t { JsonReader, TextParser, Pt2Reader, Verifier, Functionalizer, Case };
constexpr FuzzTarget kAllFuzzTargets[] = {FuzzTarget::JsonReader, FuzzTarget::TextParser,     FuzzTarget::Pt2Reader,
                                          FuzzTarget::Verifier,   FuzzTarget::Functionalizer, FuzzTarget::Case};
std::string_view fuzzTargetName(FuzzTarget t);  // "json_reader"
std::optional<FuzzTarget> fuzzTargetFromName(std::string_view name);

// Whether the target's input is fuzzer bytes that drive the generator (functionalizer, case)
// rather than a program file's bytes.
bool generatesFromBytes(FuzzTarget t);

// The program the target makes of `bytes`: generated from them as a byte stream
// (functionalizer: 8 calls; case: the defaults), or read as the file form the target reads
// (the verifier: JSON when the first significant byte is '{', else text). An error when the
// bytes make none.
Expected<ExportedProgram> fuzzInputProgram(FuzzTarget t, std::string_view bytes, const OpCatalog& catalog);

// The checks the target runs on its program: D1 (functionalizer); every one that runs in
// the process, D1, D2, D3, D4, D6 and D9 (case). None for the others.
std::vector<DiffCheck> checksRun(FuzzTarget t);
// Those among them whose findings stop the target: the checks of epsmith itself (D1; D1,
// D4 and D6), not LibTorch's (D2, D3, D9), which campaigns count.
std::vector<DiffCheck> checksHeldTo(FuzzTarget t);

}  // namespace epsmith
