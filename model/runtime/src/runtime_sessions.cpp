#include "neuron/model/runtime/runtime_sessions.h"

#include "neuron/model/hardware/neuron_core.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/runtime/platform.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"
#include "repeated_execution.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>

namespace neuron::model {
namespace {

// Per device, the mask of physical cores logical cores first..first+count-1 occupy.
std::map<std::uint32_t, std::uint32_t> device_masks(const logical_cores& map, std::uint32_t first,
                                                    std::uint32_t count) {
    std::map<std::uint32_t, std::uint32_t> masks;
    for (std::uint32_t l = first; l < first + count; ++l) {
        for (const auto& p : map.physical(l)) masks[p.device] |= 1u << p.core;
    }
    return masks;
}

// How an error names another session: its label comes from a client, so it
// is escaped and bounded (NEURON_PROCESS_TAG holds up to 255 characters).
std::string owner_label(const owner_registry& owners, owner_id owner) {
    for (const auto& o : owners.owners()) {
        if (o.id == owner) return common::printable(o.label, 255);
    }
    return fmt::format("session {}", owner);
}

} // namespace

runtime_sessions::runtime_sessions(platform& platform) : m_platform(platform) {}

runtime_sessions::~runtime_sessions() = default;

runtime_sessions::session& runtime_sessions::get(owner_id owner) {
    const auto it = m_sessions.find(owner);
    if (it == m_sessions.end()) throw invalid_argument_error(fmt::format("no runtime session {}", owner));
    return it->second;
}

std::vector<std::uint32_t> runtime_sessions::choose_cores(const logical_cores& map,
                                                          const session_request& request) const {
    const auto& instance = m_platform.instance();
    const auto busy = [&](std::uint32_t logical) -> std::optional<owner_id> {
        for (const auto& c : map.physical(logical)) {
            if (const auto o = m_platform.owners().core_owner(c.device, c.core)) return o;
        }
        return std::nullopt;
    };
    std::vector<std::uint32_t> wanted;
    switch (request.selection) {
    case core_selection::all_free:
        for (std::uint32_t l = 0; l < map.total(); ++l) wanted.push_back(l);
        break;
    case core_selection::range:
        if (request.count == 0) throw invalid_argument_error("NEURON_RT_VISIBLE_CORES asks for no logical NeuronCore");
        if (request.first >= map.total() || request.count > map.total() - request.first) {
            throw invalid_argument_error(
                fmt::format("NEURON_RT_VISIBLE_CORES asks for logical NeuronCores {}-{}, but {} with LNC={} has 0-{}",
                            request.first, std::uint64_t{request.first} + request.count - 1, instance.name, map.lnc(),
                            map.total() - 1));
        }
        for (std::uint32_t l = request.first; l < request.first + request.count; ++l) wanted.push_back(l);
        break;
    case core_selection::count: {
        if (request.count == 0 || request.count > map.total()) {
            throw invalid_argument_error(fmt::format("NEURON_RT_NUM_CORES={}: {} has {} logical NeuronCores",
                                                     request.count, instance.name, map.total()));
        }
        std::uint32_t run = 0;
        for (std::uint32_t l = 0; l < map.total() && run < request.count; ++l) {
            run = busy(l) ? 0 : run + 1;
            if (run == request.count) {
                for (std::uint32_t k = l + 1 - run; k <= l; ++k) wanted.push_back(k);
            }
        }
        if (wanted.empty()) {
            throw resource_busy_error(fmt::format("NEURON_RT_NUM_CORES={}: no {} free NeuronCores in a row (others "
                                                  "are in use)",
                                                  request.count, request.count));
        }
        break;
    }
    }
    for (const auto l : wanted) {
        if (const auto o = busy(l)) {
            throw resource_busy_error(
                fmt::format("logical NeuronCore {} is in use by {}", l, owner_label(m_platform.owners(), *o)));
        }
    }
    return wanted;
}

session_grant runtime_sessions::open(const session_request& request) {
    const logical_cores map(m_platform.instance(), request.lnc);
    const auto wanted = choose_cores(map, request);
    const auto first = wanted.front();
    const auto count = static_cast<std::uint32_t>(wanted.size());
    auto& owners = m_platform.owners();
    const auto owner = owners.open(request.label.empty() ? fmt::format("pid {}", request.pid) : request.label);
    session s{map, first, count, {}, {}, {}};
    for (const auto& [device, mask] : device_masks(map, first, count)) {
        owners.acquire_cores(owner, device, mask);
        owners.attach(owner, device);
        // The runtime resets the cores it takes (reset_req_count +1 each);
        // they are usable at once.
        s.resets.emplace_back(device, m_platform.device(device).resets().request_core_reset(mask));
    }
    m_sessions.emplace(owner, std::move(s));
    return {owner, map.lnc(), first, count};
}

void runtime_sessions::close(owner_id owner) {
    m_platform.executions().cancel(owner);
    m_platform.collectives().forget(owner);
    if (const auto it = m_sessions.find(owner); it != m_sessions.end()) {
        for (const auto& [device, id] : it->second.resets) m_platform.device(device).resets().withdraw(id);
        m_sessions.erase(it);
    }
    if (m_platform.owners().exists(owner)) m_platform.owners().release(owner);
}

allocation_id runtime_sessions::allocate(owner_id owner, std::uint32_t logical_core, mem_location where,
                                         std::uint32_t raw_mem_type, std::uint64_t bytes) {
    auto& s = get(owner);
    if (!s.owns(logical_core)) {
        throw invalid_argument_error(fmt::format("logical NeuronCore {} is not owned by this process", logical_core));
    }
    const auto at = s.cores.first_physical(logical_core);
    return m_platform.owners().allocate(owner, at.device, at.core, where, raw_mem_type, bytes);
}

// What a loaded model or a shared scratchpad holds goes with them, never by itself.
void runtime_sessions::free(owner_id owner, allocation_id id) {
    auto& s = get(owner);
    for (const auto& [model, m] : s.models) {
        if (std::ranges::find(m->allocations(), id) != m->allocations().end()) {
            throw invalid_argument_error(fmt::format("memory {} belongs to loaded model {}", id, model));
        }
    }
    for (const auto& [core, region] : s.scratchpads) {
        if (std::ranges::find(region.allocations, id) != region.allocations.end()) {
            throw invalid_argument_error(fmt::format("memory {} is a shared scratchpad's", id));
        }
    }
    m_platform.owners().free(owner, id);
}

std::uint32_t runtime_sessions::load_target(const session& s, std::optional<std::uint32_t> logical_core) const {
    if (logical_core) {
        if (!s.owns(*logical_core)) {
            throw invalid_argument_error(
                fmt::format("logical NeuronCore {} is not owned by this process", *logical_core));
        }
        return *logical_core;
    }
    for (std::uint32_t l = s.first; l < s.first + s.count; ++l) { // the first core without a model
        bool used = false;
        for (const auto& [id, m] : s.models) used = used || m->logical_core() == l;
        if (!used) return l;
    }
    return s.first;
}

void runtime_sessions::count_refused_load(owner_id owner, std::optional<std::uint32_t> logical_core,
                                          std::uint32_t status) {
    const auto& s = get(owner);
    const auto counter = status_counter(status);
    if (!counter) return;
    const auto at = s.cores.first_physical(load_target(s, logical_core));
    m_platform.owners().record(owner, at.device, at.core, *counter, 1);
}

model_placement runtime_sessions::load(owner_id owner, std::optional<std::uint32_t> logical_core,
                                       compiled_model compiled) {
    auto& s = get(owner);
    const auto logical = load_target(s, logical_core);
    const auto at = s.cores.first_physical(logical);
    auto& owners = m_platform.owners();
    std::shared_ptr<const program> work;
    try {
        check_fits(owner, s, logical, compiled);
        work = build_program(compiled, m_platform.published().spec());
    } catch (const unsupported_error&) {
        owners.record(owner, at.device, at.core, counter_kind::invalid_error, 1);
        throw;
    }
    auto loaded = std::make_shared<loaded_model>(m_next_model++, std::move(compiled), logical, std::move(work));
    try {
        allocate_memory(owner, s, *loaded);
    } catch (const out_of_memory_error&) {
        owners.record(owner, at.device, at.core, counter_kind::resource_error, 1);
        throw;
    } catch (const invalid_argument_error&) {
        owners.record(owner, at.device, at.core, counter_kind::invalid_error, 1);
        throw;
    }
    owners.record(owner, at.device, at.core, counter_kind::model_load_count, 1);
    const model_placement placement{loaded->id(), logical};
    s.models.emplace(loaded->id(), std::move(loaded));
    return placement;
}

// A NEFF compiled for more physical cores than the logical core has does not load.
void runtime_sessions::check_fits(owner_id owner, const session& s, std::uint32_t logical,
                                  const compiled_model& compiled) {
    std::uint64_t cores = std::max(1u, compiled.streams.cores);
    for (const auto& m : compiled.memory) cores = std::max<std::uint64_t>(cores, std::uint64_t{m.core} + 1);
    if (cores <= s.cores.lnc()) return;
    throw unsupported_error(fmt::format(
        "'{}' was compiled for {} NeuronCores, but logical NeuronCore {} of {} has {} (LNC={})", compiled.name, cores,
        logical, owner_label(m_platform.owners(), owner), s.cores.lnc(), s.cores.lnc()));
}

void runtime_sessions::allocate_memory(owner_id owner, session& s, loaded_model& loaded) {
    auto& owners = m_platform.owners();
    const auto cores = s.cores.physical(loaded.logical_core());
    try {
        for (const auto& m : loaded.compiled().memory) {
            if (m.shared) continue;
            const auto at = cores.at(m.core);
            loaded.allocations().push_back(
                owners.allocate(owner, at.device, at.core, m.where, static_cast<std::uint32_t>(m.type), m.bytes));
        }
        fit_scratchpads(owner, s, loaded.logical_core(), &loaded);
    } catch (const model_error&) { // out of memory, or a size no device has
        for (const auto id : loaded.allocations()) owners.free(owner, id);
        loaded.allocations().clear();
        throw;
    }
}

void runtime_sessions::fit_scratchpads(owner_id owner, session& s, std::uint32_t logical, const loaded_model* adding) {
    auto& owners = m_platform.owners();
    const auto cores = s.cores.physical(logical);
    std::vector<std::uint64_t> wanted(cores.size(), 0);
    const auto want = [&](const loaded_model& m) {
        if (m.logical_core() != logical) return;
        for (const auto& need : m.compiled().memory) {
            if (need.shared) wanted.at(need.core) = std::max(wanted.at(need.core), need.bytes);
        }
    };
    for (const auto& [id, m] : s.models) want(*m);
    if (adding != nullptr) want(*adding);
    const auto type = static_cast<std::uint32_t>(mem_type::scratchpad_device);
    const auto region = [&](std::size_t c) -> scratchpad_region& {
        return s.scratchpads[{cores[c].device, cores[c].core}];
    };
    // Growing can fail: every core grows before any shrinks, and a failure undoes the growth.
    std::vector<std::pair<std::size_t, std::uint64_t>> grown; // core, bytes before
    try {
        for (std::size_t c = 0; c < cores.size(); ++c) {
            auto& r = region(c);
            if (wanted[c] <= r.bytes) continue;
            r.allocations.push_back(owners.allocate(owner, cores[c].device, cores[c].core, mem_location::device, type,
                                                    wanted[c] - r.bytes));
            grown.emplace_back(c, r.bytes);
            r.bytes = wanted[c];
        }
    } catch (const model_error&) {
        for (const auto& [c, before] : grown) {
            auto& r = region(c);
            owners.free(owner, r.allocations.back());
            r.allocations.pop_back();
            r.bytes = before;
        }
        throw;
    }
    for (std::size_t c = 0; c < cores.size(); ++c) {
        auto& r = region(c);
        if (wanted[c] >= r.bytes) continue;
        for (const auto id : r.allocations) owners.free(owner, id);
        r.allocations.clear();
        if (wanted[c] > 0) {
            r.allocations.push_back(
                owners.allocate(owner, cores[c].device, cores[c].core, mem_location::device, type, wanted[c]));
        }
        r.bytes = wanted[c];
    }
}

void runtime_sessions::unload(owner_id owner, std::uint32_t model) {
    auto& s = get(owner);
    const auto it = s.models.find(model);
    if (it == s.models.end()) throw invalid_argument_error(fmt::format("no loaded model {}", model));
    for (const auto id : it->second->allocations()) m_platform.owners().free(owner, id);
    const auto logical = it->second->logical_core();
    s.models.erase(it);
    fit_scratchpads(owner, s, logical);
}

void runtime_sessions::execute(owner_id owner, std::uint32_t model, std::uint32_t repeat, execution_done done,
                               std::chrono::nanoseconds timeout, bool profile) {
    auto& s = get(owner);
    const auto it = s.models.find(model);
    if (it == s.models.end()) throw invalid_argument_error(fmt::format("no loaded model {}", model));
    if (repeat == 0) throw invalid_argument_error("an execution must run at least once");
    if (timeout.count() < 0 || timeout > max_exec_timeout) {
        throw invalid_argument_error(fmt::format("an execution timeout of {} ns is not 0 (the default) to {} s",
                                                 timeout.count(), max_exec_timeout.count() / 1'000'000'000));
    }
    // SystemC's time ends some 213 days in (and a year's picoseconds do not
    // fit 64 bits): a longer wait is as good as forever.
    timeout = std::min<std::chrono::nanoseconds>(timeout, std::chrono::hours(24 * 100));
    const auto timeout_ps =
        timeout.count() == 0 ? run_options{}.timeout_ps : static_cast<std::uint64_t>(timeout.count()) * 1000;
    auto& loaded = it->second;
    repeated_execution::start(m_platform, loaded, owner, s.cores, repeat, timeout_ps, profile,
                              [loaded, done = std::move(done)](const execution_outcome& o) {
                                  loaded->execution_done();
                                  done(o);
                              });
    // Counted once submitted (a refused submission throws and is never done);
    // should `done` already have run, the two steps still cancel out.
    loaded->execution_submitted();
}

void runtime_sessions::join_collective(owner_id owner, std::uint32_t logical_core, collective_arrival arrival,
                                       collective_done done) {
    auto& s = get(owner);
    if (!s.owns(logical_core)) {
        throw invalid_argument_error(fmt::format("logical NeuronCore {} is not owned by this process", logical_core));
    }
    if (arrival.timeout.count() < 0 || arrival.timeout > max_exec_timeout) {
        throw invalid_argument_error(fmt::format("a collective's timeout of {} ns is not 0 (the default) to {} s",
                                                 arrival.timeout.count(), max_exec_timeout.count() / 1'000'000'000));
    }
    if (arrival.timeout.count() == 0) arrival.timeout = std::chrono::nanoseconds(run_options{}.timeout_ps / 1000);
    if (arrival.kind == collective_kind::send_receive) {
        physical_of(arrival.peer_core); // throws past the last core
    }
    arrival.owner = owner;
    arrival.logical_core = logical_core;
    arrival.core = s.cores.first_physical(logical_core);
    m_platform.collectives().join(std::move(arrival), std::move(done));
}

std::vector<session_summary> runtime_sessions::sessions() const {
    std::map<owner_id, std::string> labels;
    for (auto& o : m_platform.owners().owners()) labels.emplace(o.id, std::move(o.label));
    std::vector<session_summary> out;
    for (const auto& [owner, s] : m_sessions) {
        session_summary summary{owner, labels[owner], s.cores.lnc(), s.first, s.count, {}};
        for (const auto& [id, m] : s.models) {
            model_summary model{id, m->compiled().name, m->logical_core(), s.cores.physical(m->logical_core()),
                                {}, m->in_flight() > 0};
            for (const auto a : m->allocations()) {
                if (const auto* found = m_platform.memory().find(a)) model.memory.push_back(*found);
            }
            summary.models.push_back(std::move(model));
        }
        out.push_back(std::move(summary));
    }
    return out;
}

physical_core runtime_sessions::physical_of(std::uint32_t logical) const {
    for (const auto& [owner, s] : m_sessions) {
        if (s.owns(logical)) return s.cores.first_physical(logical);
    }
    const auto& instance = m_platform.instance();
    return logical_cores(instance, default_lnc(instance)).first_physical(logical);
}

} // namespace neuron::model
