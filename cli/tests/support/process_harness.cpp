#include "support/process_harness.h"

#include "neuron/common/shell_word.h"

#include "neuron/sysfs/mount_point.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace neuron::cli::testing {
namespace {

using neuron::common::shell_word;
using test_support::spawn_options;
using test_support::stream_target;

} // namespace

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- /proc/self/mountinfo

std::vector<std::string> fs_types_at(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& m : neuron::sysfs::mount_table()) {
        if (m.mount_point == dir) out.push_back(m.fs_type);
    }
    return out;
}

// ---- files

file_content read_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {errno, {}};
    file_content out;
    char buffer[8192];
    for (;;) {
        const auto n = ::read(fd, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            out.error = errno;
            break;
        }
        if (n == 0) break;
        out.text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(fd);
    return out;
}

int stat_errno(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? 0 : errno;
}

int lstat_errno(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? 0 : errno;
}

// ---- the private directory of a case

temp_dir::~temp_dir() {
    // Before m_dir removes the directory. The table is read again after each
    // detach: a lazy detach takes the mounts below that point along, and one
    // point may hold a stack of mounts.
    const auto& root = m_dir.path();
    for (bool again = true; again;) {
        again = false;
        for (const auto& m : neuron::sysfs::mount_table()) {
            if (m.mount_point == root || m.mount_point.starts_with(root + "/")) {
                again = ::umount2(m.mount_point.c_str(), MNT_DETACH) == 0;
                if (again) break;
            }
        }
    }
}

// ---- neuron-emu as a child process

std::string command_line(const std::vector<std::string>& args) {
    std::string out = NEURON_EMU_BINARY;
    for (const auto& a : args) out += " " + shell_word(a);
    return out;
}

namespace {

// serve listens on /run/neuron-emu/control.sock unless told otherwise; cases
// run in parallel, so each serve gets no control channel unless it asks.
std::vector<std::string> with_private_control(std::vector<std::string> args) {
    const bool serve = !args.empty() && args.front() == "serve";
    bool named = false;
    for (const auto& a : args) named = named || a == "--control" || a.starts_with("--control=");
    if (serve && !named) {
        args.push_back("--control");
        args.push_back("none");
    }
    return args;
}

std::vector<std::string> emulator_argv(std::vector<std::string> args) {
    std::vector<std::string> argv{NEURON_EMU_BINARY};
    for (auto& a : with_private_control(std::move(args))) argv.push_back(std::move(a));
    return argv;
}

spawn_options emulator_options(std::vector<std::string> args, const process_streams& streams) {
    const auto file_or = [](const std::string& path, stream_target otherwise) {
        return path.empty() ? otherwise : stream_target::file(path);
    };
    return {.argv = emulator_argv(std::move(args)),
            .input = file_or(streams.stdin_path, stream_target::inherited()),
            .output = file_or(streams.stdout_path, stream_target::piped()),
            .error = file_or(streams.stderr_path, stream_target::inherited())};
}

} // namespace

emulator::emulator(std::vector<std::string> args, process_streams streams, milliseconds exit_timeout)
        : m_streams(std::move(streams)), m_exit_timeout(exit_timeout),
          m_process(emulator_options(std::move(args), m_streams)) {}

std::string emulator::out() const { return slurp(m_streams.stdout_path); }

std::string emulator::err() const { return slurp(m_streams.stderr_path); }

std::optional<std::string> emulator::read_line(milliseconds timeout) { return m_process.read_line(timeout); }

std::string emulator::require_ready() {
    const auto line = read_line(ready_timeout);
    BOOST_TEST_REQUIRE(line.has_value(),
                       fmt::format("no ready line from '{}' within {} s; stderr:\n{}", command(),
                                   std::chrono::duration_cast<std::chrono::seconds>(ready_timeout).count(), err()));
    return *line;
}

void emulator::signal(int number) const {
    BOOST_TEST_REQUIRE(!m_process.status().has_value(), fmt::format("'{}' has already ended", command()));
    m_process.signal(number);
}

std::optional<int> emulator::wait(milliseconds timeout) { return m_process.wait(timeout); }

void emulator::require_exit(int expected, milliseconds timeout) {
    const auto status = wait(timeout);
    BOOST_TEST_REQUIRE(status.has_value(), fmt::format("'{}' did not exit within {} ms", command(), timeout.count()));
    BOOST_TEST_REQUIRE(WIFEXITED(*status), fmt::format("'{}' was killed by signal {}; stderr:\n{}", command(),
                                                       WIFSIGNALED(*status) ? WTERMSIG(*status) : 0, err()));
    BOOST_TEST(WEXITSTATUS(*status) == expected, fmt::format("'{}' exited with {}, expected {}; stderr:\n{}", command(),
                                                             WEXITSTATUS(*status), expected, err()));
}

outcome run_to_end(const temp_dir& dir, std::vector<std::string> args) {
    return test_support::run_to_end({.argv = emulator_argv(std::move(args))}, dir.path(), run_timeout);
}

} // namespace neuron::cli::testing
