#define BOOST_TEST_MODULE run_command
// `neuron-emu run` end to end: the command runs in a private mount namespace
// where the emulated tree sits at the driver's real paths (/sys, /dev,
// /proc/devices), the rest of the host stays visible, the command's exit
// status comes back as a shell would report it, and the host is left as it
// was.
//
// Each case runs in a private directory under /tmp, removed even when the case
// fails; every process a case starts is killed and reaped if the case did not
// reap it. The cases need root and /dev/fuse and exit with 77 (skipped)
// without them.

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
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
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
constexpr milliseconds exit_timeout = 30s; // generous: a broken build fails instead of hanging

void skip(const std::string& why) {
    std::fprintf(stderr, "skipped: %s\n", why.c_str());
    std::exit(exit_skipped);
}

void require_root_and_fuse() {
    if (::geteuid() != 0) {
        skip(fmt::format("run needs root for its mount namespace and FUSE (euid is {})", ::geteuid()));
    }
    if (::access("/dev/fuse", R_OK | W_OK) != 0) {
        skip(fmt::format("run mounts FUSE and /dev/fuse is not usable: {}", std::strerror(errno)));
    }
    if (::access("/sys/devices/virtual/neuron_device", F_OK) == 0) {
        skip("this host has the Neuron driver loaded; run refuses to shadow it");
    }
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) out.push_back(line);
    return out;
}

std::string link_target(const std::string& path) {
    char buffer[PATH_MAX];
    const auto n = ::readlink(path.c_str(), buffer, sizeof(buffer));
    return n < 0 ? std::string() : std::string(buffer, static_cast<std::size_t>(n));
}

int stat_errno(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? 0 : errno;
}

// Mount points below `dir` (or `dir` itself) in /proc/self/mountinfo.
std::vector<std::string> mounts_below(const std::string& dir) {
    std::ifstream in("/proc/self/mountinfo");
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string id, parent, devno, root, point;
        fields >> id >> parent >> devno >> root >> point;
        if (point == dir || point.starts_with(dir + "/")) out.push_back(point);
    }
    return out;
}

// The lines only `before` has (as "-line") and only `after` has (as "+line").
std::string line_difference(const std::string& before, const std::string& after) {
    const auto old_lines = lines_of(before), new_lines = lines_of(after);
    std::string out;
    for (const auto& l : old_lines) {
        if (std::find(new_lines.begin(), new_lines.end(), l) == new_lines.end()) out += "-" + l + "\n";
    }
    for (const auto& l : new_lines) {
        if (std::find(old_lines.begin(), old_lines.end(), l) == old_lines.end()) out += "+" + l + "\n";
    }
    return out;
}

// ---- the private directory of a case

class temp_dir {
public:
    temp_dir() {
        char name[] = "/tmp/neuron-emu-run-test.XXXXXX";
        if (::mkdtemp(name) == nullptr) throw std::runtime_error(fmt::format("mkdtemp: {}", std::strerror(errno)));
        m_path = name;
    }
    ~temp_dir() {
        for (const auto& point : mounts_below(m_path)) ::umount2(point.c_str(), MNT_DETACH);
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

// `neuron-emu run ARGS`, stdin from /dev/null, stdout and stderr into files of
// the case's directory. The destructor kills and reaps it if the case did not.
class run_process {
public:
    run_process(const temp_dir& dir, std::vector<std::string> args)
        : m_args(std::move(args)), m_out(dir / "stdout"), m_err(dir / "stderr") {
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 1, m_out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, m_err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        std::vector<char*> argv{const_cast<char*>(NEURON_EMU_BINARY), const_cast<char*>("run")};
        for (auto& a : m_args) argv.push_back(a.data());
        argv.push_back(nullptr);
        const int error = posix_spawn(&m_pid, NEURON_EMU_BINARY, &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (error != 0) {
            throw std::runtime_error(fmt::format("cannot start {}: {}", NEURON_EMU_BINARY, std::strerror(error)));
        }
        m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0));
    }
    ~run_process() {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            int ignored = 0;
            ::waitpid(m_pid, &ignored, 0);
        }
        if (m_pidfd >= 0) ::close(m_pidfd);
    }
    run_process(const run_process&) = delete;
    run_process& operator=(const run_process&) = delete;

    pid_t pid() const { return m_pid; }
    std::string out() const { return slurp(m_out); }
    std::string err() const { return slurp(m_err); }
    std::string command() const {
        std::string out = std::string(NEURON_EMU_BINARY) + " run";
        for (const auto& a : m_args) out += " '" + a + "'";
        return out;
    }

    // The raw wait status, or nullopt if it is still running after the timeout.
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

    // Waits; fails the case unless neuron-emu exited (not killed) with `expected`.
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
    std::string m_out;
    std::string m_err;
    pid_t m_pid = -1;
    int m_pidfd = -1;
    std::optional<int> m_status;
};

// Runs `neuron-emu run --instance INSTANCE -- sh -c SCRIPT` to its end and
// requires exit status 0; returns the script's stdout.
std::string run_script(const temp_dir& dir, const std::string& instance, const std::string& script) {
    run_process run(dir, {"--instance", instance, "--", "sh", "-c", script});
    run.require_exit(0);
    return run.out();
}

// The pid of a child of `parent` whose comm is `name`, if there is one now.
std::optional<pid_t> child_named(pid_t parent, const std::string& name) {
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return std::nullopt;
    std::optional<pid_t> found;
    while (const dirent* e = ::readdir(proc)) {
        const std::string entry = e->d_name;
        if (entry.find_first_not_of("0123456789") != std::string::npos) continue;
        // pid (comm) state ppid ...; comm may hold spaces and parentheses.
        const auto stat = slurp("/proc/" + entry + "/stat");
        const auto open = stat.find('(');
        const auto close = stat.rfind(')');
        if (open == std::string::npos || close == std::string::npos || close < open) continue;
        std::istringstream rest(stat.substr(close + 1));
        char state = 0;
        pid_t ppid = 0;
        rest >> state >> ppid;
        if (ppid == parent && stat.substr(open + 1, close - open - 1) == name) {
            found = static_cast<pid_t>(std::stol(entry));
            break;
        }
    }
    ::closedir(proc);
    return found;
}

} // namespace

BOOST_AUTO_TEST_CASE(tree_at_real_paths) {
    require_root_and_fuse();
    temp_dir tmp;
    const auto out = run_script(tmp, "trn1.32xlarge", R"(set -e
d=/sys/devices/virtual/neuron_device
cat $d/neuron0/core_count; echo
readlink /sys/class/neuron_device/neuron3
stat -c '%F %t %T %a' /dev/neuron0
grep ' neuron$' /proc/devices
cat $d/neuron0/dev
major=$(awk '$2 == "neuron" { print $1 }' /proc/devices)
readlink /sys/dev/char/$major:0
stat -c '%F %t %T %a' /dev/neuron15
)");
    const auto lines = lines_of(out);
    BOOST_TEST_REQUIRE(lines.size() == 7u, out);
    BOOST_TEST(lines[0] == "2");
    BOOST_TEST(lines[1] == "../../devices/virtual/neuron_device/neuron3");

    // One dynamic major, the same everywhere, and one the host does not use.
    std::istringstream devices_line(lines[3]);
    unsigned major = 0;
    std::string name;
    devices_line >> major >> name;
    BOOST_TEST_REQUIRE(name == "neuron", lines[3]);
    BOOST_TEST(major > 0u);
    BOOST_TEST(lines[2] == fmt::format("character special file {:x} 0 666", major));
    BOOST_TEST(lines[4] == fmt::format("{}:0", major));
    BOOST_TEST(lines[5] == "../../devices/virtual/neuron_device/neuron0");
    BOOST_TEST(lines[6] == fmt::format("character special file {:x} f 666", major));
    std::istringstream host_devices(slurp("/proc/devices"));
    std::string host_line;
    while (std::getline(host_devices, host_line)) {
        if (host_line == "Block devices:") break;
        std::istringstream fields(host_line);
        unsigned host_major = 0;
        if (fields >> host_major) BOOST_TEST(host_major != major, "the host uses major " << major << ": " << host_line);
    }
}

BOOST_AUTO_TEST_CASE(real_sysfs_still_visible) {
    require_root_and_fuse();
    const auto host_lo = link_target("/sys/class/net/lo");
    const auto host_null = link_target("/sys/dev/char/1:3");
    BOOST_TEST_REQUIRE(!host_lo.empty(), "the host has no /sys/class/net/lo");
    temp_dir tmp;
    const auto out = run_script(tmp, "trn1.2xlarge", R"(set -e
readlink /sys/class/net/lo
cat /sys/devices/virtual/net/lo/statistics/rx_bytes
readlink /sys/dev/char/1:3
stat -c '%F %t %T' /dev/null
echo x > /dev/null
echo null-ok
test -d /sys/devices/virtual/neuron_device/neuron0 && echo tree-ok
)");
    const auto lines = lines_of(out);
    BOOST_TEST_REQUIRE(lines.size() == 6u, out);
    BOOST_TEST(lines[0] == host_lo);
    BOOST_TEST(!lines[1].empty());
    BOOST_TEST(lines[1].find_first_not_of("0123456789") == std::string::npos, lines[1]);
    BOOST_TEST(lines[2] == host_null);
    BOOST_TEST(lines[3] == "character special file 1 3");
    BOOST_TEST(lines[4] == "null-ok");
    BOOST_TEST(lines[5] == "tree-ok");
}

BOOST_AUTO_TEST_CASE(exit_status_passed_through) {
    require_root_and_fuse();
    temp_dir tmp;
    run_process run(tmp, {"--", "sh", "-c", "echo out; echo err >&2; exit 3"});
    run.require_exit(3);
    BOOST_TEST(run.out() == "out\n");
    BOOST_TEST(contains(run.err(), "err\n"), run.err());
}

BOOST_AUTO_TEST_CASE(death_by_signal_reported_as_128_plus_signal) {
    require_root_and_fuse();
    temp_dir tmp;
    run_process run(tmp, {"--", "sh", "-c", "kill -TERM $$"});
    run.require_exit(128 + SIGTERM);
}

BOOST_AUTO_TEST_CASE(missing_command_exits_127_naming_it) {
    require_root_and_fuse();
    temp_dir tmp;
    run_process run(tmp, {"--", "/nonexistent/cmd", "arg"});
    run.require_exit(127);
    const auto err = run.err();
    BOOST_TEST(contains(err, "/nonexistent/cmd"), err);
    BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1, "not one line: " << err);
}

BOOST_AUTO_TEST_CASE(command_that_cannot_run_exits_126) {
    require_root_and_fuse();
    temp_dir tmp;
    const auto script = tmp / "not-executable";
    std::ofstream(script) << "#!/bin/sh\nexit 0\n";
    ::chmod(script.c_str(), 0644);
    run_process run(tmp, {"--", script});
    run.require_exit(126);
    BOOST_TEST(contains(run.err(), script), run.err());
}

BOOST_AUTO_TEST_CASE(host_untouched) {
    require_root_and_fuse();
    // A mount namespace of the test's own whose mounts are shared in fresh peer
    // groups: a mount that `run` let propagate out of its namespace would show
    // here, while mounts that other processes on the host make meanwhile do not.
    BOOST_TEST_REQUIRE(::unshare(CLONE_NEWNS) == 0, std::strerror(errno));
    BOOST_TEST_REQUIRE(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0, std::strerror(errno));
    BOOST_TEST_REQUIRE(::mount(nullptr, "/", nullptr, MS_REC | MS_SHARED, nullptr) == 0, std::strerror(errno));
    temp_dir tmp;
    const auto mounts_before = slurp("/proc/self/mountinfo");
    const auto devices_before = slurp("/proc/devices");

    // The command names run's scratch directory (a tmpfs mounted in its namespace).
    const auto out = run_script(tmp, "trn1.2xlarge",
                                R"(grep -o '/tmp/neuron-emu-run\.[A-Za-z0-9]*' /proc/self/mountinfo | head -n 1)");
    const auto scratch = out.substr(0, out.find('\n'));
    BOOST_TEST_REQUIRE(scratch.starts_with("/tmp/neuron-emu-run."), out);

    const auto mounts_after = slurp("/proc/self/mountinfo");
    BOOST_TEST(mounts_after == mounts_before, "mountinfo changed:\n" << line_difference(mounts_before, mounts_after));
    BOOST_TEST(stat_errno(scratch) == ENOENT, scratch << " was left behind");
    const auto devices_after = slurp("/proc/devices");
    BOOST_TEST(devices_after == devices_before,
               "/proc/devices changed:\n" << line_difference(devices_before, devices_after));
    BOOST_TEST(stat_errno("/sys/devices/virtual/neuron_device") == ENOENT);
    BOOST_TEST(stat_errno("/sys/class/neuron_device") == ENOENT);
    BOOST_TEST(stat_errno("/dev/neuron0") == ENOENT);
}

BOOST_AUTO_TEST_CASE(usage_without_command) {
    // Needs neither root nor FUSE: refused before anything starts.
    temp_dir tmp;
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--"}, std::vector<std::string>{"--instance", "trn1.2xlarge", "--"},
          std::vector<std::string>{}}) {
        run_process run(tmp, args);
        run.require_exit(2);
        BOOST_TEST(run.out().empty());
        BOOST_TEST(run.err() == "neuron-emu: run: give the command to run after '--'\n", run.command());
    }
}

BOOST_AUTO_TEST_CASE(sigterm_forwarded) {
    require_root_and_fuse();
    temp_dir tmp;
    run_process run(tmp, {"--", "sleep", "30"});
    // No event announces that the command started: look for it, briefly and boundedly.
    std::optional<pid_t> sleeper;
    for (int attempt = 0; attempt < 2000 && !sleeper; ++attempt) {
        sleeper = child_named(run.pid(), "sleep");
        if (!sleeper) {
            BOOST_TEST_REQUIRE(!run.wait(10ms).has_value(), "run ended before its command started: " << run.err());
        }
    }
    BOOST_TEST_REQUIRE(sleeper.has_value(), "no 'sleep' child of run within 20 s; stderr: " << run.err());

    const auto sent = std::chrono::steady_clock::now();
    BOOST_TEST_REQUIRE(::kill(run.pid(), SIGTERM) == 0);
    run.require_exit(128 + SIGTERM, 10s);
    const auto took = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - sent);
    BOOST_TEST(took.count() < 5000, "run took " << took.count() << " ms to stop");
    BOOST_TEST(::kill(*sleeper, 0) == -1, "the command outlived run");
}
