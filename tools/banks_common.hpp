// What `xpose banks` and `xpose profile` share: validating a configuration into a bank model, the
// four Nsight Compute metrics, and the JSON of a launch's totals. Header-only (inline) so that it
// needs no build-file entry of its own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "model/bank_model.hpp"
#include "xpose/plan.hpp"

namespace xpose::cli {

// The metrics, in the order the tools print them. ncu's names; the model predicts each exactly.
inline constexpr const char* kMetricLdWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
inline constexpr const char* kMetricLdConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char* kMetricStWavefronts = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
inline constexpr const char* kMetricStConflicts = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

inline std::vector<std::pair<std::string, std::int64_t>> banks_metrics(const model::smem_counters& c) {
  return {{kMetricLdWavefronts, c.ld_wavefronts},
          {kMetricLdConflicts, c.ld_conflicts},
          {kMetricStWavefronts, c.st_wavefronts},
          {kMetricStConflicts, c.st_conflicts}};
}

// 16384 -> "16,384", as ncu prints counts.
inline std::string with_commas(std::int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

struct banks_config {
  std::string variant, dtype;
  shape2 shape;
  model::kernel_model kernel;
};

// Validates the options shared by `banks`, `profile` and `launch`; on failure *why is one line.
// `block` empty = the variant's default.
inline bool parse_banks_config(const std::string& variant, const std::string& shape, const std::string& block,
                               const std::string& dtype, std::int64_t batch, banks_config* out, std::string* why) {
  banks_config c;
  c.variant = variant;
  c.dtype = dtype;
  if (!parse_shape(shape, &c.shape, why)) return false;
  if (batch < 1) {
    *why = fmt::format("batch {} must be at least 1", batch);
    return false;
  }
  int bx = 0, by = 0;
  if (!block.empty() && !parse_block(block, &bx, &by, why)) return false;
  const auto d = find_dtype(dtype);
  if (!d) {
    std::string names;
    for (const auto& t : all_dtypes()) names += (names.empty() ? "" : ", ") + std::string(t.name);
    *why = fmt::format("unknown dtype '{}' (one of {})", dtype, names);
    return false;
  }
  const status s =
      model::make_kernel_model(variant, bx, by, d->bytes, {c.shape.rows, c.shape.cols, batch}, &c.kernel, why);
  if (s == status::kUnknownVariant) {
    const auto& known = variant_names();
    if (std::find(known.begin(), known.end(), variant) != known.end()) {
      *why = fmt::format("variant '{}' has no bank model yet (modelled: {})", variant, model::modelled_variant_list());
    } else {
      std::string names;
      for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
      *why = fmt::format("unknown variant '{}' (variants: {})", variant, names);
    }
    return false;
  }
  if (s != status::kSuccess) return false;
  *out = std::move(c);
  return true;
}

// The launch-level part of `banks --json` and of each `profile` result.
inline nlohmann::json banks_totals_json(const banks_config& c, std::int64_t batch, const model::launch_totals& t) {
  const auto& k = c.kernel;
  nlohmann::json j = {
      {"variant", k.variant},
      {"kernel", k.kernel_function},
      {"shape", fmt::format("{}x{}", c.shape.rows, c.shape.cols)},
      {"rows", c.shape.rows},
      {"cols", c.shape.cols},
      {"batch", batch},
      {"block", fmt::format("{}x{}", k.block_x, k.block_y)},
      {"dtype", c.dtype},
      {"elem_bytes", k.array.elem_bytes},
      {"array", k.array.declaration()},
      {"tables", [&] {
         nlohmann::json t = nlohmann::json::array();
         for (const auto& a : k.tables) t.push_back(a.declaration());
         return t;
       }()},
      {"tiles", t.tiles},
      {"warps_per_block", t.warps_per_block},
      {"compiled_away", t.compiled_away},
      {"compiler_note", k.compiler_note},
      // The compiled kernel's counts: what Nsight Compute reports (zero when compiled_away).
      {"shared_ld_wavefronts", t.compiled.ld_wavefronts},
      {"shared_ld_conflicts", t.compiled.ld_conflicts},
      {"shared_st_wavefronts", t.compiled.st_wavefronts},
      {"shared_st_conflicts", t.compiled.st_conflicts},
      // What the source asks for, before the compiler.
      {"source",
       {{"shared_ld_wavefronts", t.source.ld_wavefronts},
        {"shared_ld_conflicts", t.source.ld_conflicts},
        {"shared_st_wavefronts", t.source.st_wavefronts},
        {"shared_st_conflicts", t.source.st_conflicts}}},
  };
  nlohmann::json ins = nlohmann::json::array();
  for (const auto& it : t.instructions)
    ins.push_back({{"source", it.source},
                   {"op", model::op_name(it.op)},
                   {"executions", it.executions},
                   {"wavefronts", it.wavefronts},
                   {"ideal", it.ideal},
                   {"conflicts", it.conflicts()}});
  j["instructions"] = std::move(ins);
  return j;
}

// ---- Nsight Compute's --csv output ----

// Splits one CSV line of ncu's output: fields are double-quoted, separated by commas, and may hold
// commas themselves ("16,384").
inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        cur += ch;
      }
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      fields.push_back(std::move(cur));
      cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  fields.push_back(std::move(cur));
  return fields;
}

// Reads the four shared-memory counters of the first profiled kernel out of ncu's output (the
// application's own lines and ncu's ==PROF== lines are skipped). Values may carry thousands
// separators and, without --print-units base, a K/M/G scale in the unit column.
inline bool parse_ncu_csv(const std::string& text, model::smem_counters* out, std::string* kernel_name,
                          std::string* why) {
  std::vector<std::string> header;
  int c_id = -1, c_kernel = -1, c_name = -1, c_unit = -1, c_value = -1;
  std::string first_id;
  int found = 0;
  model::smem_counters m;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] != '"') continue;
    auto f = split_csv_line(line);
    if (header.empty()) {
      if (f.empty() || f[0] != "ID") continue;
      header = f;
      for (int i = 0; i < static_cast<int>(f.size()); ++i) {
        if (f[i] == "ID") c_id = i;
        if (f[i] == "Kernel Name") c_kernel = i;
        if (f[i] == "Metric Name") c_name = i;
        if (f[i] == "Metric Unit") c_unit = i;
        if (f[i] == "Metric Value") c_value = i;
      }
      if (c_name < 0 || c_value < 0) {
        *why = "ncu's CSV header has no 'Metric Name' / 'Metric Value' columns";
        return false;
      }
      continue;
    }
    if (static_cast<int>(f.size()) != static_cast<int>(header.size())) continue;
    if (first_id.empty()) {
      first_id = c_id >= 0 ? f[c_id] : "0";
      if (kernel_name && c_kernel >= 0) *kernel_name = f[c_kernel];
    }
    if (c_id >= 0 && f[c_id] != first_id) continue;  // only the first kernel
    std::string digits;
    for (char ch : f[c_value])
      if (ch != ',') digits += ch;
    std::int64_t v = 0;
    try {
      std::size_t used = 0;
      const double d = std::stod(digits, &used);
      if (used != digits.size()) throw std::invalid_argument(digits);
      double scale = 1;
      const std::string unit = c_unit >= 0 ? f[c_unit] : "";
      if (!unit.empty() && unit[0] == 'K') scale = 1e3;
      if (!unit.empty() && unit[0] == 'M') scale = 1e6;
      if (!unit.empty() && unit[0] == 'G') scale = 1e9;
      v = static_cast<std::int64_t>(d * scale + 0.5);
    } catch (const std::exception&) {
      *why = fmt::format("ncu reported '{}' for {}", f[c_value], f[c_name]);
      return false;
    }
    const std::string& name = f[c_name];
    if (name == kMetricLdWavefronts) m.ld_wavefronts = v, found |= 1;
    if (name == kMetricLdConflicts) m.ld_conflicts = v, found |= 2;
    if (name == kMetricStWavefronts) m.st_wavefronts = v, found |= 4;
    if (name == kMetricStConflicts) m.st_conflicts = v, found |= 8;
  }
  if (header.empty()) {
    *why = "ncu printed no CSV results (no kernel profiled?)";
    return false;
  }
  if (found != 15) {
    *why = "ncu's CSV lacks some of the four shared-memory metrics";
    return false;
  }
  *out = m;
  return true;
}

}  // namespace xpose::cli
