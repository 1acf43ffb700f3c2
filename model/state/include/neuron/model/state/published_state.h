#pragma once

#include "neuron/model/spec/counter.h"
#include "neuron/model/spec/device_state.h"
#include "neuron/model/spec/ecc_register.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/state/activity.h"
#include "neuron/model/state/published_record.h"
#include "neuron/model/state/sim_clock.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace neuron::model {

// The store other threads read the model from (ARCHITECTURE.md "Threads and
// time"). The kernel thread is the only writer; every reader method is safe
// from any thread and takes no lock. Each value is one atomic word, as in the
// driver, whose show() functions read the fields unlocked.
class published_state {
public:
    published_state(const instance_type& instance, std::vector<std::uint64_t> serial_numbers, time_mode mode,
                    double real_time_factor, std::int64_t start_epoch_ns);

    const instance_type& instance() const { return m_instance; }
    const device_spec& spec() const { return m_instance.spec(); }
    std::uint32_t device_count() const { return m_instance.device_count; }
    std::uint32_t cores_per_device() const { return spec().cores_per_device; }

    // --- any thread ---------------------------------------------------------
    std::uint64_t counter(counter_ref ref, counter_field field) const;
    counter_value counter(counter_ref ref) const;
    device_state reset_state(std::uint32_t device) const;
    std::uint32_t ecc_word(std::uint32_t device, ecc_register reg) const;
    bool notifications_enabled() const { return m_notify.load(std::memory_order_acquire); }
    std::uint64_t serial_number(std::uint32_t device) const;
    pe_timeline pe_activity(std::uint32_t device, std::uint32_t core) const;
    occupancy_record occupancy(std::uint32_t device) const;
    const sim_clock& clock() const { return m_clock; }

    // Throw invalid_argument_error naming the bad value.
    void check_device(std::uint32_t device) const;
    void check_core(std::uint32_t device, std::int32_t core) const;

    // --- kernel thread only -------------------------------------------------
    std::atomic<std::uint64_t>& counter_word(counter_ref ref, counter_field field);
    void set_reset_state(std::uint32_t device, device_state state);
    void set_ecc_word(std::uint32_t device, ecc_register reg, std::uint32_t value);
    void set_notifications(bool enabled) { m_notify.store(enabled, std::memory_order_release); }
    void publish(std::uint32_t device, std::uint32_t core, const pe_timeline& t);
    void publish(std::uint32_t device, const occupancy_record& r);
    sim_clock& clock() { return m_clock; }

private:
    std::size_t counter_index(counter_ref ref, counter_field field) const;

    const instance_type& m_instance;
    std::vector<std::uint64_t> m_serials;
    sim_clock m_clock;
    std::atomic<bool> m_notify{false};
    std::unique_ptr<std::atomic<std::uint64_t>[]> m_counters;
    std::unique_ptr<std::atomic<std::uint8_t>[]> m_reset_states;
    std::unique_ptr<std::atomic<std::uint32_t>[]> m_ecc_words;
    std::unique_ptr<published_record<pe_timeline>[]> m_pe;             // per core
    std::unique_ptr<published_record<occupancy_record>[]> m_occupancy; // per device
};

} // namespace neuron::model
