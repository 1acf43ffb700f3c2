#pragma once

// SOCK_SEQPACKET connections over unix sockets: whole messages, a file
// descriptor passed alongside when needed. Every system call goes through
// socket_calls so tests can inject EINTR, EAGAIN and failures.

#include "neuron/protocol/wire.h"

#include <cerrno>
#include <cstring>
#include <optional>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace neuron::protocol {

struct socket_calls {
    int (*socket)(int domain, int type, int protocol);
    int (*connect)(int fd, const struct sockaddr* address, socklen_t length);
    ssize_t (*sendmsg)(int fd, const struct msghdr* message, int flags);
    ssize_t (*recvmsg)(int fd, struct msghdr* message, int flags);
    int (*poll)(struct pollfd* fds, nfds_t count, int timeout_ms);
    int (*close)(int fd);
    int (*accept4)(int fd, struct sockaddr* address, socklen_t* length, int flags);
};

// The table in use (one per binary that includes this header).
inline socket_calls& socket_sys() {
    static socket_calls table{::socket, ::connect, ::sendmsg, ::recvmsg, ::poll, ::close, ::accept4};
    return table;
}

// A peer went away, or a socket call failed; the message says which and why.
class connection_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline std::string errno_text(int error) { return std::strerror(error); }

inline sockaddr_un unix_address(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof(address.sun_path)) {
        throw connection_error("control socket path '" + path + "' is empty or longer than " +
                               std::to_string(sizeof(address.sun_path) - 1) + " bytes");
    }
    std::memcpy(address.sun_path, path.data(), path.size());
    return address;
}

struct received_message {
    std::vector<std::uint8_t> bytes;
    int passed_fd = -1; // a descriptor sent along with it (SCM_RIGHTS), owned by the receiver
};

// Descriptors one message may bring: the first is the message's, the others
// are closed on arrival (no message of the protocol carries more than one).
inline constexpr std::size_t max_received_fds = 8;

// Takes the first descriptor a received message carried into `out` and
// closes every other one, whatever the sender packed into its control data.
inline void keep_first_descriptor(msghdr& message, received_message& out) {
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        const auto count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < count; ++i) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
            if (out.passed_fd < 0) {
                out.passed_fd = fd;
            } else {
                socket_sys().close(fd);
            }
        }
    }
}

enum class send_result { sent, would_block };

// Tries to send one whole message (and optionally a descriptor) without
// blocking; retries EINTR. Throws connection_error.
inline send_result try_send_message(int fd, const std::vector<std::uint8_t>& bytes, int pass_fd = -1) {
    iovec part{const_cast<std::uint8_t*>(bytes.data()), bytes.size()};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (pass_fd >= 0) {
        message.msg_control = control;
        message.msg_controllen = sizeof(control);
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(header), &pass_fd, sizeof(int));
    }
    for (;;) {
        const auto sent = socket_sys().sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent >= 0) {
            if (static_cast<std::size_t>(sent) != bytes.size())
                throw connection_error("short send on a message socket");
            return send_result::sent;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return send_result::would_block;
        if (errno == EMSGSIZE)
            throw connection_error("a message of " + std::to_string(bytes.size()) +
                                   " bytes is larger than the socket takes");
        throw connection_error("sending failed: " + errno_text(errno));
    }
}

// Sends one whole message (and optionally a descriptor), waiting while the
// socket is full. Throws connection_error.
inline void send_message(int fd, const std::vector<std::uint8_t>& bytes, int pass_fd = -1) {
    while (try_send_message(fd, bytes, pass_fd) == send_result::would_block) {
        pollfd p{fd, POLLOUT, 0};
        if (socket_sys().poll(&p, 1, -1) < 0 && errno != EINTR) {
            throw connection_error("waiting to send failed: " + errno_text(errno));
        }
    }
}

// Receives one whole message, waiting up to timeout_ms (-1: forever).
// Returns nothing on timeout; throws connection_error when the peer closed
// or the call failed. A message larger than `max_size` is taken off the
// socket unread (and any descriptors it carried closed) and refused with
// protocol_error, before anything is allocated for it.
inline std::optional<received_message> receive_message(int fd, int timeout_ms = -1, std::size_t max_size = SIZE_MAX) {
    for (;;) {
        // With no time to wait (a server reading a socket epoll reported) the
        // peek below just asks: one system call less per message.
        if (timeout_ms != 0) {
            pollfd p{fd, POLLIN, 0};
            const int ready = socket_sys().poll(&p, 1, timeout_ms);
            if (ready < 0) {
                if (errno == EINTR) continue;
                throw connection_error("waiting for the emulator failed: " + errno_text(errno));
            }
            if (ready == 0) return std::nullopt;
        }
        // Peek for the size first: a message socket drops what does not fit.
        char probe = 0;
        iovec probe_part{&probe, 1};
        msghdr peek{};
        peek.msg_iov = &probe_part;
        peek.msg_iovlen = 1;
        const auto size = socket_sys().recvmsg(fd, &peek, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT);
        if (size < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (timeout_ms == 0) return std::nullopt; // nothing waiting
                continue;
            }
            if (errno == EINTR) continue;
            throw connection_error("receiving from the emulator failed: " + errno_text(errno));
        }
        if (size == 0) throw connection_error("the emulator closed the connection");
        if (static_cast<std::size_t>(size) > max_size) {
            received_message discarded;
            alignas(cmsghdr) char control[CMSG_SPACE(max_received_fds * sizeof(int))] = {};
            peek.msg_control = control;
            peek.msg_controllen = sizeof(control);
            if (socket_sys().recvmsg(fd, &peek, MSG_TRUNC | MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0) {
                if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
                throw connection_error("receiving from the emulator failed: " + errno_text(errno));
            }
            keep_first_descriptor(peek, discarded);
            if (discarded.passed_fd >= 0) socket_sys().close(discarded.passed_fd);
            throw protocol_error("a message of " + std::to_string(size) + " bytes is larger than the " +
                                 std::to_string(max_size) + " allowed");
        }
        received_message out;
        out.bytes.resize(static_cast<std::size_t>(size));
        iovec part{out.bytes.data(), out.bytes.size()};
        msghdr message{};
        message.msg_iov = &part;
        message.msg_iovlen = 1;
        // Room for a few descriptors: the kernel installs as many as fit and
        // closes the rest itself (MSG_CTRUNC); every one installed is ours.
        alignas(cmsghdr) char control[CMSG_SPACE(max_received_fds * sizeof(int))] = {};
        message.msg_control = control;
        message.msg_controllen = sizeof(control);
        const auto got = socket_sys().recvmsg(fd, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            throw connection_error("receiving from the emulator failed: " + errno_text(errno));
        }
        keep_first_descriptor(message, out);
        if (got != size) {
            if (out.passed_fd >= 0) socket_sys().close(out.passed_fd);
            throw connection_error("a message changed size while being received");
        }
        return out;
    }
}

// Connects a SOCK_SEQPACKET socket to `path`. Throws connection_error naming it.
inline int connect_seqpacket(const std::string& path) {
    const auto address = unix_address(path);
    const int fd = socket_sys().socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0) throw connection_error("cannot create a unix socket: " + errno_text(errno));
    for (;;) {
        if (socket_sys().connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) return fd;
        if (errno == EINTR) continue;
        if (errno == EISCONN) return fd; // an interrupted connect that completed
        const int error = errno;
        socket_sys().close(fd);
        throw connection_error("cannot connect to the emulator at " + path + ": " + errno_text(error));
    }
}

} // namespace neuron::protocol
