// The message of a finding read out of its report, for case files converted from format 1,
// which kept no message (ci/migrate-cases.py): the one place a finding is read back out of
// text. Internal to fuzz/.
#pragma once

#include <string>
#include <string_view>

namespace epsmith {

// The raising side's error in an exception finding's report.
std::string exceptionInReport(std::string_view report);
// "dtype mismatch (f16 expected, f32 actual)" out of a dtype mismatch's report.
std::string dtypesInReport(std::string_view report);

}  // namespace epsmith
