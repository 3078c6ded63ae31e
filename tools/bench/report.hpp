// Output of `xpose bench`: a markdown table on stdout, JSON and CSV files with stable keys.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/runner.hpp"

namespace xpose::bench {

// The keys every result record has, in order (CSV columns, JSON keys). Other tools read them: keep
// them stable. Permutation records add "extents" and "perm".
const std::vector<std::string>& record_keys();

void print_markdown(const std::vector<result>& rs, std::ostream& out);
nlohmann::json to_json(const std::vector<result>& rs, const device_description& dev, const std::string& command);
void write_csv(const std::vector<result>& rs, std::ostream& out);

}  // namespace xpose::bench
