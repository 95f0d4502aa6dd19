// The regression corpus: one self-contained case file per bucket of failures, and the
// bucket names that make "one file per bucket" and "new bucket" mean something.
//
//   corpus/regressions/<bucket>/<id>.json
//
// A case file is JSON (docs/fuzzing.md): the expected verdict (check, kind, signature), its
// status (open, known-upstream, fixed), provenance (seed, generation config, LibTorch
// version, date, size before minimization) and the program in torch.export JSON with its
// example inputs and state. A case whose program could not be kept (a crash while it was
// generated) is remade from its seed and config. Files are written to a temporary name and
// renamed into place, so a campaign killed at any moment leaves whole files or none.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/diagnostic.h"
#include "fuzz/root_cause.h"
#include "ir/program.h"

namespace epsmith {

// Note [One memory error, several signals]
// A kernel that reads or frees memory it should not (LibTorch 1.13's functionalization
// reading a freed tensor) segfaults in one process and trips glibc's heap checks, an
// abort, in another: the same program, the same op, another heap layout. SIGSEGV, SIGABRT
// and SIGBUS deaths are therefore one kind, "crash-memory", wherever two failures are
// asked to be the same: bucket keys, a replay against its recorded signature, a crash's
// minimization steps. Signatures and reports keep the signal that was seen. Where the
// freed block is still intact the read does not fault at all: LibTorch's own assertions
// catch it ("isFunctionalTensor(t) INTERNAL ASSERT FAILED"), which tcmalloc, keeping freed
// blocks as they were, makes common. So a recorded memory crash also comes back as an
// exception in one run (exception-in-one) in the same check, raised at the crash's op or
// outside every op (as the results are read back), and a recorded exception in one run
// as a memory crash in the same check at the same op. Bucket keys still tell them apart
// (a crash's minimization must crash).
std::string crashKind(const std::string& kind);  // "crash-SIGABRT" → "crash-memory"
// Whether what a run shows `now` ("D2 crash-SIGSEGV aten::expm1_") is the failure `recorded`.
bool sameFailure(const std::string& now, const std::string& recorded);

enum class CaseStatus : uint8_t {
  Open,           // found, not yet explained
  KnownUpstream,  // the LibTorch it was found with gets it wrong; replay expects it still to
  Fixed,          // was a bug of ours; replay expects it to stay fixed (no finding)
};
std::string_view caseStatusName(CaseStatus s);

// Note [A finding confirmed by torch alone]
// A finding epsmith attributes to PyTorch is a claim until torch alone shows it, as PyTorch's
// rules for fuzzer reports ask. So the campaign (for each new root cause, after its cases)
// and `epsmith report` run the case's torch-only script (docs/repro.md) with the Python
// torch the peer uses, and the case records what that run established: torch-confirmed
// (the script exits 1), cpp-only (a D2 finding that torch.func.functionalize, Python's
// entry to the same kernels, does not show: LibTorch's C++ functionalization in a process
// without Python, where meta kernels registered from Python are missing; counted apart and
// never presented as an upstream bug), or unconfirmed (the script shows no difference,
// cannot run here, or ran out of time: the reason says which; often a bug of ours). Reports
// lead with the torch-confirmed.
enum class UpstreamClass : uint8_t { TorchConfirmed, CppOnly, Unconfirmed };
std::string_view upstreamClassName(UpstreamClass c);  // "torch-confirmed"
std::optional<UpstreamClass> upstreamClassFromName(std::string_view name);

// What the script did under one installed torch: "shows" (the case's finding), "passes",
// "another difference" or "cannot run" (Note [The releases a finding affects]).
struct ReleaseOutcome {
  std::string torch;    // "2.14.1+cu130"
  std::string outcome;  // "shows"
};

struct UpstreamRecord {
  UpstreamClass cls = UpstreamClass::Unconfirmed;
  std::string torch;                     // the release the script ran on: "2.13.0+cpu"
  std::string reason;                    // one line: what the script printed, or why it could not show it
  std::string date;                      // ISO 8601, UTC
  std::vector<ReleaseOutcome> releases;  // every installed torch it ran under, oldest first
};

struct Provenance {
  uint64_t seed = 0;        // the case's generator seed
  std::string config;       // the generation config's text ("" = defaults)
  int nodes = 16;           // ops per program asked for
  std::string libtorch;     // "2.13"
  std::string epsmith;      // epsmith's version (kEpsmithVersion)
  std::string date;         // ISO 8601, UTC
  size_t nodes_before = 0;  // call nodes before minimization
  size_t nodes_after = 0;
  int oracle_calls = 0;  // spent minimizing
};

struct CaseFile {
  std::string bucket;      // RootCause::id() (older files: the key of their time)
  std::string bucket_key;  // RootCause::str()
  // The root cause's core ops as the campaign found them (only runs can tell them,
  // Note [Ops a failure does not depend on]); none in older files, whose program's are taken.
  std::vector<std::string> core_ops;
  // The core names of the ops `core_ops` names by their class (`*op`, `*view:split`), which
  // a known bug's ops match too (RootCause::class_ops); none in older files, whose program's
  // ops that core_ops does not name are taken.
  std::vector<std::string> class_ops;
  // The expected verdict: the check (for a death outside every check, its phase), the
  // signature (failureSignature, or "<phase> <death> <op>" for a crash) and the finding
  // itself (a death's kind and op for a crash; `finding.check` is set where `check` names one).
  std::string check;
  std::string signature;
  CheckOutcome finding = blankFinding();
  CaseStatus status = CaseStatus::Open;
  std::string note;  // for people: why known upstream, which commit fixed it
  Provenance provenance;
  std::optional<ExportedProgram> program;  // none: remake it from the seed and config
  // For a case found on another LibTorch whose program this one cannot read (an operator
  // or overload it lacks): why, and `program` is empty (Note [Cases found on another LibTorch]).
  std::string program_unreadable_here;
  // What the case's torch-only script established, where it was run.
  std::optional<UpstreamRecord> upstream;
};

// The root cause a case file records (Note [Root causes]): its core ops, else its
// program's, else the recorded op where it keeps no program.
RootCause rootCauseOf(const CaseFile& c);

Expected<CaseFile> readCaseFile(const std::string& path);
Expected<CaseFile> parseCaseFile(const std::string& text, const std::string& where);
Expected<std::string> writeCaseFileText(const CaseFile& c);
// Whether `text` looks like a case file rather than a bare program.
bool isCaseFileText(const std::string& text);

// `dir`/regressions/<bucket>/<name>: written to `dir`/regressions/.incoming first, then
// renamed into place. Returns the path, or an error naming the file.
Expected<std::string> writeCaseAtomically(const std::string& dir, const std::string& name, const CaseFile& c);
// The buckets already in `dir`/regressions (directories holding a case file).
std::vector<std::string> existingBuckets(const std::string& dir);
// The known-bugs list's name in a corpus directory (fuzz/known_bugs.h).
inline constexpr const char* kKnownBugsFile = "known.json";
// The case files under each path (a file, or a directory searched recursively; hidden
// directories such as .incoming, and the known-bugs list, are skipped), in path order.
Expected<std::vector<std::string>> caseFilesUnder(const std::vector<std::string>& paths);

std::string libtorchVersion();  // "2.13"
std::string utcNow();           // "2026-11-22T07:38:48Z"

}  // namespace epsmith
