// neuron-conformance: runs YAML scenarios against the emulator or a sysfs tree.

#include "neuron/common/printable.h"
#include "neuron/common/yaml_fields.h"
#include "neuron/conformance/isolated_run.h"
#include "neuron/conformance/report.h"
#include "neuron/conformance/runner_options.h"
#include "neuron/conformance/scenario_library.h"
#include "neuron/conformance/target.h"
#include "neuron/model/errors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <csignal>
#include <fstream>
#include <sys/prctl.h>
#include <unistd.h>

namespace {

using namespace neuron::conformance;

constexpr int exit_failed = 1;
constexpr int exit_usage = 2;
constexpr int exit_unavailable = 77;
constexpr nanoseconds default_timeout = std::chrono::seconds(60);

std::string own_path(const char* argv0) {
    char buffer[4096];
    const auto n = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string(argv0);
}

void on_stop_signal(int) { request_stop(); }

// The command that runs one scenario again against the same target.
std::string repro(const std::string& program, const runner_options& o, const target_description& t, const scenario& s) {
    std::string command = program;
    if (o.model_target) {
        command += fmt::format(" --target model --instance {} --driver-version {}", t.instance->name, t.release->tag);
    } else {
        command += " --sysfs-root " + o.sysfs_root;
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
    const auto program = own_path(argv[0]);
    auto paths = options.paths;
    if (paths.empty()) paths.push_back(NEURON_SCENARIO_DIR);
    const auto all = load_scenarios(paths);
    const auto selected = select_scenarios(all, options.filter, options.tags);
    if (selected.empty()) throw usage_error("no scenario matches the filter and tags given");
    if (options.list) {
        list(selected);
        return 0;
    }

    auto tools = tool_paths::beside(program);
    if (!options.emulator.empty()) tools.emulator = options.emulator;
    const auto target = options.model_target
                            ? describe_model_target(options.instance.value_or("trn1.2xlarge"), options.driver_version.value_or("2.24"))
                            : detect_sysfs_target(options.sysfs_root, options.instance, options.driver_version);
    fmt::print("neuron-conformance: {} scenario{} against {}\n", selected.size(), selected.size() == 1 ? "" : "s",
               target.name());
    if (!target.unavailable.empty()) {
        fmt::print(stderr, "neuron-conformance: skipped: {}\n", neuron::common::printable_lines(target.unavailable));
        return exit_unavailable;
    }
    std::fflush(stdout);

    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    std::signal(SIGPIPE, SIG_IGN);
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);

    const auto started = std::chrono::steady_clock::now();
    std::vector<report_entry> entries;
    bool failed = false;
    for (const auto* s : selected) {
        if (stop_requested()) break;
        const auto scenario_target = options.model_target ? model_target_for(target, *s) : target;
        report_entry e{s, {}, repro(program, options, scenario_target, *s)};
        if (const auto why = skip_reason(*s, scenario_target)) {
            e.outcome.result = verdict::skip;
            e.outcome.reason = *why;
        } else {
            e.outcome = run_isolated(*s, scenario_target, tools, options.timeout.value_or(s->timeout.value_or(default_timeout)));
        }
        print_entry(stdout, e);
        failed = failed || e.outcome.result == verdict::fail;
        entries.push_back(std::move(e));
        if (failed && !options.keep_going) break;
    }
    const auto total = std::chrono::steady_clock::now() - started;
    print_summary(stdout, entries, total);
    if (!options.junit.empty()) {
        std::ofstream out(options.junit);
        out << junit_xml(entries, target.name(), total);
        if (!out) {
            fmt::print(stderr, "neuron-conformance: cannot write {}\n", neuron::common::printable(options.junit));
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
