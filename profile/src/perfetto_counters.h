#pragma once

// What the Perfetto view computes from a timeline besides its slices: the
// counter tracks' values (each with the slice event that carries it, where
// one made it) and the dependency flows.

#include "neuron/profile/timeline.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace neuron::profile::detail {

enum class slice_kind : std::uint8_t { instruction, dma_run };

constexpr std::uint64_t slice_key(slice_kind kind, std::uint32_t ref) {
    return (std::uint64_t{ref} << 1) | static_cast<std::uint64_t>(kind);
}
// A slice's begin or end event.
constexpr std::uint64_t carrier_key(slice_kind kind, std::uint32_t ref, bool end) {
    return (slice_key(kind, ref) << 1) | (end ? 1 : 0);
}
inline constexpr std::uint64_t no_carrier = UINT64_MAX;

// A counter's value from `ts` on, carried by the slice event `carrier`
// (carrier_key) or, with no_carrier, by a counter event of its own. One
// point per time, in time order, the first at the timeline's start.
struct counter_point {
    std::uint64_t ts; // ns
    std::int64_t value;
    std::uint64_t carrier;
};

// Each semaphore the timeline changes: its value after each change, carried
// by the end of the instruction or DMA run whose add made it.
std::map<std::uint32_t, std::vector<counter_point>> semaphore_series(const core_timeline& t);
// "DMA Throughput": MB/s moving (each run at its own average rate), changing
// at the runs' begins and ends.
std::vector<counter_point> dma_throughput_series(const core_timeline& t);
// "Pending DMA Count": transfers issued and not yet ended, changing at the
// end of each issuing instruction and of each transfer's last run.
std::vector<counter_point> pending_dma_series(const core_timeline& t);
// "Throttling": the Tensor engine's utilization limit in percent, 100 but
// over each stretch under trn2's current limit, where it is that stretch's
// mean (its work over its length).
std::vector<counter_point> throttle_series(const core_timeline& t);

// Flow ids per slice (slice_key): each wait that a semaphore add satisfied
// links the instruction or DMA run that added to the instruction that waited.
struct flow_links {
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> starts; // the adder's slice
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> ends;   // the waiter's slice
};
void link_flows(const core_timeline& t, std::uint64_t& next_flow, flow_links& links);

} // namespace neuron::profile::detail
