#include "neuron/control/profile_store.h"

#include "neuron/profile/session_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace neuron::control {

std::uint32_t profile_store::keep(std::shared_ptr<const profile::core_timeline> timeline) {
    std::lock_guard lock(m_mutex);
    const auto id = m_next_id++;
    if (m_next_id == 0) m_next_id = 1;
    m_instructions += timeline->instructions.size();
    m_entries.push_back({id, std::move(timeline)});
    while (m_entries.size() > 1 && (m_entries.size() > max_profiles || m_instructions > max_instructions)) {
        m_instructions -= m_entries.front().timeline->instructions.size();
        m_entries.pop_front();
    }
    return id;
}

profile_store::piece profile_store::read(std::span<const std::uint32_t> ids, std::uint64_t offset, std::size_t most) {
    if (ids.empty()) throw std::invalid_argument("no profile ids");
    std::lock_guard lock(m_mutex);
    if (!std::equal(ids.begin(), ids.end(), m_file_ids.begin(), m_file_ids.end()) || m_file.empty()) {
        std::vector<std::string> records;
        for (const auto id : ids) {
            const auto it =
                std::find_if(m_entries.begin(), m_entries.end(), [id](const entry& e) { return e.id == id; });
            if (it == m_entries.end()) {
                throw std::invalid_argument(fmt::format(
                    "profile {} is not kept: never recorded, dropped, or pushed out by newer ones (the emulator keeps "
                    "{} profiles or {} instructions per process)",
                    id, max_profiles, max_instructions));
            }
            records.push_back(profile::encode_timeline(*it->timeline));
        }
        m_file = profile::session_file(records);
        m_file_ids.assign(ids.begin(), ids.end());
    }
    if (offset > m_file.size()) {
        throw std::invalid_argument(
            fmt::format("offset {} is past the end of the {}-byte file", offset, m_file.size()));
    }
    return {m_file.size(), m_file.substr(static_cast<std::size_t>(offset), most)};
}

void profile_store::drop(std::span<const std::uint32_t> ids) {
    std::lock_guard lock(m_mutex);
    for (const auto id : ids) {
        const auto it = std::find_if(m_entries.begin(), m_entries.end(), [id](const entry& e) { return e.id == id; });
        if (it == m_entries.end()) continue;
        m_instructions -= it->timeline->instructions.size();
        m_entries.erase(it);
    }
    if (std::any_of(ids.begin(), ids.end(), [&](std::uint32_t id) {
            return std::find(m_file_ids.begin(), m_file_ids.end(), id) != m_file_ids.end();
        })) {
        m_file_ids.clear();
        m_file.clear();
    }
}

} // namespace neuron::control
