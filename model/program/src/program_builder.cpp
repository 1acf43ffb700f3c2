#include "neuron/model/program/program_builder.h"

#include "kernel_binding.h"
#include "stream_program.h"

#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

#include <algorithm>

namespace neuron::model {

std::uint64_t cycles_to_ps(std::uint64_t cycles, std::uint64_t clock_hz) {
    const auto ps = (static_cast<unsigned __int128>(cycles) * 1'000'000'000'000u + clock_hz / 2) / clock_hz;
    return static_cast<std::uint64_t>(ps);
}

std::uint64_t ps_to_cycles(std::uint64_t ps, std::uint64_t clock_hz) {
    const auto cycles = (static_cast<unsigned __int128>(ps) * clock_hz + 500'000'000'000u) / 1'000'000'000'000u;
    return static_cast<std::uint64_t>(cycles);
}

std::shared_ptr<const program> build_program(const compiled_model& m, const device_spec& spec) {
    if (m.streams.cores > 0) return stream_program(m.name, m.streams, spec);
    if (m.program) return bind_kernel(*m.program, spec);
    auto p = std::make_shared<program>();
    for (std::size_t e = 0; e < engine_count; ++e) {
        if (m.engine_cycles[e] == 0) continue;
        const auto kind = static_cast<engine_kind>(e);
        const auto it = std::find_if(spec.engines.begin(), spec.engines.end(),
                                     [kind](const engine_spec& s) { return s.kind == kind; });
        if (it == spec.engines.end()) {
            throw unsupported_error(fmt::format("model '{}' needs a {} engine, which {} does not have", m.name,
                                                engine_name(kind), spec.device_name));
        }
        instruction i;
        i.busy_ps = cycles_to_ps(m.engine_cycles[e], it->clock_hz);
        i.op = work_opcode;
        if (kind == engine_kind::tensor) {
            i.macs = m.macs;
            i.row_groups = pe_row_groups;
        }
        p->streams[e].push_back(i);
    }
    return p;
}

} // namespace neuron::model
