#include "neuron/model/spec/device_spec.h"

#include <array>

namespace neuron::model {
namespace {

constexpr std::uint64_t GiB = 1ull << 30;
constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GHz(double g) { return static_cast<std::uint64_t>(g * 1e9); }

// Engine clocks: nrt-api.md §6. NeuronCore-v1 lists only three engines and
// one NC clock; Sync runs at the NC clock [inferred].
constexpr std::array v1_engines{
    engine_spec{engine_kind::tensor, GHz(1.0)},
    engine_spec{engine_kind::vector, GHz(1.0)},
    engine_spec{engine_kind::scalar, GHz(1.0)},
};
constexpr std::array v2_engines{
    engine_spec{engine_kind::tensor, GHz(2.8)}, engine_spec{engine_kind::vector, GHz(1.12)},
    engine_spec{engine_kind::scalar, GHz(1.4)}, engine_spec{engine_kind::gpsimd, GHz(1.4)},
    engine_spec{engine_kind::sync, GHz(1.4)},
};
constexpr std::array v3_engines{
    engine_spec{engine_kind::tensor, GHz(2.4)}, engine_spec{engine_kind::vector, GHz(0.96)},
    engine_spec{engine_kind::scalar, GHz(1.2)}, engine_spec{engine_kind::gpsimd, GHz(1.2)},
    engine_spec{engine_kind::sync, GHz(1.2)},
};

// DMA engine rates (17 and 23 B/ns) and device memory bandwidth (50 GiB/s,
// 820 GiB/s, 2.9 TB/s): nrt-api.md §6, engines.md A.6. NeuronCore-v1's
// DMA rate is not published: the NC-v2 rate, its DRAM then limits it.
constexpr std::array specs{
    device_spec{device_kind::inferentia,
                0x7064,
                1,
                "v1",
                "v1",
                "Inf1",
                "Inferentia",
                4,
                2,
                4 * GiB,
                3,
                16,
                GHz(1.0),
                0,
                0,
                0,
                32,
                17,
                54,
                false,
                false,
                v1_engines,
                core_generation::nc_v1},
    device_spec{device_kind::inferentia2,
                0x7264,
                2,
                "v3",
                "v2",
                "Inf2",
                "Inferentia2",
                2,
                2,
                16 * GiB,
                16,
                16,
                GHz(1.4),
                4,
                24 * MiB,
                2 * MiB,
                256,
                17,
                880,
                true,
                true,
                v2_engines,
                core_generation::nc_v2},
    device_spec{device_kind::trainium,
                0x7164,
                2,
                "v2",
                "v2",
                "Trn1",
                "Trainium1",
                2,
                2,
                16 * GiB,
                16,
                16,
                GHz(1.4),
                4,
                24 * MiB,
                2 * MiB,
                256,
                17,
                880,
                true,
                true,
                v2_engines,
                core_generation::nc_v2},
    device_spec{device_kind::trainium2,
                0x7364,
                3,
                "v3",
                "v3",
                "Trn2",
                "Trainium2",
                8,
                4,
                24 * GiB,
                16,
                16,
                GHz(1.2),
                4,
                28 * MiB,
                2 * MiB,
                256,
                23,
                2900,
                true,
                true,
                v3_engines,
                core_generation::nc_v3},
};

constexpr bool channels_shared_evenly() {
    for (const auto& s : specs) {
        if (s.memory_channels == 0 || s.cores_per_device % s.memory_channels != 0) return false;
    }
    return true;
}
static_assert(channels_shared_evenly(), "memory_channel_of() gives every channel the same number of cores");

} // namespace

std::string_view engine_name(engine_kind kind) {
    switch (kind) {
    case engine_kind::tensor: return "tensor";
    case engine_kind::vector: return "vector";
    case engine_kind::scalar: return "scalar";
    case engine_kind::gpsimd: return "gpsimd";
    case engine_kind::sync: return "sync";
    }
    return "unknown";
}

std::optional<engine_kind> find_engine(std::string_view name) {
    for (std::size_t e = 0; e < engine_count; ++e) {
        if (engine_name(static_cast<engine_kind>(e)) == name) return static_cast<engine_kind>(e);
    }
    return std::nullopt;
}

const device_spec& spec_of(device_kind kind) {
    for (const auto& spec : specs) {
        if (spec.kind == kind) return spec;
    }
    return specs.front(); // unreachable: every kind has a row
}

std::uint32_t memory_channel_of(const device_spec& spec, std::uint32_t core) {
    return core / (spec.cores_per_device / spec.memory_channels);
}

} // namespace neuron::model
