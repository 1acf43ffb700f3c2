#include "support/process_harness.h"

#include "neuron/common/shell_word.h"

#include "neuron/sysfs/mount_point.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

extern char** environ;

namespace neuron::cli::testing {
namespace {

constexpr int exit_skipped = 77;


using neuron::common::shell_word;

} // namespace

void skip(const std::string& why) {
    std::fprintf(stderr, "skipped: %s\n", why.c_str());
    std::exit(exit_skipped);
}

void require_root(const std::string& why) {
    if (::geteuid() != 0) skip(fmt::format("{} (euid is {})", why, ::geteuid()));
}

void require_usable_fuse(const std::string& who) {
    if (::access("/dev/fuse", R_OK | W_OK) != 0) {
        skip(fmt::format("{} mounts FUSE and /dev/fuse is not usable: {}", who, std::strerror(errno)));
    }
}

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

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

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

temp_dir::temp_dir(const std::string& name) {
    auto pattern = "/tmp/neuron-emu-" + name + "-test.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
        throw std::runtime_error(fmt::format("mkdtemp: {}", std::strerror(errno)));
    }
    // mountinfo lists resolved paths.
    char resolved[PATH_MAX];
    m_path = ::realpath(pattern.c_str(), resolved) != nullptr ? resolved : pattern;
}

temp_dir::~temp_dir() {
    // The table is read again after each detach: a lazy detach takes the
    // mounts below that point along, and one point may hold a stack of mounts.
    for (bool again = true; again;) {
        again = false;
        for (const auto& m : neuron::sysfs::mount_table()) {
            if (m.mount_point == m_path || m.mount_point.starts_with(m_path + "/")) {
                again = ::umount2(m.mount_point.c_str(), MNT_DETACH) == 0;
                if (again) break;
            }
        }
    }
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
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

} // namespace

emulator::emulator(std::vector<std::string> args, process_streams streams, milliseconds exit_timeout)
    : m_args(with_private_control(std::move(args))), m_streams(std::move(streams)), m_exit_timeout(exit_timeout) {
    const bool stdout_piped = m_streams.stdout_path.empty();
    int out[2] = {-1, -1};
    if (stdout_piped) {
        if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
        m_stdout = out[0];
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (!m_streams.stdin_path.empty()) {
        posix_spawn_file_actions_addopen(&actions, 0, m_streams.stdin_path.c_str(), O_RDONLY, 0);
    }
    if (stdout_piped) {
        posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    } else {
        posix_spawn_file_actions_addopen(&actions, 1, m_streams.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                         0644);
    }
    posix_spawn_file_actions_addopen(&actions, 2, m_streams.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv{const_cast<char*>(NEURON_EMU_BINARY)};
    for (auto& a : m_args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int error = posix_spawn(&m_pid, NEURON_EMU_BINARY, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (stdout_piped) ::close(out[1]);
    if (error != 0) {
        if (stdout_piped) ::close(m_stdout);
        throw std::runtime_error(fmt::format("cannot start {}: {}", NEURON_EMU_BINARY, std::strerror(error)));
    }
    m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0));
}

emulator::~emulator() {
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        int ignored = 0;
        ::waitpid(m_pid, &ignored, 0);
    }
    if (m_pidfd >= 0) ::close(m_pidfd);
    if (m_stdout >= 0) ::close(m_stdout);
}

std::string emulator::out() const { return slurp(m_streams.stdout_path); }

std::string emulator::err() const { return slurp(m_streams.stderr_path); }

std::optional<std::string> emulator::read_line(milliseconds timeout) {
    if (m_stdout < 0) throw std::logic_error(fmt::format("the stdout of '{}' goes into a file", command()));
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (const auto end = m_pending.find('\n'); end != std::string::npos) {
            auto line = m_pending.substr(0, end);
            m_pending.erase(0, end + 1);
            return line;
        }
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        pollfd fd{m_stdout, POLLIN, 0};
        const int ready = ::poll(&fd, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return std::nullopt;
        char buffer[512];
        const auto n = ::read(m_stdout, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            // End of file: a last line without a newline is still a line.
            if (m_pending.empty()) return std::nullopt;
            return std::exchange(m_pending, std::string());
        }
        m_pending.append(buffer, static_cast<std::size_t>(n));
    }
}

std::string emulator::require_ready() {
    const auto line = read_line(ready_timeout);
    BOOST_TEST_REQUIRE(line.has_value(),
                       fmt::format("no ready line from '{}' within {} s; stderr:\n{}", command(),
                                   std::chrono::duration_cast<std::chrono::seconds>(ready_timeout).count(), err()));
    return *line;
}

void emulator::signal(int signal) const { BOOST_TEST_REQUIRE(::kill(m_pid, signal) == 0); }

std::optional<int> emulator::wait(milliseconds timeout) {
    if (m_pid <= 0) return m_status;
    int status = 0;
    if (m_pidfd >= 0) {
        pollfd fd{m_pidfd, POLLIN, 0};
        int ready = 0;
        do {
            ready = ::poll(&fd, 1, static_cast<int>(timeout.count()));
        } while (ready < 0 && errno == EINTR);
        if (ready == 0) return std::nullopt;
        if (::waitpid(m_pid, &status, 0) != m_pid) return std::nullopt;
    } else {
        // No pidfd (kernel before 5.3): check in short steps until the deadline.
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        pid_t done = 0;
        while ((done = ::waitpid(m_pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
            ::usleep(10000);
        }
        if (done != m_pid) return std::nullopt;
    }
    m_pid = -1;
    m_status = status;
    return status;
}

void emulator::require_exit(int expected, milliseconds timeout) {
    const auto status = wait(timeout);
    BOOST_TEST_REQUIRE(status.has_value(), fmt::format("'{}' did not exit within {} ms", command(), timeout.count()));
    BOOST_TEST_REQUIRE(WIFEXITED(*status), fmt::format("'{}' was killed by signal {}; stderr:\n{}", command(),
                                                       WIFSIGNALED(*status) ? WTERMSIG(*status) : 0, err()));
    BOOST_TEST(WEXITSTATUS(*status) == expected, fmt::format("'{}' exited with {}, expected {}; stderr:\n{}",
                                                             command(), WEXITSTATUS(*status), expected, err()));
}

outcome run_to_end(const temp_dir& dir, std::vector<std::string> args) {
    emulator process(std::move(args), {.stderr_path = dir / "run-stderr"});
    std::string out;
    while (const auto line = process.read_line(default_exit_timeout)) out += *line + "\n";
    const auto status = process.wait();
    BOOST_TEST_REQUIRE(status.has_value(), fmt::format("'{}' did not exit", process.command()));
    return {WIFEXITED(*status) ? WEXITSTATUS(*status) : -1, out, process.err()};
}

} // namespace neuron::cli::testing
