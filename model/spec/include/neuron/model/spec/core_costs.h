#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

// The cost model of each NeuronCore generation: one table (core_costs.cpp)
// with, beside every number, where it comes from and how far the hardware
// may be from it. A device's spec names its generation; nothing else in the
// model asks which generation it runs on.
namespace neuron::model {

enum class core_generation : std::uint8_t { nc_v1, nc_v2, nc_v3 };

// One number of the cost model. `tolerance_percent` is how far the hardware
// may be from `value` by what its source says: 0 for a documented constant,
// more for an approximate or inferred one.
struct cost_figure {
    std::uint64_t value;
    std::string_view source;
    std::uint32_t tolerance_percent;
};

struct core_costs {
    core_generation generation;
    std::string_view name; // "NC-v2"
    // Engine cycles (engines.md A.3).
    cost_figure min_ii;
    cost_figure gpsimd_start;
    cost_figure min_ii_dynamic;
    // TensorE passes over an fp32 tile: an nc_matmul's and an nc_transpose's
    // cost is that many times a 16-bit one's.
    cost_figure fp32_matmul_passes;
    cost_figure fp32_transpose_passes;
    // ScalarE cycles per 4-byte element (fp32, int32, tf32): it streams
    // fewer bytes per cycle than 4-byte elements need.
    cost_figure scalar_4_byte_element_cycles;
    // A function ScalarE computes from its lookup tables (exp, tanh, ...)
    // costs a 4-byte element this percent of a copy's cycles.
    cost_figure scalar_4_byte_lookup_percent;
    // Vector cycles per element of a reciprocal.
    cost_figure reciprocal_element_cycles;
    // A dependent instruction (one that waits on a semaphore) starts this
    // many of its engine's cycles after the semaphore last changed.
    cost_figure dependency_cycles;
    // DMA (A.6): a static trigger (descriptors written by the compiler)
    // keeps its engine busy dma_static_trigger_cycles, a hardware-generated
    // one (HWDGE, where has_hardware_dge) dma_instruction_ns; data starts
    // moving dma_start_ns after the instruction began; each descriptor (one
    // per partition) costs its bytes plus dma_descriptor_bytes at the DMA
    // engine's rate.
    cost_figure dma_static_trigger_cycles;
    cost_figure dma_instruction_ns;
    cost_figure dma_start_ns;
    cost_figure dma_descriptor_bytes;
    // A transfer that finds its DMA engines idle reaches them one after
    // another, this far apart: its data ends that much later per engine
    // after the first than if they all started at once.
    cost_figure dma_engine_stagger_ns;
    // What share of its rate a DMA engine reaches on long transfers.
    cost_figure dma_efficiency_percent;
    // A DMA that transposes 2- or 4-byte elements, where has_dma_transpose,
    // moves at this percent of a copy's rate; SBUF to SBUF at the second.
    cost_figure dma_transpose_percent;
    cost_figure dma_sbuf_transpose_percent;
    // Every execution's fixed cost outside every engine (K1): the core is
    // busy with it before its engines start and after they and its DMA
    // end; profiles count it in total_time, not in any active time.
    cost_figure execution_preamble_ns;
    cost_figure execution_postamble_ns;
    // After the execution's preamble every engine runs this many
    // instructions of its own preamble (K1), each this long, in its active
    // time, before its stream's first.
    cost_figure engine_preamble_instructions;
    cost_figure engine_preamble_instruction_ns;
    // The Tensor engine's current limit, where has_tensor_throttle: below
    // half busy over the window, its next burst of array work starts at
    // start_percent of full speed and ramps back to full over ramp_ns.
    cost_figure tensor_throttle_window_ns;
    cost_figure tensor_throttle_start_percent;
    cost_figure tensor_throttle_ramp_ns;
    // Vector and GpSimd cannot use SBUF at once, nor Vector and Scalar PSUM
    // (A.1): a stretch waits for the engine that holds the port.
    bool shared_data_ports;
    // Hardware descriptor generation: a DMA instruction may have its
    // descriptors made by the DMA engines (A.6).
    bool has_hardware_dge;
    // Vector runs 16-bit copies and all-bf16 SBUF arithmetic 2-4x faster (A.5).
    bool vector_performance_mode;
    // trn2's dI/dt throttle on the Tensor engine (engines.md).
    bool has_tensor_throttle;
    // DMA engines that transpose as they copy (A.6: trn2 and trn3).
    bool has_dma_transpose;

    // Every figure with its name, for a table of them (docs, tests).
    struct named_figure {
        std::string_view name;
        const cost_figure& figure;
    };
    std::array<named_figure, 24> figures() const;
};

const core_costs& costs_of(core_generation generation);
std::span<const core_costs> every_core_costs();

} // namespace neuron::model
