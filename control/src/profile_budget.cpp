#include "neuron/control/profile_budget.h"

#include <algorithm>
#include <unistd.h>

namespace neuron::control {

std::uint64_t profile_budget::default_limit() {
    constexpr std::uint64_t most = std::uint64_t{4} << 30;
    const auto pages = ::sysconf(_SC_PHYS_PAGES);
    const auto page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return most;
    return std::min(most, static_cast<std::uint64_t>(pages) / 4 * static_cast<std::uint64_t>(page));
}

const std::shared_ptr<profile_budget>& profile_budget::shared() {
    static const auto budget = std::make_shared<profile_budget>();
    return budget;
}

bool profile_budget::take(std::uint64_t bytes) {
    std::lock_guard lock(m_mutex);
    if (m_held > m_limit || bytes > m_limit - m_held) return false;
    m_held += bytes;
    return true;
}

void profile_budget::give(std::uint64_t bytes) {
    std::lock_guard lock(m_mutex);
    m_held -= std::min(bytes, m_held);
}

std::uint64_t profile_budget::held() const {
    std::lock_guard lock(m_mutex);
    return m_held;
}

std::uint64_t profile_budget::limit() const {
    std::lock_guard lock(m_mutex);
    return m_limit;
}

void profile_budget::set_limit(std::uint64_t bytes) {
    std::lock_guard lock(m_mutex);
    m_limit = bytes;
}

} // namespace neuron::control
