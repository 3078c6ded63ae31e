#include <exception>

#include <fmt/format.h>

#include "commands.hpp"

namespace xpose::cli {

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  context ctx{out, err};
  CLI::App app{"xpose: matrix transpose and tensor permutation at memory-copy speed, and why"};
  app.name("xpose");
  app.require_subcommand(1);
  add_bench_command(app, ctx);
  add_plan_command(app, ctx);
  add_banks_command(app, ctx);
  add_profile_command(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    // One clear line: which option, what was wrong.
    if (e.get_exit_code() == 0) return 0;
    err << "xpose: error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const std::exception& e) {
    err << "xpose: error: " << e.what() << "\n";
    return 1;
  }
  return ctx.exit_code;
}

}  // namespace xpose::cli
