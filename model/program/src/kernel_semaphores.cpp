#include "kernel_semaphores.h"

#include "kernel_op_error.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace neuron::model {
namespace {

using loops_of = std::span<const loop_block* const>;
using totals = std::map<std::uint32_t, std::uint64_t>; // what the signals add, by semaphore

// What an instruction waits for on its last trip.
unsigned __int128 last_wait(std::uint32_t semaphore, std::uint32_t value, loops_of loops) {
    unsigned __int128 v = value;
    for (const auto* b : loops) v += static_cast<unsigned __int128>(b->wait_change(semaphore, 1)) * (b->trips - 1);
    return v;
}

// A wait of `op` on `semaphore` for `value` can be met on every trip.
void check_wait(const kernel& k, const kernel_op& op, std::uint32_t semaphore, std::uint32_t value, loops_of loops,
                const totals& added) {
    const auto most = last_wait(semaphore, value, loops);
    if (most > UINT32_MAX) {
        refuse(k, op,
               fmt::format("its last trip waits for semaphore {} to reach {}, beyond what a semaphore holds ({})",
                           semaphore, static_cast<std::uint64_t>(std::min<unsigned __int128>(most, UINT64_MAX)),
                           UINT32_MAX));
    }
    if (most == 0) return;
    const auto it = added.find(semaphore);
    if (it == added.end()) refuse(k, op, fmt::format("waits on semaphore {}, which no instruction signals", semaphore));
    if (most > it->second) {
        refuse(k, op,
               fmt::format("waits for semaphore {} to reach {}, but the program adds at most {} to it", semaphore,
                           static_cast<std::uint64_t>(most), it->second));
    }
}

} // namespace

void check_semaphores(const kernel& k, const device_spec& spec) {
    totals added;
    const auto exists = [&](const kernel_op& op, std::uint32_t s) {
        if (s != no_semaphore_index && s >= spec.semaphores_per_core) {
            refuse(k, op,
                   fmt::format("semaphore {} does not exist ({} has {} per core, 0 to {})", s, spec.device_name,
                               spec.semaphores_per_core, spec.semaphores_per_core - 1));
        }
    };
    for (const auto& stream : k.streams) {
        each_in_text(stream, [&](const kernel_op& op, loops_of loops) {
            exists(op, op.wait_semaphore);
            for (const auto& w : op.also_waits) exists(op, w.semaphore);
            exists(op, op.signal_semaphore);
            if (op.signal_semaphore == no_semaphore_index) return;
            const auto each = op.op == opcode::dma_copy ? op.dma_engines : op.signal_increment;
            const auto n = static_cast<unsigned __int128>(each) * runs_in(loops);
            auto& total = added[op.signal_semaphore];
            total = n > UINT64_MAX - total ? UINT64_MAX : total + static_cast<std::uint64_t>(n);
        });
    }
    for (const auto& stream : k.streams) {
        each_in_text(stream, [&](const kernel_op& op, loops_of loops) {
            if (op.wait_semaphore == no_semaphore_index) return;
            check_wait(k, op, op.wait_semaphore, op.wait_value, loops, added);
            for (const auto& w : op.also_waits) {
                if (w.semaphore != no_semaphore_index) check_wait(k, op, w.semaphore, w.value, loops, added);
            }
        });
    }
}

} // namespace neuron::model
