#define BOOST_TEST_MODULE serve_command
// `neuron-emu serve` end to end: the executable mounts the tree through FUSE
// for real (or writes it as plain files), says so on stdout once it is ready,
// and unmounts and tidies up when told to stop. The usage errors are in
// serve_usage_test.cpp.
//
// Each case runs in a private directory under /tmp, removed (after detaching
// anything still mounted below it) even when the case fails; every process a
// case starts is killed and reaped if the case did not reap it. The mounting
// cases need root and /dev/fuse and exit with 77 (skipped) without them.

#include "support/process_harness.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ios>
#include <map>
#include <sched.h>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <vector>

using namespace neuron::cli::testing;

namespace {

void require_root_and_fuse() { neuron::test_support::require_fuse_mount("this test"); }

std::string serving_line_end(const std::string& dir) { return " at " + dir; }

void check_serving(const std::string& line, const std::string& instance, const std::string& dir) {
    BOOST_TEST(line.starts_with("neuron-emu: serving " + instance + " "), line);
    BOOST_TEST(line.ends_with(serving_line_end(dir)), line);
}

// Serves trn1.32xlarge at `dir`, checks the tree, stops it with `signal` and
// checks that it exits 0 and the mount is gone.
void serve_then_stop_with(int signal) {
    require_root_and_fuse();
    temp_dir tmp("serve");
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    emulator serve({"serve", "--instance", "trn1.32xlarge", "--mount", dir, "--time", "stepped"},
                   {.stderr_path = tmp / "stderr"});
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
    temp_dir tmp("serve");
    const auto dir = tmp / "new-mount-point";
    BOOST_TEST_REQUIRE(stat_errno(dir) == ENOENT);
    emulator serve({"serve", "--mount", dir, "--time", "stepped"}, {.stderr_path = tmp / "stderr"});
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
    temp_dir tmp("serve");
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    {
        emulator first({"serve", "--mount", dir, "--time", "stepped"}, {.stderr_path = tmp / "stderr-first"});
        check_serving(first.require_ready(), "trn1.2xlarge", dir);
        first.signal(SIGKILL);
        const auto status = first.wait();
        BOOST_TEST_REQUIRE(status.has_value());
        BOOST_TEST_REQUIRE(WIFSIGNALED(*status));
    }
    // What a FUSE server that died without unmounting leaves behind.
    BOOST_TEST_REQUIRE(stat_errno(dir) == ENOTCONN, std::strerror(stat_errno(dir)));
    BOOST_TEST_REQUIRE(fs_types_at(dir).size() == 1u);

    emulator second({"serve", "--mount", dir, "--time", "stepped"}, {.stderr_path = tmp / "stderr-second"});
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

BOOST_AUTO_TEST_CASE(clears_stale_mount_whose_root_attributes_are_cached) {
    // Once anything has looked at the tree, the kernel answers stat() of its
    // root from cached attributes even after the server died: the restart
    // must not take that for a live mount.
    require_root_and_fuse();
    temp_dir tmp("serve");
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    constexpr int cycles = 4;
    for (int cycle = 0; cycle < cycles; ++cycle) {
        BOOST_TEST_CONTEXT("cycle " << cycle) {
            emulator server({"serve", "--mount", dir, "--time", "stepped"},
                            {.stderr_path = tmp / fmt::format("stderr-{}", cycle)});
            check_serving(server.require_ready(), "trn1.2xlarge", dir);
            BOOST_TEST(read_file(dir + "/neuron0/core_count").text == "2");
            BOOST_TEST(read_file(dir + "/neuron0/connected_devices").error == 0);
            BOOST_TEST_REQUIRE(stat_errno(dir) == 0);
            server.signal(SIGKILL);
            const auto status = server.wait();
            BOOST_TEST_REQUIRE(status.has_value());
            BOOST_TEST_REQUIRE(WIFSIGNALED(*status));
            // The dead mount still answers stat() from its cache.
            BOOST_TEST_REQUIRE(stat_errno(dir) == 0, std::strerror(stat_errno(dir)));
            BOOST_TEST_REQUIRE(fs_types_at(dir) == std::vector<std::string>{"fuse.neuron-emu"});
        }
    }

    emulator last({"serve", "--mount", dir, "--time", "stepped"}, {.stderr_path = tmp / "stderr-last"});
    check_serving(last.require_ready(), "trn1.2xlarge", dir);
    BOOST_TEST(read_file(dir + "/neuron0/core_count").text == "2");
    BOOST_TEST(fs_types_at(dir) == std::vector<std::string>{"fuse.neuron-emu"},
               "expected only the new mount (every stale one detached)");
    last.signal(SIGTERM);
    last.require_exit(0);
    BOOST_TEST(fs_types_at(dir).empty());
    BOOST_TEST(stat_errno(dir) == 0);
}

BOOST_AUTO_TEST_CASE(refuses_busy_mount_point) {
    require_root_and_fuse();
    temp_dir tmp("serve");
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    emulator first({"serve", "--mount", dir, "--time", "stepped"}, {.stderr_path = tmp / "stderr-first"});
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
    temp_dir tmp("serve");
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
    temp_dir tmp("serve");
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    emulator serve({"serve", "--mount", dir, "--time", "stepped"}, {.stderr_path = tmp / "stderr"});
    check_serving(serve.require_ready(), "trn1.2xlarge", dir);
    BOOST_TEST_REQUIRE(::umount2(dir.c_str(), 0) == 0, std::strerror(errno));
    serve.require_exit(1);
    BOOST_TEST(contains(serve.err(), "unmounted from outside"), serve.err());
    BOOST_TEST(fs_types_at(dir).empty());
}

BOOST_AUTO_TEST_CASE(leaves_no_mount_point_behind_when_fuse_is_missing) {
    // A host without FUSE, as in many CI containers: /dev is an empty tmpfs in
    // a mount namespace of the test's own.
    require_root("hiding /dev/fuse needs root");
    BOOST_TEST_REQUIRE(::unshare(CLONE_NEWNS) == 0, std::strerror(errno));
    BOOST_TEST_REQUIRE(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0, std::strerror(errno));
    BOOST_TEST_REQUIRE(::mount("tmpfs", "/dev", "tmpfs", 0, "mode=755") == 0, std::strerror(errno));
    BOOST_TEST_REQUIRE(::access("/dev/fuse", F_OK) != 0);

    temp_dir tmp("serve");
    const auto dir = tmp / "new-mount-point";
    const auto r = run_to_end(tmp, {"serve", "--mount", dir, "--time", "stepped"});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(r.out.empty(), r.out);
    BOOST_TEST(contains(r.err, "/dev/fuse"), r.err);
    BOOST_TEST(contains(r.err, "--materialize"), r.err);
    BOOST_TEST(stat_errno(dir) == ENOENT, "serve created " << dir << " and left it behind when it could not mount");
}

// ---- --materialize and --driver-version

BOOST_AUTO_TEST_CASE(materializes_tree) {
    // Plain files: needs neither FUSE nor root.
    temp_dir tmp("serve");
    const auto dir = tmp / "tree";
    emulator serve({"serve", "--instance", "inf2.xlarge", "--materialize", dir}, {.stderr_path = tmp / "stderr"});
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

// Everything below `dir`: type, mode and content or link target.
std::map<std::string, std::string> listing(const std::string& dir) {
    std::map<std::string, std::string> out;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
        struct stat st {};
        BOOST_TEST_REQUIRE(::lstat(entry.path().c_str(), &st) == 0);
        auto line = std::to_string(st.st_mode);
        if (S_ISREG(st.st_mode)) line += " '" + slurp(entry.path()) + "'";
        if (S_ISLNK(st.st_mode)) line += " -> " + std::filesystem::read_symlink(entry.path()).string();
        out[entry.path().string()] = line;
    }
    return out;
}

BOOST_AUTO_TEST_CASE(materialize_follows_no_link_planted_in_the_tree) {
    // Root writes the tree: a link planted where it writes must not send a
    // write (or a chmod) outside DIR. Plain files: needs neither FUSE nor root.
    temp_dir tmp("serve");
    const auto dir = tmp / "tree";
    const auto outside = tmp / "outside";
    std::filesystem::create_directories(outside + "/devices");
    std::ofstream(outside + "/victim") << "precious\n";
    std::filesystem::permissions(outside + "/victim", std::filesystem::perms(0640));
    std::filesystem::create_directory(dir);
    std::filesystem::create_directory_symlink(outside + "/devices", dir + "/neuron0");
    std::filesystem::create_directories(dir + "/neuron1/info");
    std::filesystem::create_symlink(outside + "/victim", dir + "/neuron1/core_count.neuron-emu-tmp");
    std::filesystem::create_symlink(outside + "/victim", dir + "/neuron1/info/notify_delay");
    const auto before = listing(outside);

    emulator serve({"serve", "--instance", "inf2.24xlarge", "--materialize", dir}, {.stderr_path = tmp / "stderr"});
    BOOST_TEST(serve.require_ready().starts_with("neuron-emu: materializing inf2.24xlarge "));
    serve.signal(SIGTERM);
    serve.require_exit(0);

    BOOST_TEST(listing(outside) == before, "serve --materialize wrote outside " << dir);
    BOOST_TEST(std::filesystem::is_directory(std::filesystem::symlink_status(dir + "/neuron0")));
    BOOST_TEST(slurp(dir + "/neuron0/core_count") == "2");
    BOOST_TEST(slurp(dir + "/neuron1/core_count") == "2");
    BOOST_TEST(std::filesystem::is_regular_file(std::filesystem::symlink_status(dir + "/neuron1/info/notify_delay")));
    BOOST_TEST(lstat_errno(dir + "/neuron1/core_count.neuron-emu-tmp") == ENOENT);
}

// The directory itself, named in an output directory every user may write:
// a link another user planted there is not followed (the tree would land in
// a directory only root may write, say).
BOOST_AUTO_TEST_CASE(materialize_refuses_a_directory_behind_a_link_planted_in_a_shared_directory) {
    temp_dir tmp("serve");
    const auto shared = tmp / "shared";
    const auto outside = tmp / "outside";
    std::filesystem::create_directories(outside);
    std::filesystem::create_directories(shared);
    std::filesystem::permissions(shared, std::filesystem::perms::all | std::filesystem::perms::sticky_bit);
    std::filesystem::create_directory_symlink(outside, shared + "/tree");
    const auto r = run_to_end(tmp, {"serve", "--instance", "inf2.xlarge", "--materialize", shared + "/tree/sub"});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(contains(r.err, "cannot materialize into " + shared +
                                   "/tree/sub: 'tree' on the way is a symbolic link in a directory others can write"),
               r.err);
    BOOST_TEST(std::filesystem::is_empty(outside));
}

BOOST_AUTO_TEST_CASE(materialize_refuses_a_file_in_the_way_of_a_directory) {
    temp_dir tmp("serve");
    const auto dir = tmp / "tree";
    std::filesystem::create_directories(dir + "/neuron0");
    std::ofstream(dir + "/neuron0/info") << "notes\n";
    const auto r = run_to_end(tmp, {"serve", "--instance", "inf2.xlarge", "--materialize", dir});
    BOOST_TEST(r.status == 1, r.err);
    BOOST_TEST(r.out.empty(), r.out);
    BOOST_TEST(contains(r.err, dir + "/neuron0/info: a regular file is there where the tree has a directory"), r.err);
    BOOST_TEST(slurp(dir + "/neuron0/info") == "notes\n");
}

BOOST_AUTO_TEST_CASE(driver_version_layout) {
    require_root_and_fuse();
    temp_dir tmp("serve");
    const auto dir = tmp / "mnt";
    std::filesystem::create_directory(dir);
    emulator serve({"serve", "--driver-version", "2.7", "--mount", dir}, {.stderr_path = tmp / "stderr"});
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
