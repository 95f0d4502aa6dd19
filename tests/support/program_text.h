// Test helper: a program from its text form, failing the current test (with the located
// error) when it does not parse.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "formats/text_format.h"

namespace epsmith::test {

inline ExportedProgram parse(const std::string& text) {
  auto p = parseProgramText(text);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().str()) << "\n" << text;
  return p.ok() ? std::move(p.value()) : ExportedProgram();
}

}  // namespace epsmith::test
