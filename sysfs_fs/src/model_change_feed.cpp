#include "neuron/sysfs/model_change_feed.h"

#include "neuron/model/errors.h"
#include "neuron/model/platform.h"
#include "neuron/model/simulation.h"

namespace neuron::sysfs {

model_change_feed::model_change_feed(model::simulation& sim, const sysfs_tree& tree, change_hub& hub) : m_sim(sim) {
    m_listener = sim.call([&tree, &hub](model::platform& p) {
        return p.notifications().subscribe([&tree, &hub](const model::counter_ref& counter, model::field_mask fields) {
            for (auto field : {model::counter_field::total, model::counter_field::present, model::counter_field::peak}) {
                if (fields.contains(field)) hub.changed(tree.counter_node(counter, field));
            }
        });
    });
}

model_change_feed::~model_change_feed() {
    try {
        m_sim.call([id = m_listener](model::platform& p) { p.notifications().unsubscribe(id); });
    } catch (const model::simulation_error&) {
        // The simulation has stopped: its listeners are gone with it.
    }
}

} // namespace neuron::sysfs
