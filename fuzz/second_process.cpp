#include "second_process.h"

#include "control_peer.h"

#include <fmt/format.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace neuron::fuzz {
namespace {

constexpr uid_t nobody = 65534;

// The child: for each byte read, connect to the server and send back the
// descriptor (or nothing, as a refusal). Only system calls, no allocation.
[[noreturn]] void serve_connections(int channel, const sockaddr_un& address) {
    char request = 0;
    while (::read(channel, &request, 1) == 1) {
        int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
            ::close(fd);
            fd = -1;
        }
        char ok = fd >= 0 ? 1 : 0;
        iovec part{&ok, 1};
        msghdr message{};
        message.msg_iov = &part;
        message.msg_iovlen = 1;
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
        if (fd >= 0) {
            message.msg_control = control;
            message.msg_controllen = sizeof(control);
            cmsghdr* header = CMSG_FIRSTHDR(&message);
            header->cmsg_level = SOL_SOCKET;
            header->cmsg_type = SCM_RIGHTS;
            header->cmsg_len = CMSG_LEN(sizeof(int));
            std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
        }
        const auto sent = ::sendmsg(channel, &message, MSG_NOSIGNAL);
        if (fd >= 0) ::close(fd);
        if (sent < 0) break;
    }
    ::_exit(0);
}

} // namespace

second_process::second_process(const std::string& socket) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socket.size() >= sizeof(address.sun_path)) finding("the control socket's path is too long");
    std::memcpy(address.sun_path, socket.c_str(), socket.size() + 1);
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
        serve_connections(pair[1], address);
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
    char ok = 0;
    iovec part{&ok, 1};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    if (::recvmsg(m_channel, &message, MSG_CMSG_CLOEXEC) != 1) finding("the second process did not answer");
    if (ok == 0) return -1;
    const cmsghdr* header = CMSG_FIRSTHDR(&message);
    if (header == nullptr || header->cmsg_type != SCM_RIGHTS) finding("the second process sent no descriptor");
    int fd = -1;
    std::memcpy(&fd, CMSG_DATA(header), sizeof(int));
    return fd;
}

} // namespace neuron::fuzz
