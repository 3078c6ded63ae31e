// The CLI, driven in-process: bad input gets one line and a non-zero exit; the bench's JSON and CSV
// have the documented keys; a CPU bench verifies its outputs.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bench/report.hpp"
#include "commands.hpp"
#include "common/run_cli.hpp"

namespace {

using xpose::test::cli_result;
using xpose::test::run_cli;

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

void expect_one_line_error(const std::vector<std::string>& args, const std::string& mention) {
  const auto r = run_cli(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  EXPECT_NE(r.code, 0) << joined;
  EXPECT_EQ(lines(r.err), 1) << joined << "\n" << r.err;
  EXPECT_NE(r.err.find(mention), std::string::npos) << joined << "\n" << r.err;
  EXPECT_EQ(r.out, "") << joined;
}

TEST(Cli, BadBenchInputIsOneClearLine) {
  expect_one_line_error({"bench", "--device", "cpu", "--shapes", "0x5"}, "positive");
  expect_one_line_error({"bench", "--device", "cpu", "--shapes", "-3x4"}, "positive");
  expect_one_line_error({"bench", "--device", "cpu", "--shapes", "abc"}, "abc");
  expect_one_line_error({"bench", "--device", "cpu", "--shapes", "99999999999999999999x2"}, "64-bit");
  expect_one_line_error({"bench", "--device", "cpu", "--shapes", "4000000000x4000000000", "--dtype", "c128"}, "overflow");
  expect_one_line_error({"bench", "--device", "cpu", "--dtype", "f31"}, "f31");
  expect_one_line_error({"bench", "--device", "cpu", "--variants", "nope"}, "nope");
  expect_one_line_error({"bench", "--device", "cpu", "--variants", "tiled"}, "tiled");
  expect_one_line_error({"bench", "--device", "cpu", "--block", "0x16"}, "block");
  expect_one_line_error({"bench", "--device", "cpu", "--block", "64x32"}, "1024");
  expect_one_line_error({"bench", "--device", "cpu", "--reps", "0"}, "reps");
  expect_one_line_error({"bench", "--device", "tpu"}, "device");
  expect_one_line_error({"bench", "--device", "cpu", "--extents", "2,3", "--perm", "0,0"}, "more than once");
  expect_one_line_error({"bench", "--device", "cpu", "--extents", "2,3,4", "--perm", "0,1"}, "rank");
  expect_one_line_error({"bench", "--device", "cpu", "--extents", "5,,5", "--perm", "1,0"}, "empty item");
  expect_one_line_error({"bench", "--device", "cpu", "--extents", "5,5,", "--perm", "1,0"}, "empty item");
  expect_one_line_error({"bench", "--device", "cpu", "--extents", "5,5", "--perm", ",1,0"}, "empty item");
  expect_one_line_error({"plan", "--device", "cpu", "--extents", "5,,5", "--perm", "1,0"}, "empty item");
  expect_one_line_error({"bench", "--device", "cpu", "--perm", "1,0"}, "--perm needs --extents");
  expect_one_line_error({"bench", "--device", "cpu", "--extents", "4,4"}, "--extents needs --perm");
  expect_one_line_error({"plan", "--device", "cpu", "--perm", "1,0"}, "--perm needs --extents");
  expect_one_line_error({"bench", "--device", "cpu", "--extents", "4,4", "--perm", "1,0", "--ld-in", "8"},
                        "apply to --shapes transposes");
  expect_one_line_error({"bench", "--device", "cpu", "--suite", "permute", "--batch", "2"}, "apply to --shapes transposes");
  expect_one_line_error({"plan", "--device", "cpu", "--extents", "4,4", "--perm", "1,0", "--batch", "2"},
                        "apply to --shape transposes");
  expect_one_line_error({"plan", "--device", "cpu", "--extents", "4,4", "--perm", "1,0", "--shape", "4x4"}, "not both");
  expect_one_line_error({"bench", "--device", "cpu", "--shapes", "4x4", "--json", "/nonexistent-xpose-dir/r.json"},
                        "is not a folder");
  expect_one_line_error({"bench", "--device", "cpu", "--shapes", "4x4", "--csv", "/nonexistent-xpose-dir/r.csv"},
                        "is not a folder");
  expect_one_line_error({"bench", "--frobnicate"}, "frobnicate");
  expect_one_line_error({"bench", "--device", "cpu", "--baseline", "mkl"}, "mkl");
  expect_one_line_error({}, "subcommand");
  expect_one_line_error({"frobnicate"}, "unknown command 'frobnicate'");
  expect_one_line_error({"bench", "--device", "cpu", "--reps", "0"}, "at least 1, got 0");
  expect_one_line_error({"bench", "--device", "cpu", "--warmup", "-1"}, "at least 0, got -1");
  expect_one_line_error({"bench", "--device", "cpu", "--batch", "2x"}, "at least 1, got 2x");
  // Without --device the GPU/CPU notice must not add a line to an argument error.
  expect_one_line_error({"bench", "--shapes", "10x10", "--dtype", "f33"}, "f33");
}

TEST(Cli, CpuBenchVerifiesAndWritesJsonAndCsv) {
  const std::string json = ::testing::TempDir() + "xpose_bench.json", csv = ::testing::TempDir() + "xpose_bench.csv";
  const auto r = run_cli({"bench", "--device", "cpu", "--variants", "all", "--shapes", "64x48,1x7", "--dtype", "f32,i8,c128",
                          "--reps", "3", "--warmup", "1", "--json", json, "--csv", csv});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| cpu_naive | cpu | 64x48 | f32 |"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("WRONG"), std::string::npos) << r.out;

  std::ifstream jf(json);
  const auto j = nlohmann::json::parse(jf);
  ASSERT_TRUE(j.contains("device"));
  EXPECT_EQ(j["device"]["backend"], "cpu");
  ASSERT_TRUE(j["results"].is_array());
  EXPECT_GE(j["results"].size(), 6u);  // at least one CPU variant x 2 shapes x 3 dtypes
  for (const auto& rec : j["results"]) {
    std::vector<std::string> keys;
    for (auto it = rec.begin(); it != rec.end(); ++it) keys.push_back(it.key());
    auto expected = xpose::bench::record_keys();
    std::sort(keys.begin(), keys.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(keys, expected);
    EXPECT_EQ(rec["verified"], true);
    EXPECT_GT(rec["median_ms"].get<double>(), 0.0);
    EXPECT_LE(rec["min_ms"].get<double>(), rec["median_ms"].get<double>());
    EXPECT_GE(rec["max_ms"].get<double>(), rec["median_ms"].get<double>());
    EXPECT_GT(rec["copy_gbps"].get<double>(), 0.0);
  }
  std::ifstream cf(csv);
  std::string header;
  std::getline(cf, header);
  EXPECT_EQ(header, "variant,backend,rows,cols,batch,dtype,elem_bytes,median_ms,min_ms,max_ms,gbps,copy_gbps,pct_of_copy,verified");
  int rows = 0;
  for (std::string line; std::getline(cf, line);) ++rows;
  EXPECT_EQ(rows, static_cast<int>(j["results"].size()));
}

// `--shape` (plan's spelling) is accepted by the bench as well as `--shapes`.
TEST(Cli, BenchTakesShapeAsWellAsShapes) {
  const auto r = run_cli({"bench", "--device", "cpu", "--shape", "33x17", "--dtype", "f64", "--reps", "1", "--warmup", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| cpu | 33x17 | f64 |"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("WRONG"), std::string::npos) << r.out;
}

TEST(Cli, PermutationBenchOnCpu) {
  const std::string json = ::testing::TempDir() + "xpose_perm.json";
  const auto r = run_cli({"bench", "--device", "cpu", "--extents", "3,4,5,6", "--perm", "3,1,0,2", "--dtype", "f64",
                          "--reps", "2", "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream jf(json);
  const auto j = nlohmann::json::parse(jf);
  ASSERT_FALSE(j["results"].empty());
  EXPECT_EQ(j["results"][0]["extents"], nlohmann::json({3, 4, 5, 6}));
  EXPECT_EQ(j["results"][0]["perm"], nlohmann::json({3, 1, 0, 2}));
  EXPECT_EQ(j["results"][0]["verified"], true);
}

// A CPU bench too large for the host's memory is skipped with the reason (one line), not killed:
// 10^6 x 10^6 c128 needs 64 TB for its four buffers.
TEST(Cli, CpuBenchTooLargeForHostMemoryIsSkipped) {
  const auto r = run_cli({"bench", "--device", "cpu", "--extents", "1000000,1000000", "--perm", "1,0", "--dtype", "c128"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("GiB of host memory"), std::string::npos) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
}

// --host-pages huge: the CPU bench's buffers advised as transparent huge pages (mmap + madvise) still
// give verified results; a value outside default|huge is one error line.
TEST(Cli, CpuBenchOnHugePages) {
  const std::string json = ::testing::TempDir() + "xpose_huge.json";
  const auto r = run_cli({"bench", "--device", "cpu", "--shapes", "1000x3000", "--dtype", "i8", "--reps", "2",
                          "--host-pages", "huge", "--json", json});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream jf(json);
  const auto j = nlohmann::json::parse(jf);
  ASSERT_FALSE(j["results"].empty());
  EXPECT_EQ(j["results"][0]["verified"], true);
  expect_one_line_error({"bench", "--device", "cpu", "--host-pages", "giant"}, "giant");
}

// `plan --suite permute`: one line per case of the bench's suite (61), each "[extents] perm p: "
// and the plan; the slowest dim scaled for small elements as the bench does; suite names and
// conflicting problem options are one-line errors.
TEST(Cli, PlanSuitePrintsEveryCase) {
  auto r = run_cli({"plan", "--suite", "permute", "--device", "cpu", "--dtype", "f16"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out), 61) << r.out;
  EXPECT_EQ(r.out.rfind("[128,64,128,128] perm 0,2,3,1: cpu_blocked on cpu", 0), 0u) << r.out;
  // The eleventh case, the rank-8 reversal, ends the fixed layouts; the random cases follow.
  const std::string last_fixed = "\n[8,8,8,8,8,8,16,32] perm 7,6,5,4,3,2,1,0: cpu_blocked on cpu";
  const auto fixed_end = [&](const std::string& out) { return out.find('\n', out.find(last_fixed) + 1); };
  ASSERT_NE(r.out.find(last_fixed), std::string::npos) << r.out;
  // Another seed, other random cases; the fixed layouts stay.
  const auto other = run_cli({"plan", "--suite", "permute", "--device", "cpu", "--dtype", "f16", "--seed", "2"});
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_EQ(lines(other.out), 61);
  EXPECT_EQ(other.out.substr(0, fixed_end(other.out)), r.out.substr(0, fixed_end(r.out)));
  EXPECT_NE(other.out.substr(fixed_end(other.out)), r.out.substr(fixed_end(r.out)));
  expect_one_line_error({"plan", "--suite", "transpose", "--device", "cpu"}, "transpose");
  expect_one_line_error({"plan", "--suite", "permute", "--shape", "10x10", "--device", "cpu"}, "--suite");
#ifdef XPOSE_HAS_CUDA  // GPU plans for an H200 without a GPU (said once on stderr)
  r = run_cli({"plan", "--suite", "permute", "--dtype", "f32"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out), 61);
  EXPECT_EQ(r.out.find("on cpu"), std::string::npos) << r.out;
#endif
}

TEST(Cli, PlanPrintsOneLine) {
  auto r = run_cli({"plan", "--shape", "100x200", "--device", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out), 1) << r.out;
  EXPECT_NE(r.out.find("cpu"), std::string::npos);
  r = run_cli({"plan", "--extents", "2,3,4,5,6", "--perm", "4,3,2,1,0", "--device", "cpu", "--dtype", "f16"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("transpose-nd"), std::string::npos) << r.out;
  expect_one_line_error({"plan", "--extents", "2,3", "--perm", "0,2", "--device", "cpu"}, "outside");
  expect_one_line_error({"plan", "--shape", "10x10", "--device", "cpu", "--variant", "warp"}, "warp");
  expect_one_line_error({"plan", "--shape", "10x10", "--device", "cpu", "--cpu-tuning", "zen"}, "zen");
  r = run_cli({"plan", "--shape", "3000x3000", "--device", "cpu", "--dtype", "f64", "--cpu-tuning", "intel"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("intel tuning"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in blocks of 8 KiB a side"), std::string::npos) << r.out;
  r = run_cli({"plan", "--shape", "3000x3000", "--device", "cpu", "--dtype", "f64", "--cpu-tuning", "amd"});
  EXPECT_EQ(r.out.find("in blocks of"), std::string::npos) << r.out;
#ifdef XPOSE_HAS_CUDA  // a build without the GPU backend has no GPU variants to plan
  // GPU plans work without a GPU too (for an H200 description, said on stderr): the choice of a
  // narrow f64 shape with a side of 12 is the narrow kernel (of 48, fast_tile; of 16, kNarrowRules
  // below), of large matrices
  // tma_tile (with its tiles in the summary), of 4096^2 f16 and 1-byte ones fast_tile, of small ones
  // the classic tile.
  r = run_cli({"plan", "--shape", "12x20000000", "--dtype", "f64"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("narrow on gpu", 0), 0u) << r.out;
  r = run_cli({"plan", "--shape", "48x10000000", "--dtype", "f64"});
  EXPECT_EQ(r.out.rfind("fast_tile on gpu", 0), 0u) << r.out;
  r = run_cli({"plan", "--shape", "512x512", "--dtype", "f32"});
  EXPECT_EQ(r.out.rfind("tiled on gpu", 0), 0u) << r.out;
  r = run_cli({"plan", "--shape", "16384x16384", "--dtype", "f32"});
  EXPECT_EQ(r.out.rfind("tma_tile on gpu", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("tiles of 64x64 elements"), std::string::npos) << r.out;
  r = run_cli({"plan", "--shape", "16384x16384", "--dtype", "i8"});
  EXPECT_EQ(r.out.rfind("tma_tile on gpu", 0), 0u) << r.out;
  r = run_cli({"plan", "--shape", "4096x4096", "--dtype", "f16"});
  EXPECT_EQ(r.out.rfind("fast_tile on gpu", 0), 0u) << r.out;
  r = run_cli({"plan", "--shape", "4096x4096", "--dtype", "i8"});
  EXPECT_EQ(r.out.rfind("fast_tile on gpu", 0), 0u) << r.out;
  r = run_cli({"plan", "--shape", "10007x9973", "--dtype", "f32"});
  EXPECT_EQ(r.out.rfind("tiled_skew on gpu", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("block 32x4"), std::string::npos) << r.out;
  r = run_cli({"plan", "--shape", "10007x9973", "--dtype", "f16"});
  EXPECT_EQ(r.out.rfind("skew_tile on gpu", 0), 0u) << r.out;
  r = run_cli({"plan", "--shape", "10007x9973", "--dtype", "c128"});
  EXPECT_EQ(r.out.rfind("tiled on gpu", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("block 32x16"), std::string::npos) << r.out;
  // Narrow matrices (kNarrowRules): the kernel measured best for each shape, and only from the size
  // the rule was measured at.
  const struct {
    const char *shape, *dtype, *variant;
  } narrow[] = {
      {"10000001x16", "f64", "tiled_skew"},   {"10000000x48", "c128", "tiled_skew"}, {"16x10000000", "c128", "tiled"},
      {"16x10000001", "f64", "interleave"}, {"3x10000001", "f64", "interleave"}  ,
      {"16x10000000", "f32", "reg_batch"},    {"48x10000001", "f16", "interleave"}  , {"10000001x48", "f32", "tiled_skew"},
      {"10000000x16", "i8", "reg_batch"},     {"10000000x3", "i8", "interleave"},     {"16x10000001", "i8", "interleave"},
      {"16x10000000", "i8", "permute_packed"}, {"3x10000001", "f16", "interleave"},   {"10000000x4", "f32", "reg_batch"},
      {"10000001x48", "i8", "interleave"},   {"16x100001", "f64", "permute_box"},    {"10000000x48", "f32", "permute_packed"},
      {"10000000x2", "c128", "reg_batch"},    {"8x10000001", "f64", "interleave"}  , {"64x10000001", "f16", "interleave"},
      {"64x10000001", "i8", "interleave"},   {"10000001x64", "f32", "tiled_skew"},   {"32x10000000", "c128", "tiled"},
  };
  // Not where the measurements said otherwise: c128 reg_batch with an odd long side ran 15-39%.
  r = run_cli({"plan", "--shape", "10000001x3", "--dtype", "c128"});
  EXPECT_EQ(r.out.find("reg_batch"), std::string::npos) << r.out;
  for (const auto& n : narrow) {
    r = run_cli({"plan", "--shape", n.shape, "--dtype", n.dtype});
    EXPECT_EQ(r.out.rfind(std::string(n.variant) + " on gpu", 0), 0u) << n.shape << " " << n.dtype << ": " << r.out;
  }
  // A permutation with short dims: packed boxes, and the box in the summary.
  r = run_cli({"plan", "--extents", "16,16,16,16,16,64", "--perm", "5,4,3,2,1,0", "--dtype", "f32"});
  EXPECT_EQ(r.out.rfind("permute_packed on gpu", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("box "), std::string::npos) << r.out;
#endif
}

}  // namespace
