// See planted_faults.h.
#include "functionalizer/planted_faults.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace epsmith::functionalizer {
namespace {

constexpr std::string_view kNames[] = {"add-subtracts", "mul-out-divides", "diagonal-write-lost"};

uint32_t readPlantedFaults() {
  const char* env = std::getenv("EPSMITH_FUNCTIONALIZER_FAULT");
  uint32_t planted = 0;
  std::string_view list = env ? env : "";
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (name.empty()) continue;
    bool known = false;
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (name != kNames[i]) continue;
      planted |= 1u << i;
      known = true;
      std::fprintf(stderr, "epsmith: functionalizer fault planted: %s (EPSMITH_FUNCTIONALIZER_FAULT)\n",
                   std::string(name).c_str());
    }
    if (!known)
      std::fprintf(stderr, "epsmith: EPSMITH_FUNCTIONALIZER_FAULT: no fault '%s'\n", std::string(name).c_str());
  }
  return planted;
}

}  // namespace

bool faultPlanted(PlantedFault f) {
  static const uint32_t planted = readPlantedFaults();
  return (planted >> static_cast<unsigned>(f)) & 1u;
}

}  // namespace epsmith::functionalizer
