#include "support/hostile_clients.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace neuron::bench {
namespace {

// One line from `fd`, without its newline; empty at the end of input.
std::string read_line(int fd) {
    std::string line;
    char c = 0;
    while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
    return line;
}

void write_all(int fd, const std::string& text) {
    std::size_t at = 0;
    while (at < text.size()) {
        const auto n = ::write(fd, text.data() + at, text.size() - at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        at += static_cast<std::size_t>(n);
    }
}

// The child: the crowd between the parent's start and stop.
[[noreturn]] void run_crowd(int from_parent, int to_parent) {
    const auto socket = read_line(from_parent);
    const auto models = read_line(from_parent);
    if (socket.empty()) ::_exit(0);
    std::string summary;
    {
        hostile_crowd crowd(socket, models);
        (void)read_line(from_parent); // "stop", or the parent is gone
        crowd.stop();
        summary = crowd.summary();
    }
    write_all(to_parent, summary + "\n");
    ::_exit(0);
}

} // namespace

crowd_process::crowd_process() {
    int down[2];
    int up[2];
    if (::pipe2(down, O_CLOEXEC) != 0 || ::pipe2(up, O_CLOEXEC) != 0) {
        throw std::runtime_error(fmt::format("pipe2: {}", std::strerror(errno)));
    }
    m_pid = ::fork();
    if (m_pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
    if (m_pid == 0) {
        ::close(down[1]);
        ::close(up[0]);
        run_crowd(down[0], up[1]);
    }
    ::close(down[0]);
    ::close(up[1]);
    m_to_child = down[1];
    m_from_child = up[0];
}

crowd_process::~crowd_process() {
    if (m_to_child >= 0) ::close(m_to_child);
    if (m_from_child >= 0) ::close(m_from_child);
    int status = 0;
    if (m_pid > 0) ::waitpid(m_pid, &status, 0);
}

void crowd_process::start(const std::string& socket, const std::string& models) {
    write_all(m_to_child, socket + "\n" + models + "\n");
}

std::string crowd_process::stop() {
    write_all(m_to_child, "stop\n");
    return read_line(m_from_child);
}

} // namespace neuron::bench
