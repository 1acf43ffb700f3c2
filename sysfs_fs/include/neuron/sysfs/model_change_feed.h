#pragma once

#include "neuron/model/runtime/api.h"
#include "neuron/sysfs/change_hub.h"
#include "neuron/sysfs/sysfs_tree.h"

#include <cstdint>

namespace neuron::sysfs {

// Forwards the model's counter notifications (only sent while notify_delay is
// 0) to the hub as sysfs_notify()s of the files the driver would notify.
// Unsubscribes when destroyed; the simulation must not be destroyed first.
class model_change_feed {
public:
    model_change_feed(model::simulation& sim, const sysfs_tree& tree, change_hub& hub);
    ~model_change_feed();
    model_change_feed(const model_change_feed&) = delete;
    model_change_feed& operator=(const model_change_feed&) = delete;

private:
    model::api m_model;
    std::uint64_t m_listener = 0;
};

} // namespace neuron::sysfs
