#pragma once

#include "neuron/model/spec/device_spec.h"

#include <array>
#include <cstdint>

namespace neuron::model {

// What executions kept busy and moved on their cores, summed over the runs
// (and the cores of a logical core): the figures a profile shows.
struct execution_activity {
    std::array<std::uint64_t, engine_count> engine_busy_ps{}; // indexed by engine_kind
    std::uint64_t dma_busy_ps = 0;                            // summed over the DMA engines
    std::uint64_t dma_bytes = 0;
    std::uint64_t hbm_bytes = 0; // of which to or from device memory
    std::uint64_t macs = 0;
    std::uint64_t duration_ps = 0; // from each execution's start to its end

    execution_activity& operator+=(const execution_activity& other) {
        for (std::size_t k = 0; k < engine_count; ++k) engine_busy_ps[k] += other.engine_busy_ps[k];
        dma_busy_ps += other.dma_busy_ps;
        dma_bytes += other.dma_bytes;
        hbm_bytes += other.hbm_bytes;
        macs += other.macs;
        duration_ps += other.duration_ps;
        return *this;
    }
};

} // namespace neuron::model
