#pragma once

// The model's bookkeeping without a SystemC kernel: enough for the units that
// do not depend on simulated time.

#include "neuron/model/driver/counter_bank.h"
#include "neuron/model/driver/memory_ledger.h"
#include "neuron/model/driver/notifier.h"
#include "neuron/model/driver/owner_registry.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/state/platform_config.h"
#include "neuron/model/state/published_state.h"

#include <string_view>
#include <vector>

namespace neuron::model::testing {

inline constexpr std::int64_t test_epoch_ns = 1'789'180'860'000'000'000; // an arbitrary fixed date

inline std::vector<std::uint64_t> serials_for(const instance_type& type) {
    std::vector<std::uint64_t> serials;
    for (std::uint32_t d = 0; d < type.device_count; ++d) serials.push_back(derive_serial(0, d));
    return serials;
}

struct bare_model {
    explicit bare_model(std::string_view instance = "trn1.32xlarge")
            : type(find_instance_type(instance)),
              state(type, serials_for(type), time_mode::stepped, 1.0, test_epoch_ns), notes(state),
              counters(state, notes), memory(state, counters), owners(state, counters, memory) {}

    counter_value core_counter(std::uint32_t device, std::uint32_t core, counter_kind kind) const {
        return state.counter(counter_ref::of_core(device, core, kind));
    }
    counter_value device_counter(std::uint32_t device, counter_kind kind) const {
        return state.counter(counter_ref::of_device(device, kind));
    }

    const instance_type& type;
    published_state state;
    notifier notes;
    counter_bank counters;
    memory_ledger memory;
    owner_registry owners;
};

// Records every notification the model emits.
struct notification_log {
    struct entry {
        counter_ref counter;
        field_mask fields;
    };
    explicit notification_log(notifier& n) {
        n.subscribe([this](const counter_ref& c, field_mask f) { entries.push_back({c, f}); });
    }
    std::vector<entry> entries;
};

} // namespace neuron::model::testing
