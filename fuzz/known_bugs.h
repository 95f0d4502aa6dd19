// The known-bugs list: upstream bugs a campaign counts but never files again.
//
// Note [Known bugs]
// One upstream bug often reaches a campaign through every op that can meet it: LibTorch's
// C++ functionalization losing a metadata mutation raises "Dimension out of range" at a
// select, "slice() cannot be applied to a 0-dim tensor" at a slice, and so on, a root cause
// per op (Note [Root causes]). Such a bug is a pattern, not a key: an entry names the check,
// the kind, a regex over the message template (or the template exactly), and what names the
// bug rather than its symptom: core ops of which any one makes a match (an op the root
// cause names by its class matches by its own name, for the minimizer may swap an op for
// another that shares the bug), program traits all of which the minimized program has
// (Note [Program traits]), or, for a crash, a regex over the frame it died in. An entry
// with none of the three is refused: ATen's generic messages ("Dimension out of range",
// "The size of tensor a ... must match") are exactly how a new bug shows, so a message
// alone must never hide one.
//
// An entry also says what it is: which path meets it (a user's, `cpp-only`: LibTorch's C++
// functionalization in a process without Python, or `by-design` with the documentation
// that says so), its upstream issue or "unreported", the releases it was seen on (never an
// open range: a release no one checked it on matches nothing, so its findings are filed
// and looked at), the newest release its torch-only script was run on, the release that
// fixed it (it stops matching there) and the script (docs/repro.md).
//
// A finding is matched twice. Before minimization only its raising op is known, so only an
// entry naming that op may match then; after, the minimized program's core ops and traits
// are, and every entry may. The checked-in list is corpus/known.json (docs/fuzzing.md,
// "Known bugs"); `epsmith known --check` runs its scripts.
#pragma once

#include <regex>
#include <string>
#include <vector>

#include "fuzz/root_cause.h"
#include "ir/diagnostic.h"

namespace epsmith {

// Which path meets a known bug (Note [Known bugs]).
enum class KnownPath { User, CppOnly, ByDesign };
std::string_view knownPathName(KnownPath p);  // "user", "cpp-only", "by-design"

struct KnownBug {
  std::string id;                   // "cpp-functionalization-meta-in-python"
  std::vector<std::string> checks;  // one, or a list in the file; none: any
  std::vector<std::string> kinds;   // one, or a list in the file; none: any
  std::string template_is;          // the message template, exactly; "": any
  std::string message;              // an ECMAScript regex searched in the template; "": any
  std::regex message_regex;
  std::vector<std::string> ops;     // core op names, any one of which matches
  std::vector<std::string> traits;  // program traits all of which the root cause has
  std::string frame;                // a regex searched in a crash's frame; "": none named
  std::regex frame_regex;
  KnownPath path = KnownPath::User;
  std::string doc;                // by-design: where PyTorch documents it
  std::string issue;              // "https://github.com/pytorch/pytorch/issues/105105"
                                  // or "unreported"
  std::vector<std::string> seen;  // releases it was seen on: "2.11", "2.13"
  std::string checked;            // the newest release its script ran on; "": none
  std::string fixed;              // the release that fixed it; "": not fixed
  std::string why;                // what it is
  // The torch-only script that shows it, beside a case of it (docs/repro.md):
  // "corpus/regressions/<bucket>/repro.py"; "" where no case keeps a program.
  std::string repro;
};

// When a finding is matched (Note [Known bugs]).
enum class MatchStage {
  Raised,     // before minimization: only the raising op is known
  Minimized,  // the minimized program's core ops and traits are known
};

class KnownBugs {
 public:
  // A bad file is an error naming the file and the entry's JSON path.
  static Expected<KnownBugs> load(const std::string& path);
  static Expected<KnownBugs> parse(std::string_view text, const std::string& where);
  // The first entry that `root`, found on LibTorch `version` ("2.13.0"), is an instance of;
  // null when none is.
  const KnownBug* match(const RootCause& root, const std::string& version,
                        MatchStage stage = MatchStage::Minimized) const;
  const std::vector<KnownBug>& bugs() const { return bugs_; }

 private:
  std::vector<KnownBug> bugs_;
};

// "2.13.0+cpu" → "2.13": the release a known bug is seen, checked and fixed on.
std::string releaseOf(std::string_view version);
// Whether release `a` ("2.11") comes before `b` ("2.13"); releases compare by number.
bool releaseBefore(std::string_view a, std::string_view b);

}  // namespace epsmith
