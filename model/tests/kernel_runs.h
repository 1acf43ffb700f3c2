#pragma once

// Runs kernels on a core of a stepped simulation and reports what the run
// did and when it ended.

#include "bound_kernels.h"
#include "neuron/model/hardware/neuron_core.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "sim_helpers.h"

#include <memory>
#include <optional>

namespace neuron::model::testing {

inline kernel_op dma(memory_kind from, memory_kind to, std::uint32_t partitions, std::uint64_t bytes,
                     std::uint32_t engines = default_dma_engines) {
    auto op = op_of(opcode::dma_copy, partitions, bytes);
    op.from = from;
    op.to = to;
    op.dma_engines = engines;
    return op;
}

inline kernel_stream& stream(kernel& k, engine_kind e) { return k.streams[static_cast<std::size_t>(e)]; }

inline std::shared_ptr<const program> build_program_of(const kernel& k, const device_spec& spec) {
    compiled_model m;
    m.name = "kernel";
    m.program = std::make_shared<kernel>(k);
    return build_program(m, spec);
}

struct kernel_run {
    std::optional<run_report> report;
    std::uint64_t end_ps = 0;
};

// Binds `k` for the simulation's device and starts it on `core` now, with
// `options`; the result fills in when it ends.
inline void start_kernel(simulation& sim, const kernel& k, kernel_run& out, run_options options,
                         std::uint32_t core = 0) {
    sim.call([&](platform& p) {
        auto program = build_program_of(k, p.published().spec());
        p.device(0).core(core).run(
            program, 1,
            [&out](const run_report& r) {
                out.report = r;
                out.end_ps = static_cast<std::uint64_t>(sc_core::sc_time_stamp().value());
            },
            options);
    });
}

inline void start_kernel(simulation& sim, const kernel& k, kernel_run& out, std::uint32_t core = 0) {
    start_kernel(sim, k, out, run_options{}, core);
}

} // namespace neuron::model::testing
