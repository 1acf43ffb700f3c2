#include "neuron/model/state/published_state.h"

#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

namespace neuron::model {
namespace {

template <typename T>
std::unique_ptr<std::atomic<T>[]> zeroed(std::size_t n) {
    auto words = std::make_unique<std::atomic<T>[]>(n);
    for (std::size_t i = 0; i < n; ++i) words[i].store(0, std::memory_order_relaxed);
    return words;
}

} // namespace

published_state::published_state(const instance_type& instance, std::vector<std::uint64_t> serial_numbers,
                                 time_mode mode, double real_time_factor, std::int64_t start_epoch_ns)
        : m_instance(instance), m_serials(std::move(serial_numbers)), m_clock(mode, real_time_factor, start_epoch_ns) {
    const std::size_t devices = device_count();
    const std::size_t cores = cores_per_device();
    m_counters = zeroed<std::uint64_t>(devices * (1 + cores) * counter_kind_count * counter_field_count);
    m_reset_states = zeroed<std::uint8_t>(devices);
    for (std::size_t d = 0; d < devices; ++d) {
        m_reset_states[d].store(static_cast<std::uint8_t>(device_state::ready), std::memory_order_relaxed);
    }
    m_ecc_words = zeroed<std::uint32_t>(devices * ecc_register_count);
    m_pe = std::make_unique<published_record<pe_timeline>[]>(devices * cores);
    m_occupancy = std::make_unique<published_record<occupancy_record>[]>(devices);
    if (m_serials.size() != devices) {
        throw invalid_argument_error(fmt::format("{} serial numbers for {} devices", m_serials.size(), devices));
    }
}

void published_state::check_device(std::uint32_t device) const {
    if (device >= device_count()) {
        throw invalid_argument_error(
            fmt::format("device {} out of range: {} has devices 0..{}", device, m_instance.name, device_count() - 1));
    }
}

void published_state::check_core(std::uint32_t device, std::int32_t core) const {
    check_device(device);
    if (core == counter_ref::device_level) return;
    if (core < 0 || static_cast<std::uint32_t>(core) >= cores_per_device()) {
        throw invalid_argument_error(fmt::format("core {} out of range: {} devices have cores 0..{}", core,
                                                 spec().device_name, cores_per_device() - 1));
    }
}

std::size_t published_state::counter_index(counter_ref ref, counter_field field) const {
    check_core(ref.device, ref.core);
    const std::size_t slots_per_device = 1 + cores_per_device();
    const std::size_t slot = ref.device * slots_per_device + static_cast<std::size_t>(ref.core + 1);
    return (slot * counter_kind_count + static_cast<std::size_t>(ref.kind)) * counter_field_count +
           static_cast<std::size_t>(field);
}

std::uint64_t published_state::counter(counter_ref ref, counter_field field) const {
    return m_counters[counter_index(ref, field)].load(std::memory_order_relaxed);
}

counter_value published_state::counter(counter_ref ref) const {
    return {counter(ref, counter_field::total), counter(ref, counter_field::present),
            counter(ref, counter_field::peak)};
}

std::atomic<std::uint64_t>& published_state::counter_word(counter_ref ref, counter_field field) {
    return m_counters[counter_index(ref, field)];
}

device_state published_state::reset_state(std::uint32_t device) const {
    check_device(device);
    return static_cast<device_state>(m_reset_states[device].load(std::memory_order_acquire));
}

void published_state::set_reset_state(std::uint32_t device, device_state state) {
    check_device(device);
    m_reset_states[device].store(static_cast<std::uint8_t>(state), std::memory_order_release);
}

std::uint32_t published_state::ecc_word(std::uint32_t device, ecc_register reg) const {
    check_device(device);
    return m_ecc_words[device * ecc_register_count + static_cast<std::size_t>(reg)].load(std::memory_order_relaxed);
}

void published_state::set_ecc_word(std::uint32_t device, ecc_register reg, std::uint32_t value) {
    check_device(device);
    m_ecc_words[device * ecc_register_count + static_cast<std::size_t>(reg)].store(value, std::memory_order_relaxed);
}

std::uint64_t published_state::serial_number(std::uint32_t device) const {
    check_device(device);
    return m_serials[device];
}

pe_timeline published_state::pe_activity(std::uint32_t device, std::uint32_t core) const {
    check_core(device, static_cast<std::int32_t>(core));
    return m_pe[device * cores_per_device() + core].read();
}

void published_state::publish(std::uint32_t device, std::uint32_t core, const pe_timeline& t) {
    check_core(device, static_cast<std::int32_t>(core));
    m_pe[device * cores_per_device() + core].write(t);
}

occupancy_record published_state::occupancy(std::uint32_t device) const {
    check_device(device);
    return m_occupancy[device].read();
}

void published_state::publish(std::uint32_t device, const occupancy_record& r) {
    check_device(device);
    m_occupancy[device].write(r);
}

} // namespace neuron::model
