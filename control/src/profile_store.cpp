#include "neuron/control/profile_store.h"

#include <fmt/format.h>

#include <algorithm>

namespace neuron::control {
namespace {

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

} // namespace

profile_store::profile_store(std::shared_ptr<profile_budget> budget, profile_limits limits)
        : m_budget(std::move(budget)), m_limits(limits) {}

profile_store::~profile_store() { m_budget->give(m_bytes + m_file.size()); }

void profile_store::push_out_oldest() {
    m_bytes -= m_entries.front().bytes;
    m_budget->give(m_entries.front().bytes);
    m_entries.pop_front();
}

std::uint32_t profile_store::keep(std::shared_ptr<const profile::core_timeline> timeline) {
    const std::uint64_t bytes = profile::footprint(*timeline);
    std::lock_guard lock(m_mutex);
    const auto id = m_next_id++;
    if (m_next_id == 0) m_next_id = 1;
    while (!m_entries.empty() && (m_entries.size() >= m_limits.profiles || m_bytes + bytes > m_limits.bytes))
        push_out_oldest();
    if (m_budget->take(bytes)) {
        m_entries.push_back({id, std::move(timeline), bytes, {}});
        m_bytes += bytes;
        return id;
    }
    m_entries.push_back(
        {id, nullptr, 0,
         fmt::format("profile {} was not kept: its {:.1f} MiB do not fit in the {:.1f} MiB the emulator gives to "
                     "the profiles of every process together ({:.1f} MiB held); save and drop profiles, or end "
                     "the processes that hold them",
                     id, mib(bytes), mib(m_budget->limit()), mib(m_budget->held()))});
    return id;
}

const profile_store::entry& profile_store::kept(std::uint32_t id) const {
    const auto it = std::find_if(m_entries.begin(), m_entries.end(), [id](const entry& e) { return e.id == id; });
    if (it == m_entries.end()) {
        throw std::invalid_argument(
            fmt::format("profile {} is not kept: never recorded, dropped, or pushed out by newer ones (the emulator "
                        "keeps {} profiles or {:.0f} MiB of them per process)",
                        id, m_limits.profiles, mib(m_limits.bytes)));
    }
    if (!it->timeline) throw profile_room_error(it->refusal);
    return *it;
}

void profile_store::check(std::span<const std::uint32_t> ids) const {
    if (ids.empty()) throw std::invalid_argument("no profile ids");
    std::vector<std::uint32_t> sorted(ids.begin(), ids.end());
    std::sort(sorted.begin(), sorted.end());
    if (const auto twice = std::adjacent_find(sorted.begin(), sorted.end()); twice != sorted.end()) {
        throw std::invalid_argument(
            fmt::format("profile {} is named more than once: a session file holds each profile once", *twice));
    }
    for (const auto id : ids) (void)kept(id);
}

bool profile_store::built(std::span<const std::uint32_t> ids) const {
    return !m_file.empty() && std::equal(ids.begin(), ids.end(), m_file_ids.begin(), m_file_ids.end());
}

profile_store::piece profile_store::piece_of(std::uint64_t offset, std::size_t most) const {
    if (offset > m_file.size()) {
        throw std::invalid_argument(
            fmt::format("offset {} is past the end of the {}-byte file", offset, m_file.size()));
    }
    return {m_file.size(), m_file.substr(static_cast<std::size_t>(offset), most)};
}

void profile_store::forget_file() {
    m_budget->give(m_file.size());
    m_file_ids.clear();
    m_file = std::string();
}

bool profile_store::begin_read(std::span<const std::uint32_t> ids) {
    std::lock_guard lock(m_mutex);
    check(ids);
    if (built(ids)) return true;
    if (m_building) {
        throw profile_room_error("this process's previous read of profiles is still being built: the emulator "
                                 "builds one at a time per process");
    }
    m_building = true;
    return false;
}

profile_store::piece profile_store::read(std::span<const std::uint32_t> ids, std::uint64_t offset, std::size_t most) {
    std::vector<std::shared_ptr<const profile::core_timeline>> timelines;
    {
        std::lock_guard lock(m_mutex);
        check(ids);
        if (built(ids)) return piece_of(offset, most);
        for (const auto id : ids) timelines.push_back(kept(id).timeline);
    }
    // Built without the lock: keeping a profile (the kernel thread) never waits for it.
    std::vector<const profile::core_timeline*> order;
    for (const auto& t : timelines) order.push_back(t.get());
    std::string file;
    try {
        file = profile::encode_session(order, m_limits.file_bytes);
    } catch (const profile::session_too_large&) {
        throw profile_room_error(
            fmt::format("the session file of these {} profiles would be larger than {:.0f} MiB, the "
                        "most the emulator builds: read fewer at a time",
                        ids.size(), mib(m_limits.file_bytes)));
    }
    std::lock_guard lock(m_mutex);
    check(ids); // dropped meanwhile?
    forget_file();
    if (!m_budget->take(file.size())) {
        throw profile_room_error(fmt::format(
            "the session file of these profiles ({:.1f} MiB) does not fit in the {:.1f} MiB the emulator gives to the "
            "profiles of every process together ({:.1f} MiB held); save and drop profiles, or end the processes "
            "that hold them",
            mib(file.size()), mib(m_budget->limit()), mib(m_budget->held())));
    }
    m_file = std::move(file);
    m_file_ids.assign(ids.begin(), ids.end());
    return piece_of(offset, most);
}

profile_store::piece profile_store::finish_read(std::span<const std::uint32_t> ids, std::uint64_t offset,
                                                std::size_t most) {
    struct end_of_build {
        profile_store& store;
        ~end_of_build() {
            std::lock_guard lock(store.m_mutex);
            store.m_building = false;
        }
    } const ending{*this};
    return read(ids, offset, most);
}

void profile_store::drop(std::span<const std::uint32_t> ids) {
    std::lock_guard lock(m_mutex);
    for (const auto id : ids) {
        const auto it = std::find_if(m_entries.begin(), m_entries.end(), [id](const entry& e) { return e.id == id; });
        if (it == m_entries.end()) continue;
        m_bytes -= it->bytes;
        m_budget->give(it->bytes);
        m_entries.erase(it);
    }
    if (std::any_of(ids.begin(), ids.end(), [&](std::uint32_t id) {
            return std::find(m_file_ids.begin(), m_file_ids.end(), id) != m_file_ids.end();
        })) {
        forget_file();
    }
}

} // namespace neuron::control
