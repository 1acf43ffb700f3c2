#pragma once

// Host samples built by hand for the views' tests: an instance's devices as
// the catalogue, the driver's topology and the PCI placement table have
// them, with no processes, then whatever a test adds.

#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/spec/logical_cores.h"
#include "neuron/model/spec/pci_placement.h"
#include "neuron/model/spec/topology.h"
#include "neuron/tools/host_sample.h"

#include <string>

namespace neuron::tools::testing {

inline host_sample instance_sample(const std::string& instance, std::uint32_t lnc = 0) {
    const auto& type = model::find_instance_type(instance);
    host_sample h;
    h.time_ns = 1'000'000'000;
    h.instance_type = instance;
    h.instance_id = "i-0123456789abcdef0";
    h.lnc = lnc != 0 ? lnc : model::default_lnc(type);
    for (std::uint32_t d = 0; d < type.device_count; ++d) {
        device_sample dev;
        dev.index = d;
        dev.physical_cores = type.cores_per_device();
        dev.connected = model::connected_devices(type.kind, type.device_count, d);
        dev.device_name = std::string(type.spec().device_name);
        dev.memory_bytes = type.device_memory_bytes();
        if (const auto placement = model::pci_placement_of(instance, d)) {
            dev.bdf = std::string(placement->bdf);
            dev.cpu_affinity = std::string(placement->cpu_affinity);
            dev.numa_node = std::string(placement->numa_node);
        }
        for (std::uint32_t c = 0; c < dev.physical_cores; ++c) dev.cores.push_back(core_sample{c, {}});
        h.devices.push_back(std::move(dev));
    }
    return h;
}

} // namespace neuron::tools::testing
