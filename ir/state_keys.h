// Renaming a program's state: the generator moves state into submodules, the minimizer
// moves it back out, and each must move the tensor's key with its target.
#pragma once

#include <string>
#include <utility>

#include "ir/program.h"

namespace epsmith {

// The state-dict or constants entry keyed `from` (a parameter or buffer, a non-persistent
// buffer) keyed `to` instead; nothing where neither holds `from`.
inline void renameStateKey(ExportedProgram& p, const std::string& from, const std::string& to) {
  if (auto moved = p.state_dict.extract(from)) {
    moved.key() = to;
    p.state_dict.insert(std::move(moved));
  }
  if (auto moved = p.constants.extract(from)) {
    moved.key() = to;
    p.constants.insert(std::move(moved));
  }
}

}  // namespace epsmith
