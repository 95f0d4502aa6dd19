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
#include "ir/program.h"

namespace epsmith {

// What makes two failures the same bug: the check, the verdict kind, the ops of the
// minimized program, and what went wrong (the raising op of an exception, the kind of the
// first differing output, the op a crashed worker was running).
struct BucketKey {
  std::string check;               // "D2", or the phase a worker died in ("generate")
  std::string kind;                // "exception-in-one", "crash-SIGSEGV", "timeout"; named
                                   // by its crashKind in str() and id()
  std::vector<std::string> ops;    // sorted, distinct: "aten::logical_not_"
  std::string detail;              // "aten::logical_not_", "output", "input buffer"
  std::string str() const;         // "D2|exception-in-one|aten::logical_not_|aten::logical_not_"
  // A directory name: check, kind and a hash of the rest: "D2-exception-in-one-3fa2c1d0".
  std::string id() const;
};

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

// The ATen targets of `p`'s graph, sorted and distinct.
std::vector<std::string> opSetOf(const ExportedProgram& p);
// "output 2" → "output", "input buffer:calls" → "input buffer", "%add_" → "node".
std::string whereKind(const std::string& where);

enum class CaseStatus : uint8_t {
  Open,           // found, not yet explained
  KnownUpstream,  // the LibTorch it was found with gets it wrong; replay expects it still to
  Fixed,          // was a bug of ours; replay expects it to stay fixed (no finding)
};
std::string_view caseStatusName(CaseStatus s);

struct Provenance {
  uint64_t seed = 0;               // the case's generator seed
  std::string config;              // the generation config's text ("" = defaults)
  int nodes = 16;                  // ops per program asked for
  std::string libtorch;            // "1.13"
  std::string epsmith;             // epsmith's version (kEpsmithVersion)
  std::string date;                // ISO 8601, UTC
  size_t nodes_before = 0;         // call nodes before minimization
  size_t nodes_after = 0;
  int oracle_calls = 0;            // spent minimizing
};

struct CaseFile {
  std::string bucket;              // BucketKey::id()
  std::string bucket_key;          // BucketKey::str()
  std::string check;               // the expected verdict:
  std::string kind;
  std::string signature;           // failureSignature, or "<phase> <death> <op>" for a crash
  std::string op, variant;         // the finding's fields (CheckOutcome); read from the
                                   // signature in case files that predate them
  std::string report;              // what the check printed when it was found
  CaseStatus status = CaseStatus::Open;
  std::string note;                // for people: why known upstream, which commit fixed it
  Provenance provenance;
  std::optional<ExportedProgram> program;  // none: remake it from the seed and config
  // For a case found on another LibTorch whose program this one cannot read (an operator
  // or overload it lacks): why, and `program` is empty (Note [Cases found on another LibTorch]).
  std::string program_unreadable_here;
};

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
// The case files under each path (a file, or a directory searched recursively; hidden
// directories such as .incoming are skipped), in path order.
Expected<std::vector<std::string>> caseFilesUnder(const std::vector<std::string>& paths);

std::string libtorchVersion();  // "1.13"
std::string utcNow();           // "2026-11-22T07:38:48Z"

}  // namespace epsmith
