// `epsmith perf`: times programs in the run modes of the LibTorch under test, and compares
// two timing files (two LibTorch builds, or two modes of one), docs/perf.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/diagnostic.h"
#include "ir/program.h"

namespace epsmith::perf {

// The modes a program is timed in: eager on the TRAINING program, epsmith's functionalized
// (ATEN) program, LibTorch's functionalization of the TRAINING program, NativeRT.
enum class Mode : uint8_t { Eager, Functionalized, LibTorchFunctionalize, NativeRT };
inline constexpr Mode kAllModes[] = {Mode::Eager, Mode::Functionalized, Mode::LibTorchFunctionalize, Mode::NativeRT};
std::string_view modeName(Mode m);  // "eager", "functionalized", "libtorch-functionalize", "nativert"
std::optional<Mode> modeFromName(std::string_view name);

struct TimingOptions {
  std::vector<Mode> modes{std::begin(kAllModes), std::end(kAllModes)};
  int warmup = 3;  // untimed runs per mode, in each round, before the first timed one
  int reps = 5;    // timed runs per mode and round, interleaved across modes
  int rounds = 3;  // passes over all the programs (Note [Timing in rounds])
};

// One program in one mode.
struct ModeTiming {
  std::vector<double> micros;  // one per repetition; empty when `error` is set
  // op target -> per round, the median over its repetitions of the op's time in kernels
  std::map<std::string, std::vector<double>> op_micros;
  std::string error;  // why there is no timing: the run raised, the form was refused
};

struct ProgramTiming {
  std::string id;                           // "seed:17", or the program file's path
  std::string reproduce;                    // the command that times this program alone
  uint64_t digest = 0;                      // of its ops and inputs: a compare pairs only the same program
  std::string error;                        // unreadable, or the timing child died; then `modes` is empty
  std::map<std::string, ModeTiming> modes;  // by mode name
};

struct TimingFile {
  std::string libtorch;  // "2.13.0"
  std::string label;     // what the user called this run (--label), or empty
  TimingOptions options;
  std::map<std::string, std::string> unavailable;  // mode name -> why it is not timed in this build
  std::vector<ProgramTiming> programs;
};

// Times `p` in every mode of `options` in this process, for one round; a mode `p` cannot run
// in records why.
ProgramTiming timeProgram(const ExportedProgram& p, const TimingOptions& options);
// Adds the rounds of `more` (the same program's) to `total`: repetitions and op times
// appended; a mode that failed in either has no timing.
void addRounds(ProgramTiming& total, ProgramTiming more);
// `more`'s programs added to `total`'s, by id (--append); an error when they were timed
// otherwise (another LibTorch, other modes or repetitions) or are other programs.
std::optional<Diagnostic> addRounds(TimingFile& total, TimingFile more);
// A fingerprint of `p`'s ops and user inputs, so that "seed:7" of one build is known to be
// another program than "seed:7" of another.
uint64_t programDigest(const ExportedProgram& p);

std::string timingJson(const ProgramTiming& t);
Expected<ProgramTiming> readProgramTiming(std::string_view json);
std::string timingFileJson(const TimingFile& f);
Expected<TimingFile> readTimingFile(const std::string& path);

double median(std::vector<double> v);

}  // namespace epsmith::perf
