#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron::model {

// Where a device sits on an instance's PCI bus and which host CPUs serve it:
// what neuron-ls shows as PCI BDF, CPU AFFINITY and NUMA NODE (facts and
// sources: docs/neuron-ls-facts.md).
struct pci_placement {
    std::string_view bdf;          // "0000:cc:00.0"
    std::string_view cpu_affinity; // "48-95,144-191"
    std::string_view numa_node;    // "1"; "-1" where the instance has no NUMA information
};

// Device `device` (0-based) of instance type `instance`; none for an
// unknown type or a device the type does not have.
std::optional<pci_placement> pci_placement_of(std::string_view instance, std::uint32_t device);

} // namespace neuron::model
