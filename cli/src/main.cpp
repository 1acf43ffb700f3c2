#include "check_model_command.h"
#include "ctl_command.h"
#include "demo_command.h"
#include "inspect_neff_command.h"
#include "instances_command.h"
#include "profile_command.h"
#include "run_command.h"
#include "serve_command.h"
#include "usage_error.h"
#include "vendor_tools.h"

#include "neuron/common/printable.h"
#include "neuron/model/spec/errors.h"
#include "neuron/recording/commands.h"

#include <fmt/format.h>

#include <exception>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

constexpr std::string_view usage = R"(usage: neuron-emu COMMAND [OPTIONS]

commands:
  instances [--json]          list the instance types the emulator models
  demo [--instance NAME]      run an instance model for a moment and report what it did
  serve --mount DIR [...]     serve an instance's sysfs tree at DIR until SIGINT/SIGTERM
  run [...] -- CMD [ARGS...]  run CMD where the tree sits at /sys/devices/virtual/neuron_device
  ctl [--control PATH] VERB   ask a running emulator: status, inject-ecc, reset, fail-resets,
                              emit-debug, advance
  check-model [--instance T] FILE...
                              check emulated model files (what nrt_load takes)
  inspect-neff [--json] FILE...
                              what a compiled NEFF holds: signature, memory per core, instructions
  ls [-w] [-a] [-t] [-j]      neuron-ls: the devices, their cores, links and processes
  monitor [-c CONFIG]         neuron-monitor: one JSON document per period
  top [--once]                neuron-top: utilization, vCPU and memory, in a terminal
  record [--sysfs-root R] -o FILE
                              record what a sysfs tree is (a host's, a served one) for diff and replay
  profile capture|view|diff   profile a model instruction by instruction, in neuron-profile's
                              formats (summary-text, summary-json, json, perfetto)
  help                        this text
  version                     the emulator's version

Run 'neuron-emu COMMAND --help' for a command's options. Run as neuron-ls,
neuron-monitor or neuron-top (a link's name), it is that command.
)";

} // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    const auto* as_tool = argc > 0 ? neuron::cli::vendor_tool_named(argv[0]) : nullptr;
    if (args.empty() && as_tool == nullptr) {
        fmt::print(stderr, "{}", usage);
        return exit_usage;
    }
    const std::string command = as_tool != nullptr ? std::string(as_tool->command) : args.front();
    if (as_tool == nullptr) args.erase(args.begin());
    try {
        if (command == "help" || command == "--help" || command == "-h") {
            fmt::print("{}", usage);
            return 0;
        }
        if (command == "version" || command == "--version") {
            fmt::print("neuron-emu {}\n", NEURON_EMU_VERSION);
            return 0;
        }
        if (command == "instances") return neuron::cli::run_instances(args);
        if (command == "demo") return neuron::cli::run_demo(args);
        if (command == "serve") return neuron::cli::run_serve(args);
        if (command == "run") return neuron::cli::run_run(args);
        if (command == "ctl") return neuron::cli::run_ctl(args);
        if (command == "check-model") return neuron::cli::run_check_model(args);
        if (command == "profile") return neuron::cli::run_profile(args);
        if (command == "inspect-neff") return neuron::cli::run_inspect_neff(args);
        if (command == "record") return neuron::recording::run_record(args, "neuron-emu");
        for (const auto& tool : neuron::cli::vendor_tools()) {
            if (command == tool.command) return tool.run(args);
        }
        throw neuron::cli::usage_error(fmt::format("unknown command '{}'", neuron::common::printable(command, 200)));
    } catch (const neuron::cli::help_requested& help) {
        fmt::print("{}", help.what());
        return 0;
    } catch (const neuron::cli::usage_error& e) {
        fmt::print(stderr, "neuron-emu: {}\n", neuron::common::printable_lines(e.what()));
        return exit_usage;
    } catch (const neuron::model::invalid_argument_error& e) {
        fmt::print(stderr, "neuron-emu: {}\n", neuron::common::printable_message(e.what()));
        return exit_usage;
    } catch (const neuron::model::model_error& e) {
        fmt::print(stderr, "neuron-emu: error: {}\n", neuron::common::printable_message(e.what()));
        return exit_failure;
    } catch (const std::exception& e) {
        fmt::print(stderr, "neuron-emu: error: {}\n", neuron::common::printable_message(e.what()));
        return exit_failure;
    }
}
