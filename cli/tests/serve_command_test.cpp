#define BOOST_TEST_MODULE serve_command
// `neuron-emu serve` end to end: the executable mounts the tree through FUSE
// for real (or writes it as plain files), says so on stdout once it is ready,
// and unmounts and tidies up when told to stop.
//
// Each case runs in a private directory under /tmp, removed (after detaching
// anything still mounted below it) even when the case fails; every process a
// case starts is killed and reaped if the case did not reap it. The mounting
// cases need root and /dev/fuse and exit with 77 (skipped) without them.

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace {

using namespace std::chrono_literals;
using milliseconds = std::chrono::milliseconds;

constexpr int exit_skipped = 77;
constexpr milliseconds ready_timeout = 20s; // generous: a broken build fails instead of hanging
constexpr milliseconds exit_timeout = 20s;

void require_root_and_fuse() {
    if (::geteuid() != 0) {
        std::fprintf(stderr, "skipped: this test mounts FUSE and needs root (euid is %u)\n",
                     static_cast<unsigned>(::geteuid()));
        std::exit(exit_skipped);
    }
    if (::access("/dev/fuse", R_OK | W_OK) != 0) {
        std::fprintf(stderr, "skipped: this test mounts FUSE and /dev/fuse is not usable: %s\n", std::strerror(errno));
        std::exit(exit_skipped);
    }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- /proc/self/mountinfo

struct mount_entry {
    std::string point;
    std::string fs_type;
};

std::string unescape(const std::string& field) {
    std::string out;
    for (std::size_t i = 0; i < field.size(); ++i) {
        if (field[i] == '\\' && i + 3 < field.size()) {
            const auto octal = field.substr(i + 1, 3);
            if (octal.size() == 3 && octal.find_first_not_of("01234567") == std::string::npos) {
                out += static_cast<char>(std::stoi(octal, nullptr, 8));
                i += 3;
                continue;
            }
        }
        out += field[i];
    }
    return out;
}

std::vector<mount_entry> mounts() {
    std::ifstream in("/proc/self/mountinfo");
    std::vector<mount_entry> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string id, parent, devno, root, point, word;
        fields >> id >> parent >> devno >> root >> point;
        while (fields >> word && word != "-") {
        }
        std::string fs_type;
        fields >> fs_type;
        out.push_back({unescape(point), fs_type});
    }
    return out;
}

// The file system types mounted at `dir`, bottom first.
std::vector<std::string> fs_types_at(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& m : mounts()) {
        if (m.point == dir) out.push_back(m.fs_type);
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

// The whole content as read(2) returns it, or the errno of the failure.
struct file_content {
    int error = 0;
    std::string text;
};

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

// ---- the private directory of a case

class temp_dir {
public:
    temp_dir() {
        char name[] = "/tmp/neuron-emu-serve-test.XXXXXX";
        if (::mkdtemp(name) == nullptr) throw std::runtime_error(fmt::format("mkdtemp: {}", std::strerror(errno)));
        char resolved[PATH_MAX];
        m_path = ::realpath(name, resolved) != nullptr ? resolved : name;
    }
    ~temp_dir() {
        // Whatever a failed case left mounted below the directory (a live or a
        // stale FUSE mount) goes first, so that removing it cannot enter it.
        for (bool again = true; again;) {
            again = false;
            for (const auto& m : mounts()) {
                if (m.point == m_path || m.point.starts_with(m_path + "/")) {
                    again = ::umount2(m.point.c_str(), MNT_DETACH) == 0;
                    if (again) break;
                }
            }
        }
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;

    const std::string& path() const { return m_path; }
    std::string operator/(const std::string& name) const { return m_path + "/" + name; }

private:
    std::string m_path;
};

// ---- the neuron-emu process

std::string command_line(const std::vector<std::string>& args) {
    std::string out = NEURON_EMU_BINARY;
    for (const auto& a : args) out += " " + a;
    return out;
}

// neuron-emu with the given arguments; stdout on a pipe the test reads, stderr
// into a file, stdin the test's own (a case may hide /dev). The destructor
// kills and reaps it if the case did not.
class emulator {
public:
    emulator(std::vector<std::string> args, std::string stderr_path)
        : m_args(std::move(args)), m_stderr_path(std::move(stderr_path)) {
        int out[2];
        if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
        m_stdout = out[0];
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        posix_spawn_file_actions_addopen(&actions, 2, m_stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<char*> argv{const_cast<char*>(NEURON_EMU_BINARY)};
        for (auto& a : m_args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const int error = posix_spawn(&m_pid, NEURON_EMU_BINARY, &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        ::close(out[1]);
        if (error != 0) {
            ::close(m_stdout);
            throw std::runtime_error(fmt::format("cannot start {}: {}", NEURON_EMU_BINARY, std::strerror(error)));
        }
        m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0));
    }
    ~emulator() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            int ignored = 0;
            ::waitpid(m_pid, &ignored, 0);
        }
        if (m_pidfd >= 0) ::close(m_pidfd);
        ::close(m_stdout);
    }
    emulator(const emulator&) = delete;
    emulator& operator=(const emulator&) = delete;

    pid_t pid() const { return m_pid; }
    std::string command() const { return command_line(m_args); }
    std::string err() const { return slurp(m_stderr_path); }

    // The next line on stdout without its newline; nullopt at end of file or
    // when none arrives within the timeout.
    std::optional<std::string> read_line(milliseconds timeout = ready_timeout) {
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
            if (n <= 0) return std::nullopt;
            m_pending.append(buffer, static_cast<std::size_t>(n));
        }
    }

    // The ready line, or a failed requirement naming the command and its stderr.
    std::string require_ready() {
        const auto line = read_line();
        BOOST_TEST_REQUIRE(line.has_value(),
                           fmt::format("no ready line from '{}' within {} s; stderr:\n{}", command(),
                                       std::chrono::duration_cast<std::chrono::seconds>(ready_timeout).count(), err()));
        return *line;
    }

    void signal(int signal) const { BOOST_TEST_REQUIRE(::kill(m_pid, signal) == 0); }

    // The raw wait status, or nullopt if the process is still running after
    // the timeout.
    std::optional<int> wait(milliseconds timeout = exit_timeout) {
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

    // Waits for the exit; fails the case unless the process exited (not
    // killed) with `expected`.
    void require_exit(int expected, milliseconds timeout = exit_timeout) {
        const auto status = wait(timeout);
        BOOST_TEST_REQUIRE(status.has_value(),
                           fmt::format("'{}' did not exit within {} ms", command(), timeout.count()));
        BOOST_TEST_REQUIRE(WIFEXITED(*status), fmt::format("'{}' was killed by signal {}; stderr:\n{}", command(),
                                                           WIFSIGNALED(*status) ? WTERMSIG(*status) : 0, err()));
        BOOST_TEST(WEXITSTATUS(*status) == expected, fmt::format("'{}' exited with {}, expected {}; stderr:\n{}",
                                                                 command(), WEXITSTATUS(*status), expected, err()));
    }

private:
    std::vector<std::string> m_args;
    std::string m_stderr_path;
    pid_t m_pid = -1;
    int m_pidfd = -1;
    int m_stdout = -1;
    std::string m_pending;
    std::optional<int> m_status;
};

// A command that is expected to end by itself: its status and output.
struct outcome {
    int status; // the exit status, or -1 when it did not exit normally
    std::string out;
    std::string err;
};

outcome run_to_end(const temp_dir& dir, std::vector<std::string> args) {
    emulator process(std::move(args), dir / "run-stderr");
    std::string out;
    while (const auto line = process.read_line(exit_timeout)) out += *line + "\n";
    const auto status = process.wait();
    BOOST_TEST_REQUIRE(status.has_value(), fmt::format("'{}' did not exit", process.command()));
    return {WIFEXITED(*status) ? WEXITSTATUS(*status) : -1, out, process.err()};
}

std::string serving_line_end(const std::string& dir) { return " at " + dir; }

void check_serving(const std::string& line, const std::string& instance, const std::string& dir) {
    BOOST_TEST(line.starts_with("neuron-emu: serving " + instance + " "), line);
    BOOST_TEST(line.ends_with(serving_line_end(dir)), line);
}

// Serves trn1.32xlarge at `dir`, checks the tree, stops it with `signal` and
// checks that it exits 0 and the mount is gone.
void serve_then_stop_with(int signal) {
    require_root_and_fuse();
    temp_dir tmp;
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    emulator serve({"serve", "--instance", "trn1.32xlarge", "--mount", dir, "--time", "stepped"}, tmp / "stderr");
    check_serving(serve.require_ready(), "trn1.32xlarge", dir);

    const auto core_count = read_file(dir + "/neuron15/core_count");
    BOOST_TEST(core_count.error == 0, std::strerror(core_count.error));
    BOOST_TEST(core_count.text == "2");
    const auto connected = read_file(dir + "/neuron0/connected_devices");
    BOOST_TEST(connected.error == 0, std::strerror(connected.error));
    BOOST_TEST(connected.text == "12, 3, 4, 1\n");
    BOOST_TEST(fs_types_at(dir) == std::vector<std::string>{"fuse.neuron-emu"});

    serve.signal(signal);
    serve.require_exit(0);
    BOOST_TEST(fs_types_at(dir).empty(), "still mounted at " << dir);
    BOOST_TEST(stat_errno(dir) == 0, "an existing mount point must stay: " << std::strerror(stat_errno(dir)));
}

} // namespace

BOOST_AUTO_TEST_CASE(serves_tree_and_sigterm_unmounts) { serve_then_stop_with(SIGTERM); }

BOOST_AUTO_TEST_CASE(serves_tree_and_sigint_unmounts) { serve_then_stop_with(SIGINT); }

BOOST_AUTO_TEST_CASE(creates_missing_mount_point_and_removes_it) {
    require_root_and_fuse();
    temp_dir tmp;
    const auto dir = tmp / "new-mount-point";
    BOOST_TEST_REQUIRE(stat_errno(dir) == ENOENT);
    emulator serve({"serve", "--mount", dir, "--time", "stepped"}, tmp / "stderr");
    check_serving(serve.require_ready(), "trn1.2xlarge", dir);

    struct stat st {};
    BOOST_TEST_REQUIRE(::stat(dir.c_str(), &st) == 0, std::strerror(errno));
    BOOST_TEST(S_ISDIR(st.st_mode));
    BOOST_TEST(fs_types_at(dir) == std::vector<std::string>{"fuse.neuron-emu"});
    BOOST_TEST(read_file(dir + "/neuron0/core_count").text == "2");

    serve.signal(SIGTERM);
    serve.require_exit(0);
    BOOST_TEST(fs_types_at(dir).empty());
    BOOST_TEST(stat_errno(dir) == ENOENT, "the mount point serve created is still there");
}

BOOST_AUTO_TEST_CASE(clears_stale_mount) {
    require_root_and_fuse();
    temp_dir tmp;
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    {
        emulator first({"serve", "--mount", dir, "--time", "stepped"}, tmp / "stderr-first");
        check_serving(first.require_ready(), "trn1.2xlarge", dir);
        first.signal(SIGKILL);
        const auto status = first.wait();
        BOOST_TEST_REQUIRE(status.has_value());
        BOOST_TEST_REQUIRE(WIFSIGNALED(*status));
    }
    // What a FUSE server that died without unmounting leaves behind.
    BOOST_TEST_REQUIRE(stat_errno(dir) == ENOTCONN, std::strerror(stat_errno(dir)));
    BOOST_TEST_REQUIRE(fs_types_at(dir).size() == 1u);

    emulator second({"serve", "--mount", dir, "--time", "stepped"}, tmp / "stderr-second");
    check_serving(second.require_ready(), "trn1.2xlarge", dir);
    BOOST_TEST(stat_errno(dir) == 0);
    const auto core_count = read_file(dir + "/neuron0/core_count");
    BOOST_TEST(core_count.error == 0, std::strerror(core_count.error));
    BOOST_TEST(core_count.text == "2");
    BOOST_TEST(fs_types_at(dir) == std::vector<std::string>{"fuse.neuron-emu"},
               "expected only the new mount (the stale one detached)");

    second.signal(SIGTERM);
    second.require_exit(0);
    BOOST_TEST(fs_types_at(dir).empty());
    BOOST_TEST(stat_errno(dir) == 0);
}

BOOST_AUTO_TEST_CASE(refuses_busy_mount_point) {
    require_root_and_fuse();
    temp_dir tmp;
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    emulator first({"serve", "--mount", dir, "--time", "stepped"}, tmp / "stderr-first");
    check_serving(first.require_ready(), "trn1.2xlarge", dir);

    const auto second = run_to_end(tmp, {"serve", "--mount", dir, "--time", "stepped"});
    BOOST_TEST(second.status == 1, second.err);
    BOOST_TEST(second.out.empty(), second.out);
    BOOST_TEST(contains(second.err, "busy"), second.err);
    BOOST_TEST(contains(second.err, dir), second.err);

    // The first one still serves, and stops normally (not as "unmounted from outside").
    BOOST_TEST(fs_types_at(dir) == std::vector<std::string>{"fuse.neuron-emu"});
    BOOST_TEST(read_file(dir + "/neuron0/core_count").text == "2");
    first.signal(SIGTERM);
    first.require_exit(0);
    BOOST_TEST(fs_types_at(dir).empty());
}

BOOST_AUTO_TEST_CASE(refuses_non_directory) {
    // Refused before anything mounts: needs neither FUSE nor root.
    temp_dir tmp;
    const auto file = tmp / "a-file";
    std::ofstream(file) << "content\n";
    const auto r = run_to_end(tmp, {"serve", "--mount", file, "--time", "stepped"});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(r.out.empty(), r.out);
    BOOST_TEST(contains(r.err, "not a directory"), r.err);
    BOOST_TEST(fs_types_at(file).empty());
    BOOST_TEST(slurp(file) == "content\n");
}

BOOST_AUTO_TEST_CASE(stops_with_status_1_when_unmounted_from_outside) {
    require_root_and_fuse();
    temp_dir tmp;
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    emulator serve({"serve", "--mount", dir, "--time", "stepped"}, tmp / "stderr");
    check_serving(serve.require_ready(), "trn1.2xlarge", dir);
    BOOST_TEST_REQUIRE(::umount2(dir.c_str(), 0) == 0, std::strerror(errno));
    serve.require_exit(1);
    BOOST_TEST(contains(serve.err(), "unmounted from outside"), serve.err());
    BOOST_TEST(fs_types_at(dir).empty());
}

BOOST_AUTO_TEST_CASE(leaves_no_mount_point_behind_when_fuse_is_missing) {
    // A host without FUSE, as in many CI containers: /dev is an empty tmpfs in
    // a mount namespace of the test's own.
    if (::geteuid() != 0) {
        std::fprintf(stderr, "skipped: hiding /dev/fuse needs root (euid is %u)\n", static_cast<unsigned>(::geteuid()));
        std::exit(exit_skipped);
    }
    BOOST_TEST_REQUIRE(::unshare(CLONE_NEWNS) == 0, std::strerror(errno));
    BOOST_TEST_REQUIRE(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0, std::strerror(errno));
    BOOST_TEST_REQUIRE(::mount("tmpfs", "/dev", "tmpfs", 0, "mode=755") == 0, std::strerror(errno));
    BOOST_TEST_REQUIRE(::access("/dev/fuse", F_OK) != 0);

    temp_dir tmp;
    const auto dir = tmp / "new-mount-point";
    const auto r = run_to_end(tmp, {"serve", "--mount", dir, "--time", "stepped"});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(r.out.empty(), r.out);
    BOOST_TEST(contains(r.err, "/dev/fuse"), r.err);
    BOOST_TEST(contains(r.err, "--materialize"), r.err);
    BOOST_TEST(stat_errno(dir) == ENOENT, "serve created " << dir << " and left it behind when it could not mount");
}

// ---- usage errors: exit 2, one line naming the problem, nothing mounted or created

namespace {

void check_usage_error(const std::vector<std::string>& args, std::initializer_list<std::string> messages) {
    temp_dir tmp;
    std::vector<std::string> full{"serve"};
    for (const auto& a : args) {
        full.push_back(a == "DIR" ? tmp / "mnt" : a == "DIR2" ? tmp / "tree" : a);
    }
    const auto r = run_to_end(tmp, full);
    BOOST_TEST(r.status == 2, command_line(full) << "\n" << r.err);
    BOOST_TEST(r.out.empty(), r.out);
    BOOST_TEST(r.err.starts_with("neuron-emu: "), r.err);
    BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1, "not one line: " << r.err);
    for (const auto& message : messages) BOOST_TEST(contains(r.err, message), "'" << message << "' not in: " << r.err);
    BOOST_TEST(stat_errno(tmp / "mnt") == ENOENT, "created the mount point despite the error");
    BOOST_TEST(stat_errno(tmp / "tree") == ENOENT, "created the tree despite the error");
}

} // namespace

BOOST_AUTO_TEST_CASE(usage_error_without_mount_or_materialize) {
    check_usage_error({"--time", "stepped"}, {"give exactly one of --mount DIR and --materialize DIR"});
}

BOOST_AUTO_TEST_CASE(usage_error_with_both_mount_and_materialize) {
    check_usage_error({"--mount", "DIR", "--materialize", "DIR2"},
                      {"give exactly one of --mount DIR and --materialize DIR"});
}

BOOST_AUTO_TEST_CASE(usage_error_unknown_time_mode) {
    check_usage_error({"--mount", "DIR", "--time", "sometimes"}, {"--time 'sometimes' is not a time mode"});
}

BOOST_AUTO_TEST_CASE(usage_error_zero_real_time_factor) {
    check_usage_error({"--mount", "DIR", "--rtf", "0"}, {"--rtf '0' must be greater than 0"});
}

BOOST_AUTO_TEST_CASE(usage_error_unknown_driver_version_lists_known_ones) {
    check_usage_error({"--mount", "DIR", "--driver-version", "2.11"},
                      {"unknown driver version '2.11'", "2.7.15.0", "2.24.7.0", "2.25.4.0"});
}

BOOST_AUTO_TEST_CASE(usage_error_trainium2_needs_driver_2_16) {
    check_usage_error({"--instance", "trn2.48xlarge", "--driver-version", "2.15", "--mount", "DIR"}, {"2.16"});
}

BOOST_AUTO_TEST_CASE(usage_error_misspelt_option_suggests_mount) {
    check_usage_error({"--mout", "DIR"}, {"unknown option '--mout'; did you mean '--mount'?"});
}

// ---- --materialize and --driver-version

BOOST_AUTO_TEST_CASE(materializes_tree) {
    // Plain files: needs neither FUSE nor root.
    temp_dir tmp;
    const auto dir = tmp / "tree";
    emulator serve({"serve", "--instance", "inf2.xlarge", "--materialize", dir}, tmp / "stderr");
    const auto line = serve.require_ready();
    BOOST_TEST(line.starts_with("neuron-emu: materializing inf2.xlarge "), line);
    BOOST_TEST(contains(line, " at " + dir + " "), line);

    struct stat st {};
    const auto core_count = dir + "/neuron0/core_count";
    BOOST_TEST_REQUIRE(::lstat(core_count.c_str(), &st) == 0, core_count << ": " << std::strerror(errno));
    BOOST_TEST(S_ISREG(st.st_mode));
    BOOST_TEST((st.st_mode & 07777) == 0400u, std::oct << (st.st_mode & 07777));
    BOOST_TEST(slurp(core_count) == "2");

    const auto total = dir + "/neuron0/neuron_core0/stats/status/success/total";
    BOOST_TEST_REQUIRE(::lstat(total.c_str(), &st) == 0, total << ": " << std::strerror(errno));
    BOOST_TEST(S_ISREG(st.st_mode));
    BOOST_TEST((st.st_mode & 07777) == 0644u, std::oct << (st.st_mode & 07777));
    BOOST_TEST(slurp(total) == "0\n");

    const auto subsystem = dir + "/neuron0/subsystem";
    BOOST_TEST_REQUIRE(::lstat(subsystem.c_str(), &st) == 0, subsystem << ": " << std::strerror(errno));
    BOOST_TEST(S_ISLNK(st.st_mode));
    BOOST_TEST(fs_types_at(dir).empty(), "--materialize must not mount anything");

    serve.signal(SIGTERM);
    serve.require_exit(0);
}

BOOST_AUTO_TEST_CASE(driver_version_layout) {
    require_root_and_fuse();
    temp_dir tmp;
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    emulator serve({"serve", "--driver-version", "2.7", "--mount", dir}, tmp / "stderr");
    const auto line = serve.require_ready();
    check_serving(line, "trn1.2xlarge", dir);
    BOOST_TEST(contains(line, "as driver 2.7.15.0"), line);

    const auto arch = read_file(dir + "/neuron0/metrics/arch_type");
    BOOST_TEST(arch.error == 0, std::strerror(arch.error));
    BOOST_TEST(arch.text == "v2\n");
    BOOST_TEST(stat_errno(dir + "/neuron0/info") == ENOENT, "2.7 has no neuron0/info");
    BOOST_TEST(stat_errno(dir + "/neuron0/neuron_core0") == ENOENT, "2.7 keeps the cores below metrics/");

    serve.signal(SIGTERM);
    serve.require_exit(0);
    BOOST_TEST(fs_types_at(dir).empty());
}
