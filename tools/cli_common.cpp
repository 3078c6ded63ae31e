#include "cli_common.hpp"

#include <unistd.h>  // access

#include <algorithm>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>

namespace xpose::cli {

const std::vector<dtype_info>& all_dtypes() {
  static const std::vector<dtype_info> d = {{"i8", 1},  {"f16", 2}, {"bf16", 2}, {"f32", 4},
                                            {"f64", 8}, {"c64", 8}, {"c128", 16}};
  return d;
}

std::optional<dtype_info> find_dtype(std::string_view name) {
  for (const auto& d : all_dtypes())
    if (name == d.name) return d;
  return std::nullopt;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    start = end + 1;
  }
  return items;
}

namespace {

bool parse_i64(std::string_view s, std::int64_t* v) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

// "AxB" into two positive integers.
bool parse_pair(std::string_view text, const char* what, std::int64_t* a, std::int64_t* b, std::string* why) {
  const auto x = text.find_first_of("xX");
  if (x == std::string_view::npos) {
    *why = fmt::format("{} '{}' is not of the form AxB", what, text);
    return false;
  }
  const std::string_view sa = text.substr(0, x), sb = text.substr(x + 1);
  if (!parse_i64(sa, a) || !parse_i64(sb, b)) {
    const bool too_big = !sa.empty() && !sb.empty() && sa.find_first_not_of("0123456789-") == std::string_view::npos &&
                         sb.find_first_not_of("0123456789-") == std::string_view::npos;
    *why = too_big ? fmt::format("{} '{}' does not fit in 64-bit integers", what, text)
                   : fmt::format("{} '{}' is not of the form AxB with integers A and B", what, text);
    return false;
  }
  if (*a <= 0 || *b <= 0) {
    *why = fmt::format("{} '{}' must have positive sides", what, text);
    return false;
  }
  return true;
}

}  // namespace

bool parse_shape(std::string_view text, shape2* out, std::string* why) {
  return parse_pair(text, "shape", &out->rows, &out->cols, why);
}

bool parse_block(std::string_view text, int* bx, int* by, std::string* why) {
  std::int64_t a = 0, b = 0;
  if (!parse_pair(text, "block", &a, &b, why)) return false;
  if (a > 1024 || b > 1024 || a * b > 1024) {
    *why = fmt::format("block '{}' has {} threads; a CUDA block has at most 1024", text, a * b);
    return false;
  }
  *bx = static_cast<int>(a);
  *by = static_cast<int>(b);
  return true;
}

// Unlike the name lists, an integer list takes no empty item: "5,,5" is a missing extent, not [5,5].
bool parse_int_list(std::string_view text, std::vector<std::int64_t>* out, std::string* why) {
  out->clear();
  const std::size_t commas = static_cast<std::size_t>(std::count(text.begin(), text.end(), ','));
  const auto items = split_list(text);
  if (!items.empty() && items.size() != commas + 1) {
    *why = fmt::format("'{}' has an empty item", text);
    return false;
  }
  for (const auto& item : items) {
    std::int64_t v;
    if (!parse_i64(item, &v)) {
      *why = fmt::format("'{}' in '{}' is not an integer", item, text);
      return false;
    }
    out->push_back(v);
  }
  if (out->empty()) {
    *why = fmt::format("'{}' is an empty list", text);
    return false;
  }
  return true;
}

bool parse_extents_perm(std::string_view extents, std::string_view perm, std::vector<std::int64_t>* ext,
                        std::vector<std::int64_t>* perm_out, std::string* why) {
  if (extents.empty() != perm.empty()) {
    *why = extents.empty() ? "--perm needs --extents (the input's extents a,b,c)"
                           : "--extents needs --perm (output dim k = input dim perm[k])";
    return false;
  }
  if (!parse_int_list(extents, ext, why)) {
    *why = "--extents: " + *why;
    return false;
  }
  if (!parse_int_list(perm, perm_out, why)) {
    *why = "--perm: " + *why;
    return false;
  }
  return true;
}

bool output_path_writable(const std::string& path, std::string* why) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) {
    *why = fmt::format("cannot write {}: {} is not a folder", path, dir.string());
    return false;
  }
  if (fs::is_directory(p, ec)) {
    *why = fmt::format("cannot write {}: it is a folder", path);
    return false;
  }
  const bool exists = fs::exists(p, ec);
  if (::access(exists ? path.c_str() : dir.c_str(), W_OK) != 0) {
    *why = fmt::format("cannot write {}: {} is not writable", path, exists ? path : dir.string());
    return false;
  }
  return true;
}

cpu_tuning parse_cpu_tuning(std::string_view text) {
  return text == "amd" ? cpu_tuning::kAmd : text == "intel" ? cpu_tuning::kIntel : cpu_tuning::kAuto;
}

}  // namespace xpose::cli
