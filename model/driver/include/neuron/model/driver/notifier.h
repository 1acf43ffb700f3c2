#pragma once

#include "neuron/model/spec/counter.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace neuron::model {

class published_state;

// A counter changed: `fields` are the attributes the driver would
// sysfs_notify() for this update.
using change_listener = std::function<void(const counter_ref& counter, field_mask fields)>;

// The driver's single global notification switch (notify_delay: 0 on, -1 off,
// off at load) and the listeners that want the changes (driver-sysfs.md §4).
// Listeners run on the kernel thread, synchronously, as sysfs_notify does in
// the driver: they must be quick, must never wait for the model, and stay
// subscribed until unsubscribed or the simulation stops (so whatever they
// capture must live that long). An exception from a listener is reported on
// stderr and does not interrupt the update. A listener may subscribe or
// unsubscribe listeners; that takes effect once the current change has been
// delivered.
class notifier {
public:
    using listener_id = std::uint64_t;

    explicit notifier(published_state& state);

    bool enabled() const;
    void set_enabled(bool enabled);

    listener_id subscribe(change_listener listener);
    void unsubscribe(listener_id id);

    // Forwards to the listeners when notifications are on and fields is not empty.
    void counter_changed(const counter_ref& counter, field_mask fields);

private:
    struct entry {
        listener_id id;
        change_listener listener;
    };
    void apply_deferred();

    published_state& m_state;
    std::vector<entry> m_listeners;
    std::vector<entry> m_added_while_dispatching;
    std::vector<listener_id> m_removed_while_dispatching;
    int m_dispatch_depth = 0;
    listener_id m_next_id = 1;
};

} // namespace neuron::model
