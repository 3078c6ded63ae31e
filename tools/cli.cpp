#include <charconv>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "commands.hpp"

namespace xpose::cli {

CLI::Validator at_least(long long lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        long long v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc{} || end != text.data() + text.size() || v < lo)
          return fmt::format("must be an integer of at least {}, got {}", lo, text);
        return {};
      },
      fmt::format("INT>={}", lo));
}

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  context ctx{out, err};
  CLI::App app{"xpose: matrix transpose and tensor permutation at memory-copy speed, and why"};
  app.name("xpose");
  app.require_subcommand(1);
  add_bench_command(app, ctx);
  add_plan_command(app, ctx);
  add_banks_command(app, ctx);
  add_profile_command(app, ctx);
  // CLI11 reports a mistyped command as "a subcommand is required"; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      if (!sub->get_group().empty())  // hidden helpers (profile's `launch`) are not advertised
        known += (known.empty() ? "" : ", ") + sub->get_name();
      found = found || sub->get_name() == argv[1];
    }
    if (!found) {
      err << "xpose: error: unknown command '" << argv[1] << "' (commands: " << known << ")\n";
      return 2;
    }
  }
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
