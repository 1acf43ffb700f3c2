#include "neuron/common/line_reader.h"

#include <cerrno>
#include <poll.h>
#include <unistd.h>
#include <utility>

namespace neuron::common {

std::optional<std::string> line_reader::next(milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (const auto end = m_pending.find('\n'); end != std::string::npos) {
            auto line = m_pending.substr(0, end);
            m_pending.erase(0, end + 1);
            return line;
        }
        if (m_ended) {
            if (m_pending.empty()) return std::nullopt;
            return std::exchange(m_pending, std::string());
        }
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        pollfd ready{m_fd, POLLIN, 0};
        const int count = ::poll(&ready, 1, static_cast<int>(left.count()));
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return std::nullopt;
        char buffer[4096];
        const auto n = ::read(m_fd, buffer, sizeof buffer);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        // A pseudo-terminal whose other side has closed reads EIO.
        if (n <= 0) {
            m_ended = true;
            continue;
        }
        m_pending.append(buffer, static_cast<std::size_t>(n));
    }
}

} // namespace neuron::common
