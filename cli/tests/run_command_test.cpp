#define BOOST_TEST_MODULE run_command
// `neuron-emu run` end to end: the command runs in a private mount namespace
// where the emulated tree sits at the driver's real paths (/sys, /dev,
// /proc/devices) and the vendor's tools at theirs, the rest of the host stays visible, the command's exit
// status comes back as a shell would report it, and the host is left as it
// was.
//
// Each case runs in a private directory under /tmp, removed even when the case
// fails; every process a case starts is killed and reaped if the case did not
// reap it. The cases need root and /dev/fuse and exit with 77 (skipped)
// without them.

#include "support/process_harness.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <optional>
#include <sched.h>
#include <sstream>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

using namespace neuron::cli::testing;

namespace {

using namespace std::chrono_literals;

constexpr milliseconds run_exit_timeout = 30s; // generous: a broken build fails instead of hanging

void require_root_and_fuse() {
    require_root("run needs root for its mount namespace and FUSE");
    require_usable_fuse("run");
    if (::access("/sys/devices/virtual/neuron_device", F_OK) == 0) {
        skip("this host has the Neuron driver loaded; run refuses to shadow it");
    }
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

// `run` followed by `args`.
std::vector<std::string> run_arguments(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    return args;
}

// `neuron-emu run ARGS`, stdin from /dev/null, stdout and stderr into files of
// the case's directory.
class run_process : public emulator {
public:
    run_process(const temp_dir& dir, std::vector<std::string> args)
            : emulator(run_arguments(std::move(args)),
                       {.stdin_path = "/dev/null", .stdout_path = dir / "stdout", .stderr_path = dir / "stderr"},
                       run_exit_timeout) {}
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
    temp_dir tmp("run");
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

BOOST_AUTO_TEST_CASE(the_vendor_tools_are_on_path_and_where_the_vendor_installs_them) {
    require_root_and_fuse();
    temp_dir tmp("run");
    const bool opt_had_aws = lstat_errno("/opt/aws") == 0;
    const auto out = run_script(tmp, "inf2.xlarge", R"(set -e
for tool in neuron-ls neuron-monitor neuron-top; do command -v $tool; done
ls /opt/aws/neuron/bin
neuron-ls --json-output | grep -c '"neuron_device"'
/opt/aws/neuron/bin/neuron-ls | head -n 1)");
    BOOST_TEST(out ==
               "/opt/aws/neuron/bin/neuron-ls\n/opt/aws/neuron/bin/neuron-monitor\n/opt/aws/neuron/bin/neuron-top\n"
               "neuron-ls\nneuron-monitor\nneuron-top\n"
               "1\n"
               "instance-type: inf2.xlarge\n");
    BOOST_TEST((lstat_errno("/opt/aws") == 0) == opt_had_aws, "the host's /opt is untouched");

    // Named as the command itself: found on the command's PATH, not run's.
    run_process direct(tmp, {"--instance", "inf2.xlarge", "--", "neuron-ls", "--json-output"});
    direct.require_exit(0);
    BOOST_TEST(direct.out().starts_with("[\n    {\n        \"neuron_device\": 0,"), direct.out());
}

// EC2's DMI files name the emulated instance, not the host: optimum-neuron
// reads the instance type from product_name; the id follows the seed.
BOOST_AUTO_TEST_CASE(the_instances_identity_is_where_ec2_puts_it) {
    require_root_and_fuse();
    temp_dir tmp("run");
    const std::string script = R"(set -e
d=/sys/devices/virtual/dmi/id
cat $d/product_name $d/sys_vendor $d/board_asset_tag
stat -c '%a' $d/product_name $d/product_uuid
readlink /sys/class/dmi/id
cat /sys/class/dmi/id/product_name
neuron-ls | sed -n 2p)";
    const auto identity = [&](const std::string& seed) {
        run_process run(tmp, {"--instance", "trn2.48xlarge", "--seed", seed, "--", "sh", "-c", script});
        run.require_exit(0);
        return lines_of(run.out());
    };
    const auto lines = identity("11");
    BOOST_TEST_REQUIRE(lines.size() == 8u);
    BOOST_TEST(lines[0] == "trn2.48xlarge");
    BOOST_TEST(lines[1] == "Amazon EC2");
    BOOST_TEST(lines[2].starts_with("i-0"));
    BOOST_TEST(lines[2].size() == 19u);
    BOOST_TEST(lines[3] == "444");
    BOOST_TEST(lines[4] == "400");
    BOOST_TEST(lines[5] == "../../devices/virtual/dmi/id");
    BOOST_TEST(lines[6] == "trn2.48xlarge");
    BOOST_TEST(lines[7] == "instance-id: " + lines[2], "the tools see the same instance");
    BOOST_TEST(identity("11")[2] == lines[2]);
    BOOST_TEST(identity("12")[2] != lines[2]);
}

BOOST_AUTO_TEST_CASE(real_sysfs_still_visible) {
    require_root_and_fuse();
    const auto host_lo = link_target("/sys/class/net/lo");
    const auto host_null = link_target("/sys/dev/char/1:3");
    BOOST_TEST_REQUIRE(!host_lo.empty(), "the host has no /sys/class/net/lo");
    temp_dir tmp("run");
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
    temp_dir tmp("run");
    run_process run(tmp, {"--", "sh", "-c", "echo out; echo err >&2; exit 3"});
    run.require_exit(3);
    BOOST_TEST(run.out() == "out\n");
    BOOST_TEST(contains(run.err(), "err\n"), run.err());
}

BOOST_AUTO_TEST_CASE(death_by_signal_reported_as_128_plus_signal) {
    require_root_and_fuse();
    temp_dir tmp("run");
    run_process run(tmp, {"--", "sh", "-c", "kill -TERM $$"});
    run.require_exit(128 + SIGTERM);
}

BOOST_AUTO_TEST_CASE(missing_command_exits_127_naming_it) {
    require_root_and_fuse();
    temp_dir tmp("run");
    run_process run(tmp, {"--", "/nonexistent/cmd", "arg"});
    run.require_exit(127);
    const auto err = run.err();
    BOOST_TEST(contains(err, "/nonexistent/cmd"), err);
    BOOST_TEST(std::count(err.begin(), err.end(), '\n') == 1, "not one line: " << err);
}

BOOST_AUTO_TEST_CASE(command_that_cannot_run_exits_126) {
    require_root_and_fuse();
    temp_dir tmp("run");
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
    temp_dir tmp("run");
    const auto mounts_before = slurp("/proc/self/mountinfo");
    const auto devices_before = slurp("/proc/devices");

    // The command names run's scratch directory (a tmpfs mounted in its namespace).
    const auto out = run_script(tmp, "trn1.2xlarge",
                                R"(grep -o '/tmp/neuron-emu-run\.[A-Za-z0-9]*' /proc/self/mountinfo | head -n 1)");
    const auto scratch = out.substr(0, out.find('\n'));
    BOOST_TEST_REQUIRE(scratch.starts_with("/tmp/neuron-emu-run."), out);

    // Other tests running meanwhile remove their own temporary mount points,
    // and removing a mount point detaches its mounts in every namespace, ours
    // included: those may go. Nothing may appear, and nothing else may go.
    const auto mounts_after = slurp("/proc/self/mountinfo");
    std::string changed;
    for (const auto& line : lines_of(line_difference(mounts_before, mounts_after))) {
        const bool other_tests_mount_gone = line.starts_with("-") && line.find(" /tmp/neuron-") != std::string::npos &&
                                            line.find(" /tmp/neuron-emu-run.") == std::string::npos;
        if (!other_tests_mount_gone) changed += line + "\n";
    }
    BOOST_TEST(changed.empty(), "mountinfo changed:\n" << changed);
    BOOST_TEST(lstat_errno(scratch) == ENOENT, scratch << " was left behind");
    const auto devices_after = slurp("/proc/devices");
    BOOST_TEST(devices_after == devices_before, "/proc/devices changed:\n"
                                                    << line_difference(devices_before, devices_after));
    BOOST_TEST(lstat_errno("/sys/devices/virtual/neuron_device") == ENOENT);
    BOOST_TEST(lstat_errno("/sys/class/neuron_device") == ENOENT);
    BOOST_TEST(lstat_errno("/dev/neuron0") == ENOENT);
}

BOOST_AUTO_TEST_CASE(usage_without_command) {
    // Needs neither root nor FUSE: refused before anything starts.
    temp_dir tmp("run");
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
    temp_dir tmp("run");
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
