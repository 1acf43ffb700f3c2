#include "neuron/model/spec/nrt_status.h"

#include <algorithm>
#include <array>

namespace neuron::model {
namespace {

struct counted_status {
    std::uint32_t status;
    counter_kind counter;
};

// driver-sysfs.md §8, "Mapping to directories": the status each status/
// directory counts. The names of the statuses are the status table's.
constexpr std::array counted{
    counted_status{0, counter_kind::success},
    counted_status{1, counter_kind::failure},
    counted_status{2, counter_kind::invalid_error},
    counted_status{4, counter_kind::resource_error},
    counted_status{5, counter_kind::timeout},
    counted_status{6, counter_kind::hw_error},
    counted_status{7, counter_kind::execute_failed_to_queue},
    counted_status{9, counter_kind::resource_nc_error},
    counted_status{10, counter_kind::unsupported_neff_version},
    counted_status{1002, counter_kind::exec_bad_input},
    counted_status{1003, counter_kind::execute_completed_with_num_error},
    counted_status{1004, counter_kind::execute_completed_with_error},
    counted_status{1006, counter_kind::oob_error},
    counted_status{1200, counter_kind::hw_collectives_error},
    counted_status{1201, counter_kind::hw_hbm_ue_error},
    counted_status{1202, counter_kind::hw_nc_ue_error},
    counted_status{1203, counter_kind::hw_dma_abort_error},
    counted_status{1204, counter_kind::execute_sw_nq_overflow},
    counted_status{1205, counter_kind::hw_repairable_hbm_ue_error},
};

static_assert(std::ranges::all_of(counted,
                                  [](const counted_status& c) {
                                      return runtime_api::nrt_status_of(c.status).has_value();
                                  }),
              "a status/ counter names a value that is not in runtime_api::nrt_status_table");

constexpr bool each_status_counted_once() {
    for (auto it = counted.begin(); it != counted.end(); ++it) {
        if (std::ranges::find(it + 1, counted.end(), it->status, &counted_status::status) != counted.end())
            return false;
    }
    return true;
}
static_assert(each_status_counted_once(), "a status is given two status/ counters");

} // namespace

std::optional<counter_kind> status_counter(std::uint32_t status) {
    const auto it = std::ranges::find(counted, status, &counted_status::status);
    if (it == counted.end()) return std::nullopt;
    return it->counter;
}

std::optional<std::string_view> status_name(std::uint32_t status) {
    const auto row = runtime_api::nrt_status_of(status);
    if (!row) return std::nullopt;
    return row->name;
}

std::optional<std::uint32_t> status_from_name(std::string_view name) {
    const auto row = runtime_api::nrt_status_named(name);
    if (!row) return std::nullopt;
    return row->value;
}

} // namespace neuron::model
