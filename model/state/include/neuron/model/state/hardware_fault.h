#pragma once

#include "neuron/model/spec/device_spec.h"
#include "neuron/model/state/ecc.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace neuron::model {

// The faults that stop an execution where they happen (nrt-api.md §1.2
// "Hardware-error behaviours"): each strikes when its core first does what
// it names, stops the execution at that simulated time and returns its
// status.
enum class fault_kind {
    dma_abort,             // a DMA engine starts moving a slice (of the queue aimed at)
    out_of_bounds,         // an instruction starts (on the engine aimed at) or a DMA descriptor does
    hbm_uncorrectable,     // a DMA engine starts moving device memory
    hbm_repairable,        // the same, on firmware that can repair the row
    sram_uncorrectable,    // an instruction starts (it reads SBUF/PSUM)
    notification_overflow, // a notification is raised (a device print)
    collectives_hang,      // at once: the core stops, the runtime gives up after its timeout
};

// Which DMA transfers a fault strikes.
enum class dma_strike { none, any, device_memory };

struct fault_row {
    fault_kind kind;
    std::string_view name;       // what ctl and errors call it
    std::uint32_t status;        // the NRT_STATUS the execution returns
    bool on_instructions;        // strikes an instruction starting (may aim at an engine)
    dma_strike on_dma;           // strikes a DMA run starting (may aim at a queue)
    std::optional<ecc_kind> ecc; // also counted in the device's ECC registers
};

const fault_row& fault_info(fault_kind kind);
// Every row, in fault_kind order.
std::span<const fault_row> fault_rows();
std::optional<fault_kind> fault_from_name(std::string_view name);
// The fault that returns `status`, if one does (1006, 1200-1205).
std::optional<fault_kind> fault_for_status(std::uint32_t status);
// The fault a DMA meets when it reads device memory holding an error the
// ECC registers count as `kind` (ctl inject-ecc): the row counted as that
// kind that strikes transfers of device memory. None for SRAM and
// corrected errors.
std::optional<fault_kind> fault_reading(ecc_kind kind);
// What an HBM fault of `kind` gives when it strikes: an uncorrectable one is
// repairable while the firmware has a repair pending (its registers then
// count it as repairable too); any other kind stays itself.
fault_kind as_struck(fault_kind kind, bool repair_pending);
// "dma_abort, out_of_bounds, ..." for error messages.
std::string_view fault_names();

// What a fault is aimed at inside a core: nothing (whatever comes first), an
// engine, or one queue of every DMA engine.
struct fault_target {
    std::optional<engine_kind> engine;
    std::optional<std::uint32_t> dma_queue;
};

struct armed_fault {
    fault_kind kind;
    fault_target target;
};

// Where a fault struck, for the runtime's log line.
struct fault_strike {
    fault_kind kind;
    std::uint32_t status;
    std::uint32_t dma_engine = 0; // the DMA engine it struck (dma_abort)
};

} // namespace neuron::model
