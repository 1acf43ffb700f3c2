#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace neuron::control {

// Who is at the other end of a unix socket, as the kernel says
// (SO_PEERCRED): never what the client claims about itself.
struct peer_credentials {
    std::uint32_t pid = 0;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
};

// The credentials of a connected unix socket's peer; nothing when the kernel
// will not tell.
std::optional<peer_credentials> credentials_of(int socket_fd);

// What one client may hold of the server's connections (README "Limits").
struct connection_caps {
    std::size_t total = 1024;        // every kind, every client
    std::size_t per_process = 256;   // a runtime's own connection and a debug stream per logical core fit
    std::size_t per_user = 512;      // every process of one user other than the administrators
    std::uint32_t administrator = 0; // besides root, the user the emulator runs as
};

// The connections open now, counted per process and per user, and whether
// one more from a peer is admitted: no client, and no user other than root
// or the emulator's own, can take every connection and lock the others out.
class peer_census {
public:
    explicit peer_census(connection_caps caps) : m_caps(caps) {}

    // Why a connection from `peer` is refused now, or nothing.
    std::optional<std::string> refusal(const peer_credentials& peer) const;
    void add(const peer_credentials& peer);
    void remove(const peer_credentials& peer);

    std::size_t total() const { return m_total; }
    const connection_caps& caps() const { return m_caps; }
    bool administers(const peer_credentials& peer) const { return peer.uid == 0 || peer.uid == m_caps.administrator; }

private:
    connection_caps m_caps;
    std::size_t m_total = 0;
    std::map<std::uint32_t, std::size_t> m_per_process;
    std::map<std::uint32_t, std::size_t> m_per_user;
};

} // namespace neuron::control
