// Parsing of the CLI's value syntaxes (shapes, blocks, dtypes, lists), shared by the subcommands.
// Each parser returns false with a one-line reason on bad input; none throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xpose/plan.hpp"  // cpu_tuning

namespace xpose::cli {

struct dtype_info {
  const char* name;  // i8, f16, bf16, f32, f64, c64, c128
  int bytes;
};
const std::vector<dtype_info>& all_dtypes();
std::optional<dtype_info> find_dtype(std::string_view name);

struct shape2 {
  std::int64_t rows = 0, cols = 0;
};

// "RxC" with R, C positive 64-bit integers.
bool parse_shape(std::string_view text, shape2* out, std::string* why);
// "WxH" with W, H positive and W*H <= 1024.
bool parse_block(std::string_view text, int* bx, int* by, std::string* why);
// "auto", "amd" or "intel" (the options' checks allow nothing else) to plan_options::tuning.
cpu_tuning parse_cpu_tuning(std::string_view text);
// "a,b,c": non-empty list of integers (negative allowed; callers check ranges).
bool parse_int_list(std::string_view text, std::vector<std::int64_t>* out, std::string* why);
// Splits "a,b,c" into trimmed, non-empty items.
std::vector<std::string> split_list(std::string_view text);
// --extents and --perm together: both lists parsed (parse_int_list), or why not, including where
// only one of them was given.
bool parse_extents_perm(std::string_view extents, std::string_view perm, std::vector<std::int64_t>* ext,
                        std::vector<std::int64_t>* perm_out, std::string* why);
// Whether a file can be written at `path` (its folder exists and takes files, and the file, if it
// exists, is writable), checked before a long run instead of after it.
bool output_path_writable(const std::string& path, std::string* why);

}  // namespace xpose::cli
