#include "summary_bandwidth.h"

#include <string_view>

namespace neuron::profile {
namespace {

// What real summaries divide by (engines-calibration.md, "Profiler
// denominators"; engines.md C, the summary keys): 410 GB/s per core on trn1
// and inf2, half the device's 820 GB/s, and 716 GB/s per physical core on
// trn2, one HBM stack's share. The profiler's own figures, not the model's
// memory rate.
struct family_bandwidth {
    std::string_view instance_prefix;
    double bytes_per_s;
};
constexpr family_bandwidth families[] = {
    {"trn1", 410e9},
    {"inf2", 410e9},
    {"trn2", 716e9},
};

} // namespace

double summary_core_hbm_bytes_per_s(const core_timeline& t) {
    for (const auto& f : families) {
        if (t.instance_type.starts_with(f.instance_prefix)) return f.bytes_per_s;
    }
    // No summary seen from it: the device's rate shared by its cores.
    const auto& f = t.figures;
    return f.cores_per_device == 0 ? 0.0 : static_cast<double>(f.memory_bytes_per_ns) * 1e9 / f.cores_per_device;
}

} // namespace neuron::profile
