// The known-bugs list: upstream bugs a campaign counts but never files again.
//
// Note [Known bugs]
// One upstream bug often reaches a campaign through every op that can meet it: LibTorch's
// C++ functionalization losing a metadata mutation raises "Dimension out of range" at a
// select, "slice() cannot be applied to a 0-dim tensor" at a slice, and so on, a root cause
// per op (Note [Root causes]). Such a bug is a pattern, not a key: an entry names the check,
// the kind, a regex over the message template, the core ops of which any one makes a match
// (none: any ops; an op the root cause names by its class matches by its own name, for
// the minimizer may swap an op for another that shares the bug), and the LibTorch releases it applies to, with its PyTorch issue or why it
// is known; or, for a family a campaign triaged, its message template exactly. A finding that matches is counted under the entry and never filed: before its
// minimization where its fields already match (an entry naming ops matches then only
// through the raising op), else once its minimized program's core ops are known; an entry
// naming program traits matches only then (Note [Program traits]). The
// checked-in list is corpus/known.json (docs/fuzzing.md, "Known bugs").
#pragma once

#include <regex>
#include <string>
#include <vector>

#include "fuzz/root_cause.h"
#include "ir/diagnostic.h"

namespace epsmith {

struct KnownBug {
  std::string id;                     // "cpp-functionalization-meta-in-python"
  std::vector<std::string> checks;    // one, or a list in the file; none: any
  std::vector<std::string> kinds;     // one, or a list in the file; none: any
  std::string template_is;            // the message template, exactly; "": any
  std::string message;                // an ECMAScript regex searched in the template; "": any
  std::regex message_regex;
  std::vector<std::string> ops;       // core op names, any one of which matches; none: any
  std::vector<std::string> traits;    // program traits all of which the root cause has
                                      // (Note [Program traits]); none: any program
  std::vector<std::string> libtorch;  // release prefixes ("1.13", "2."); none: every release
  std::string issue;                  // "https://github.com/pytorch/pytorch/issues/105105"
  std::string why;                    // what it is, and why it is known without an issue
  // The torch-only script that shows it, beside a case of it (docs/repro.md), and that
  // case's class: "corpus/regressions/<bucket>/repro.py"; "" where no case keeps a program.
  std::string repro;
};

class KnownBugs {
 public:
  // A missing file is an empty list only where the caller says so; a bad one is an error
  // naming the file and the entry's JSON path.
  static Expected<KnownBugs> load(const std::string& path);
  static Expected<KnownBugs> parse(std::string_view text, const std::string& where);
  // The first entry that `root`, found on LibTorch `version` ("2.13"), is an instance of;
  // null when none is.
  const KnownBug* match(const RootCause& root, const std::string& version) const;
  const std::vector<KnownBug>& bugs() const { return bugs_; }

 private:
  std::vector<KnownBug> bugs_;
};

}  // namespace epsmith
