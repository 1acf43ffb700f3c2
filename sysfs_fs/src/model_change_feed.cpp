#include "neuron/sysfs/model_change_feed.h"

#include "neuron/model/spec/errors.h"

namespace neuron::sysfs {

model_change_feed::model_change_feed(model::simulation& sim, const sysfs_tree& tree, change_hub& hub) : m_model(sim) {
    m_listener = m_model.subscribe([&tree, &hub](const model::counter_ref& counter, model::field_mask fields) {
        for (auto field : {model::counter_field::total, model::counter_field::present, model::counter_field::peak}) {
            // On the kernel thread, which serves no FUSE request: the
            // pollers are woken from here, without a hop to the hub's thread.
            if (fields.contains(field)) hub.changed_now(tree.counter_node(counter, field));
        }
    });
}

model_change_feed::~model_change_feed() {
    try {
        m_model.unsubscribe(m_listener);
    } catch (const model::simulation_error&) {
        // The simulation has stopped: its listeners are gone with it.
    }
}

} // namespace neuron::sysfs
