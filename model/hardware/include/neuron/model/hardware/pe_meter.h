#pragma once

#include "neuron/model/hardware/engine.h"
#include "neuron/model/state/activity.h"

#include <cstdint>

namespace neuron::model {

class published_state;

// Keeps a core's PE row-group activity (tensor_engine/pe_cntrs) from the
// stretches its tensor engine runs, and publishes it at each stretch's start
// (and at a stop that cuts one short) so readers can count the stretch under
// way as it runs. Kernel thread only.
class pe_meter final : public stretch_meter {
public:
    pe_meter(published_state& state, std::uint32_t device, std::uint32_t core);

    void started(std::uint64_t start_ps, std::uint64_t length_ps, const instruction_cursor& first,
                 std::uint64_t count) override;
    void stopped(std::uint64_t done_ps) override;

private:
    published_state& m_state;
    std::uint32_t m_device;
    std::uint32_t m_core;
    pe_timeline m_timeline;
    bool m_in_stretch = false; // a stretch that uses row groups is under way
};

} // namespace neuron::model
