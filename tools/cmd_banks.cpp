// `xpose banks`: the shared-memory bank model (src/model/bank_model.hpp) for one configuration:
// (a) one warp's lanes, addresses and banks for every shared-memory instruction, (b) the wavefronts
// and conflicts of that warp, (c) the totals of the launch, which are what Nsight Compute counts.
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "banks_common.hpp"
#include "cli_common.hpp"
#include "commands.hpp"
#include "model/bank_model.hpp"

namespace xpose::cli {
namespace {

using model::kernel_model;
using model::launch_totals;
using model::warp_trace;

struct banks_args {
  std::string variant, shape = "", block, dtype = "f32";
  std::int64_t batch = 1;
  int warp = 0, trip = 0;
  std::string tile = "0,0";
  bool json = false;
};

// "lanes 0-15" style range of the threads a warp covers: "(tx 0-15, ty 0), (tx 0-15, ty 1)".
std::string warp_threads(const warp_trace& t) {
  std::string s;
  int i = 0;
  const int n = static_cast<int>(t.lanes.size());
  while (i < n && t.lanes[i].exists) {
    int j = i;
    while (j + 1 < n && t.lanes[j + 1].exists && t.lanes[j + 1].ty == t.lanes[i].ty) ++j;
    if (!s.empty()) s += ", ";
    s += fmt::format("lanes {}-{} = (tx {}-{}, ty {})", i, j, t.lanes[i].tx, t.lanes[j].tx, t.lanes[i].ty);
    i = j + 1;
  }
  if (i < n) s += fmt::format(", lanes {}-{}: no thread (the block ends)", i, n - 1);
  return s;
}

int group_of(const model::wavefront_count& c, int lane) {
  for (std::size_t g = 0; g < c.groups.size(); ++g)
    if (lane >= c.groups[g].lane_begin && lane < c.groups[g].lane_end) return static_cast<int>(g);
  return -1;
}

std::string word_list(const std::vector<std::int64_t>& w) {
  std::string s;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (i == 8 && w.size() > 9) {
      s += fmt::format(", ... ({} more)", w.size() - i);
      break;
    }
    s += (i ? ", " : "") + std::to_string(w[i]);
  }
  return s;
}

// One line saying why the warp needs the wavefronts it does.
std::string verdict_line(const warp_trace& t) {
  const auto& c = t.count;
  if (c.wavefronts == 0) return "  -> no active lane: the warp skips this access (0 wavefronts)";
  std::string s = fmt::format("  -> {} wavefront{}, ideal {}, {} conflict{}", c.wavefronts, c.wavefronts == 1 ? "" : "s",
                              c.ideal, c.conflicts(), c.conflicts() == 1 ? "" : "s");
  if (t.lanes[0].width > model::kBankBytes) {
    std::string groups;
    for (const auto& g : c.groups) groups += fmt::format("{}{}-{}", groups.empty() ? "" : ", ", g.lane_begin, g.lane_end - 1);
    s += fmt::format("; served as {} lane group{} ({})", c.groups.size(), c.groups.size() == 1 ? "" : "s", groups);
  }
  const model::lane_group* worst = nullptr;
  for (const auto& g : c.groups)
    if (!worst || g.wavefronts > worst->wavefronts) worst = &g;
  if (worst && worst->wavefronts > 1)
    s += fmt::format(": bank {} must deliver {} different words ({})", worst->worst_bank, worst->wavefronts,
                     word_list(worst->worst_words));
  else
    s += ": no bank holds two different words";
  return s;
}

void print_warp_table(std::ostream& os, const warp_trace& t) {
  const bool wide = !t.lanes.empty() && t.lanes[0].width > model::kBankBytes;
  os << fmt::format(" lane  tx  ty  row  col   byte      word   bank{}\n", wide ? "  group" : "");
  for (const auto& a : t.lanes) {
    if (!a.exists) {
      os << fmt::format(" {:4}   -   -    -    -      -         -      -   (no thread)\n", a.lane);
      continue;
    }
    if (!a.active) {
      os << fmt::format(" {:4} {:3} {:3}    -    -      -         -      -   (inactive: bounds check fails)\n", a.lane, a.tx,
                        a.ty);
      continue;
    }
    const std::string word =
        a.words > 1 ? fmt::format("{}-{}", a.first_word, a.first_word + a.words - 1) : std::to_string(a.first_word);
    const std::string bank = a.words > 1 ? fmt::format("{}-{}", a.bank, a.bank + a.words - 1) : std::to_string(a.bank);
    os << fmt::format(" {:4} {:3} {:3} {:4} {:4} {:6} {:>9} {:>6}", a.lane, a.tx, a.ty, a.at.row, a.at.col, a.byte, word,
                      bank);
    if (wide) os << fmt::format("  {:5}", group_of(t.count, a.lane));
    os << "\n";
  }
}

nlohmann::json lanes_json(const warp_trace& t) {
  nlohmann::json lanes = nlohmann::json::array();
  for (const auto& a : t.lanes) {
    nlohmann::json l = {{"lane", a.lane}, {"tx", a.tx}, {"ty", a.ty}, {"exists", a.exists}, {"active", a.active}};
    if (a.active) {
      l["row"] = a.at.row;
      l["col"] = a.at.col;
      l["byte"] = a.byte;
      l["word"] = a.first_word;
      l["words"] = a.words;
      l["bank"] = a.bank;
    }
    lanes.push_back(std::move(l));
  }
  return lanes;
}

void run_banks(const banks_args& a, context& ctx) {
  auto bad = [&](const std::string& why) {
    ctx.err << "xpose banks: error: " << why << "\n";
    ctx.exit_code = 2;
  };
  banks_config cfg;
  std::string why;
  if (!parse_banks_config(a.variant, a.shape, a.block, a.dtype, a.batch, &cfg, &why)) return bad(why);
  const kernel_model& k = cfg.kernel;
  const model::problem_2d p{cfg.shape.rows, cfg.shape.cols, a.batch};

  std::vector<std::int64_t> tile;
  if (!parse_int_list(a.tile, &tile, &why)) return bad("--tile: " + why);
  if (tile.size() != 2) return bad(fmt::format("--tile '{}' must be two numbers BX,BY", a.tile));
  const std::int64_t nx = model::tiles_x(k, p), ny = model::tiles_y(k, p);
  if (tile[0] < 0 || tile[0] >= nx || tile[1] < 0 || tile[1] >= ny)
    return bad(fmt::format("--tile {},{} is outside the {}x{} tiles of this launch (0..{}, 0..{})", tile[0], tile[1], nx,
                           ny, nx - 1, ny - 1));
  const int warps = model::warps_per_block(k);
  if (a.warp < 0 || a.warp >= warps)
    return bad(fmt::format("--warp {} is out of range: a {}x{} block has warps 0..{}", a.warp, k.block_x, k.block_y,
                           warps - 1));
  int max_trips = 1;
  for (const auto& ins : k.instructions) max_trips = std::max(max_trips, ins.trips);
  if (a.trip < 0 || a.trip >= max_trips)
    return bad(fmt::format("--trip {} is out of range: this kernel's loops run trips 0..{}", a.trip, max_trips - 1));

  launch_totals totals;
  if (model::count_launch(k, p, &totals, &why) != status::kSuccess) return bad(why);
  const model::tile_extent valid = model::extent_of_tile(k, p, tile[0], tile[1]);

  std::vector<warp_trace> traces;  // the chosen trip of every instruction
  for (std::size_t i = 0; i < k.instructions.size(); ++i)
    traces.push_back(model::trace_warp(k, static_cast<int>(i), a.warp, std::min(a.trip, k.instructions[i].trips - 1), valid));

  if (a.json) {
    nlohmann::json j = banks_totals_json(cfg, a.batch, totals);
    nlohmann::json w = {{"tile", {tile[0], tile[1]}}, {"valid_rows", valid.rows}, {"valid_cols", valid.cols},
                        {"index", a.warp}};
    nlohmann::json ins = nlohmann::json::array();
    for (const auto& t : traces) {
      ins.push_back({{"source", k.instructions[t.instruction].source},
                     {"op", model::op_name(k.instructions[t.instruction].op)},
                     {"trip", t.trip},
                     {"wavefronts", t.count.wavefronts},
                     {"ideal", t.count.ideal},
                     {"conflicts", t.count.conflicts()},
                     {"lanes", lanes_json(t)}});
    }
    w["instructions"] = std::move(ins);
    j["warp"] = std::move(w);
    ctx.out << j.dump(2) << "\n";
    return;
  }

  std::ostream& os = ctx.out;
  const int eb = k.array.elem_bytes;
  const std::int64_t pitch = static_cast<std::int64_t>(k.array.cols) * eb;
  const auto dt = find_dtype(cfg.dtype);  // the problem's element size (the array's may differ: fast_tile's bytes go through words)
  os << fmt::format("{}: {}x{}{} {} ({}-byte elements), block {}x{} ({} warp{}), kernel {}\n", k.variant, p.rows, p.cols,
                    p.batch > 1 ? fmt::format(" batch {}", p.batch) : "", cfg.dtype, dt ? dt->bytes : eb, k.block_x,
                    k.block_y, warps,
                    warps == 1 ? "" : "s", k.kernel_function);
  std::string rows_apart;
  if (pitch % model::kBankBytes != 0)
    rows_apart = "not a whole number of banks: rows start inside a word";
  else if (pitch / model::kBankBytes % model::kBanks == 0)
    rows_apart = "a multiple of 32 banks: every row starts in bank 0";
  else
    rows_apart = fmt::format("successive rows start {} bank{} apart", pitch / model::kBankBytes % model::kBanks,
                             pitch / model::kBankBytes % model::kBanks == 1 ? "" : "s");
  if (k.array.one_dimensional)
    os << fmt::format("shared array {} of {}-byte elements (one-dimensional: the row and col columns below are 0 "
                      "and the element index)\n",
                      k.array.declaration(), eb);
  else
    os << fmt::format("shared array {} of {}-byte elements: row pitch {} bytes, {}\n", k.array.declaration(), eb,
                      pitch, rows_apart);
  for (const auto& tab : k.tables)
    os << fmt::format("shared array {} of {}-byte elements (a table, addressed from its own start)\n", tab.declaration(),
                      tab.elem_bytes);
  os << fmt::format("{} tiles of {}x{} ({} x {} tiles{}); banks are 4 bytes wide, 32 of them, one word each per wavefront\n\n",
                    totals.tiles, k.tile_rows, k.tile_cols, nx, ny, p.batch > 1 ? fmt::format(" x batch {}", p.batch) : "");

  os << fmt::format("warp {} of tile ({}, {}) [in bounds: {} rows x {} cols]: {}\n", a.warp, tile[0], tile[1], valid.rows,
                    valid.cols, warp_threads(traces.front()));
  for (const auto& t : traces) {
    const auto& ins = k.instructions[t.instruction];
    os << fmt::format("\n[{}] {}  {}", t.instruction + 1, model::op_name(ins.op), ins.source);
    if (ins.trips > 1) os << fmt::format("   (trip {} of {})", t.trip, ins.trips);
    os << "\n";
    print_warp_table(os, t);
    os << verdict_line(t) << "\n";
    if (ins.trips > 1) {
      // Up to 8 trips one by one; longer loops (fast_tile's 4 x V) as runs of equal trips.
      std::string per;
      int run_begin = 0;
      std::pair<int, int> run_value{-1, -1};
      auto flush = [&](int end) {
        if (run_value.first < 0) return;
        const std::string trips = end - 1 > run_begin ? fmt::format("{}-{}", run_begin, end - 1) : std::to_string(run_begin);
        per += fmt::format("{}{}: {}/{}", per.empty() ? "" : ", ", trips, run_value.first, run_value.second);
      };
      for (int trip = 0; trip < ins.trips; ++trip) {
        const warp_trace tt = model::trace_warp(k, t.instruction, a.warp, trip, valid);
        const std::pair<int, int> value{tt.count.wavefronts, tt.count.conflicts()};
        if (ins.trips <= 8 || value != run_value) {
          flush(trip);
          run_begin = trip;
          run_value = value;
        }
      }
      flush(ins.trips);
      os << "     every trip (wavefronts/conflicts): " << per << "\n";
    }
  }

  os << fmt::format("\nlaunch totals: {} tiles x {} warps; an instruction counts once per warp and trip with an active lane\n",
                    totals.tiles, totals.warps_per_block);
  os << " instr  op   executions   wavefronts        ideal    conflicts\n";
  for (std::size_t i = 0; i < totals.instructions.size(); ++i) {
    const auto& it = totals.instructions[i];
    os << fmt::format(" [{}]    {} {:>12} {:>12} {:>12} {:>12}\n", i + 1, model::op_name(it.op), with_commas(it.executions),
                      with_commas(it.wavefronts), with_commas(it.ideal), with_commas(it.conflicts()));
  }
  if (k.compiled_away)
    os << "\nnote: the compiled kernel makes no shared accesses (the compiler forwards each thread's own word in a "
          "register), so Nsight Compute counts 0; docs/banks.md explains how the SASS check established this.\n";
  else if (!k.compiler_note.empty())
    os << "\nnote: " << k.compiler_note << "; docs/banks.md explains how the SASS check established this.\n";
  os << "\nNsight Compute, compiled kernel (`xpose profile` measures these):\n";
  for (const auto& m : banks_metrics(totals.compiled))
    os << fmt::format("  {:<58} {:>12}\n", m.first, with_commas(m.second));
}

}  // namespace

void add_banks_command(CLI::App& app, context& ctx) {
  auto args = std::make_shared<banks_args>();
  CLI::App* cmd = app.add_subcommand(
      "banks", "Shared-memory bank model: lanes, banks, wavefronts and conflicts of a variant's kernel");
  cmd->add_option("--variant", args->variant, "a variant with shared memory: " + model::modelled_variant_list())
      ->required();
  cmd->add_option("--shape", args->shape, "matrix shape RxC")->required();
  cmd->add_option("--block", args->block,
                  "block WxH (default: the variant's: 16x16 for smem_*, 32x8 for tiled; fast_tile, narrow and "
                  "permute_packed fix their own and take none)");
  cmd->add_option("--dtype", args->dtype, "element type: i8, f16, bf16, f32, f64, c64, c128 (default f32)");
  cmd->add_option("--batch", args->batch, "number of matrices (default 1)");
  cmd->add_option("--warp", args->warp, "warp of the block to show (default 0)");
  cmd->add_option("--tile", args->tile, "tile BX,BY to show the warp of (default 0,0)");
  cmd->add_option("--trip", args->trip, "loop trip to show, for kernels with a loop (default 0)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, &ctx]() { run_banks(*args, ctx); });
}

}  // namespace xpose::cli
