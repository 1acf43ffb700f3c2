#pragma once

#include "neuron/sysfs/attribute.h"
#include "neuron/sysfs/generic_device_state.h"
#include "neuron/sysfs/model_port.h"

#include <cstddef>
#include <functional>
#include <string_view>

namespace neuron::model {
class published_state;
}

namespace neuron::sysfs {

struct store_result {
    int error = 0;            // the errno the write fails with, or 0
    std::size_t accepted = 0; // bytes the write reports as written
    bool notify_self = false; // the driver sysfs_notify()s the written file
};

// A driver message the real driver would print to the kernel log.
using driver_log = std::function<void(std::string_view message)>;

// What a write to an attribute does (driver-sysfs.md §2 "Writes"; the kernel's
// kernfs and generic device stores). The caller has already refused writes to
// attributes without a store.
class attribute_writer {
public:
    attribute_writer(const model::published_state& state, generic_device_state& generic, model_port& model,
                     driver_log log);

    store_result store(const attribute& attr, std::string_view written);

private:
    store_result store_metric(const attribute& attr, std::string_view text, std::size_t count);
    // `raw` is the page the store gets; `text` the same up to its first NUL.
    store_result store_generic(const attribute& attr, std::string_view raw, std::string_view text);

    const model::published_state& m_state;
    generic_device_state& m_generic;
    model_port& m_model;
    driver_log m_log;
};

} // namespace neuron::sysfs
