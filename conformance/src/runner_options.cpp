#include "neuron/conformance/runner_options.h"

#include "neuron/common/closest_match.h"

#include <fmt/format.h>

namespace neuron::conformance {
namespace {

// 1 to 9999 in plain digits.
std::optional<unsigned> small_number(std::string_view text) {
    if (text.empty() || text.size() > 4) return std::nullopt;
    unsigned n = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + static_cast<unsigned>(c - '0');
    }
    return n;
}

} // namespace

std::string runner_usage() {
    return R"(usage: neuron-conformance [OPTIONS] [SCENARIO_FILE_OR_FOLDER...]

Runs YAML conformance scenarios (default: the repository's scenarios/) against
the emulator or against an existing sysfs tree, and reports per scenario.

target (one of):
  --target model            a fresh emulator per scenario, tested through its mounted
                            tree and libnrt (default)
  --sysfs-root PATH         an existing tree: /sys/devices/virtual/neuron_device on a
                            real host, a served mount, a materialized tree
  --control PATH            with --sysfs-root: the control socket of the neuron-emu
                            serving that tree, so the scenarios that inject, move
                            stepped time or run libnrt run on it too

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
  -j N, --jobs N            run N scenarios at once (1 to 64; default 1); output keeps
                            the scenarios' order
  --shard I/N               run only slice I of N (1 <= I <= N) of the runs, the same
                            slice on every machine: a CI matrix spreads one library
  --matrix                  model target: every instance type x every known driver
                            release (each scenario once per distinct target it gets)
  --quiet                   print failures and the summary only
  --schema                  print the scenario format as a JSON Schema and stop

exit status: 0 every scenario that ran passed; 1 a scenario failed; 2 bad usage or
a scenario file with an error; 77 the target cannot run here (no root or /dev/fuse).
)";
}

runner_options parse_runner_options(std::span<const std::string> args) {
    runner_options o;
    const std::vector<std::string> names{"--target",  "--sysfs-root", "--control", "--instance", "--driver-version",
                                         "--list",    "--filter",     "--tag",     "--junit",    "--keep-going",
                                         "--timeout", "--emulator",   "--jobs",    "--shard",    "--matrix",
                                         "--quiet",   "--schema",     "--help"};
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
            if (t != "model")
                throw usage_error(
                    fmt::format("--target takes 'model', not '{}' (for a tree, give --sysfs-root PATH)", t));
            target_given = true;
        } else if (arg == "--sysfs-root") {
            o.sysfs_root = value();
            o.model_target = false;
        } else if (arg == "--control") {
            o.control = value();
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
        } else if (arg == "-j" || arg == "--jobs" || (arg.starts_with("-j") && !arg.starts_with("--"))) {
            // -j N, --jobs N, --jobs=N or -jN
            const auto text = arg.size() > 2 && arg[1] == 'j' ? arg.substr(2) : value();
            const auto n = small_number(text);
            const auto name = arg.starts_with("--") ? arg : std::string("-j");
            if (!n || *n < 1 || *n > 64)
                throw usage_error(fmt::format("{} takes a number from 1 to 64, not '{}'", name, text));
            o.jobs = *n;
        } else if (arg == "--shard") {
            const auto text = value();
            const auto slash = text.find('/');
            const auto index = slash == std::string::npos ? std::nullopt : small_number(text.substr(0, slash));
            const auto n = slash == std::string::npos ? std::nullopt : small_number(text.substr(slash + 1));
            if (!index || !n || *n < 1 || *index < 1 || *index > *n) {
                throw usage_error(fmt::format("--shard takes I/N with 1 <= I <= N, such as 2/4, not '{}'", text));
            }
            o.shard = *index - 1;
            o.shards = *n;
        } else if (arg == "--matrix") {
            no_value();
            o.matrix = true;
        } else if (arg == "--quiet") {
            no_value();
            o.quiet = true;
        } else if (arg == "--schema") {
            no_value();
            o.schema = true;
        } else if (arg.starts_with("-") && arg != "-") {
            const auto hint = common::closest_match(arg, names);
            throw usage_error(
                fmt::format("unknown option '{}'{}", arg, hint ? fmt::format("; did you mean '{}'?", *hint) : ""));
        } else {
            o.paths.push_back(arg);
        }
    }
    if (target_given && !o.model_target) throw usage_error("give one target: --target model or --sysfs-root PATH");
    if (!o.model_target && o.sysfs_root.empty()) throw usage_error("--sysfs-root needs a path");
    if (o.matrix && !o.model_target) throw usage_error("--matrix runs against the model; it takes no --sysfs-root");
    if (!o.control.empty() && o.model_target) {
        throw usage_error("--control names the emulator serving a --sysfs-root tree; the model target starts its own");
    }
    if (o.jobs > 1 && !o.model_target) {
        throw usage_error("-j runs scenarios at once, each on an emulator of its own; a sysfs tree is one target, "
                          "which scenarios change: they run on it one at a time");
    }
    if (o.matrix && (o.instance || o.driver_version)) {
        throw usage_error("--matrix runs every instance type and release; it takes no --instance or --driver-version");
    }
    return o;
}

} // namespace neuron::conformance
