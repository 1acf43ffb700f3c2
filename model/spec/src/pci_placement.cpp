#include "neuron/model/spec/pci_placement.h"

#include <array>
#include <span>

namespace neuron::model {
namespace {

using row = pci_placement;

// Single-device sizes not captured: the BDF the captured small sizes show,
// every vCPU, no NUMA information.
constexpr std::array inf1_xlarge{row{"0000:00:1f.0", "0-3", "-1"}};  // BDF captured; CPUs inferred (4 vCPUs)
constexpr std::array inf1_2xlarge{row{"0000:00:1f.0", "0-7", "-1"}}; // inferred (8 vCPUs)

constexpr std::array inf1_6xlarge{
    row{"0000:00:1c.0", "0-23", "-1"},
    row{"0000:00:1d.0", "0-23", "-1"},
    row{"0000:00:1e.0", "0-23", "-1"},
    row{"0000:00:1f.0", "0-23", "-1"},
};

// Inferred: runtime logs start the BDFs at 00:10.0, 11.0, 12.0, which 16
// devices continue to 1f.0; two NUMA nodes split like inf2.24xlarge's (96 vCPUs).
constexpr std::array inf1_24xlarge{
    row{"0000:00:10.0", "0-23,48-71", "0"},  row{"0000:00:11.0", "0-23,48-71", "0"},
    row{"0000:00:12.0", "0-23,48-71", "0"},  row{"0000:00:13.0", "0-23,48-71", "0"},
    row{"0000:00:14.0", "0-23,48-71", "0"},  row{"0000:00:15.0", "0-23,48-71", "0"},
    row{"0000:00:16.0", "0-23,48-71", "0"},  row{"0000:00:17.0", "0-23,48-71", "0"},
    row{"0000:00:18.0", "24-47,72-95", "1"}, row{"0000:00:19.0", "24-47,72-95", "1"},
    row{"0000:00:1a.0", "24-47,72-95", "1"}, row{"0000:00:1b.0", "24-47,72-95", "1"},
    row{"0000:00:1c.0", "24-47,72-95", "1"}, row{"0000:00:1d.0", "24-47,72-95", "1"},
    row{"0000:00:1e.0", "24-47,72-95", "1"}, row{"0000:00:1f.0", "24-47,72-95", "1"},
};

constexpr std::array inf2_xlarge{row{"0000:00:1f.0", "0-3", "-1"}};
constexpr std::array inf2_8xlarge{row{"0000:00:1f.0", "0-31", "-1"}}; // BDF captured (short form); CPUs inferred

constexpr std::array inf2_24xlarge{
    row{"0000:20:1e.0", "24-47,72-95", "1"}, row{"0000:20:1f.0", "24-47,72-95", "1"},
    row{"0000:10:1e.0", "0-23,48-71", "0"},  row{"0000:10:1f.0", "0-23,48-71", "0"},
    row{"0000:10:1d.0", "0-23,48-71", "0"},  row{"0000:20:1d.0", "24-47,72-95", "1"},
};

constexpr std::array inf2_48xlarge{
    row{"0000:80:1e.0", "48-71,144-167", "2"},
    row{"0000:90:1e.0", "72-95,168-191", "3"},
    row{"0000:80:1d.0", "48-71,144-167", "2"},
    row{"0000:90:1f.0", "72-95,168-191", "3"},
    row{"0000:80:1f.0", "48-71,144-167", "2"},
    row{"0000:90:1d.0", "72-95,168-191", "3"},
    row{"0000:20:1e.0", "24-47,120-143", "1"},
    row{"0000:20:1f.0", "24-47,120-143", "1"},
    // Devices 8-11 inferred: three slots per node, as nodes 2 and 3 have;
    // bus 10 on node 0 and bus 20 on node 1, as inf2.24xlarge has them.
    row{"0000:10:1e.0", "0-23,96-119", "0"},
    row{"0000:10:1f.0", "0-23,96-119", "0"},
    row{"0000:10:1d.0", "0-23,96-119", "0"},
    row{"0000:20:1d.0", "24-47,120-143", "1"},
};

constexpr std::array trn1_2xlarge{row{"0000:00:1e.0", "0-7", "-1"}};

// trn1n.32xlarge shares it (inferred: the same board, more network).
constexpr std::array trn1_32xlarge{
    row{"0000:10:1b.0", "0-31,64-95", "0"},   row{"0000:10:1e.0", "0-31,64-95", "0"},
    row{"0000:a0:1b.0", "32-63,96-127", "1"}, row{"0000:a0:1e.0", "32-63,96-127", "1"},
    row{"0000:20:1e.0", "0-31,64-95", "0"},   row{"0000:20:1c.0", "0-31,64-95", "0"},
    row{"0000:90:1e.0", "32-63,96-127", "1"}, row{"0000:90:1c.0", "32-63,96-127", "1"},
    row{"0000:20:1d.0", "0-31,64-95", "0"},   row{"0000:20:1b.0", "0-31,64-95", "0"},
    row{"0000:90:1d.0", "32-63,96-127", "1"}, row{"0000:90:1b.0", "32-63,96-127", "1"},
    row{"0000:10:1c.0", "0-31,64-95", "0"},   row{"0000:10:1d.0", "0-31,64-95", "0"},
    row{"0000:a0:1c.0", "32-63,96-127", "1"}, row{"0000:a0:1d.0", "32-63,96-127", "1"},
};

constexpr std::array trn2_3xlarge{row{"0000:33:00.0", "0-11", "0"}};

// The docs' trn2n.48xlarge, which a trn2.48xlarge capture agrees with
// (device 13 at e1:00.0); trn2u.48xlarge shares it (inferred).
constexpr std::array trn2_48xlarge{
    row{"0000:cc:00.0", "48-95,144-191", "1"}, row{"0000:b5:00.0", "48-95,144-191", "1"},
    row{"0000:b6:00.0", "48-95,144-191", "1"}, row{"0000:cb:00.0", "48-95,144-191", "1"},
    row{"0000:6f:00.0", "0-47,96-143", "0"},   row{"0000:58:00.0", "0-47,96-143", "0"},
    row{"0000:59:00.0", "0-47,96-143", "0"},   row{"0000:6e:00.0", "0-47,96-143", "0"},
    row{"0000:9b:00.0", "0-47,96-143", "0"},   row{"0000:84:00.0", "0-47,96-143", "0"},
    row{"0000:85:00.0", "0-47,96-143", "0"},   row{"0000:9a:00.0", "0-47,96-143", "0"},
    row{"0000:f8:00.0", "48-95,144-191", "1"}, row{"0000:e1:00.0", "48-95,144-191", "1"},
    row{"0000:e2:00.0", "48-95,144-191", "1"}, row{"0000:f7:00.0", "48-95,144-191", "1"},
};

struct instance_rows {
    std::string_view instance;
    std::span<const row> rows;
};

constexpr std::array table{
    instance_rows{"inf1.xlarge", inf1_xlarge},      instance_rows{"inf1.2xlarge", inf1_2xlarge},
    instance_rows{"inf1.6xlarge", inf1_6xlarge},    instance_rows{"inf1.24xlarge", inf1_24xlarge},
    instance_rows{"inf2.xlarge", inf2_xlarge},      instance_rows{"inf2.8xlarge", inf2_8xlarge},
    instance_rows{"inf2.24xlarge", inf2_24xlarge},  instance_rows{"inf2.48xlarge", inf2_48xlarge},
    instance_rows{"trn1.2xlarge", trn1_2xlarge},    instance_rows{"trn1.32xlarge", trn1_32xlarge},
    instance_rows{"trn1n.32xlarge", trn1_32xlarge}, instance_rows{"trn2.3xlarge", trn2_3xlarge},
    instance_rows{"trn2.48xlarge", trn2_48xlarge},  instance_rows{"trn2u.48xlarge", trn2_48xlarge},
};

} // namespace

std::optional<pci_placement> pci_placement_of(std::string_view instance, std::uint32_t device) {
    for (const auto& entry : table) {
        if (entry.instance == instance && device < entry.rows.size()) return entry.rows[device];
    }
    return std::nullopt;
}

} // namespace neuron::model
