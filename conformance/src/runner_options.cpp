#include "neuron/conformance/runner_options.h"

#include "neuron/common/closest_match.h"

#include <fmt/format.h>

namespace neuron::conformance {

std::string runner_usage() {
    return R"(usage: neuron-conformance [OPTIONS] [SCENARIO_FILE_OR_FOLDER...]

Runs YAML conformance scenarios (default: the repository's scenarios/) against
the emulator or against an existing sysfs tree, and reports per scenario.

target (one of):
  --target model            a fresh emulator per scenario, tested through its mounted
                            tree and libnrt (default)
  --sysfs-root PATH         an existing tree: /sys/devices/virtual/neuron_device on a
                            real host, a served mount, a materialized tree

options:
  --instance NAME           model: the instance type to serve (default trn1.2xlarge);
                            sysfs: the instance type the tree is (default: inferred)
  --driver-version V        model: the driver release to serve (default 2.24);
                            sysfs: the tree's release (default: the running driver's,
                            else inferred from the tree's layout)
  --list                    list the selected scenarios and stop
  --filter PATTERN          scenarios whose name contains PATTERN (or matches it, with * ? [])
  --tag TAG                 scenarios with this tag (repeatable: any of them)
  --junit FILE              also write the results as JUnit XML
  --keep-going              run every scenario (default: stop after the first failure)
  --timeout DURATION        per-scenario time limit (default: the scenario's, else 60s)
  --emulator PATH           the neuron-emu to serve with (default: beside this program)

exit status: 0 every scenario that ran passed; 1 a scenario failed; 2 bad usage or
a scenario file with an error; 77 the target cannot run here (no root or /dev/fuse).
)";
}

runner_options parse_runner_options(std::span<const std::string> args) {
    runner_options o;
    const std::vector<std::string> names{"--target", "--sysfs-root", "--instance", "--driver-version", "--list",
                                         "--filter", "--tag", "--junit", "--keep-going", "--timeout", "--emulator",
                                         "--help"};
    bool target_given = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        std::optional<std::string> inline_value;
        if (arg.starts_with("--") && arg.find('=') != std::string::npos) {
            inline_value = arg.substr(arg.find('=') + 1);
            arg = arg.substr(0, arg.find('='));
        }
        const auto value = [&]() -> std::string {
            if (inline_value) return *inline_value;
            if (i + 1 >= args.size()) throw usage_error(fmt::format("{} needs a value", arg));
            return args[++i];
        };
        const auto no_value = [&] {
            if (inline_value) throw usage_error(fmt::format("{} takes no value", arg));
        };
        if (arg == "--help" || arg == "-h") {
            no_value();
            o.help = true;
        } else if (arg == "--target") {
            const auto t = value();
            if (t != "model") throw usage_error(fmt::format("--target takes 'model', not '{}' (for a tree, give --sysfs-root PATH)", t));
            target_given = true;
        } else if (arg == "--sysfs-root") {
            o.sysfs_root = value();
            o.model_target = false;
        } else if (arg == "--instance") {
            o.instance = value();
        } else if (arg == "--driver-version") {
            o.driver_version = value();
        } else if (arg == "--list") {
            no_value();
            o.list = true;
        } else if (arg == "--filter") {
            o.filter = value();
        } else if (arg == "--tag") {
            o.tags.push_back(value());
        } else if (arg == "--junit") {
            o.junit = value();
        } else if (arg == "--keep-going") {
            no_value();
            o.keep_going = true;
        } else if (arg == "--timeout") {
            const auto t = value();
            o.timeout = parse_duration(t);
            if (!o.timeout || o.timeout->count() == 0 || *o.timeout > std::chrono::hours(24)) {
                throw usage_error(fmt::format("--timeout takes a duration up to a day, such as 30s, not '{}'", t));
            }
        } else if (arg == "--emulator") {
            o.emulator = value();
        } else if (arg.starts_with("-") && arg != "-") {
            const auto hint = common::closest_match(arg, names);
            throw usage_error(fmt::format("unknown option '{}'{}", arg, hint ? fmt::format("; did you mean '{}'?", *hint) : ""));
        } else {
            o.paths.push_back(arg);
        }
    }
    if (target_given && !o.model_target) throw usage_error("give one target: --target model or --sysfs-root PATH");
    if (!o.model_target && o.sysfs_root.empty()) throw usage_error("--sysfs-root needs a path");
    return o;
}

} // namespace neuron::conformance
