#pragma once

// Test support for the end-to-end tests of neuron-emu's commands: the mount
// table, files, a private directory per case, and neuron-emu as a child
// process that a case reads, signals and waits for. Built on the tests'
// shared support (neuron/test_support: skipping, directories, processes).

#include "neuron/test_support/run_to_end.h"
#include "neuron/test_support/skip.h"
#include "neuron/test_support/slurp.h"
#include "neuron/test_support/spawned_process.h"
#include "neuron/test_support/temporary_directory.h"

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace neuron::cli::testing {

using milliseconds = std::chrono::milliseconds;

// Skipping: exit 77, which ctest reports as skipped rather than passed.
using test_support::require_root;
using test_support::require_usable_fuse;
using test_support::skip;

bool contains(const std::string& text, const std::string& part);

// ---- /proc/self/mountinfo

// The file system types mounted at `dir`, bottom first.
std::vector<std::string> fs_types_at(const std::string& dir);

// ---- files

using test_support::slurp;

// The whole content as read(2) returns it, or the errno of the failure.
struct file_content {
    int error = 0;
    std::string text;
};

file_content read_file(const std::string& path);

// 0, or the errno with which stat(2) (following a final symbolic link) or
// lstat(2) fails on `path`.
int stat_errno(const std::string& path);
int lstat_errno(const std::string& path);

// ---- the private directory of a case

// /tmp/neuron-emu-NAME-test.XXXXXX, removed when destroyed after detaching
// whatever is still mounted below it (a live or a stale FUSE mount), so that
// removing it cannot enter a mount, even when the case failed.
class temp_dir {
public:
    explicit temp_dir(const std::string& name) : m_dir("neuron-emu-" + name + "-test") {}
    ~temp_dir();
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;

    const std::string& path() const { return m_dir.path(); }
    std::string operator/(const std::string& name) const { return m_dir / name; }

private:
    test_support::temporary_directory m_dir;
};

// ---- neuron-emu as a child process

// Generous: a broken build fails instead of hanging.
inline constexpr milliseconds ready_timeout = std::chrono::seconds(20);
inline constexpr milliseconds default_exit_timeout = std::chrono::seconds(20);

// neuron-emu with `args` as a shell would show it (for failure messages).
std::string command_line(const std::vector<std::string>& args);

// Where a child's standard streams go; stdin and stdout may stay empty.
struct process_streams {
    std::string stdin_path{};  // empty: the test's own stdin (a case may hide /dev)
    std::string stdout_path{}; // empty: a pipe that emulator::read_line() reads
    std::string stderr_path{};
};

// neuron-emu started with `args`. The destructor kills and reaps it if the
// case did not.
class emulator {
public:
    emulator(std::vector<std::string> args, process_streams streams, milliseconds exit_timeout = default_exit_timeout);

    pid_t pid() const { return m_process.pid(); }
    std::string command() const { return m_process.command(); }
    std::string out() const; // stdout, when it goes into a file
    std::string err() const;

    // The next line on the stdout pipe without its newline (the last may lack one); nullopt at end of
    // file or when none arrives within the timeout.
    std::optional<std::string> read_line(milliseconds timeout);

    // The ready line, or a failed requirement naming the command and its stderr.
    std::string require_ready();

    void signal(int number) const;

    // The raw wait status, or nullopt if the process is still running after
    // the timeout.
    std::optional<int> wait() { return wait(m_exit_timeout); }
    std::optional<int> wait(milliseconds timeout);

    // Waits for the exit; fails the case unless the process exited (not
    // killed) with `expected`.
    void require_exit(int expected) { require_exit(expected, m_exit_timeout); }
    void require_exit(int expected, milliseconds timeout);

private:
    process_streams m_streams;
    milliseconds m_exit_timeout;
    test_support::spawned_process m_process;
};

// A command that is expected to end by itself: its status and output.
using outcome = test_support::run_result;

// Generous: some commands walk whole trees; ctest's timeout still applies.
inline constexpr milliseconds run_timeout = std::chrono::minutes(10);

// Runs neuron-emu with `args` to its end, its stdout and stderr in files of `dir`.
outcome run_to_end(const temp_dir& dir, std::vector<std::string> args);

} // namespace neuron::cli::testing
