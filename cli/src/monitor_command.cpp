#include "monitor_command.h"

#include "arguments.h"
#include "sample_options.h"
#include "usage_error.h"

#include "neuron/common/printable.h"
#include "neuron/common/regular_file.h"
#include "neuron/tools/host_sampler.h"
#include "neuron/tools/monitor_config.h"
#include "neuron/tools/monitor_document.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

namespace neuron::cli {
namespace {

constexpr int exit_failure = 1;
// A configuration is a few hundred bytes; anything near this is not one.
constexpr std::size_t max_config_bytes = 1 << 20;
constexpr std::uint64_t max_verbose = 4;

tools::monitor_config read_config(const std::string& path) {
    try {
        return tools::parse_monitor_config(common::read_regular_file(path, max_config_bytes), path);
    } catch (const common::file_error& e) {
        throw usage_error(fmt::format("monitor: {}", common::printable_message(e.what())));
    } catch (const tools::monitor_config_error& e) {
        throw usage_error(fmt::format("monitor: {}", e.what()));
    }
}

std::optional<tools::host_sample> sample(const tools::sample_sources& sources) {
    try {
        return tools::sample_host(sources);
    } catch (const tools::no_devices_error& e) {
        fmt::print(stderr, "neuron-emu: monitor: {}\n", common::printable_message(e.what()));
        return std::nullopt;
    }
}

// Prints one report; false when the reader went away (which ends the stream).
bool print_report(const std::string& report) {
    fmt::print("{}\n", report);
    // A reader reads a report as soon as it is whole.
    return std::fflush(stdout) == 0 && !std::ferror(stdout);
}

} // namespace

int run_monitor(std::span<const std::string> args) {
    argument_parser parser("monitor");
    parser.option("config-file", "FILE", "a neuron-monitor JSON configuration (default: every group, every 5 s)")
        .alias("-c", "config-file")
        .alias("--config", "config-file")
        .option("verbose", "N", "0 to 4, accepted as neuron-monitor does (no debug output is emulated)", "0")
        .option("count", "N", "stop after N reports, the one at start included (default: run until stopped)");
    add_sample_options(parser);
    const auto options = parser.parse(args);
    if (options.unsigned_value("verbose") > max_verbose) throw usage_error("monitor: --verbose must be 0 to 4");
    std::optional<std::uint64_t> count;
    if (options.given("count")) {
        count = options.unsigned_value("count");
        if (*count == 0) throw usage_error("monitor: --count must be at least 1");
    }
    auto config =
        options.given("config-file") ? read_config(options.value("config-file")) : tools::default_monitor_config();
    const auto sources = read_sample_sources(options);

    tools::monitor_state state(std::move(config));
    auto first = sample(sources);
    if (!first) return exit_failure;
    if (first->time_stepped) {
        // Otherwise a person sees nothing happen, and a script cannot tell when to advance.
        fmt::print(stderr, "neuron-emu: monitor: the emulator's time is stepped; reports come as it is advanced\n");
        std::fflush(stderr);
    }
    state.start(std::move(*first));
    // The vendor's tool reports as it starts, over the moment since (readers
    // such as vLLM's wait for that line a few seconds, not a period); it
    // counts towards --count.
    auto second = sample(sources);
    if (!second) return exit_failure;
    if (!print_report(state.report_at_start(std::move(*second)))) return exit_failure;
    for (std::uint64_t printed = 1; !count || printed < *count; ++printed) {
        if (!tools::wait_for_time(sources, state.next_due_ns())) {
            fmt::print(stderr, "neuron-emu: monitor: the emulator stopped answering\n");
            return exit_failure;
        }
        auto next = sample(sources);
        if (!next) return exit_failure;
        if (!print_report(state.update(std::move(*next)))) return exit_failure;
    }
    return 0;
}

} // namespace neuron::cli
