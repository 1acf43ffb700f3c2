#define BOOST_TEST_MODULE topology
#include "neuron/model/spec/instance_catalogue.h"
#include "neuron/model/spec/topology.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <vector>

using namespace neuron::model;
using ids = std::vector<std::uint32_t>;

namespace {

ids of(std::string_view instance, std::uint32_t device) {
    const auto& type = find_instance_type(instance);
    return connected_devices(type.kind, type.device_count, device);
}

} // namespace

BOOST_AUTO_TEST_CASE(trn1_32xlarge_is_the_drivers_torus_table) {
    const ids table[16] = {{12, 3, 4, 1},  {13, 0, 5, 2},  {14, 1, 6, 3},   {15, 2, 7, 0},
                           {0, 7, 8, 5},   {1, 4, 9, 6},   {2, 5, 10, 7},   {3, 6, 11, 4},
                           {4, 11, 12, 9}, {5, 8, 13, 10}, {6, 9, 14, 11},  {7, 10, 15, 8},
                           {8, 15, 0, 13}, {9, 12, 1, 14}, {10, 13, 2, 15}, {11, 14, 3, 12}};
    for (std::uint32_t d = 0; d < 16; ++d) {
        BOOST_TEST_CONTEXT("device " << d) {
            BOOST_TEST(of("trn1.32xlarge", d) == table[d]);
            BOOST_TEST(of("trn1n.32xlarge", d) == table[d]);
            // neuron-ls: [up, left, down, right] on a 4x4 grid with wrap.
            const std::uint32_t r = d / 4, c = d % 4;
            const ids grid{((r + 3) % 4) * 4 + c, r * 4 + (c + 3) % 4, ((r + 1) % 4) * 4 + c, r * 4 + (c + 1) % 4};
            BOOST_TEST(table[d] == grid);
        }
    }
}

BOOST_AUTO_TEST_CASE(trn2_48xlarge_is_the_drivers_seng_torus_table) {
    const ids table[16] = {{12, 1, 3, 4},  {0, 13, 5, 2},  {14, 3, 1, 6},   {2, 15, 7, 0},
                           {8, 5, 7, 0},   {4, 9, 1, 6},   {10, 7, 5, 2},   {6, 11, 3, 4},
                           {4, 9, 11, 12}, {8, 5, 13, 10}, {6, 11, 9, 14},  {10, 7, 15, 8},
                           {0, 13, 15, 8}, {12, 1, 9, 14}, {2, 15, 13, 10}, {14, 3, 11, 12}};
    for (std::uint32_t d = 0; d < 16; ++d) {
        BOOST_TEST_CONTEXT("device " << d) {
            BOOST_TEST(of("trn2.48xlarge", d) == table[d]);
            BOOST_TEST(of("trn2u.48xlarge", d) == table[d]);
        }
    }
}

BOOST_AUTO_TEST_CASE(torus_ids_carry_the_0x10_bit_of_the_device_index) {
    BOOST_TEST(connected_devices(device_kind::trainium, 32, 17) == (ids{29, 16, 21, 18}));
    BOOST_TEST(connected_devices(device_kind::trainium2, 32, 16) == (ids{28, 17, 19, 20}));
    BOOST_TEST(connected_devices(device_kind::trainium, 8, 1).empty()); // not a multiple of 16
}

BOOST_AUTO_TEST_CASE(inf2_48xlarge_is_a_ring_of_12) {
    BOOST_TEST(of("inf2.48xlarge", 0) == (ids{11, 1}));
    BOOST_TEST(of("inf2.48xlarge", 5) == (ids{4, 6}));
    BOOST_TEST(of("inf2.48xlarge", 11) == (ids{10, 0}));
}

BOOST_AUTO_TEST_CASE(inf2_24xlarge_is_a_chain_of_6) {
    BOOST_TEST(of("inf2.24xlarge", 0) == (ids{1}));
    BOOST_TEST(of("inf2.24xlarge", 3) == (ids{2, 4}));
    BOOST_TEST(of("inf2.24xlarge", 5) == (ids{4}));
}

BOOST_AUTO_TEST_CASE(inf1_is_a_chain_east_first) {
    // neuron-ls on inf1.6xlarge: 1 / 2, 0 / 3, 1 / 2
    BOOST_TEST(of("inf1.6xlarge", 0) == (ids{1}));
    BOOST_TEST(of("inf1.6xlarge", 1) == (ids{2, 0}));
    BOOST_TEST(of("inf1.6xlarge", 2) == (ids{3, 1}));
    BOOST_TEST(of("inf1.6xlarge", 3) == (ids{2}));
    BOOST_TEST(of("inf1.24xlarge", 15) == (ids{14}));
}

BOOST_AUTO_TEST_CASE(single_device_instances_have_no_neighbours) {
    for (auto name : {"inf1.xlarge", "inf1.2xlarge", "inf2.xlarge", "inf2.8xlarge", "trn1.2xlarge", "trn2.3xlarge"}) {
        BOOST_TEST_CONTEXT(name) { BOOST_TEST(of(name, 0).empty()); }
    }
}

BOOST_AUTO_TEST_CASE(every_link_in_the_catalogue_is_in_range_and_symmetric) {
    for (const auto& type : instance_catalogue()) {
        for (std::uint32_t d = 0; d < type.device_count; ++d) {
            for (auto peer : connected_devices(type.kind, type.device_count, d)) {
                BOOST_TEST_CONTEXT(type.name << " device " << d << " -> " << peer) {
                    BOOST_TEST(peer < type.device_count);
                    BOOST_TEST(peer != d);
                    const auto back = connected_devices(type.kind, type.device_count, peer);
                    BOOST_TEST((std::find(back.begin(), back.end(), d) != back.end()));
                }
            }
        }
    }
}
