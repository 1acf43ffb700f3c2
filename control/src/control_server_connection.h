#pragma once

// What the control server's sources share: the epoll keys of its own
// descriptors (connections are keyed by their id) and a connection's state.

#include "neuron/control/control_server.h"
#include "neuron/protocol/messages.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace neuron::control {

inline constexpr std::uint64_t listen_key = UINT64_MAX;
inline constexpr std::uint64_t wake_key = UINT64_MAX - 1;
inline constexpr std::uint64_t stop_key = UINT64_MAX - 2;
inline constexpr std::uint64_t accept_timer_key = UINT64_MAX - 3;
inline constexpr std::uint64_t hello_timer_key = UINT64_MAX - 4; // the lowest of the server's own

struct control_server::connection {
    std::uint64_t id = 0;
    int fd = -1;
    std::chrono::steady_clock::time_point accepted;
    bool greeted = false;
    protocol::peer_role role = protocol::peer_role::control;
    peer_credentials peer; // from the kernel at accept; the hello's pid is not believed
    std::string label;
    bool stream_open = false;
    bool watching_writable = false;
};

} // namespace neuron::control
