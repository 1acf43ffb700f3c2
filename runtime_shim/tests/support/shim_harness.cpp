#include "support/shim_harness.h"

#include "neuron/common/blocked_call.h"
#include "neuron/common/shell_word.h"
#include "neuron/test_support/wait_status.h"

#include <boost/test/framework.hpp>
#include <boost/test/results_collector.hpp>
#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace neuron::shim::testing {
namespace {

std::vector<std::pair<std::string, std::string>>& blocks() {
    static std::vector<std::pair<std::string, std::string>> all;
    return all;
}

bool case_failed() {
    if (std::uncaught_exceptions() > 0) return true;
    const auto id = boost::unit_test::framework::current_test_case().p_id;
    const auto& results = boost::unit_test::results_collector.results(id);
    return results.p_assertions_failed.get() > 0 || results.p_aborted.get();
}

using neuron::common::shell_word;

std::string indent(const std::string& text) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out += "    " + line + "\n";
    return out;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
}

// The test's environment without the variables that steer the runtime
// (a developer's NEURON_RT_VISIBLE_CORES must not change a case).
std::vector<std::string> clean_environment() {
    std::vector<std::string> out;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry = *e;
        if (entry.starts_with("NEURON_") || entry.starts_with("LD_LIBRARY_PATH=")) continue;
        out.push_back(entry);
    }
    return out;
}

int program_counter = 0;

} // namespace

// ---- what a failed case prints

void transcript(const std::string& title, const std::string& text) { blocks().emplace_back(title, text); }

diagnostics::diagnostics() { blocks().clear(); }

diagnostics::~diagnostics() {
    if (case_failed()) {
        std::string out = "\n======== what the failed case saw, in order ========\n";
        for (const auto& [title, text] : blocks()) out += "--- " + title + "\n" + (text.empty() ? "" : indent(text));
        out += "======== end ========\n";
        std::fputs(out.c_str(), stderr);
        std::fflush(stderr);
    }
    blocks().clear();
}

void require_mount(const std::string& who) { test_support::require_fuse_mount(who); }

// ---- paths

std::string program_path(const std::string& name) { return std::string(SHIM_PROGRAM_DIR) + "/" + name; }
std::string model_path(const std::string& name) { return std::string(SHIM_TEST_MODEL_DIR) + "/" + name; }
std::string shipped_model(const std::string& name) { return std::string(SHIM_SHIPPED_MODEL_DIR) + "/" + name; }

// ---- the emulator

served_instance::served_instance(served_options options)
        : m_dir("shim"), m_mount(m_dir / "mnt"), m_control(m_dir / "ctl.sock") {
    std::filesystem::create_directory(m_mount);
    m_serve.emplace(std::vector<std::string>{"serve", "--instance", options.instance, "--mount", m_mount, "--control",
                                             m_control, "--time", options.time},
                    cli::testing::process_streams{.stderr_path = m_dir / "emulator.stderr"});
    transcript("emulator started", m_serve->command());
    const auto serving = m_serve->require_ready();
    BOOST_TEST_REQUIRE(serving.starts_with("neuron-emu: serving " + options.instance), serving);
    const auto control = m_serve->read_line(cli::testing::ready_timeout);
    BOOST_TEST_REQUIRE(control.has_value(), "no control-socket line; stderr:\n" << m_serve->err());
    BOOST_TEST_REQUIRE(control->starts_with("neuron-emu: control socket " + m_control), *control);
}

served_instance::~served_instance() {
    if (!m_stopped && m_serve) {
        ::kill(m_serve->pid(), SIGTERM);
        const auto status = m_serve->wait();
        if (!status) transcript("emulator", "did not stop on SIGTERM; killed");
    }
    if (m_serve) {
        const auto text = m_serve->err();
        transcript(std::string("emulator stderr") + (text.empty() ? ": empty" : ""), text);
    }
}

cli::testing::outcome served_instance::ctl(const std::vector<std::string>& args) {
    std::vector<std::string> full{"ctl", "--control", m_control};
    full.insert(full.end(), args.begin(), args.end());
    auto result = cli::testing::run_to_end(m_dir, full);
    std::string args_shown;
    for (const auto& a : args) args_shown += " " + shell_word(a);
    const bool long_report = args.size() >= 2 && args[1] == "--json"; // the summary of status says enough
    transcript(fmt::format("ctl{} -> exit {}{}", args_shown, result.status, long_report ? " (JSON not shown)" : ""),
               long_report ? result.err : result.out + result.err);
    return result;
}

std::string served_instance::ctl_ok(const std::vector<std::string>& args) {
    const auto result = ctl(args);
    BOOST_TEST_REQUIRE(result.status == 0, "ctl " << args.front() << " exited " << result.status << ": " << result.err);
    return result.out;
}

YAML::Node served_instance::status() {
    const auto out = ctl_ok({"status", "--json"});
    try {
        return YAML::Load(out);
    } catch (const YAML::Exception& e) {
        BOOST_TEST_REQUIRE(false, "ctl status --json is not JSON: " << e.what() << "\n" << out);
    }
    return {};
}

YAML::Node served_instance::stream_status(std::uint32_t global_core) {
    const auto report = status();
    for (const auto& s : report["debug_streams"]) {
        if (s["logical_core"].as<std::uint32_t>() == global_core) return s;
    }
    return YAML::Node();
}

std::string served_instance::read(const std::string& relative) {
    const auto path = m_mount + "/" + relative;
    const auto content = cli::testing::read_file(path);
    BOOST_TEST_REQUIRE(content.error == 0, path << ": " << std::strerror(content.error));
    return content.text;
}

std::uint64_t served_instance::core_counter(std::uint32_t device, std::uint32_t core, const std::string& relative,
                                            const std::string& file) {
    const auto path = fmt::format("neuron{}/neuron_core{}/stats/{}/{}", device, core, relative, file);
    const auto text = trimmed(read(path));
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        BOOST_TEST_REQUIRE(false, path << " is not a number: '" << text << "'");
    }
    return 0;
}

std::uint64_t served_instance::host_category(std::uint32_t device, const std::string& category) {
    const auto path = fmt::format("neuron{}/stats/memory_usage/host_mem/{}/total", device, category);
    return std::stoull(trimmed(read(path)));
}

void served_instance::stop() {
    m_serve->signal(SIGTERM);
    m_serve->require_exit(0);
    m_stopped = true;
    BOOST_TEST(cli::testing::fs_types_at(m_mount).empty(), "still mounted at " << m_mount);
}

// ---- a C test program

program::program(const temp_dir& dir, const std::string& name, program_options options) {
    m_label = fmt::format("{}#{}", name, ++program_counter);
    m_stderr_path = dir / (m_label + ".stderr");
    auto env = clean_environment();
    env.push_back("LD_LIBRARY_PATH=" + std::string(NRT_LIBRARY_DIR));
    std::string shown_env = "LD_LIBRARY_PATH=" + std::string(NRT_LIBRARY_DIR);
    if (!options.control.empty()) options.env["NEURON_EMU_CONTROL"] = options.control;
    for (const auto& [key, value] : options.env) {
        env.push_back(key + "=" + value);
        shown_env += " " + key + "=" + shell_word(value);
    }
    const auto path = program_path(name);
    m_command = "env " + shown_env + " " + shell_word(path);
    for (const auto& a : options.args) m_command += " " + shell_word(a);

    std::vector<std::string> argv{path};
    argv.insert(argv.end(), options.args.begin(), options.args.end());
    m_process.emplace(test_support::spawn_options{.argv = std::move(argv),
                                                  .environment = std::move(env),
                                                  .input = test_support::stream_target::piped(),
                                                  .output = test_support::stream_target::piped(),
                                                  .error = test_support::stream_target::file(m_stderr_path)});
    transcript("started " + m_label + " (pid " + std::to_string(m_process->pid()) + ")", m_command);
}

program::~program() {
    if (!m_process->status()) {
        m_process->signal(SIGKILL);
        m_process->wait(line_timeout);
        transcript(m_label, "still running at the end of the case: killed");
    }
    record();
}

void program::record() const {
    if (m_recorded) return;
    m_recorded = true;
    const auto status = m_process->status();
    const auto text = err();
    transcript(m_label + " stderr (" + (status ? test_support::describe_wait_status(*status) : "running") + ")" +
                   (text.empty() ? ": empty" : ""),
               text);
}

void program::send(const std::string& line) {
    transcript(m_label + " < " + line, "");
    const int error = m_process->send(line + "\n");
    BOOST_TEST_REQUIRE(error == 0, m_label << " does not take input: " << std::strerror(error));
}

std::string program::line(milliseconds timeout) {
    auto got = m_process->read_line(timeout);
    if (!got) {
        BOOST_TEST_REQUIRE(!m_process->output_ended(),
                           m_label << " closed its stdout (it ended?) while a line was expected");
        BOOST_FAIL(m_label << " said nothing for " << timeout.count() << " ms");
    }
    transcript(m_label + " > " + *got, "");
    m_lines.push_back(*got);
    return *got;
}

std::string program::expect(const std::string& prefix, milliseconds timeout) {
    const auto got = line(timeout);
    BOOST_TEST_REQUIRE(got.starts_with(prefix),
                       m_label << " said '" << got << "', expected a line starting with '" << prefix << "'");
    return got;
}

std::string program::until(const std::string& prefix, milliseconds timeout) {
    for (;;) {
        const auto got = line(timeout);
        if (got.starts_with(prefix)) return got;
    }
}

std::string program::call(const std::string& command) {
    send(command);
    const auto verb = command.substr(0, command.find(' '));
    for (;;) {
        const auto got = line();
        if (got == verb || got.starts_with(verb + " ")) return got;
    }
}

int program::finish(milliseconds timeout) {
    m_process->close_input();
    if (const auto ended = m_process->status()) return *ended;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const auto left = [&] {
        return std::max(std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now()),
                        milliseconds(1));
    };
    while (std::chrono::steady_clock::now() < deadline) {
        const auto got = m_process->read_line(left());
        if (!got) break;
        m_lines.push_back(*got);
        transcript(m_label + " > " + *got, "");
    }
    BOOST_TEST_REQUIRE(m_process->output_ended(), m_label << " did not end within " << timeout.count() << " ms");
    const auto status = m_process->wait(left());
    BOOST_TEST_REQUIRE(status.has_value(), m_label << " closed its stdout but did not end");
    record();
    return *status;
}

void program::require_exit(int code) {
    const int status = finish();
    BOOST_TEST_REQUIRE(WIFEXITED(status), m_label << " was killed by signal "
                                                  << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << "; stderr:\n"
                                                  << err());
    BOOST_TEST_REQUIRE(WEXITSTATUS(status) == code, m_label << " exited " << WEXITSTATUS(status) << ", expected "
                                                            << code << "; stderr:\n"
                                                            << err());
}

std::string program::err() const { return cli::testing::slurp(m_stderr_path); }

program_result run_program(const temp_dir& dir, const std::string& name, program_options options) {
    program p(dir, name, std::move(options));
    const int status = p.finish();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, p.lines(), p.err()};
}

// ---- parsing lines

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string find_line(const std::vector<std::string>& lines, const std::string& prefix) {
    for (const auto& l : lines) {
        if (l.starts_with(prefix)) return l;
    }
    return {};
}

std::string field(const std::string& line, const std::string& key) {
    const auto needle = key + "=";
    for (std::size_t at = line.find(needle); at != std::string::npos; at = line.find(needle, at + 1)) {
        if (at != 0 && line[at - 1] != ' ') continue;
        const auto start = at + needle.size();
        return line.substr(start, line.find(' ', start) - start);
    }
    return {};
}

std::vector<std::string> log_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (contains(line, " NRT:")) out.push_back(line);
    }
    return out;
}

std::map<std::string, std::string> marked_sections(const std::string& text) {
    std::map<std::string, std::string> out;
    std::string current;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("== ")) {
            current = line.substr(3);
            out[current];
        } else {
            out[current] += line + "\n";
        }
    }
    return out;
}

bool wait_until_waiting_for_answer(pid_t pid, milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        switch (common::main_thread_call(pid)) {
        case common::blocked_call::waiting_for_an_answer: return true;
        case common::blocked_call::gone: return false;
        case common::blocked_call::something_else: break;
        }
        std::this_thread::yield();
    }
    return false;
}

} // namespace neuron::shim::testing
