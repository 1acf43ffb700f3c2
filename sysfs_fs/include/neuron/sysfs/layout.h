#pragma once

#include "neuron/model/spec/counter.h"
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/state/ecc.h"
#include "neuron/sysfs/driver_release.h"
#include "neuron/sysfs/layout_feature.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neuron::sysfs {

// What one driver release shows for one instance type: which counters are
// files and under which names, the file modes, and the identity strings.
class layout {
public:
    // Throws unsupported_combination_error when the release had no support for
    // the instance's devices (Trainium2 before 2.16, Inferentia from 2.25).
    layout(const model::instance_type& instance, const driver_release& release, std::uint32_t char_major);

    const model::instance_type& instance() const { return m_instance; }
    const driver_release& release() const { return m_release; }
    std::uint32_t char_major() const { return m_char_major; }
    int dhal_version() const { return m_instance.spec().dhal_version; }
    bool has(layout_feature feature) const { return has_feature(m_release, feature); }

    // The directory a counter has in this release, or nothing when the
    // release shows no such counter.
    std::optional<std::string_view> counter_directory(model::counter_kind kind) const;
    // Memory counters show `peak` from 2.8 on; others never do.
    bool shows_peak(model::counter_kind kind) const;

    std::uint32_t metric_mode() const; // 0644, or 0600 before 2.15
    bool has_hardware_ecc() const;
    // How this release's driver reads the HBM error registers.
    model::ecc_reading ecc_reading() const;
    // 2.10 to 2.16: how often the driver's thread set the memory category
    // counters from the runtime's datastore; none from 2.17 (per allocation).
    std::optional<std::chrono::nanoseconds> category_poll_period() const;
    bool has_serial_number() const;
    bool has_pe_counters() const;

    std::string device_arch_type() const; // "NDv2\n"
    std::string core_arch_type() const;   // "NCv2\n" (Inf2 before 2.15: "NCv3\n")
    std::string bare_arch_type() const;   // 2.7's metrics/arch_type: "v2\n"

private:
    const model::instance_type& m_instance;
    const driver_release& m_release;
    std::uint32_t m_char_major;
};

} // namespace neuron::sysfs
