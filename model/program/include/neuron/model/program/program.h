#pragma once

#include "neuron/model/program/compiled_model.h"
#include "neuron/model/program/looped_stream.h"
#include "neuron/model/spec/device_spec.h"
#include "neuron/model/spec/memory_kind.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace neuron::model {

inline constexpr std::uint32_t no_semaphore = UINT32_MAX;
inline constexpr std::uint32_t no_print = UINT32_MAX;
inline constexpr std::uint32_t no_transfer = UINT32_MAX;
// The opcode of a `work:` model's instruction: its cycles, no NKI instruction.
inline constexpr std::uint8_t work_opcode = UINT8_MAX;
// The opcode of an engine's preamble instructions (core_costs), which the
// engine runs before its stream; no program holds them.
inline constexpr std::uint8_t preamble_opcode = UINT8_MAX - 1;
// What an instruction's data path reads or writes: bits of
// instruction::memories (memory_ports.h says which engines share them).
inline constexpr std::uint8_t touches_sbuf = 1;
inline constexpr std::uint8_t touches_psum = 2;

// One instruction as an engine's sequencer runs it, bound to a device
// generation: its cost is already in picoseconds of that engine's clock.
// It first waits until its semaphores reach their values, then keeps the engine
// busy for `busy_ps`, then adds to a semaphore, emits its device print and
// hands its DMA transfer to the core's DMA engines.
struct instruction {
    std::uint64_t busy_ps = 0;
    std::uint64_t macs = 0; // multiply-accumulates (tensor work)
    std::uint32_t wait_semaphore = no_semaphore;
    std::uint32_t wait_value = 0; // proceeds once the semaphore is at least this
    more_waits also_waits{};      // and each of these (only with a first wait)
    std::uint32_t signal_semaphore = no_semaphore;
    std::uint32_t signal_increment = 1;
    std::uint32_t print = no_print;       // index into program::prints
    std::uint32_t transfer = no_transfer; // index into program::transfers
    std::uint32_t source = UINT32_MAX;    // index into program::sources (for profiles)
    std::uint32_t weight_load_ps = 0;     // a matmul's weight load, in the background of the matmuls
    std::uint8_t op = 0;                  // its kernel opcode (for profiles)
    std::uint8_t row_groups = 0;          // PE row groups a matmul keeps active (0 to 4)
    std::uint8_t memories = 0;            // touches_sbuf | touches_psum

    bool synchronises() const {
        return wait_semaphore != no_semaphore || signal_semaphore != no_semaphore || print != no_print ||
               transfer != no_transfer;
    }
};

// A DMA transfer a dma_copy starts: `partitions` of `bytes_per_partition`,
// each in `descriptors_per_partition` descriptors (its contiguous runs),
// split across `dma_engines` slices (slice i runs on the core's DMA engine i
// modulo their count, on `queue`), moving at `rate_percent` of a plain
// copy's rate (a transposing DMA is slower); each slice adds 1 to
// `signal_semaphore` when it ends.
struct dma_transfer {
    std::uint32_t partitions = 0;
    std::uint64_t bytes_per_partition = 0;
    std::uint64_t descriptors_per_partition = 1;
    std::uint32_t rate_percent = 100;
    std::uint32_t dma_engines = 1;
    std::uint32_t queue = 0;
    memory_kind from = memory_kind::sbuf;
    memory_kind to = memory_kind::sbuf;
    std::uint32_t signal_semaphore = no_semaphore;
    // From the end of the instruction that starts it to its data moving:
    // the generation's dma_start_ns after that instruction began (A.6).
    std::uint64_t start_latency_ps = 0;

    // It shares the device's HBM bandwidth.
    bool touches_hbm() const { return from == memory_kind::hbm || to == memory_kind::hbm; }
};

using instruction_stream = looped_stream<instruction>;
using instruction_cursor = stream_cursor<instruction>;

// What one execution runs on a core: an instruction stream per engine,
// indexed by engine_kind, the device prints its instructions emit and the
// DMA transfers they start.
struct program {
    std::array<instruction_stream, engine_count> streams;
    std::vector<device_print> prints; // emitted with the core that runs it
    std::vector<dma_transfer> transfers;
    std::vector<std::string> sources;
    // Its streams begin with the preamble the compiler writes (a NEFF's
    // do): the engines run no preamble of their own before them.
    bool preambles_included = false;

    // Instructions it runs (loops count trips x body), saturating.
    std::uint64_t instruction_count() const {
        std::uint64_t n = 0;
        for (const auto& s : streams) n = saturating_add(n, s.size());
        return n;
    }
};

} // namespace neuron::model
