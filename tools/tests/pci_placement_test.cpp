#define BOOST_TEST_MODULE pci_placement
// The per-instance PCI placement table behind neuron-ls's PCI BDF, CPU
// AFFINITY and NUMA NODE.
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/spec/pci_placement.h"

#include <boost/test/unit_test.hpp>

#include <map>
#include <regex>
#include <set>
#include <string>

using neuron::model::pci_placement_of;

namespace {

std::string bdf_of(std::string_view instance, std::uint32_t device) {
    return std::string(pci_placement_of(instance, device).value().bdf);
}

} // namespace

// Every device of every catalogued type has a placement, none beyond; BDFs
// are well formed and distinct within an instance.
BOOST_AUTO_TEST_CASE(every_catalogued_device_has_a_distinct_well_formed_placement) {
    const std::regex bdf(R"([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])");
    const std::regex cpus(R"(\d+-\d+(,\d+-\d+)*)");
    for (const auto& type : neuron::model::instance_catalogue()) {
        BOOST_TEST_CONTEXT(type.name) {
            std::set<std::string_view> seen;
            for (std::uint32_t d = 0; d < type.device_count; ++d) {
                const auto p = pci_placement_of(type.name, d);
                BOOST_REQUIRE(p.has_value());
                BOOST_TEST(std::regex_match(std::string(p->bdf), bdf), p->bdf);
                BOOST_TEST(std::regex_match(std::string(p->cpu_affinity), cpus), p->cpu_affinity);
                BOOST_TEST(seen.insert(p->bdf).second, p->bdf);
            }
            BOOST_TEST(!pci_placement_of(type.name, type.device_count).has_value());
        }
    }
}

// Within an instance, devices with the same CPUs are on the same NUMA node.
BOOST_AUTO_TEST_CASE(cpu_affinity_determines_the_numa_node) {
    for (const auto& type : neuron::model::instance_catalogue()) {
        std::map<std::string_view, std::string_view> node_of;
        for (std::uint32_t d = 0; d < type.device_count; ++d) {
            const auto p = pci_placement_of(type.name, d).value();
            const auto [it, fresh] = node_of.emplace(p.cpu_affinity, p.numa_node);
            BOOST_TEST(it->second == p.numa_node, type.name << " device " << d);
        }
    }
}

// Captured rows (docs/neuron-ls-facts.md).
BOOST_AUTO_TEST_CASE(captured_rows) {
    const auto trn1 = pci_placement_of("trn1.32xlarge", 2).value();
    BOOST_TEST(trn1.bdf == "0000:a0:1b.0");
    BOOST_TEST(trn1.cpu_affinity == "32-63,96-127");
    BOOST_TEST(trn1.numa_node == "1");
    BOOST_TEST(bdf_of("trn1.32xlarge", 15) == "0000:a0:1d.0");

    const auto trn2 = pci_placement_of("trn2.48xlarge", 13).value();
    BOOST_TEST(trn2.bdf == "0000:e1:00.0");
    BOOST_TEST(trn2.cpu_affinity == "48-95,144-191");
    BOOST_TEST(trn2.numa_node == "1");
    BOOST_TEST(pci_placement_of("trn2.48xlarge", 4).value().cpu_affinity == "0-47,96-143");

    const auto small = pci_placement_of("trn2.3xlarge", 0).value();
    BOOST_TEST(small.bdf == "0000:33:00.0");
    BOOST_TEST(small.cpu_affinity == "0-11");
    BOOST_TEST(small.numa_node == "0");

    BOOST_TEST(bdf_of("inf1.6xlarge", 0) == "0000:00:1c.0");
    BOOST_TEST(pci_placement_of("inf1.6xlarge", 3).value().numa_node == "-1");
    BOOST_TEST(bdf_of("inf2.24xlarge", 5) == "0000:20:1d.0");
    BOOST_TEST(pci_placement_of("inf2.24xlarge", 2).value().cpu_affinity == "0-23,48-71");
    BOOST_TEST(bdf_of("inf2.48xlarge", 3) == "0000:90:1f.0");
    BOOST_TEST(pci_placement_of("inf2.xlarge", 0).value().cpu_affinity == "0-3");
    BOOST_TEST(bdf_of("trn1.2xlarge", 0) == "0000:00:1e.0");
}

// Inferred: the network-optimised sizes share their base size's board.
BOOST_AUTO_TEST_CASE(variants_share_their_base_sizes_placement) {
    for (std::uint32_t d = 0; d < 16; ++d) {
        BOOST_TEST(bdf_of("trn1n.32xlarge", d) == bdf_of("trn1.32xlarge", d));
        BOOST_TEST(bdf_of("trn2u.48xlarge", d) == bdf_of("trn2.48xlarge", d));
    }
}

BOOST_AUTO_TEST_CASE(unknown_instances_have_none) {
    BOOST_TEST(!pci_placement_of("p5.48xlarge", 0).has_value());
    BOOST_TEST(!pci_placement_of("", 0).has_value());
}
