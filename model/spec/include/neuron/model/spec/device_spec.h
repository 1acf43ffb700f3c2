#pragma once

#include "neuron/model/spec/core_costs.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace neuron::model {

enum class device_kind : std::uint8_t { inferentia, inferentia2, trainium, trainium2 };

enum class engine_kind : std::uint8_t { tensor, vector, scalar, gpsimd, sync };
inline constexpr std::size_t engine_count = 5;

std::string_view engine_name(engine_kind kind);
// The engine named "tensor", "vector", ... (engine_name's names); none otherwise.
std::optional<engine_kind> find_engine(std::string_view name);

// PE row groups of the tensor engine (tensor_engine/pe_cntrs), 32 rows each.
inline constexpr std::size_t pe_row_groups = 4;

struct engine_spec {
    engine_kind kind;
    std::uint64_t clock_hz;
};

// What the driver and the SDK architecture pages say about one device
// generation (driver-sysfs.md §1, §7, §9; nrt-api.md §6).
struct device_spec {
    device_kind kind;
    std::uint16_t pci_device_id;
    int dhal_version;                    // the driver's hardware layer: 1, 2 or 3
    std::string_view device_arch_suffix; // info/architecture/arch_type is "ND" + this
    std::string_view core_arch_suffix;   // neuron_coreK/.../arch_type is "NC" + this
    std::string_view instance_type;      // info/architecture/instance_type
    std::string_view device_name;        // info/architecture/device_name
    std::uint32_t cores_per_device;
    std::uint32_t memory_channels; // DRAM/HBM channels, one ECC register each
    std::uint64_t channel_bytes;
    std::uint32_t dma_engines_per_core;
    std::uint32_t queues_per_dma_engine;
    std::uint64_t core_clock_hz;
    std::uint32_t pe_row_groups;       // 0 (no tensor_engine/pe_cntrs) or 4
    std::uint64_t sbuf_bytes_per_core; // on-chip SRAM (0: not published for the generation)
    std::uint64_t psum_bytes_per_core;
    std::uint32_t semaphores_per_core; // 32 on NC-v1, 256 from NC-v2 on
    std::uint64_t dma_bytes_per_ns;    // one DMA engine's rate
    std::uint64_t memory_bytes_per_ns; // the device's DRAM/HBM, shared by its DMA transfers
    bool has_serial_number;
    bool has_ecc_reporting; // stats/hardware/ exists
    std::span<const engine_spec> engines;
    core_generation core; // its NeuronCores' generation, whose costs its programs take

    const core_costs& costs() const { return costs_of(core); }
    // What one DMA engine moves per ns on a long transfer: its rate at its
    // generation's efficiency.
    double dma_engine_bytes_per_ns() const {
        return static_cast<double>(dma_bytes_per_ns * costs().dma_efficiency_percent.value) / 100.0;
    }

    std::uint64_t memory_bytes() const { return channel_bytes * memory_channels; }
};

const device_spec& spec_of(device_kind kind);

// The DRAM/HBM channel whose memory `core` reads and writes: the device's
// cores share its channels in equal, consecutive groups. Trn2's 4 HBM stacks
// are "each shared by 2 NCs" (driver-sysfs.md §9, SDK figures); that the
// pairs are neighbours, and the same rule for Trn1/Inf2 (2 cores, 2
// channels) and Inf1 (4 cores, 2 channels), is inferred. `core` must exist.
std::uint32_t memory_channel_of(const device_spec& spec, std::uint32_t core);

} // namespace neuron::model
