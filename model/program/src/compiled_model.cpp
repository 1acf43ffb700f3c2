#include "neuron/model/program/compiled_model.h"

#include "neuron/model/program/program_builder.h"

#include <algorithm>

namespace neuron::model {

std::chrono::nanoseconds execution_duration(const compiled_model& m, const device_spec& spec) {
    const auto p = build_program(m, spec);
    std::uint64_t longest = 0;
    for (const auto& stream : p->streams) {
        std::uint64_t ps = 0;
        each_with_runs(stream, [&](const instruction& i, std::uint64_t runs) { ps += i.busy_ps * runs; });
        longest = std::max(longest, ps);
    }
    return std::chrono::nanoseconds(static_cast<std::int64_t>((longest + 999) / 1000));
}

} // namespace neuron::model
