#include "neuron/model/driver/notifier.h"

#include "neuron/model/state/published_state.h"

#include <algorithm>
#include <exception>
#include <fmt/format.h>

namespace neuron::model {

notifier::notifier(published_state& state) : m_state(state) {}

bool notifier::enabled() const { return m_state.notifications_enabled(); }

void notifier::set_enabled(bool enabled) { m_state.set_notifications(enabled); }

notifier::listener_id notifier::subscribe(change_listener listener) {
    const auto id = m_next_id++;
    auto& list = m_dispatch_depth > 0 ? m_added_while_dispatching : m_listeners;
    list.push_back({id, std::move(listener)});
    return id;
}

void notifier::unsubscribe(listener_id id) {
    if (m_dispatch_depth > 0) {
        m_removed_while_dispatching.push_back(id);
        return;
    }
    std::erase_if(m_listeners, [id](const entry& e) { return e.id == id; });
}

void notifier::counter_changed(const counter_ref& counter, field_mask fields) {
    if (fields.empty() || !enabled()) return;
    ++m_dispatch_depth;
    for (const auto& e : m_listeners) {
        if (std::find(m_removed_while_dispatching.begin(), m_removed_while_dispatching.end(), e.id) !=
            m_removed_while_dispatching.end()) {
            continue;
        }
        // The change has happened; a failing listener must not abort the
        // command halfway through its other updates.
        try {
            e.listener(counter, fields);
        } catch (const std::exception& error) {
            fmt::print(stderr, "neuron-emu: change listener {} failed: {}\n", e.id, error.what());
        }
    }
    if (--m_dispatch_depth == 0) apply_deferred();
}

void notifier::apply_deferred() {
    for (auto id : m_removed_while_dispatching) {
        std::erase_if(m_listeners, [id](const entry& e) { return e.id == id; });
        std::erase_if(m_added_while_dispatching, [id](const entry& e) { return e.id == id; });
    }
    m_removed_while_dispatching.clear();
    for (auto& e : m_added_while_dispatching) m_listeners.push_back(std::move(e));
    m_added_while_dispatching.clear();
}

} // namespace neuron::model
