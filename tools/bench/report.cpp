#include "bench/report.hpp"

#include <fmt/format.h>

namespace xpose::bench {

const std::vector<std::string>& record_keys() {
  static const std::vector<std::string> k = {"variant", "backend",  "rows",   "cols",   "batch",
                                             "dtype",   "elem_bytes", "median_ms", "min_ms", "max_ms",
                                             "gbps",    "copy_gbps", "pct_of_copy", "verified"};
  return k;
}

namespace {

std::string shape_of(const result& r) {
  if (!r.extents.empty()) return r.label;
  return r.batch > 1 ? fmt::format("{}x{}x{}", r.batch, r.rows, r.cols) : fmt::format("{}x{}", r.rows, r.cols);
}

std::string block_of(const result& r) {
  return r.block_x > 0 ? fmt::format("{}x{}", r.block_x, r.block_y) : std::string("default");
}

}  // namespace

void print_markdown(const std::vector<result>& rs, std::ostream& out) {
  out << "| variant | backend | shape | dtype | block | median ms | min ms | max ms | GB/s | copy GB/s | % of copy | verified |\n"
         "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& r : rs) {
    if (r.skipped) {
      out << fmt::format("| {} | {} | {} | {} | {} | skipped: {} ||||||| \n", r.variant, r.backend, shape_of(r),
                         r.dtype, block_of(r), r.note);
      continue;
    }
    out << fmt::format("| {} | {} | {} | {} | {} | {:.4f} | {:.4f} | {:.4f} | {:.1f} | {:.1f} | {:.1f}% | {} |\n",
                       r.variant, r.backend, shape_of(r), r.dtype, block_of(r), r.median_ms, r.min_ms, r.max_ms,
                       r.gbps, r.copy_gbps, r.pct_of_copy, r.verified ? "yes" : "WRONG");
  }
}

nlohmann::json to_json(const std::vector<result>& rs, const device_description& dev, const std::string& command) {
  nlohmann::json j;
  j["device"] = {{"backend", dev.backend},           {"name", dev.name},         {"cc_major", dev.cc_major},
                 {"cc_minor", dev.cc_minor},         {"sm_count", dev.sm_count}, {"memory_bytes", dev.memory_bytes},
                 {"l2_bytes", dev.l2_bytes},         {"threads", dev.threads}};
  j["command"] = command;
  j["results"] = nlohmann::json::array();
  j["skipped"] = nlohmann::json::array();
  for (const auto& r : rs) {
    if (r.skipped) {
      j["skipped"].push_back({{"variant", r.variant}, {"backend", r.backend}, {"shape", shape_of(r)},
                              {"dtype", r.dtype}, {"reason", r.note}});
      continue;
    }
    nlohmann::json rec = {{"variant", r.variant},       {"backend", r.backend},     {"rows", r.rows},
                          {"cols", r.cols},             {"batch", r.batch},         {"dtype", r.dtype},
                          {"elem_bytes", r.elem_bytes}, {"median_ms", r.median_ms}, {"min_ms", r.min_ms},
                          {"max_ms", r.max_ms},         {"gbps", r.gbps},           {"copy_gbps", r.copy_gbps},
                          {"pct_of_copy", r.pct_of_copy}, {"verified", r.verified}};
    if (!r.extents.empty()) {
      rec["extents"] = r.extents;
      rec["perm"] = r.perm;
    }
    j["results"].push_back(std::move(rec));
  }
  return j;
}

void write_csv(const std::vector<result>& rs, std::ostream& out) {
  const auto& keys = record_keys();
  for (std::size_t i = 0; i < keys.size(); ++i) out << (i ? "," : "") << keys[i];
  out << "\n";
  for (const auto& r : rs) {
    if (r.skipped) continue;
    out << fmt::format("{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.3f},{:.3f},{:.3f},{}\n", r.variant, r.backend,
                       r.rows, r.cols, r.batch, r.dtype, r.elem_bytes, r.median_ms, r.min_ms, r.max_ms, r.gbps,
                       r.copy_gbps, r.pct_of_copy, r.verified ? "true" : "false");
  }
}

}  // namespace xpose::bench
