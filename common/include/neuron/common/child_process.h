#pragma once

#include "neuron/common/line_reader.h"

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace neuron::common {

using milliseconds = std::chrono::milliseconds;

// A program a test, benchmark or the conformance runner starts and talks to line by line: stdin and stdout
// are pipes, stderr goes to a file. The destructor kills and reaps it if it
// is still running.
class child_process {
public:
    // `environment` replaces the runner's environment entirely.
    child_process(std::vector<std::string> argv, std::map<std::string, std::string> environment,
                  std::string stderr_path);
    ~child_process();
    child_process(const child_process&) = delete;
    child_process& operator=(const child_process&) = delete;

    pid_t pid() const { return m_pid; }
    std::string command() const; // as a shell would show it
    std::string err() const;     // what it wrote to stderr so far

    // Throws std::runtime_error if the process cannot take it (it has ended).
    void send_line(const std::string& line);
    // The next stdout line without its newline (line_reader::next): at end
    // of file what is left without one, then nothing; nothing when none came
    // in time.
    std::optional<std::string> read_line(milliseconds timeout);
    // True when stdout has something not read yet.
    bool output_waiting() const;

    void signal(int signal) const;
    // The raw wait status once it ended, or nothing if it is still running
    // after the timeout.
    std::optional<int> wait(milliseconds timeout);
    std::optional<int> status() const { return m_status; }
    bool running() const { return !m_status.has_value(); }

private:
    std::vector<std::string> m_argv;
    std::string m_stderr_path;
    pid_t m_pid = -1;
    int m_pidfd = -1;
    int m_stdin = -1;
    int m_stdout = -1;
    line_reader m_output{-1};
    std::optional<int> m_status;
};

// The environment of this process as a map.
std::map<std::string, std::string> current_environment();

} // namespace neuron::common
