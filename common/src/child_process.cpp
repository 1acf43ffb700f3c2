#include "neuron/common/child_process.h"

#include "neuron/common/process_exit.h"

#include "neuron/common/shell_word.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace neuron::common {

std::map<std::string, std::string> current_environment() {
    std::map<std::string, std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry = *e;
        const auto eq = entry.find('=');
        if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    return env;
}

child_process::child_process(std::vector<std::string> argv, std::map<std::string, std::string> environment,
                             std::string stderr_path)
        : m_argv(std::move(argv)), m_stderr_path(std::move(stderr_path)) {
    int in[2];
    int out[2];
    if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    if (::pipe2(out, O_CLOEXEC) != 0) {
        ::close(in[0]);
        ::close(in[1]);
        throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
    }
    const int err = ::open(m_stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err < 0) {
        const int error = errno;
        for (const int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
        throw std::runtime_error(
            fmt::format("cannot open {} for a child's stderr: {}", m_stderr_path, std::strerror(error)));
    }
    std::vector<std::string> env_entries;
    for (const auto& [k, v] : environment) env_entries.push_back(k + "=" + v);
    std::vector<char*> args;
    for (auto& a : m_argv) args.push_back(a.data());
    args.push_back(nullptr);
    std::vector<char*> envp;
    for (auto& e : env_entries) envp.push_back(e.data());
    envp.push_back(nullptr);

    m_pid = ::fork();
    if (m_pid == 0) {
        ::dup2(in[0], STDIN_FILENO);
        ::dup2(out[1], STDOUT_FILENO);
        if (err >= 0) ::dup2(err, STDERR_FILENO);
        ::signal(SIGPIPE, SIG_DFL);
        ::execve(args[0], args.data(), envp.data());
        const auto message = fmt::format("cannot run {}: {}\n", m_argv[0], std::strerror(errno));
        [[maybe_unused]] const auto n = ::write(STDERR_FILENO, message.data(), message.size());
        ::_exit(127);
    }
    const int fork_error = errno;
    ::close(in[0]);
    ::close(out[1]);
    if (err >= 0) ::close(err);
    if (m_pid < 0) {
        ::close(in[1]);
        ::close(out[0]);
        throw std::runtime_error(fmt::format("fork: {}", std::strerror(fork_error)));
    }
    m_stdin = in[1];
    m_stdout = out[0];
    m_output = line_reader(m_stdout);
    m_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, m_pid, 0));
}

child_process::~child_process() {
    if (running() && m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        (void)wait(milliseconds(10'000));
    }
    for (const int fd : {m_pidfd, m_stdin, m_stdout}) {
        if (fd >= 0) ::close(fd);
    }
}

std::string child_process::command() const {
    std::string out;
    for (const auto& a : m_argv) {
        // Appended piece by piece: g++ 12 at -O3 misreads `"x" + std::string` (-Wrestrict).
        if (!out.empty()) out += ' ';
        out += shell_word(a);
    }
    return out;
}

std::string child_process::err() const {
    std::ifstream in(m_stderr_path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void child_process::send_line(const std::string& line) {
    // The runner ignores SIGPIPE: a process that has ended gives EPIPE here.
    const std::string bytes = line + "\n";
    std::size_t done = 0;
    while (done < bytes.size()) {
        const auto n = ::write(m_stdin, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(fmt::format("{} does not take input: {}", m_argv[0], std::strerror(errno)));
        done += static_cast<std::size_t>(n);
    }
}

std::optional<std::string> child_process::read_line(milliseconds timeout) { return m_output.next(timeout); }

bool child_process::output_waiting() const {
    if (!m_output.partial().empty()) return true;
    pollfd p{m_stdout, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
}

void child_process::signal(int signal) const {
    if (running()) ::kill(m_pid, signal);
}

std::optional<int> child_process::wait(milliseconds timeout) {
    if (!m_status) m_status = reap_within(m_pid, m_pidfd, timeout);
    return m_status;
}

} // namespace neuron::common
