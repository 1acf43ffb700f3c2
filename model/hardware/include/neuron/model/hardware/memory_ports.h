#pragma once

#include "neuron/model/program/program.h"
#include "neuron/model/spec/device_spec.h"

#include <cstdint>

namespace neuron::model {

// The data-path ports engines share where the generation has them
// (core_costs::shared_data_ports, engines.md A.1): Vector and GpSimd cannot
// access SBUF in parallel, nor Vector and Scalar PSUM. A stretch of instructions that needs a port another engine
// holds starts when that engine's use of it ends; uses are granted in the
// order the engines ask, each for its whole stretch. Kernel thread only.
class memory_ports {
public:
    // When a stretch of `kind` touching `memories` for `length_ps` may
    // start, at `start_ps` or later; it holds the ports it shares until its
    // end.
    std::uint64_t reserve(engine_kind kind, std::uint8_t memories, std::uint64_t start_ps, std::uint64_t length_ps);
    // A new run starts now: what a stopped run held ends.
    void release(std::uint64_t now_ps);

private:
    std::uint64_t m_sbuf_until = 0;
    std::uint64_t m_psum_until = 0;
};

} // namespace neuron::model
