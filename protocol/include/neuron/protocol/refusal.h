#pragma once

// A server that refuses a connection (too many of them, from one process or
// one user) says why and closes it, sometimes before the client's hello is
// sent: the hello then fails with EPIPE while the reason waits to be read.

#include "neuron/protocol/messages.h"
#include "neuron/protocol/seqpacket.h"

#include <optional>

namespace neuron::protocol {

// The error the server left on `fd` before closing it, if there is one.
inline std::optional<error_reply> waiting_refusal(int fd) {
    try {
        const auto message = receive_message(fd, 0);
        if (!message) return std::nullopt;
        if (message->passed_fd >= 0) ::close(message->passed_fd);
        const auto header = decode_header(message->bytes.data(), message->bytes.size());
        if (static_cast<message_type>(header.type) != message_type::error) return std::nullopt;
        return decode_body<error_reply>(message->bytes.data() + header_size, message->bytes.size() - header_size,
                                        "error");
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

} // namespace neuron::protocol
