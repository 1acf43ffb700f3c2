#include "neuron/control/peer_census.h"

#include <fmt/format.h>

#include <sys/socket.h>

namespace neuron::control {
namespace {

std::size_t count_of(const std::map<std::uint32_t, std::size_t>& counts, std::uint32_t key) {
    const auto it = counts.find(key);
    return it == counts.end() ? 0 : it->second;
}

void decrement(std::map<std::uint32_t, std::size_t>& counts, std::uint32_t key) {
    const auto it = counts.find(key);
    if (it == counts.end()) return;
    if (--it->second == 0) counts.erase(it);
}

} // namespace

std::optional<peer_credentials> credentials_of(int socket_fd) {
    ucred cred{};
    socklen_t size = sizeof(cred);
    if (::getsockopt(socket_fd, SOL_SOCKET, SO_PEERCRED, &cred, &size) != 0 || size != sizeof(cred)) {
        return std::nullopt;
    }
    return peer_credentials{static_cast<std::uint32_t>(cred.pid), cred.uid, cred.gid};
}

std::optional<std::string> peer_census::refusal(const peer_credentials& peer) const {
    if (m_total >= m_caps.total) {
        return fmt::format("the emulator serves at most {} connections at once; try again later", m_caps.total);
    }
    if (count_of(m_per_process, peer.pid) >= m_caps.per_process) {
        return fmt::format("process {} holds {} connections to the emulator, the most one process may", peer.pid,
                           m_caps.per_process);
    }
    if (!administers(peer) && count_of(m_per_user, peer.uid) >= m_caps.per_user) {
        return fmt::format("user {} holds {} connections to the emulator, the most one user may", peer.uid,
                           m_caps.per_user);
    }
    return std::nullopt;
}

void peer_census::add(const peer_credentials& peer) {
    ++m_total;
    ++m_per_process[peer.pid];
    ++m_per_user[peer.uid];
}

void peer_census::remove(const peer_credentials& peer) {
    if (m_total > 0) --m_total;
    decrement(m_per_process, peer.pid);
    decrement(m_per_user, peer.uid);
}

} // namespace neuron::control
