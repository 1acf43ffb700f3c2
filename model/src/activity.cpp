#include "neuron/model/activity.h"

#include "neuron/model/published_state.h"

namespace neuron::model {

power_reading read_utilization(const published_state& state, std::uint32_t device) {
    state.check_device(device);
    const auto now = state.clock().now_ns();
    if (now < power_sample_period_ns) return {power_status_no_data};
    const auto sample_ns = now / power_sample_period_ns * power_sample_period_ns;
    power_reading reading{power_status_valid};
    reading.epoch_seconds = state.clock().epoch_ns(sample_ns) / 1'000'000'000;
    return reading;
}

std::vector<pe_row_reading> read_pe_counters(const published_state& state, std::uint32_t device,
                                             std::uint32_t core) {
    state.check_core(device, static_cast<std::int32_t>(core));
    const auto now = state.clock().now_ns();
    const auto elapsed_cycles = static_cast<std::uint64_t>(
        static_cast<unsigned __int128>(now) * state.spec().core_clock_hz / 1'000'000'000u);
    std::vector<pe_row_reading> rows;
    for (std::uint32_t g = 0; g < state.spec().pe_row_groups; ++g) {
        pe_row_reading row{g, state.pe_cycles(device, core, g, pe_activity::matmul_active),
                           state.pe_cycles(device, core, g, pe_activity::weight_load_active), 0};
        const auto busy = row.matmul_active + row.weight_load_active;
        row.idle = elapsed_cycles > busy ? elapsed_cycles - busy : 0;
        rows.push_back(row);
    }
    return rows;
}

} // namespace neuron::model
