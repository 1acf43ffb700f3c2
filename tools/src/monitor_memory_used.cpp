// memory_used: what a runtime holds now, as it counts it (the driver's
// category counters lag up to a second behind), and its models'.

#include "monitor_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

namespace neuron::tools::monitor_detail {
namespace {

template <std::size_t N>
struct category_keys {
    std::array<std::string_view, N> keys; // in the vendor's order
    std::size_t rest;                     // where a category not among them is counted
};

// The guide defines host "application_memory" as every allocation in none of
// the other host categories. By the same reading (an inference) device
// categories it does not list (driver_memory, collectives, dma_rings,
// nonshared_scratchpad, ...) count as "runtime_memory", and a model's share
// of the shared scratchpad as its "runtime_memory": each breakdown then sums
// to the total beside it.
constexpr category_keys<4> host_keys{{"application_memory", "constants", "dma_buffers", "tensors"}, 0};
constexpr category_keys<5> core_keys{
    {"constants", "model_code", "model_shared_scratchpad", "runtime_memory", "tensors"}, 3};
constexpr category_keys<4> model_device_keys{{"constants", "model_code", "runtime_memory", "tensors"}, 2};

template <std::size_t N>
using amounts = std::array<std::uint64_t, N>;

template <std::size_t N>
void add(amounts<N>& to, const memory_breakdown& from, const category_keys<N>& keys) {
    for (const auto& [category, bytes] : from) {
        const auto it = std::ranges::find(keys.keys, category);
        to[it == keys.keys.end() ? keys.rest : static_cast<std::size_t>(it - keys.keys.begin())] += bytes;
    }
}

template <std::size_t N>
std::uint64_t sum(const amounts<N>& a) {
    std::uint64_t total = 0;
    for (const auto v : a) total += v;
    return total;
}

template <std::size_t N>
void write(common::json_writer& w, const amounts<N>& a, const category_keys<N>& keys) {
    w.begin_object();
    for (std::size_t i = 0; i < N; ++i) w.key(keys.keys[i]).value(a[i]);
    w.end_object();
}

// Part `i` of `n` of each amount: an even split, the remainder to the first parts.
template <std::size_t N>
amounts<N> share(const amounts<N>& a, std::size_t i, std::size_t n) {
    amounts<N> out{};
    for (std::size_t k = 0; k < N; ++k) out[k] = a[k] / n + (i < a[k] % n ? 1 : 0);
    return out;
}

void loaded_model(common::json_writer& w, const model_sample& m, std::uint32_t lnc) {
    amounts<4> host{};
    amounts<4> device{};
    add(host, m.host_memory, host_keys);
    add(device, m.device_memory, model_device_keys);
    w.begin_object().key("name").value(m.name);
    // The NEFF's uuid is not in the sample; none is made up.
    w.key("uuid").value("").key("model_id").value(m.id).key("is_running").value(m.running);
    w.key("subgraphs").begin_object();
    // The sample has the model's memory summed over its cores: each subgraph
    // is shown an even share.
    const auto n = m.cores.size();
    for (std::size_t i = 0; i < n; ++i) {
        const auto host_part = share(host, i, n);
        const auto device_part = share(device, i, n);
        w.key(fmt::format("sg_{:02}", i)).begin_object();
        w.key("memory_used_bytes").begin_object();
        w.key("host").value(sum(host_part)).key("neuron_device").value(sum(device_part));
        w.key("usage_breakdown").begin_object().key("host");
        write(w, host_part, host_keys);
        w.key("neuron_device");
        write(w, device_part, model_device_keys);
        w.end_object().end_object();
        // The index within the device, of the logical core (all counts are per logical core).
        w.key("neuroncore_index").value(m.cores[i].second / std::max<std::uint32_t>(lnc, 1));
        w.key("neuron_device_index").value(m.cores[i].first).end_object();
    }
    w.end_object().end_object();
}

} // namespace

std::string memory_used_json(const period& p, const runtime_sample& r) {
    const auto& h = p.to;
    const auto lnc = runtime_lnc(h, r);
    std::map<std::uint32_t, amounts<5>> cores; // by global logical core
    for (const auto& [id, activity] : r.activity) {
        auto& c = cores[global_logical_core(h, id, lnc)];
        if (const auto held = r.device_memory.find(id); held != r.device_memory.end()) add(c, held->second, core_keys);
    }
    amounts<4> host{};
    for (const auto& [id, held] : r.host_memory) add(host, held, host_keys);
    std::uint64_t device_total = 0;
    for (const auto& [index, c] : cores) device_total += sum(c);

    common::json_writer w(false);
    w.begin_object().key("period").value(p.seconds());
    w.key("neuron_runtime_used_bytes").begin_object();
    w.key("host").value(sum(host)).key("neuron_device").value(device_total);
    w.key("usage_breakdown").begin_object().key("host");
    write(w, host, host_keys);
    w.key("neuroncore_memory_usage").begin_object();
    for (const auto& [index, c] : cores) {
        w.key(fmt::format("{}", index));
        write(w, c, core_keys);
    }
    w.end_object().end_object().end_object();
    w.key("loaded_models").begin_array();
    for (const auto& m : r.models) loaded_model(w, m, lnc);
    w.end_array().key("error").value("").end_object();
    return value_text(w);
}

} // namespace neuron::tools::monitor_detail
