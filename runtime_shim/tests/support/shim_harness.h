#pragma once

// Test support for the shim's end-to-end tests: an emulator served for one
// case (its own temp dir, mount and control socket), `neuron-emu ctl`
// against it, its sysfs tree, and the C test programs as children driven
// line by line. Builds on the CLI tests' process harness (temp_dir,
// emulator) and the tests' shared support (skips, child processes).
//
// Every object records what it saw (commands, stdout lines, stderr); the
// `diagnostics` fixture prints all of it when the case failed, with the
// commands to reproduce it.

#include "support/process_harness.h"

#include "neuron/test_support/spawned_process.h"

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace neuron::shim::testing {

using cli::testing::milliseconds;
using cli::testing::temp_dir;

inline constexpr milliseconds line_timeout = std::chrono::seconds(60);

// ---- what a failed case prints

// Appends a block to the case's transcript (printed only if it fails).
void transcript(const std::string& title, const std::string& text);

// Prints the transcript when the case failed. Use as the fixture of every case.
struct diagnostics {
    diagnostics();
    ~diagnostics();
};

// Skips (exit 77) unless the case can mount FUSE: root and /dev/fuse.
void require_mount(const std::string& who);

// ---- paths

std::string program_path(const std::string& name);  // a C test program
std::string model_path(const std::string& name);    // runtime_shim/tests/models/NAME
std::string shipped_model(const std::string& name); // runtime_shim/models/NAME

// ---- the emulator

struct served_options {
    std::string instance = "trn1.2xlarge";
    std::string time = "realtime"; // or "stepped"
};

class served_instance {
public:
    explicit served_instance(served_options options = {});
    ~served_instance();
    served_instance(const served_instance&) = delete;
    served_instance& operator=(const served_instance&) = delete;

    const temp_dir& dir() const { return m_dir; }
    const std::string& mount() const { return m_mount; }
    const std::string& control() const { return m_control; }

    // `neuron-emu ctl --control SOCKET args...`: its status and output.
    cli::testing::outcome ctl(const std::vector<std::string>& args);
    // The same, failing the case unless it exits 0; its stdout.
    std::string ctl_ok(const std::vector<std::string>& args);
    // `ctl status --json`, parsed. Also settles runtime processes that died.
    YAML::Node status();
    // The debug_streams entry of a global logical core (a null node if none).
    YAML::Node stream_status(std::uint32_t global_core);

    // A file under the mount ("neuron0/core_count"); fails the case if unreadable.
    std::string read(const std::string& relative);
    // neuronD/neuron_coreC/stats/RELATIVE/total (or `file`) as a number.
    std::uint64_t core_counter(std::uint32_t device, std::uint32_t core, const std::string& relative,
                               const std::string& file = "total");
    // neuronD/stats/memory_usage/host_mem/CATEGORY/total.
    std::uint64_t host_category(std::uint32_t device, const std::string& category);

    // SIGTERM and a clean exit (0) that unmounts.
    void stop();

private:
    temp_dir m_dir;
    std::string m_mount;
    std::string m_control;
    std::optional<cli::testing::emulator> m_serve;
    bool m_stopped = false;
};

// ---- a C test program

struct program_options {
    std::vector<std::string> args{};
    std::map<std::string, std::string> env{}; // added to a clean environment
    std::string control{};                    // NEURON_EMU_CONTROL, unless empty
};

class program {
public:
    program(const temp_dir& dir, const std::string& name, program_options options = {});
    ~program();
    program(const program&) = delete;
    program& operator=(const program&) = delete;

    pid_t pid() const { return m_process->pid(); }
    const std::string& label() const { return m_label; }

    // Writes one line to its stdin.
    void send(const std::string& line);
    // Its next stdout line; fails the case when none comes in time.
    std::string line(milliseconds timeout = line_timeout);
    // The next line, which must start with `prefix`.
    std::string expect(const std::string& prefix, milliseconds timeout = line_timeout);
    // The first line from now on that starts with `prefix` (the others are kept in lines()).
    std::string until(const std::string& prefix, milliseconds timeout = line_timeout);
    // send(command), then the answer line that starts with the command's verb.
    std::string call(const std::string& command);

    // Closes stdin, reads stdout to its end and waits; the raw wait status.
    int finish(milliseconds timeout = line_timeout);
    // finish(), failing the case unless it exited with `code`.
    void require_exit(int code);

    const std::vector<std::string>& lines() const { return m_lines; } // every stdout line so far
    std::string err() const;

private:
    void record() const;

    std::string m_label;
    std::string m_command;
    std::string m_stderr_path;
    std::optional<test_support::spawned_process> m_process;
    std::vector<std::string> m_lines;
    mutable bool m_recorded = false;
};

// Runs a program with no input to its end.
struct program_result {
    int status = -1; // exit code, or -1 when it did not exit normally
    std::vector<std::string> lines;
    std::string err;
};
program_result run_program(const temp_dir& dir, const std::string& name, program_options options = {});

// ---- parsing lines

bool contains(const std::string& text, const std::string& part);
// The first line in `lines` starting with `prefix`, or "".
std::string find_line(const std::vector<std::string>& lines, const std::string& prefix);
// The value of "key=value" in a line ("" when absent).
std::string field(const std::string& line, const std::string& key);
// The lines of `text` that are runtime log lines ("... NRT:function  message").
std::vector<std::string> log_lines(const std::string& text);
// A program's stderr split at its "== NAME" markers: NAME -> what follows.
std::map<std::string, std::string> marked_sections(const std::string& text);

// Waits until the process's main thread waits for an answer on a socket
// (common::main_thread_call) — for a test program, inside a call that waits
// for the emulator's reply, which means the request already reached the
// emulator (unix sockets deliver at send). False if it does not happen
// within the timeout or the process is gone.
bool wait_until_waiting_for_answer(pid_t pid, milliseconds timeout = line_timeout);

} // namespace neuron::shim::testing
