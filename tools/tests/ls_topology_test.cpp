#define BOOST_TEST_MODULE ls_topology
// neuron-ls --topology: the narrow table, then the drawing of the links.
#include "neuron/tools/ls_view.h"
#include "support/ls_samples.h"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <sstream>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

ls_options topology() {
    ls_options o;
    o.topology = true;
    return o;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

void unlink(host_sample& h, std::uint32_t a, std::uint32_t b) {
    std::erase(h.devices[a].connected, b);
    std::erase(h.devices[b].connected, a);
}

// The docs' (HEAD) 4x4 torus with wrap-around links and legend.
const std::string torus = R"(Neuron Device Topology
      *        *        *        *      
      │        │        │        │      
      ▼        ▼        ▼        ▼      
*––►[ 0 ]◄––►[ 1 ]◄––►[ 2 ]◄––►[ 3 ]◄––*
      ▲        ▲        ▲        ▲      
      │        │        │        │      
      ▼        ▼        ▼        ▼      
*––►[ 4 ]◄––►[ 5 ]◄––►[ 6 ]◄––►[ 7 ]◄––*
      ▲        ▲        ▲        ▲      
      │        │        │        │      
      ▼        ▼        ▼        ▼      
*––►[ 8 ]◄––►[ 9 ]◄––►[10 ]◄––►[11 ]◄––*
      ▲        ▲        ▲        ▲      
      │        │        │        │      
      ▼        ▼        ▼        ▼      
*––►[12 ]◄––►[13 ]◄––►[14 ]◄––►[15 ]◄––*
      ▲        ▲        ▲        ▲      
      │        │        │        │      
      *        *        *        *      

Legend:

        *––► = Wrap-around link
)";

} // namespace

// trn1.32xlarge: the table with the short BDF and no CORE IDS, CPU or NUMA
// column; two blank lines; the docs' torus.
BOOST_AUTO_TEST_CASE(trn1_32xlarge_draws_the_torus) {
    BOOST_TEST(ls_text(instance_sample("trn1.32xlarge"), topology()) == R"(instance-type: trn1.32xlarge
instance-id: i-0123456789abcdef0
+--------+--------+--------+---------------+---------+
| NEURON | NEURON | NEURON |   CONNECTED   |   PCI   |
| DEVICE | CORES  | MEMORY |    DEVICES    |   BDF   |
+--------+--------+--------+---------------+---------+
| 0      | 2      | 32 GB  | 12, 3, 4, 1   | 10:1b.0 |
| 1      | 2      | 32 GB  | 13, 0, 5, 2   | 10:1e.0 |
| 2      | 2      | 32 GB  | 14, 1, 6, 3   | a0:1b.0 |
| 3      | 2      | 32 GB  | 15, 2, 7, 0   | a0:1e.0 |
| 4      | 2      | 32 GB  | 0, 7, 8, 5    | 20:1e.0 |
| 5      | 2      | 32 GB  | 1, 4, 9, 6    | 20:1c.0 |
| 6      | 2      | 32 GB  | 2, 5, 10, 7   | 90:1e.0 |
| 7      | 2      | 32 GB  | 3, 6, 11, 4   | 90:1c.0 |
| 8      | 2      | 32 GB  | 4, 11, 12, 9  | 20:1d.0 |
| 9      | 2      | 32 GB  | 5, 8, 13, 10  | 20:1b.0 |
| 10     | 2      | 32 GB  | 6, 9, 14, 11  | 90:1d.0 |
| 11     | 2      | 32 GB  | 7, 10, 15, 8  | 90:1b.0 |
| 12     | 2      | 32 GB  | 8, 15, 0, 13  | 10:1c.0 |
| 13     | 2      | 32 GB  | 9, 12, 1, 14  | 10:1d.0 |
| 14     | 2      | 32 GB  | 10, 13, 2, 15 | a0:1c.0 |
| 15     | 2      | 32 GB  | 11, 14, 3, 12 | a0:1d.0 |
+--------+--------+--------+---------------+---------+


Neuron Device Topology
      *        *        *        *      
      │        │        │        │      
      ▼        ▼        ▼        ▼      
*––►[ 0 ]◄––►[ 1 ]◄––►[ 2 ]◄––►[ 3 ]◄––*
      ▲        ▲        ▲        ▲      
      │        │        │        │      
      ▼        ▼        ▼        ▼      
*––►[ 4 ]◄––►[ 5 ]◄––►[ 6 ]◄––►[ 7 ]◄––*
      ▲        ▲        ▲        ▲      
      │        │        │        │      
      ▼        ▼        ▼        ▼      
*––►[ 8 ]◄––►[ 9 ]◄––►[10 ]◄––►[11 ]◄––*
      ▲        ▲        ▲        ▲      
      │        │        │        │      
      ▼        ▼        ▼        ▼      
*––►[12 ]◄––►[13 ]◄––►[14 ]◄––►[15 ]◄––*
      ▲        ▲        ▲        ▲      
      │        │        │        │      
      *        *        *        *      

Legend:

        *––► = Wrap-around link
)");
}

// The trn2 driver lists the links in another order; the same torus.
BOOST_AUTO_TEST_CASE(trn2_48xlarge_draws_the_same_torus) {
    BOOST_TEST(ls_topology(instance_sample("trn2.48xlarge")) == torus);
}

// inf1.6xlarge: a chain, no wrap-around, no legend (the docs' drawing; the
// blank lines before the title as the newer docs have them).
BOOST_AUTO_TEST_CASE(inf1_6xlarge_draws_a_chain) {
    BOOST_TEST(ls_text(instance_sample("inf1.6xlarge"), topology()) == R"(instance-type: inf1.6xlarge
instance-id: i-0123456789abcdef0
+--------+--------+--------+-----------+---------+
| NEURON | NEURON | NEURON | CONNECTED |   PCI   |
| DEVICE | CORES  | MEMORY |  DEVICES  |   BDF   |
+--------+--------+--------+-----------+---------+
| 0      | 4      | 8 GB   | 1         | 00:1c.0 |
| 1      | 4      | 8 GB   | 2, 0      | 00:1d.0 |
| 2      | 4      | 8 GB   | 3, 1      | 00:1e.0 |
| 3      | 4      | 8 GB   | 2         | 00:1f.0 |
+--------+--------+--------+-----------+---------+


Neuron Device Topology

  [ 0 ]◄––►[ 1 ]◄––►[ 2 ]◄––►[ 3 ]
)");
}

BOOST_AUTO_TEST_CASE(inf2_24xlarge_draws_a_chain) {
    BOOST_TEST(ls_topology(instance_sample("inf2.24xlarge")) == R"(Neuron Device Topology

  [ 0 ]◄––►[ 1 ]◄––►[ 2 ]◄––►[ 3 ]◄––►[ 4 ]◄––►[ 5 ]
)");
}

// inf1.24xlarge's 16 devices are a chain, not a torus: one row.
BOOST_AUTO_TEST_CASE(inf1_24xlarge_draws_one_long_chain) {
    BOOST_TEST(ls_topology(instance_sample("inf1.24xlarge")) == R"(Neuron Device Topology

  [ 0 ]◄––►[ 1 ]◄––►[ 2 ]◄––►[ 3 ]◄––►[ 4 ]◄––►[ 5 ]◄––►[ 6 ]◄––►[ 7 ]◄––►[ 8 ]◄––►[ 9 ]◄––►[10 ]◄––►[11 ]◄––►[12 ]◄––►[13 ]◄––►[14 ]◄––►[15 ]
)");
}

// inf2.48xlarge's devices form a ring: its ends wrap around, with the legend.
BOOST_AUTO_TEST_CASE(inf2_48xlarge_draws_a_ring) {
    BOOST_TEST(ls_topology(instance_sample("inf2.48xlarge")) == R"(Neuron Device Topology

*––►[ 0 ]◄––►[ 1 ]◄––►[ 2 ]◄––►[ 3 ]◄––►[ 4 ]◄––►[ 5 ]◄––►[ 6 ]◄––►[ 7 ]◄––►[ 8 ]◄––►[ 9 ]◄––►[10 ]◄––►[11 ]◄––*

Legend:

        *––► = Wrap-around link
)");
}

// One device: the table only.
BOOST_AUTO_TEST_CASE(one_device_has_no_drawing) {
    const auto h = instance_sample("trn1.2xlarge");
    BOOST_TEST(ls_topology(h).empty());
    BOOST_TEST(ls_text(h, topology()) == R"(instance-type: trn1.2xlarge
instance-id: i-0123456789abcdef0
+--------+--------+--------+---------+
| NEURON | NEURON | NEURON |   PCI   |
| DEVICE | CORES  | MEMORY |   BDF   |
+--------+--------+--------+---------+
| 0      | 2      | 32 GB  | 00:1e.0 |
+--------+--------+--------+---------+
)");
}

// The drawing shows what `connected` says: a missing link is a gap.
BOOST_AUTO_TEST_CASE(missing_links_are_left_out_of_the_drawing) {
    auto h = instance_sample("trn1.32xlarge");
    unlink(h, 5, 6);  // across row 1
    unlink(h, 1, 5);  // between rows 0 and 1, column 1
    unlink(h, 2, 14); // column 2's wrap-around
    const auto lines = lines_of(ls_topology(h));
    BOOST_REQUIRE_EQUAL(lines.size(), 24u);
    BOOST_TEST(lines[1] == "      *        *                 *      ");
    BOOST_TEST(lines[5] == "      ▲                 ▲        ▲      ");
    BOOST_TEST(lines[6] == "      │                 │        │      ");
    BOOST_TEST(lines[7] == "      ▼                 ▼        ▼      ");
    BOOST_TEST(lines[8] == "*––►[ 4 ]◄––►[ 5 ]    [ 6 ]◄––►[ 7 ]◄––*");
    BOOST_TEST(lines[19] == "      *        *                 *      ");
}

// --topology's table never has process columns.
BOOST_AUTO_TEST_CASE(topology_table_has_no_process_columns) {
    auto h = instance_sample("inf1.6xlarge");
    add_runtime(h, 23518, "neuron-app01 infer", {0});
    add_runtime(h, 23531, "neuron-app02 infer", {0});
    const auto text = ls_text(h, topology());
    BOOST_TEST(text.find("PID") == std::string::npos);
    BOOST_TEST(text == ls_text(instance_sample("inf1.6xlarge"), topology()));
}
