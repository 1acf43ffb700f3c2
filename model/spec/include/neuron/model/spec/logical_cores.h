#pragma once

#include "neuron/model/spec/instance_catalogue.h"

#include <cstdint>
#include <vector>

namespace neuron::model {

struct physical_core {
    std::uint32_t device = 0;
    std::uint32_t core = 0;
    bool operator==(const physical_core&) const = default;
};

// Logical NeuronCores over an instance's physical ones (nrt-api.md §3.7):
// with LNC=n, logical core L is the n physical cores starting at global
// physical index L*n. LNC does not change sysfs, which always shows the
// physical cores.
class logical_cores {
public:
    logical_cores(const instance_type& instance, std::uint32_t lnc);

    std::uint32_t lnc() const { return m_lnc; }
    std::uint32_t total() const { return m_total; }
    std::vector<physical_core> physical(std::uint32_t logical) const;
    // Memory and datastore counts of a logical core go to its first physical core.
    physical_core first_physical(std::uint32_t logical) const { return physical(logical).front(); }
    // The logical core a physical core belongs to.
    std::uint32_t logical_of(physical_core p) const;

private:
    std::uint32_t m_lnc;
    std::uint32_t m_per_device;
    std::uint32_t m_total;
};

// LNC choices per generation: Trainium2 takes 1 or 2 (default 2); the others only 1.
std::uint32_t default_lnc(const instance_type& instance);
std::uint32_t max_lnc(const instance_type& instance);

} // namespace neuron::model
