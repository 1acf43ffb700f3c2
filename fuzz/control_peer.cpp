#include "control_peer.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace neuron::fuzz {

namespace {
std::string g_remove_on_finding;
}

void remove_on_finding(const std::string& directory) { g_remove_on_finding = directory; }

void finding(const std::string& what) {
    std::fprintf(stderr, "control_server_fuzzer: FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    if (!g_remove_on_finding.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(g_remove_on_finding, ignored);
    }
    std::abort();
}

control_peer::control_peer(const std::string& path) : m_fd(protocol::connect_seqpacket(path)) {}

control_peer::~control_peer() { close(); }

void control_peer::close() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
}

bool control_peer::send(const std::vector<std::uint8_t>& bytes, const std::vector<int>& descriptors) {
    if (m_fd < 0) return false;
    iovec part{const_cast<std::uint8_t*>(bytes.data()), bytes.size()};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    std::vector<std::uint8_t> control(CMSG_SPACE(sizeof(int) * descriptors.size()));
    if (!descriptors.empty()) {
        message.msg_control = control.data();
        message.msg_controllen = control.size();
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * descriptors.size());
        std::memcpy(CMSG_DATA(header), descriptors.data(), sizeof(int) * descriptors.size());
    }
    for (;;) {
        if (::sendmsg(m_fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT) >= 0) return true;
        if (errno == EINTR) continue;
        if (errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN) {
            close();
            return false;
        }
        if (errno == EMSGSIZE) return true; // too large to send: the server never sees it
        if (errno != EAGAIN && errno != EWOULDBLOCK) finding(fmt::format("sendmsg failed: {}", std::strerror(errno)));
        pollfd p{m_fd, POLLOUT, 0};
        const int ready = ::poll(&p, 1, answer_deadline_ms);
        if (ready == 0) finding(fmt::format("the server stopped reading a connection for {} ms", answer_deadline_ms));
        if (ready < 0 && errno != EINTR) finding(fmt::format("poll failed: {}", std::strerror(errno)));
    }
}

std::optional<protocol::received_message> control_peer::receive(const std::string& waiting_for) {
    if (m_fd < 0) return std::nullopt;
    try {
        auto message = protocol::receive_message(m_fd, answer_deadline_ms);
        if (!message) finding(fmt::format("no answer to {} within {} ms", waiting_for, answer_deadline_ms));
        return message;
    } catch (const protocol::connection_error&) {
        close();
        return std::nullopt;
    }
}

} // namespace neuron::fuzz
