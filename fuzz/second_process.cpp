#include "second_process.h"

#include "control_peer.h"

#include "neuron/protocol/seqpacket.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace neuron::fuzz {
namespace {

constexpr uid_t nobody = 65534;

// The child: for each request read, connect to the server, send the
// descriptor back (a one-byte message without one: it could not), close its
// own copy and say so. Until that copy is closed, the server would not see a
// connection the fuzzer closes as closed.
[[noreturn]] void serve_connections(int channel, const std::string& socket) {
    char request = 0;
    while (::read(channel, &request, 1) == 1) {
        int fd = -1;
        try {
            fd = protocol::connect_seqpacket(socket);
        } catch (const protocol::connection_error&) {
            fd = -1;
        }
        try {
            const std::uint8_t opened = fd >= 0 ? 1 : 0;
            protocol::send_message(channel, {opened}, fd);
        } catch (const protocol::connection_error&) {
            ::_exit(0);
        }
        if (fd >= 0) ::close(fd);
        try {
            protocol::send_message(channel, {0});
        } catch (const protocol::connection_error&) {
            ::_exit(0);
        }
    }
    ::_exit(0);
}

} // namespace

second_process::second_process(const std::string& socket) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        finding(fmt::format("socketpair failed: {}", std::strerror(errno)));
    }
    m_uid = ::geteuid() == 0 ? nobody : ::geteuid();
    m_pid = ::fork();
    if (m_pid < 0) finding(fmt::format("fork failed: {}", std::strerror(errno)));
    if (m_pid == 0) {
        ::close(pair[0]);
        if (::geteuid() == 0 && (::setgid(nobody) != 0 || ::setuid(nobody) != 0)) ::_exit(1);
        serve_connections(pair[1], socket);
    }
    ::close(pair[1]);
    m_channel = pair[0];
}

second_process::~second_process() {
    ::close(m_channel); // its read ends, and so does it
    int status = 0;
    ::waitpid(m_pid, &status, 0);
}

int second_process::connect() {
    const char request = 1;
    if (::write(m_channel, &request, 1) != 1) finding("the second process is gone");
    const auto answer = protocol::receive_message(m_channel, answer_deadline_ms);
    if (!answer) finding("the second process did not answer");
    if (!protocol::receive_message(m_channel, answer_deadline_ms)) {
        finding("the second process did not say it closed its copy of the connection");
    }
    return answer->passed_fd;
}

} // namespace neuron::fuzz
