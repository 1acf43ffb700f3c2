#pragma once

#include "neuron/sysfs/attribute.h"
#include "neuron/sysfs/generic_device_state.h"
#include "neuron/sysfs/layout.h"
#include "neuron/sysfs/recorded_files.h"

#include <string>

namespace neuron::model {
class published_state;
}

namespace neuron::sysfs {

struct read_result {
    int error = 0; // an errno the read fails with (power/autosuspend_delay_ms: EIO)
    std::string text;
};

// What a read of an attribute returns: the bytes of the driver's (or the
// kernel's) show() function, computed from the published model state. Safe
// from any thread; never enters the model's kernel.
class attribute_reader {
public:
    // `recorded` holds what attribute_kind::recorded files show; it outlives the reader.
    attribute_reader(const layout& layout, const model::published_state& state, const generic_device_state& generic,
                     const recorded_files* recorded = nullptr);

    read_result read(const attribute& attr) const;

private:
    std::string show(const attribute& attr) const;
    model::ecc_readout ecc(const attribute& attr) const;
    std::string show_power_management(const attribute& attr) const;

    const layout& m_layout;
    const model::published_state& m_state;
    const generic_device_state& m_generic;
    const recorded_files* m_recorded;
};

} // namespace neuron::sysfs
