#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// What one execution did on one NeuronCore, instruction by instruction: what
// the model records when an execution is profiled, what a session file holds
// (session_file.h) and what every view of a profile is computed from. Times
// are simulated picoseconds since the emulated instance started.
namespace neuron::profile {

inline constexpr std::uint32_t none = UINT32_MAX;

// The compute engines, in the model's order (model::engine_kind).
inline constexpr std::size_t engine_count = 5;
inline constexpr std::array<std::string_view, engine_count> engine_names{"tensor", "vector", "scalar", "gpsimd",
                                                                         "sync"};
inline constexpr std::uint8_t tensor_engine = 0; // engine_names' "tensor"

// Where an instruction's tiles are: bits of instruction_record::memories.
inline constexpr std::uint8_t touches_sbuf = 1;
inline constexpr std::uint8_t touches_psum = 2;

struct instruction_record {
    std::uint64_t start_ps = 0;
    std::uint64_t end_ps = 0; // start + its cost, or where the run was stopped
    std::uint64_t macs = 0;
    std::uint32_t index = 0;             // in its engine's stream
    std::uint32_t opcode = 0;            // into core_timeline::opcodes
    std::uint32_t source = none;         // into core_timeline::sources
    std::uint32_t wait_semaphore = none; // waited until it was at least wait_value
    std::uint32_t wait_value = 0;
    std::uint32_t signal_semaphore = none; // added signal_increment when it ended
    std::uint32_t signal_increment = 0;
    std::uint32_t transfer = none;    // the DMA transfer it started, into core_timeline::transfers
    std::uint32_t weight_load_ps = 0; // a matmul's LoadStationary, in the background
    std::uint8_t engine = 0;
    std::uint8_t memories = 0;   // touches_sbuf | touches_psum
    std::uint8_t row_groups = 0; // PE row groups a matmul keeps active
};

enum class memory : std::uint8_t { hbm, sbuf, psum };
inline constexpr std::array<std::string_view, 3> memory_names{"hbm", "sbuf", "psum"};

// A DMA transfer an instruction started.
struct transfer_record {
    std::uint64_t issued_ps = 0;  // its instruction ended
    std::uint64_t arrives_ps = 0; // it reached its queue
    std::uint64_t bytes_per_partition = 0;
    std::uint32_t partitions = 0;
    std::uint32_t dma_engines = 0; // slices: one per DMA engine it spans
    std::uint32_t queue = 0;
    std::uint32_t signal_semaphore = none; // each slice adds 1 when it ends
    std::uint8_t engine = 0;               // that issued it
    memory from = memory::hbm;
    memory to = memory::sbuf;

    std::uint64_t bytes() const { return bytes_per_partition * partitions; }
};

// Slices of one transfer that moved together on some DMA engines.
struct dma_run_record {
    std::uint64_t start_ps = 0;
    std::uint64_t end_ps = 0;
    std::uint64_t bytes = 0;    // moved by all its slices
    std::uint32_t transfer = 0; // into core_timeline::transfers
    std::uint32_t engines = 0;  // a bit per DMA engine
    bool cut = false;           // stopped before it ended
};

// A stretch of time trn2's Tensor engine ran under its current limit, and
// the full-speed work its array did in it (work / time: the mean limit).
struct throttle_record {
    std::uint64_t start_ps = 0;
    std::uint64_t end_ps = 0;
    std::uint64_t work_ps = 0; // at most end_ps - start_ps
};

struct semaphore_record {
    std::uint64_t at_ps = 0;
    std::uint32_t index = 0;
    std::uint32_t value = 0; // after the change
};

// A hardware error that stopped the execution (a fault's name, e.g.
// "dma_abort", and its NRT_STATUS).
struct fault_record {
    std::uint64_t at_ps = 0;
    std::string kind;
    std::uint32_t status = 0;
    std::uint32_t dma_engine = 0;
};

// The hardware's figures the views compute with, as the model had them.
struct core_figures {
    std::uint64_t core_clock_hz = 0;                           // the NeuronCore's base clock
    std::array<std::uint64_t, engine_count> engine_clock_hz{}; // 0: the core has no such engine
    std::uint32_t pe_rows = 128;                               // the Tensor engine's PE array
    std::uint32_t pe_columns = 128;
    std::uint32_t dma_engines = 0;
    std::uint32_t queues_per_dma_engine = 0;
    std::uint64_t dma_bytes_per_ns = 0;    // one DMA engine
    std::uint64_t memory_bytes_per_ns = 0; // the device's HBM, shared by its cores
    std::uint32_t cores_per_device = 1;
};

struct core_timeline {
    // What ran where.
    std::string instance_type;
    std::string model_name;
    std::uint32_t device = 0;       // nd_idx
    std::uint32_t core = 0;         // physical core on its device (nc_idx)
    std::uint32_t logical_core = 0; // as the process saw it
    std::uint32_t lnc = 1;
    std::uint64_t execution = 0; // the loaded model's execution number (1, 2, ...)
    std::uint32_t status = 0;    // its NRT_STATUS
    std::uint64_t start_ps = 0;
    std::uint64_t end_ps = 0;
    core_figures figures;

    std::vector<std::string> opcodes; // instruction_record::opcode names, as model files write them
    std::vector<std::string> sources; // "kernel.py:12"
    std::vector<instruction_record> instructions;
    std::vector<transfer_record> transfers;
    std::vector<dma_run_record> dma_runs;
    std::vector<semaphore_record> semaphores;
    std::vector<fault_record> faults;
    std::vector<throttle_record> throttled; // in time order
};

// The time under the Tensor engine's limit and the work done in it, summed.
struct throttle_totals {
    std::uint64_t time_ps = 0;
    std::uint64_t work_ps = 0;
};
throttle_totals total_throttled(const core_timeline& t);

// The bytes `t` holds in memory, its vectors' and strings' room included:
// what keeping it costs.
std::size_t footprint(const core_timeline& t);

} // namespace neuron::profile
