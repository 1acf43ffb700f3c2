#pragma once

#include "neuron/common/line_reader.h"

#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace neuron::test_support {

using milliseconds = std::chrono::milliseconds;

// Where one of a child's standard streams goes.
class stream_target {
public:
    enum class kind { inherited, piped, file, descriptor };

    static stream_target inherited() { return {kind::inherited, {}, -1}; } // the test's own
    static stream_target piped() { return {kind::piped, {}, -1}; }         // a pipe to or from the test
    // stdin reads the file; stdout and stderr create or truncate it.
    static stream_target file(std::string file_path) { return {kind::file, std::move(file_path), -1}; }
    // An open descriptor that the test keeps (a pseudo-terminal's side).
    static stream_target descriptor(int open_fd) { return {kind::descriptor, {}, open_fd}; }

    kind how() const { return m_how; }
    const std::string& path() const { return m_path; }
    int fd() const { return m_fd; }

private:
    stream_target(kind target_kind, std::string target_path, int target_fd)
            : m_how(target_kind), m_path(std::move(target_path)), m_fd(target_fd) {}

    kind m_how;
    std::string m_path;
    int m_fd;
};

struct spawn_options {
    std::vector<std::string> argv{}; // argv[0] is the program's path
    // NAME=value entries; nothing: the test's own environment.
    std::optional<std::vector<std::string>> environment{};
    stream_target input = stream_target::inherited();
    stream_target output = stream_target::inherited();
    stream_target error = stream_target::inherited();
    std::string working_directory{}; // empty: the test's own
};

// A program started with posix_spawn(3). The destructor kills and reaps it if
// it is still running.
class spawned_process {
public:
    // Throws std::runtime_error when it cannot start.
    explicit spawned_process(spawn_options options);
    ~spawned_process();
    spawned_process(const spawned_process&) = delete;
    spawned_process& operator=(const spawned_process&) = delete;

    pid_t pid() const { return m_pid; }
    std::string command() const; // as a shell would show it

    // To a piped stdin: 0, or the errno with which write(2) failed.
    int send(std::string_view bytes);
    void close_input();

    // From a piped stdout (common::line_reader::next).
    std::optional<std::string> read_line(milliseconds timeout);
    bool output_ended() const { return m_output.ended(); }

    void signal(int number) const;

    // The raw wait status once it has ended; nothing if it is still running
    // after the timeout.
    std::optional<int> wait(milliseconds timeout);
    std::optional<int> status() const { return m_status; }

private:
    std::vector<std::string> m_argv;
    pid_t m_pid = -1;
    int m_pidfd = -1;
    int m_stdin = -1;
    int m_stdout = -1;
    common::line_reader m_output{-1};
    std::optional<int> m_status;
};

} // namespace neuron::test_support
