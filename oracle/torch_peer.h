// PyTorch's own export stack as a peer process: python/epsmith_peer.py, started once per
// process on first use and fed programs as torch.export.save archives over a pipe
// (docs/design.md, "The torch peer"). It answers what torch says of a program: whether
// torch.export.load (deserializer and verifier) accepts it, what ep.module() and the
// program after ep.run_decompositions({}) compute on its example inputs, and the decomposed
// program's signature. Comparing is the caller's (fuzz/checks.cpp: D5, D7, D8).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/diagnostic.h"
#include "oracle/run_result.h"

namespace epsmith {

// Torch's answer about one archive's loading.
struct PeerVerdict {
  bool accepts = false;
  std::string stage;    // "verify" (torch's verifier) or "load" (deserializing); "" when it accepts
  std::string type;     // the exception's class: "SpecViolationError"
  std::string message;  // its first line
};

// A signature as kinds and targets, user inputs by their place ("#0"), so programs with
// other placeholder names compare (Note [Signatures compared by kind and target]).
struct SpecList {
  using Entries = std::vector<std::pair<std::string, std::string>>;  // ("BUFFER", "calls")
  Entries inputs, outputs;
  friend bool operator==(const SpecList& a, const SpecList& b) {
    return a.inputs == b.inputs && a.outputs == b.outputs;
  }
  friend bool operator!=(const SpecList& a, const SpecList& b) { return !(a == b); }
};

struct PeerReply {
  std::string torch_version;
  std::vector<PeerVerdict> verdicts;  // one per archive asked about
  // ep.module() on the example inputs (asked with D5): outputs and the final parameters,
  // buffers and user inputs, named as RunResult names them; an exception is the error.
  std::optional<RunResult> module_run;
  // ep.run_decompositions({}) (asked with D8): its refusal, or its program's run and signature.
  std::optional<std::string> decompose_error;  // "SpecViolationError: Output x does not exist..."
  std::optional<RunResult> decomposed_run;
  std::optional<SpecList> decomposed_signature;
  // torch.export.save of the loaded program (asked with `resave`): the archive, or why not.
  std::optional<std::string> resaved, resave_error;
};

struct PeerRequest {
  bool module_run = false;            // D5
  bool decompose = false;             // D8
  bool resave = false;                // D7 across releases: the program saved again by this torch
  std::vector<std::string> archives;  // the program's .pt2 first; the others are only loaded
};

// Which release's peer to ask: the build's own (EPSMITH_PYTHON's torch), or another
// installed beside it (Note [Save and load across releases]).
enum class PeerRelease { Own, Other };

// Asks the process's peer, starting it on first use (and again after it died or timed out).
// Fails, with the reason, when the peer cannot be started (no Python, no torch, no module:
// the reason is the same every time and cheap to get again) or when it dies or takes more
// than `timeout_seconds` over one request; it is then ended, and the next call starts another.
Expected<PeerReply> askTorchPeer(const PeerRequest& request, int timeout_seconds = 120,
                                 PeerRelease release = PeerRelease::Own);

// The Python the peer runs: EPSMITH_PYTHON, else the build's venv Python, else python3.
std::string torchPython();
// The Pythons of every installed torch, the peer's first: EPSMITH_RELEASE_PYTHONS (paths
// joined by ':'), or else the checkout's environments (.venv, .venv-2.14, .venv-2.11), those
// that exist; each environment once (a venv's python links to an interpreter every venv
// shares, so environments compare by the path named).
std::vector<std::string> releasePythons();
// The other release's peer Python: EPSMITH_OTHER_PYTHON, else the second of
// releasePythons(); "" when there is none.
std::string otherReleasePython();
// torch.save((outputs, [[name, tensor], ...])) as a RunResult (the peer's results, and the
// tests' runs of reproducer scripts); throws what LibTorch's unpickler throws.
RunResult decodeTorchRun(const std::string& bytes);

// Why no peer can be started here, or nullopt when one runs (starting it if needed).
std::optional<std::string> torchPeerUnavailable();
// Starts, once, the zygote that processes forked from this one get their peers from
// (Note [A zygote for campaign peers]); the reason where it cannot start (no Python, no
// torch).
std::optional<std::string> startTorchZygote();

// The signature of `p` as the peer gives one.
class ExportedProgram;
SpecList specList(const ExportedProgram& p);

}  // namespace epsmith
