// neuron-conformance: runs YAML scenarios against the emulator or a sysfs tree.

#include "neuron/common/printable.h"
#include "neuron/common/safe_output_file.h"
#include "neuron/common/yaml_fields.h"
#include "neuron/conformance/isolated_run.h"
#include "neuron/conformance/report.h"
#include "neuron/conformance/run_plan.h"
#include "neuron/conformance/runner_options.h"
#include "neuron/conformance/scenario_library.h"
#include "neuron/conformance/scenario_parser.h"
#include "neuron/conformance/target.h"
#include "neuron/model/spec/errors.h"
#include "neuron/recording/commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <csignal>
#include <filesystem>
#include <sys/prctl.h>
#include <unistd.h>

namespace {

using namespace neuron::conformance;

constexpr int exit_failed = 1;
constexpr int exit_usage = 2;
constexpr int exit_unavailable = 77;

std::string own_path(const char* argv0) {
    char buffer[4096];
    const auto n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string(argv0);
}

// The scenario library: installed (cmake --install) beside the executable,
// else the source tree's.
std::string default_scenarios(const std::string& program) {
    const auto installed = std::filesystem::path(program).parent_path().parent_path() / "share/neuron-emu/scenarios";
    std::error_code ignored;
    return std::filesystem::is_directory(installed, ignored) ? installed.string() : std::string(NEURON_SCENARIO_DIR);
}

void on_stop_signal(int) { request_stop(); }

target_description sysfs_target(const runner_options& o) {
    auto t = detect_sysfs_target(o.sysfs_root, o.instance, o.driver_version);
    if (!o.control.empty() && t.unavailable.empty()) {
        attach_control(t, o.control, o.instance.has_value(), o.driver_version.has_value());
    }
    return t;
}

// "trn1.2xlarge 2.24.7.0": which target of a matrix a run had.
std::string run_label(const target_description& t) {
    return fmt::format("{} {}", t.instance != nullptr ? t.instance->name : "?",
                       t.release != nullptr ? t.release->tag : "?");
}

// The command that runs one scenario again against the same target.
std::string repro(const std::string& program, const runner_options& o, const target_description& t, const scenario& s) {
    std::string command = program;
    if (o.model_target) {
        command += fmt::format(" --target model --instance {} --driver-version {}", t.instance->name, t.release->tag);
    } else {
        command += " --sysfs-root " + o.sysfs_root;
        if (!o.control.empty()) command += " --control " + o.control;
        if (o.instance) command += " --instance " + *o.instance;
        if (o.driver_version) command += " --driver-version " + *o.driver_version;
    }
    if (o.timeout) command += " --timeout " + format_duration(*o.timeout);
    return command + " " + s.file;
}

void list(const std::vector<const scenario*>& selected) {
    for (const auto* s : selected) {
        std::vector<std::string_view> needs;
        for (const auto c : s->requires_) needs.push_back(capability_name(c));
        fmt::print("{:<52} [{}]{}\n", s->name, fmt::join(s->tags, ", "),
                   needs.empty() ? std::string() : fmt::format(" requires {}", fmt::join(needs, ", ")));
        if (!s->description.empty()) fmt::print("    {}\n", s->description);
    }
    fmt::print("{} scenario{}\n", selected.size(), selected.size() == 1 ? "" : "s");
}

int run(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const auto options = parse_runner_options(args);
    if (options.help) {
        fmt::print("{}", runner_usage());
        return 0;
    }
    if (options.schema) {
        fmt::print("{}", scenario_schema());
        return 0;
    }
    const auto program = own_path(argv[0]);
    auto paths = options.paths;
    if (paths.empty()) paths.push_back(default_scenarios(program));
    const auto all = load_scenarios(paths);
    const auto selected = select_scenarios(all, options.filter, options.tags);
    if (selected.empty()) throw usage_error("no scenario matches the filter and tags given");
    if (options.list) {
        list(selected);
        return 0;
    }

    auto tools = tool_paths::beside(program);
    if (!options.emulator.empty()) tools.emulator = options.emulator;
    const auto targets = options.matrix ? every_model_target()
                         : options.model_target
                             ? std::vector{describe_model_target(options.instance.value_or("trn1.2xlarge"),
                                                                 options.driver_version.value_or("2.24"))}
                             : std::vector{sysfs_target(options)};
    const auto& target = targets.front();
    const auto target_name = options.matrix ? fmt::format("the model: {} instance types x {} driver releases",
                                                          targets.size() / neuron::sysfs::known_releases().size(),
                                                          neuron::sysfs::known_releases().size())
                                            : target.name();
    auto unavailable = target.unavailable;
    if (unavailable.empty() && (options.matrix || options.model_target) &&
        ::access(tools.emulator.c_str(), X_OK) != 0) {
        // A host build (NEURON_HOST_TOOLS_ONLY) has no emulator beside it.
        unavailable = fmt::format("the model target serves with {}, which is not here (a host-tools build has no "
                                  "emulator): give --emulator PATH, or run on a tree with --sysfs-root",
                                  tools.emulator);
    }
    if (!unavailable.empty()) {
        fmt::print("neuron-conformance: {} scenario{} against {}\n", selected.size(), selected.size() == 1 ? "" : "s",
                   target_name);
        fmt::print(stderr, "neuron-conformance: skipped: {}\n", neuron::common::printable_lines(unavailable));
        return exit_unavailable;
    }
    const auto runs = plan_runs(selected, targets, {options.timeout, options.shard, options.shards});
    fmt::print("neuron-conformance: {} scenario{} against {}{}{}\n", selected.size(), selected.size() == 1 ? "" : "s",
               target_name, runs.size() != selected.size() ? fmt::format(": {} runs", runs.size()) : "",
               options.shards > 1 ? fmt::format(" (shard {}/{})", options.shard + 1, options.shards) : "");
    std::fflush(stdout);

    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);

    const auto started = std::chrono::steady_clock::now();
    std::vector<report_entry> entries;
    run_scenarios(runs, tools, {options.jobs, !options.keep_going},
                  [&](std::size_t i, const scenario_outcome& outcome) {
                      const auto& r = runs[i];
                      report_entry e{r.what, outcome, repro(program, options, r.target, *r.what),
                                     options.matrix ? run_label(r.target) : std::string()};
                      if (!options.quiet || outcome.result == verdict::fail) print_entry(stdout, e);
                      entries.push_back(std::move(e));
                  });
    const bool failed = std::any_of(entries.begin(), entries.end(),
                                    [](const report_entry& e) { return e.outcome.result == verdict::fail; });
    const auto total = std::chrono::steady_clock::now() - started;
    print_summary(stdout, entries, total);
    if (!options.junit.empty()) {
        try {
            neuron::common::write_output_file(options.junit, junit_xml(entries, target_name, total));
        } catch (const neuron::common::file_error& e) {
            fmt::print(stderr, "neuron-conformance: {}\n", neuron::common::printable_message(e.what()));
            return exit_failed;
        }
    }
    if (stop_requested()) {
        fmt::print(stderr, "neuron-conformance: stopped by a signal\n");
        return exit_failed;
    }
    return failed ? exit_failed : 0;
}

} // namespace

int main(int argc, char** argv) {
    // The host tools: compare two trees or recordings, or record one.
    if (argc >= 2 && (std::string_view(argv[1]) == "diff" || std::string_view(argv[1]) == "record")) {
        const std::vector<std::string> args(argv + 2, argv + argc);
        return std::string_view(argv[1]) == "diff" ? neuron::recording::run_diff(args, "neuron-conformance")
                                                   : neuron::recording::run_record(args, "neuron-conformance");
    }
    try {
        return run(argc, argv);
    } catch (const usage_error& e) {
        fmt::print(stderr, "neuron-conformance: {}\n(see neuron-conformance --help)\n",
                   neuron::common::printable_lines(e.what()));
        return exit_usage;
    } catch (const neuron::common::yaml_error& e) {
        fmt::print(stderr, "neuron-conformance: {}\n", neuron::common::printable_message(e.what()));
        return exit_usage;
    } catch (const neuron::model::invalid_argument_error& e) {
        fmt::print(stderr, "neuron-conformance: {}\n", neuron::common::printable_lines(e.what()));
        return exit_usage;
    } catch (const std::exception& e) {
        fmt::print(stderr, "neuron-conformance: error: {}\n", neuron::common::printable_lines(e.what()));
        return exit_failed;
    }
}
