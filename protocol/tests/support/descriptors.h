#pragma once

// Descriptors in tests: how many this process has open, and a message sent
// with several of them attached, as a hostile peer would.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <sys/socket.h>
#include <vector>

namespace neuron::protocol::testing {

inline std::size_t open_descriptor_count() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++count;
    return count;
}

// Sends `bytes` with `fds` attached in one SCM_RIGHTS message.
inline void send_with_descriptors(int socket_fd, const std::vector<std::uint8_t>& bytes, const std::vector<int>& fds) {
    iovec part{const_cast<std::uint8_t*>(bytes.data()), bytes.size()};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    std::vector<char> control(CMSG_SPACE(fds.size() * sizeof(int)));
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
    std::memcpy(CMSG_DATA(header), fds.data(), fds.size() * sizeof(int));
    if (::sendmsg(socket_fd, &message, MSG_NOSIGNAL) != static_cast<ssize_t>(bytes.size())) {
        throw std::runtime_error("sendmsg with descriptors failed");
    }
}

} // namespace neuron::protocol::testing
