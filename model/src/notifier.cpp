#include "neuron/model/notifier.h"

#include "neuron/model/published_state.h"

#include <algorithm>
#include <exception>
#include <fmt/format.h>

namespace neuron::model {

notifier::notifier(published_state& state) : m_state(state) {}

bool notifier::enabled() const { return m_state.notifications_enabled(); }

void notifier::set_enabled(bool enabled) { m_state.set_notifications(enabled); }

notifier::listener_id notifier::subscribe(change_listener listener) {
    const auto id = m_next_id++;
    m_listeners.push_back({id, std::move(listener)});
    return id;
}

void notifier::unsubscribe(listener_id id) {
    std::erase_if(m_listeners, [id](const entry& e) { return e.id == id; });
}

void notifier::counter_changed(const counter_ref& counter, field_mask fields) const {
    if (fields.empty() || !enabled()) return;
    for (const auto& e : m_listeners) {
        // The change has happened; a failing listener must not abort the
        // command halfway through its other updates.
        try {
            e.listener(counter, fields);
        } catch (const std::exception& error) {
            fmt::print(stderr, "neuron-emu: change listener {} failed: {}\n", e.id, error.what());
        }
    }
}

} // namespace neuron::model
