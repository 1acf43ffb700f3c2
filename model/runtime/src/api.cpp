#include "neuron/model/runtime/api.h"

#include "debug_emission.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/runtime/simulation.h"

namespace neuron::model {

const published_state& api::published() const { return m_sim.published(); }

session_grant api::open_session(const session_request& request) {
    return m_sim.call([&](platform& p) { return p.sessions().open(request); });
}

void api::close_session(owner_id owner) {
    m_sim.call([owner](platform& p) { p.sessions().close(owner); });
}

allocation_id api::allocate(owner_id owner, std::uint32_t logical_core, mem_location where, std::uint32_t raw_mem_type,
                            std::uint64_t bytes) {
    return m_sim.call(
        [&](platform& p) { return p.sessions().allocate(owner, logical_core, where, raw_mem_type, bytes); });
}

void api::free(owner_id owner, allocation_id id) {
    m_sim.call([&](platform& p) { p.sessions().free(owner, id); });
}

model_placement api::load(owner_id owner, std::optional<std::uint32_t> logical_core, compiled_model compiled) {
    return m_sim.call([&](platform& p) { return p.sessions().load(owner, logical_core, std::move(compiled)); });
}

void api::count_refused_load(owner_id owner, std::optional<std::uint32_t> logical_core, std::uint32_t status) {
    m_sim.call([&](platform& p) { p.sessions().count_refused_load(owner, logical_core, status); });
}

void api::unload(owner_id owner, std::uint32_t model) {
    m_sim.call([&](platform& p) { p.sessions().unload(owner, model); });
}

void api::execute(owner_id owner, std::uint32_t model, std::uint32_t repeat, execution_done done,
                  std::chrono::nanoseconds timeout, bool profile) {
    m_sim.call([&](platform& p) { p.sessions().execute(owner, model, repeat, std::move(done), timeout, profile); });
}

void api::join_collective(owner_id owner, std::uint32_t logical_core, collective_arrival arrival,
                          collective_done done) {
    m_sim.call(
        [&](platform& p) { p.sessions().join_collective(owner, logical_core, std::move(arrival), std::move(done)); });
}

ownership api::who_holds_what() {
    return m_sim.call([](platform& p) { return ownership{p.owners().owners(), p.sessions().sessions()}; });
}

void api::inject_ecc(std::uint32_t device, ecc_kind kind, std::int64_t count, std::optional<std::uint32_t> channel) {
    m_sim.call([&](platform& p) { p.device(device).inject_ecc(kind, count, channel); });
}

void api::inject_fault(std::uint32_t device, std::optional<std::uint32_t> core, const armed_fault& fault) {
    m_sim.call([&](platform& p) {
        auto& d = p.device(device);
        if (core) {
            d.core(*core).arm(fault);
            return;
        }
        for (std::uint32_t c = 0; c < d.core_count(); ++c) d.core(c).arm(fault);
    });
}

void api::set_repair_state(std::uint32_t device, hbm_repair_state state) {
    m_sim.call([&](platform& p) { p.device(device).ecc().set_repair_state(state); });
}

reset_outcome api::reset_device(std::uint32_t device) {
    return m_sim.call([&](platform& p) { return p.device(device).resets().request_device_reset(); });
}

void api::fail_resets(std::uint32_t device, std::int64_t count) {
    m_sim.call([&](platform& p) { p.device(device).resets().fail_next_resets(count); });
}

debug_emission_result api::emit_debug(const debug_emission& request) {
    return m_sim.call([&](platform& p) { return emit_debug_events(p, request); });
}

void api::clear_counter(const counter_ref& counter, counter_field field) {
    m_sim.call([&](platform& p) { p.counters().clear(counter, field); });
}

void api::set_notifications(bool enabled) {
    m_sim.call([enabled](platform& p) { p.notifications().set_enabled(enabled); });
}

notifier::listener_id api::subscribe(change_listener listener) {
    return m_sim.call([&](platform& p) { return p.notifications().subscribe(std::move(listener)); });
}

void api::unsubscribe(notifier::listener_id id) {
    m_sim.call([id](platform& p) { p.notifications().unsubscribe(id); });
}

void api::connect_debug_events(debug_event_source::sink sink) {
    m_sim.call([&](platform& p) { p.debug_events().connect(std::move(sink)); });
}

void api::advance(std::chrono::nanoseconds duration) { m_sim.advance(duration); }

} // namespace neuron::model
