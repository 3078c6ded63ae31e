// Drives the `xpose` command line in-process (tests that link xpose_cli_lib).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"

namespace xpose::test {

struct cli_result {
  int code;
  std::string out, err;
};

// Runs `xpose ARGS...` and returns its exit code, stdout and stderr.
inline cli_result run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "xpose");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = xpose::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  return {code, out.str(), err.str()};
}

}  // namespace xpose::test
