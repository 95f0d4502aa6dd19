// Runs a libFuzzer target without libFuzzer, where the build has no fuzzing engine (GCC;
// ctest's smoke test): every file named, and every file in every directory named, once as
// it is and once cut to half its length (the readers' error paths), in name order. Flags
// (arguments starting with '-', libFuzzer's) are ignored. Exits 2 when it ran no input.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/targets/target.h"

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg(argv[i]);
    if (argv[i][0] == '-') continue;
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const auto& e : fs::directory_iterator(arg, ec)) {
        if (e.is_regular_file()) inputs.push_back(e.path());
      }
    } else {
      inputs.push_back(arg);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  size_t ran = 0;
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot open\n", path.c_str());
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (size_t size : {bytes.size(), bytes.size() / 2}) {
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), size);
      ++ran;
    }
  }
  std::printf("%zu inputs ran\n", ran);
  return ran > 0 ? 0 : 2;
}
