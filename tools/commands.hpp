// The subcommands of `xpose`. Each add_*_command registers one CLI11 subcommand on `app`; its
// callback writes results to ctx.out, diagnostics to ctx.err, and sets ctx.exit_code.
#pragma once

#include <ostream>

#include <CLI/CLI.hpp>

namespace xpose::cli {

struct context {
  std::ostream& out;
  std::ostream& err;
  int exit_code = 0;
};

void add_bench_command(CLI::App& app, context& ctx);
void add_plan_command(CLI::App& app, context& ctx);
void add_banks_command(CLI::App& app, context& ctx);
void add_profile_command(CLI::App& app, context& ctx);

// An option check for integers of at least `lo`, whose message names the bound and the value
// ("must be an integer of at least 1, got 0"), unlike CLI11's PositiveNumber (which prints the
// range up to the largest double).
CLI::Validator at_least(long long lo);

// Runs the whole CLI; returns the process exit code. Never exits, never throws.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace xpose::cli
