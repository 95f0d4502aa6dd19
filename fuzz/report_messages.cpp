// See report_messages.h.
#include "fuzz/report_messages.h"

namespace epsmith {
// The raising side's error in an exception finding's report, for findings recorded before
// they kept their message ("exception in actual only: node %x: aten::add.Tensor: The size
// of tensor a ..." → "The size of tensor a ...").
std::string exceptionInReport(std::string_view report) {
  std::string_view line = report.substr(0, report.find('\n'));
  std::string side;
  if (line.rfind("different exceptions:", 0) == 0) {  // the actual side's error, on its own line
    const size_t at = report.find("\n  actual:");
    line = at == std::string_view::npos ? std::string_view() : report.substr(at + 10);
    line = line.substr(0, line.find('\n'));
  } else if (const size_t only = line.find(" only: ");
             line.rfind("exception in ", 0) == 0 && only != std::string_view::npos) {
    if (line.rfind("exception in expected", 0) == 0) side = "in expected only: ";
    line = line.substr(only + 7);
  } else if (const size_t colon = line.find(": ");
             line.rfind("an exception escaped", 0) == 0 && colon != std::string_view::npos) {
    line = line.substr(colon + 2);
  }
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  for (std::string_view prefix : {"node %", "aten::"}) {
    if (line.rfind(prefix, 0) != 0) continue;
    const size_t colon = line.find(": ");
    if (colon == std::string_view::npos) break;
    line.remove_prefix(colon + 2);
  }
  return side + std::string(line);
}

// The first dtype in `text` ("f32[2, 3], ..." → "f32"); "not a tensor" for a Python
// number or list.
namespace {
std::string dtypeIn(std::string_view text) {
  const size_t bracket = text.find('['), stop = text.find_first_of(" ,)");
  if (bracket == std::string_view::npos || (stop != std::string_view::npos && stop < bracket)) return "not a tensor";
  return std::string(text.substr(0, bracket));
}
}  // namespace

// The two dtypes of a dtype mismatch's report recorded before findings kept their message:
// "dtype mismatch at output 0: expected f16[2], actual f32[2]" → "dtype mismatch (f16
// expected, f32 actual)".
std::string dtypesInReport(std::string_view report) {
  const size_t expected = report.find(": expected "), actual = report.find(", actual ");
  if (expected == std::string_view::npos || actual == std::string_view::npos) return "dtype mismatch";
  return "dtype mismatch (" + dtypeIn(report.substr(expected + 11)) + " expected, " +
         dtypeIn(report.substr(actual + 9)) + " actual)";
}

}  // namespace epsmith
