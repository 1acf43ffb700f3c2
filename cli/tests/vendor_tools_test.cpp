#define BOOST_TEST_MODULE vendor_tools
// neuron-emu ls, monitor and top as commands, on a materialized tree (plain
// files, so no root or FUSE): run under the vendor's names through a link,
// what each says about bad input, and exit statuses. Their views are tested
// in tools/tests; with applications on a served emulator in
// runtime_shim/tests/shim_vendor_tools_test.cpp.

#include "support/process_harness.h"

#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <grp.h>
#include <map>
#include <poll.h>
#include <pty.h>
#include <regex>
#include <sys/wait.h>
#include <unistd.h>

using namespace neuron::cli::testing;

namespace {

constexpr int exit_usage = 2;

// An instance materialized in the case's directory, with its control socket.
struct materialized {
    temp_dir dir{"vendor-tools"};
    std::string tree = dir / "tree";
    std::string control = dir / "ctl.sock";
    emulator serve;
    explicit materialized(const std::string& instance, const std::string& time = "realtime")
            : serve({"serve", "--instance", instance, "--materialize", tree, "--control", control, "--time", time},
                    {.stderr_path = dir / "serve-stderr"}) {
        serve.require_ready();
    }
    ~materialized() { serve.signal(SIGTERM); }

    std::vector<std::string> with_tree(std::vector<std::string> args) const {
        args.insert(args.end(), {"--sysfs-root", tree, "--control", control});
        return args;
    }

    // Moves stepped time on by `ns`.
    void advance(std::uint64_t ns) const {
        const auto r = run_to_end(dir, {"ctl", "--control", control, "advance", "--ns", std::to_string(ns)});
        BOOST_TEST_REQUIRE(r.status == 0, r.err);
    }

    // A monitor configuration file of `json`.
    std::string monitor_config(const std::string& json) const {
        const auto path = dir / "monitor.json";
        std::ofstream(path) << json;
        return path;
    }
};

// The `period` of each group in a monitor report's system_data.
std::map<std::string, double> system_periods(const std::string& report) {
    std::map<std::string, double> periods;
    for (const auto& group : YAML::Load(report)["system_data"]) {
        periods[group.first.as<std::string>()] = group.second["period"].as<double>();
    }
    return periods;
}

// Runs the executable at `path` (a link to neuron-emu) with `args`; stdout and the exit status.
outcome run_as(const temp_dir& dir, const std::string& path, const std::vector<std::string>& args) {
    std::vector<std::string> argv{path};
    argv.insert(argv.end(), args.begin(), args.end());
    return neuron::test_support::run_to_end({.argv = std::move(argv)}, dir.path(), run_timeout);
}

// neuron-ls's fatal line on a pipe (logrus's logfmt) with `error` as its
// error field, whatever the time: "" when `err` is that line, else why not.
std::string unlike_the_fatal_line(const std::string& err, const std::string& error) {
    static const std::regex time_field(R"re(time="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)" )re");
    std::smatch stamp;
    if (!std::regex_search(err, stamp, time_field, std::regex_constants::match_continuous)) {
        return "no RFC 3339 time first: " + err;
    }
    const auto rest = err.substr(static_cast<std::size_t>(stamp.length()));
    const auto want = "level=fatal msg=\"Failed to load MLA system information\" error=\"" + error + "\"\n";
    return rest == want ? "" : "after the time: [" + rest + "], not [" + want + "]";
}

// neuron-emu with `args` run to its end as nobody when the test is root (root
// reads whatever the modes say), else as the test's user. Skipped when nobody
// may not run the executable where it was built.
outcome run_unprivileged(const temp_dir& dir, const std::vector<std::string>& args) {
    const auto out_path = dir / "unprivileged-stdout";
    const auto err_path = dir / "unprivileged-stderr";
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    BOOST_TEST_REQUIRE((out >= 0 && err >= 0), std::strerror(errno));
    std::vector<std::string> words{"neuron-emu"};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    const pid_t child = ::fork();
    BOOST_TEST_REQUIRE(child >= 0, std::strerror(errno));
    if (child == 0) {
        if (::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0) ::_exit(125);
        if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0)) {
            ::_exit(125);
        }
        ::execv(NEURON_EMU_BINARY, argv.data());
        ::_exit(errno == EACCES ? 126 : 127);
    }
    ::close(out);
    ::close(err);
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(child, &status, 0) == child);
    BOOST_TEST_REQUIRE(WIFEXITED(status), "wait status " << status);
    if (WEXITSTATUS(status) == 126) skip("nobody may not run " NEURON_EMU_BINARY);
    BOOST_TEST_REQUIRE(WEXITSTATUS(status) != 125, "could not become nobody");
    BOOST_TEST_REQUIRE(WEXITSTATUS(status) != 127, "could not run " NEURON_EMU_BINARY);
    return {WEXITSTATUS(status), 0, slurp(out_path), slurp(err_path)};
}

// Appends what a pty shows to `screen` until `want` appears (empty: until
// the other side closes) or the ready timeout passes; whether it appeared.
bool read_terminal(int terminal, std::string& screen, const std::string& want = {}) {
    const auto deadline = std::chrono::steady_clock::now() + ready_timeout;
    while ((want.empty() || !contains(screen, want)) && std::chrono::steady_clock::now() < deadline) {
        pollfd fd{terminal, POLLIN, 0};
        if (::poll(&fd, 1, 100) <= 0) continue;
        char buffer[4096];
        const auto n = ::read(terminal, buffer, sizeof buffer);
        if (n <= 0) break; // EIO: the other side closed
        screen.append(buffer, static_cast<std::size_t>(n));
    }
    return want.empty() || contains(screen, want);
}

} // namespace

// No driver (its directory absent) and no device (nothing in it): the 2.28
// tools' fatal line, exit 1, nothing on stdout. SageMaker logs the error field.
BOOST_AUTO_TEST_CASE(ls_without_a_driver_or_a_device_fails_as_neuron_ls_does) {
    temp_dir dir("vendor-tools");
    std::filesystem::create_directory(dir / "empty");
    for (const auto& root : {dir / "absent", dir / "empty"}) {
        BOOST_TEST_CONTEXT(root) {
            const auto r = run_to_end(dir, {"ls", "--sysfs-root", root, "--control", ""});
            BOOST_TEST(r.status == 1);
            BOOST_TEST(r.out.empty(), r.out);
            BOOST_TEST(unlike_the_fatal_line(r.err, "failed to discover Neuron devices").empty(),
                       unlike_the_fatal_line(r.err, "failed to discover Neuron devices"));
        }
    }
}

// A tree permissions keep out: the fatal line with Go's error for the path.
BOOST_AUTO_TEST_CASE(ls_on_a_tree_it_may_not_read_fails_as_neuron_ls_does) {
    temp_dir dir("vendor-tools");
    const auto tree = dir / "tree";
    std::filesystem::create_directory(tree);
    namespace fs = std::filesystem;
    fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                    fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(tree, fs::perms::none);
    const auto r = run_unprivileged(dir, {"ls", "--sysfs-root", tree, "--control", ""});
    fs::permissions(tree, fs::perms::owner_all);
    BOOST_TEST(r.status == 1);
    BOOST_TEST(r.out.empty(), r.out);
    const auto error = "open " + tree + ": permission denied";
    BOOST_TEST(unlike_the_fatal_line(r.err, error).empty(), unlike_the_fatal_line(r.err, error));
}

// On a terminal, logrus's coloured form: FATA, the seconds since the start,
// the message padded to 44 characters, the field's name in red.
BOOST_AUTO_TEST_CASE(ls_without_a_device_on_a_terminal_prints_the_coloured_line) {
    temp_dir dir("vendor-tools");
    const auto root = dir / "absent";
    int terminal = -1;
    const pid_t pid = ::forkpty(&terminal, nullptr, nullptr, nullptr);
    BOOST_TEST_REQUIRE(pid >= 0, std::strerror(errno));
    if (pid == 0) {
        ::execl(NEURON_EMU_BINARY, "neuron-ls", "--sysfs-root", root.c_str(), "--control", "",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    std::string screen;
    read_terminal(terminal, screen);
    ::close(terminal);
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(pid, &status, 0) == pid);
    BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 1), "wait status " << status);
    // The terminal turns the newline into CR LF.
    static const std::regex line("\x1b\\[31mFATA\x1b\\[0m\\[\\d{4}\\] Failed to load MLA system information {9}"
                                 "\x1b\\[31merror\x1b\\[0m=\"failed to discover Neuron devices\"\r\n");
    BOOST_TEST(std::regex_match(screen, line), screen);
}

BOOST_AUTO_TEST_CASE(run_as_neuron_ls_it_is_neuron_ls) {
    materialized m("inf1.6xlarge");
    const auto link = m.dir / "neuron-ls";
    std::filesystem::create_symlink(NEURON_EMU_BINARY, link);
    const auto r = run_as(m.dir, link, m.with_tree({"--json-output"}));
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(r.out.starts_with("[\n    {\n        \"neuron_device\": 0,\n        \"bdf\": \"0000:00:1c.0\",\n"),
               r.out);
    const auto table = run_to_end(m.dir, m.with_tree({"ls"}));
    BOOST_TEST(table.status == 0, table.err);
    BOOST_TEST(
        contains(table.out, "| 3      | 4      | 12-15    | 8 GB   | 2         | 0000:00:1f.0 | 0-23     | -1   |\n"),
        table.out);
}

BOOST_AUTO_TEST_CASE(monitor_refuses_a_bad_configuration_naming_where) {
    materialized m("trn1.2xlarge");
    const auto config = m.dir / "bad.json";
    std::ofstream(config) << "{\"period\": \"1s\",\n \"system_metrics\": [{\"type\": \"vcpu_usag\"}]}";
    const auto r = run_to_end(m.dir, m.with_tree({"monitor", "-c", config}));
    BOOST_TEST(r.status == exit_usage);
    BOOST_TEST(r.out.empty());
    BOOST_TEST(contains(r.err, config + ":2:"), r.err);
    BOOST_TEST(contains(r.err, "vcpu_usage"), "the closest type is named: " << r.err);

    const auto missing = run_to_end(m.dir, m.with_tree({"monitor", "-c", m.dir / "none.json"}));
    BOOST_TEST(missing.status == exit_usage);
    BOOST_TEST(contains(missing.err, "none.json"), missing.err);
}

BOOST_AUTO_TEST_CASE(monitor_prints_the_reports_asked_for) {
    materialized m("trn1.2xlarge");
    const auto config = m.dir / "monitor.json";
    std::ofstream(config) << R"({"period": "10ms", "system_metrics": [{"type": "neuron_hw_counters"}]})";
    const auto r = run_to_end(m.dir, m.with_tree({"monitor", "-c", config, "--count", "2"}));
    BOOST_TEST(r.status == 0, r.err);
    BOOST_TEST(std::count(r.out.begin(), r.out.end(), '\n') == 2, r.out);
    BOOST_TEST(r.out.starts_with("{\"neuron_runtime_data\":[],\"system_data\":{\"neuron_hw_counters\":{\"period\":"),
               r.out);
}

// A reader such as vLLM's Neuron worker waits a few seconds for the first
// line, not a period: it comes at once, however long the period.
BOOST_AUTO_TEST_CASE(monitor_reports_at_once_however_long_its_period) {
    materialized m("trn1.2xlarge");
    const auto config = m.monitor_config(R"({"period": "1h", "system_metrics": [{"type": "memory_info"}]})");
    emulator monitor(m.with_tree({"monitor", "-c", config, "--count", "1"}), {.stderr_path = m.dir / "monitor-stderr"});
    const auto first = monitor.read_line(ready_timeout);
    BOOST_TEST_REQUIRE(first.has_value(), "no report at start: " << monitor.err());
    const auto periods = system_periods(*first);
    BOOST_TEST_REQUIRE(periods.size() == 1U, *first);
    BOOST_TEST(periods.at("memory_info") < 1.0, "over the moment since the start: " << *first);
    monitor.require_exit(0); // the report at start is one of --count's
}

// In stepped time the first report comes before time moves (over no time),
// and the next when one period has passed since the start.
BOOST_AUTO_TEST_CASE(monitor_reports_at_start_and_one_period_on_in_stepped_time) {
    materialized m("trn1.2xlarge", "stepped");
    const auto config = m.monitor_config(
        R"({"period": "1s", "system_metrics": [{"type": "neuron_hw_counters"}, {"type": "vcpu_usage"}]})");
    emulator monitor(m.with_tree({"monitor", "-c", config, "--count", "2"}), {.stderr_path = m.dir / "monitor-stderr"});
    const auto first = monitor.read_line(ready_timeout);
    BOOST_TEST_REQUIRE(first.has_value(), "no report before time moved: " << monitor.err());
    BOOST_TEST((system_periods(*first) == std::map<std::string, double>{{"neuron_hw_counters", 0}, {"vcpu_usage", 0}}),
               *first);

    // Half a period is not one: had a report come then, the next would cover half a second.
    m.advance(500'000'000);
    m.advance(500'000'000);
    const auto second = monitor.read_line(ready_timeout);
    BOOST_TEST_REQUIRE(second.has_value(), "no report one period on: " << monitor.err());
    BOOST_TEST((system_periods(*second) == std::map<std::string, double>{{"neuron_hw_counters", 1}, {"vcpu_usage", 1}}),
               *second);
    monitor.require_exit(0);
    BOOST_TEST(monitor.err() ==
               "neuron-emu: monitor: the emulator's time is stepped; reports come as it is advanced\n");
}

// A reader that went away ends the stream; with the first report at start, at once.
BOOST_AUTO_TEST_CASE(monitor_ends_when_its_reader_is_gone) {
    materialized m("trn1.2xlarge");
    const auto config = m.monitor_config(R"({"period": "1h", "system_metrics": [{"type": "memory_info"}]})");
    int pipe_ends[2];
    BOOST_TEST_REQUIRE(::pipe2(pipe_ends, O_CLOEXEC) == 0, std::strerror(errno));
    ::close(pipe_ends[0]);
    std::vector<std::string> argv{NEURON_EMU_BINARY};
    for (auto& a : m.with_tree({"monitor", "-c", config})) argv.push_back(std::move(a));
    neuron::test_support::spawned_process monitor(
        {.argv = std::move(argv),
         .output = neuron::test_support::stream_target::descriptor(pipe_ends[1]),
         .error = neuron::test_support::stream_target::file(m.dir / "err")});
    ::close(pipe_ends[1]);
    const auto status = monitor.wait(default_exit_timeout);
    BOOST_TEST_REQUIRE(status.has_value(), "the monitor went on without a reader");
    // Killed by SIGPIPE, or failed on EPIPE where the signal is ignored.
    BOOST_TEST(!(WIFEXITED(*status) && WEXITSTATUS(*status) == 0), "wait status " << *status);
}

BOOST_AUTO_TEST_CASE(top_needs_a_terminal_unless_once) {
    materialized m("trn1.2xlarge");
    const auto r = run_to_end(m.dir, m.with_tree({"top"}));
    BOOST_TEST(r.status == exit_usage);
    BOOST_TEST(contains(r.err, "needs a terminal"), r.err);
    const auto sized = run_to_end(m.dir, m.with_tree({"top", "--width", "80"}));
    BOOST_TEST(sized.status == exit_usage);
    BOOST_TEST(contains(sized.err, "--width and --height go with --once"), sized.err);
    const auto once = run_to_end(m.dir, m.with_tree({"top", "--once", "--width", "100"}));
    BOOST_TEST(once.status == 0, once.err);
    BOOST_TEST(contains(once.out, "NeuronCore v2 Utilization"), once.out);
}

// A person's view: neuron-top in a terminal (a pty of 120 x 30) draws its
// screen on the alternate screen, and q gives the terminal back.
BOOST_AUTO_TEST_CASE(top_draws_its_screen_in_a_terminal_and_quits_on_q) {
    materialized m("trn2.3xlarge");
    winsize size{};
    size.ws_row = 30;
    size.ws_col = 120;
    int terminal = -1;
    const pid_t pid = ::forkpty(&terminal, nullptr, nullptr, &size);
    BOOST_TEST_REQUIRE(pid >= 0, std::strerror(errno));
    if (pid == 0) {
        ::execl(NEURON_EMU_BINARY, "neuron-top", "--sysfs-root", m.tree.c_str(), "--control", m.control.c_str(),
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    std::string screen;
    const auto read_until = [&](const std::string& want) { return read_terminal(terminal, screen, want); };
    BOOST_TEST_REQUIRE(read_until("\x1b[?1049h"), "no alternate screen: " << screen);
    BOOST_TEST_REQUIRE(read_until(" q: quit"), "no key help: " << screen);
    BOOST_TEST(contains(screen, "running on i-0"), screen);
    BOOST_TEST(contains(screen, "(trn2.3xlarge)"), screen);
    BOOST_TEST(contains(screen, "NeuronCore v3d Utilization (Avg: 0.00%)"), screen);
    BOOST_TEST(contains(screen, "Neuron Apps  >[1]:all<"), screen);
    BOOST_TEST_REQUIRE(::write(terminal, "q", 1) == 1);
    BOOST_TEST(read_until("\x1b[?1049l"), "the terminal was not given back: " << screen);
    int status = 0;
    BOOST_TEST_REQUIRE(::waitpid(pid, &status, 0) == pid);
    BOOST_TEST((WIFEXITED(status) && WEXITSTATUS(status) == 0), "wait status " << status);
    ::close(terminal);
}

BOOST_AUTO_TEST_CASE(options_the_tools_do_not_have_are_refused) {
    materialized m("trn1.2xlarge");
    for (const auto* tool : {"ls", "monitor", "top"}) {
        BOOST_TEST_CONTEXT(tool) {
            const auto r = run_to_end(m.dir, m.with_tree({tool, "--bogus"}));
            BOOST_TEST(r.status == exit_usage);
            BOOST_TEST(contains(r.err, "--bogus"), r.err);
        }
    }
    const auto count = run_to_end(m.dir, m.with_tree({"monitor", "--count", "0"}));
    BOOST_TEST(count.status == exit_usage);
}
