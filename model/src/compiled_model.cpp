#include "neuron/model/compiled_model.h"

#include "neuron/model/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace neuron::model {

std::chrono::nanoseconds execution_duration(const compiled_model& m, const device_spec& spec) {
    double longest = 0;
    for (std::size_t e = 0; e < engine_count; ++e) {
        if (m.engine_cycles[e] == 0) continue;
        const auto kind = static_cast<engine_kind>(e);
        const auto it = std::find_if(spec.engines.begin(), spec.engines.end(),
                                     [kind](const engine_spec& s) { return s.kind == kind; });
        if (it == spec.engines.end()) {
            throw unsupported_error(fmt::format("model '{}' needs a {} engine, which {} does not have", m.name,
                                                engine_name(kind), spec.device_name));
        }
        longest = std::max(longest, static_cast<double>(m.engine_cycles[e]) * 1e9 / static_cast<double>(it->clock_hz));
    }
    return std::chrono::nanoseconds(static_cast<std::int64_t>(std::ceil(longest)));
}

} // namespace neuron::model
