#include "neuron/test_support/spawned_process.h"

#include "neuron/common/process_exit.h"

#include "neuron/common/shell_word.h"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace neuron::test_support {
namespace {

// The file actions of posix_spawn, destroyed with the object.
class file_actions {
public:
    file_actions() { posix_spawn_file_actions_init(&m_actions); }
    ~file_actions() { posix_spawn_file_actions_destroy(&m_actions); }
    file_actions(const file_actions&) = delete;
    file_actions& operator=(const file_actions&) = delete;
    posix_spawn_file_actions_t* get() { return &m_actions; }

private:
    posix_spawn_file_actions_t m_actions;
};

// Both ends close-on-exec: the child gets its end through dup2, which clears the flag.
std::array<int, 2> make_pipe() {
    std::array<int, 2> ends{-1, -1};
    if (::pipe2(ends.data(), O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    return ends;
}

// Adds what puts `target` on `stream`; the child's end of a pipe goes into `child_end`.
void redirect(file_actions& actions, const stream_target& target, int stream, int& child_end) {
    switch (target.how()) {
    case stream_target::kind::inherited: break;
    case stream_target::kind::piped: posix_spawn_file_actions_adddup2(actions.get(), child_end, stream); break;
    case stream_target::kind::descriptor: posix_spawn_file_actions_adddup2(actions.get(), target.fd(), stream); break;
    case stream_target::kind::file:
        if (stream == STDIN_FILENO) {
            posix_spawn_file_actions_addopen(actions.get(), stream, target.path().c_str(), O_RDONLY, 0);
        } else {
            posix_spawn_file_actions_addopen(actions.get(), stream, target.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                             0644);
        }
        break;
    }
}

std::vector<char*> pointers(std::vector<std::string>& words) {
    std::vector<char*> out;
    for (auto& w : words) out.push_back(w.data());
    out.push_back(nullptr);
    return out;
}

void close_if_open(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

} // namespace

spawned_process::spawned_process(spawn_options options) : m_argv(std::move(options.argv)) {
    if (m_argv.empty()) throw std::logic_error("spawned_process: no argv");
    // Nothing would read it while the test waits on stdout or on the end.
    if (options.error.how() == stream_target::kind::piped) throw std::logic_error("spawned_process: stderr piped");
    std::array<int, 2> in{-1, -1};
    std::array<int, 2> out{-1, -1};
    try {
        if (options.input.how() == stream_target::kind::piped) in = make_pipe();
        if (options.output.how() == stream_target::kind::piped) out = make_pipe();
    } catch (...) {
        for (int& fd : in) close_if_open(fd);
        throw;
    }
    file_actions actions;
    redirect(actions, options.input, STDIN_FILENO, in[0]);
    redirect(actions, options.output, STDOUT_FILENO, out[1]);
    int no_pipe = -1;
    redirect(actions, options.error, STDERR_FILENO, no_pipe);
    if (!options.working_directory.empty()) {
        posix_spawn_file_actions_addchdir_np(actions.get(), options.working_directory.c_str());
    }
    auto argv = pointers(m_argv);
    std::vector<std::string> environment_entries = options.environment.value_or(std::vector<std::string>{});
    auto envp = pointers(environment_entries);
    const int error = ::posix_spawn(&m_pid, m_argv[0].c_str(), actions.get(), nullptr, argv.data(),
                                    options.environment ? envp.data() : environ);
    close_if_open(in[0]);
    close_if_open(out[1]);
    m_stdin = in[1];
    m_stdout = out[0];
    if (error != 0) {
        close_if_open(m_stdin);
        close_if_open(m_stdout);
        m_pid = -1;
        throw std::runtime_error(fmt::format("cannot start {}: {}", m_argv[0], std::strerror(error)));
    }
    m_output = common::line_reader(m_stdout);
    m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0));
}

spawned_process::~spawned_process() {
    if (m_pid > 0 && !m_status) {
        ::kill(m_pid, SIGKILL);
        int ignored = 0;
        ::waitpid(m_pid, &ignored, 0);
    }
    close_if_open(m_pidfd);
    close_if_open(m_stdin);
    close_if_open(m_stdout);
}

std::string spawned_process::command() const {
    std::string out;
    for (const auto& word : m_argv) {
        if (!out.empty()) out += ' ';
        out += common::shell_word(word);
    }
    return out;
}

int spawned_process::send(std::string_view bytes) {
    if (m_stdin < 0) return EBADF;
    std::size_t done = 0;
    while (done < bytes.size()) {
        const auto n = ::write(m_stdin, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n < 0 ? errno : EIO;
        done += static_cast<std::size_t>(n);
    }
    return 0;
}

void spawned_process::close_input() { close_if_open(m_stdin); }

std::optional<std::string> spawned_process::read_line(milliseconds timeout) {
    if (m_stdout < 0) throw std::logic_error(fmt::format("the stdout of '{}' is not a pipe", command()));
    return m_output.next(timeout);
}

void spawned_process::signal(int number) const {
    if (m_pid > 0 && !m_status) ::kill(m_pid, number);
}

std::optional<int> spawned_process::wait(milliseconds timeout) {
    if (m_status || m_pid <= 0) return m_status;
    m_status = common::reap_within(m_pid, m_pidfd, timeout);
    return m_status;
}

} // namespace neuron::test_support
