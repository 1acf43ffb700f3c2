#include "ls_command.h"

#include "arguments.h"
#include "sample_options.h"
#include "vendor_log.h"

#include "neuron/tools/host_sampler.h"
#include "neuron/tools/ls_view.h"

#include <fmt/format.h>

namespace neuron::cli {

int run_ls(std::span<const std::string> args) {
    argument_parser parser("ls");
    parser.flag("wide", "show the command lines in full, up to 80 characters")
        .flag("show-all-procs", "show every process with a device open, not only Neuron runtimes")
        .flag("topology", "draw how the devices are linked")
        .flag("json-output", "print JSON: one object per device")
        .alias("-w", "wide")
        .alias("-a", "show-all-procs")
        .alias("-t", "topology")
        .alias("-j", "json-output");
    add_sample_options(parser);
    const auto options = parser.parse(args);

    tools::host_sample sample;
    try {
        sample = tools::sample_host(read_sample_sources(options));
    } catch (const tools::no_devices_error& e) {
        fmt::print(stderr, "{}", vendor_log_line(tools::ls_failure_entry(e)));
        return 1; // logrus's Fatal
    }
    if (options.given("json-output")) {
        fmt::print("{}", tools::ls_json(sample)); // no newline after the array, as the tool
        return 0;
    }
    tools::ls_options view;
    view.wide = options.given("wide");
    view.all_processes = options.given("show-all-procs");
    view.topology = options.given("topology");
    fmt::print("{}", tools::ls_text(sample, view));
    return 0;
}

} // namespace neuron::cli
