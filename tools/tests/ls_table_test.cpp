#define BOOST_TEST_MODULE ls_table
// neuron-ls's default table (2.25+ layout) against captured and documented output.
#include "neuron/tools/ls_view.h"
#include "support/ls_samples.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

std::string ls(const host_sample& h) { return ls_text(h, ls_options{}); }

} // namespace

// Real capture (tools of SDK 2.2x): trn1.32xlarge, no process.
BOOST_AUTO_TEST_CASE(trn1_32xlarge_matches_the_capture) {
    auto h = instance_sample("trn1.32xlarge");
    h.instance_id = "i-0fc767be0ec5465d7";
    BOOST_TEST(ls(h) == R"(instance-type: trn1.32xlarge
instance-id: i-0fc767be0ec5465d7
+--------+--------+----------+--------+---------------+--------------+--------------+------+
| NEURON | NEURON |  NEURON  | NEURON |   CONNECTED   |     PCI      |     CPU      | NUMA |
| DEVICE | CORES  | CORE IDS | MEMORY |    DEVICES    |     BDF      |   AFFINITY   | NODE |
+--------+--------+----------+--------+---------------+--------------+--------------+------+
| 0      | 2      | 0-1      | 32 GB  | 12, 3, 4, 1   | 0000:10:1b.0 | 0-31,64-95   | 0    |
| 1      | 2      | 2-3      | 32 GB  | 13, 0, 5, 2   | 0000:10:1e.0 | 0-31,64-95   | 0    |
| 2      | 2      | 4-5      | 32 GB  | 14, 1, 6, 3   | 0000:a0:1b.0 | 32-63,96-127 | 1    |
| 3      | 2      | 6-7      | 32 GB  | 15, 2, 7, 0   | 0000:a0:1e.0 | 32-63,96-127 | 1    |
| 4      | 2      | 8-9      | 32 GB  | 0, 7, 8, 5    | 0000:20:1e.0 | 0-31,64-95   | 0    |
| 5      | 2      | 10-11    | 32 GB  | 1, 4, 9, 6    | 0000:20:1c.0 | 0-31,64-95   | 0    |
| 6      | 2      | 12-13    | 32 GB  | 2, 5, 10, 7   | 0000:90:1e.0 | 32-63,96-127 | 1    |
| 7      | 2      | 14-15    | 32 GB  | 3, 6, 11, 4   | 0000:90:1c.0 | 32-63,96-127 | 1    |
| 8      | 2      | 16-17    | 32 GB  | 4, 11, 12, 9  | 0000:20:1d.0 | 0-31,64-95   | 0    |
| 9      | 2      | 18-19    | 32 GB  | 5, 8, 13, 10  | 0000:20:1b.0 | 0-31,64-95   | 0    |
| 10     | 2      | 20-21    | 32 GB  | 6, 9, 14, 11  | 0000:90:1d.0 | 32-63,96-127 | 1    |
| 11     | 2      | 22-23    | 32 GB  | 7, 10, 15, 8  | 0000:90:1b.0 | 32-63,96-127 | 1    |
| 12     | 2      | 24-25    | 32 GB  | 8, 15, 0, 13  | 0000:10:1c.0 | 0-31,64-95   | 0    |
| 13     | 2      | 26-27    | 32 GB  | 9, 12, 1, 14  | 0000:10:1d.0 | 0-31,64-95   | 0    |
| 14     | 2      | 28-29    | 32 GB  | 10, 13, 2, 15 | 0000:a0:1c.0 | 32-63,96-127 | 1    |
| 15     | 2      | 30-31    | 32 GB  | 11, 14, 3, 12 | 0000:a0:1d.0 | 32-63,96-127 | 1    |
+--------+--------+----------+--------+---------------+--------------+--------------+------+
)");
}

// The docs' trn2n.48xlarge example at LNC 2: the LNC line, 4 logical cores a device.
BOOST_AUTO_TEST_CASE(trn2n_48xlarge_matches_the_docs) {
    BOOST_TEST(ls(docs_trn2n_sample()) == R"(instance-type: trn2n.48xlarge
instance-id: i-aabbccdd123456789
logical-neuroncore-config: 2
+--------+--------+----------+--------+---------------+--------------+---------------+------+
| NEURON | NEURON |  NEURON  | NEURON |   CONNECTED   |     PCI      |      CPU      | NUMA |
| DEVICE | CORES  | CORE IDS | MEMORY |    DEVICES    |     BDF      |   AFFINITY    | NODE |
+--------+--------+----------+--------+---------------+--------------+---------------+------+
| 0      | 4      | 0-3      | 96 GB  | 12, 3, 4, 1   | 0000:cc:00.0 | 48-95,144-191 | 1    |
| 1      | 4      | 4-7      | 96 GB  | 13, 0, 5, 2   | 0000:b5:00.0 | 48-95,144-191 | 1    |
| 2      | 4      | 8-11     | 96 GB  | 14, 1, 6, 3   | 0000:b6:00.0 | 48-95,144-191 | 1    |
| 3      | 4      | 12-15    | 96 GB  | 15, 2, 7, 0   | 0000:cb:00.0 | 48-95,144-191 | 1    |
| 4      | 4      | 16-19    | 96 GB  | 0, 7, 8, 5    | 0000:6f:00.0 | 0-47,96-143   | 0    |
| 5      | 4      | 20-23    | 96 GB  | 1, 4, 9, 6    | 0000:58:00.0 | 0-47,96-143   | 0    |
| 6      | 4      | 24-27    | 96 GB  | 2, 5, 10, 7   | 0000:59:00.0 | 0-47,96-143   | 0    |
| 7      | 4      | 28-31    | 96 GB  | 3, 6, 11, 4   | 0000:6e:00.0 | 0-47,96-143   | 0    |
| 8      | 4      | 32-35    | 96 GB  | 4, 11, 12, 9  | 0000:9b:00.0 | 0-47,96-143   | 0    |
| 9      | 4      | 36-39    | 96 GB  | 5, 8, 13, 10  | 0000:84:00.0 | 0-47,96-143   | 0    |
| 10     | 4      | 40-43    | 96 GB  | 6, 9, 14, 11  | 0000:85:00.0 | 0-47,96-143   | 0    |
| 11     | 4      | 44-47    | 96 GB  | 7, 10, 15, 8  | 0000:9a:00.0 | 0-47,96-143   | 0    |
| 12     | 4      | 48-51    | 96 GB  | 8, 15, 0, 13  | 0000:f8:00.0 | 48-95,144-191 | 1    |
| 13     | 4      | 52-55    | 96 GB  | 9, 12, 1, 14  | 0000:e1:00.0 | 48-95,144-191 | 1    |
| 14     | 4      | 56-59    | 96 GB  | 10, 13, 2, 15 | 0000:e2:00.0 | 48-95,144-191 | 1    |
| 15     | 4      | 60-63    | 96 GB  | 11, 14, 3, 12 | 0000:f7:00.0 | 48-95,144-191 | 1    |
+--------+--------+----------+--------+---------------+--------------+---------------+------+
)");
}

// LNC 1 on trn2.48xlarge: 8 cores a device, ids 8 apart; the driver's trn2 links.
BOOST_AUTO_TEST_CASE(trn2_48xlarge_at_lnc_1_lists_eight_cores_a_device) {
    BOOST_TEST(ls(instance_sample("trn2.48xlarge", 1)) == R"(instance-type: trn2.48xlarge
instance-id: i-0123456789abcdef0
logical-neuroncore-config: 1
+--------+--------+----------+--------+---------------+--------------+---------------+------+
| NEURON | NEURON |  NEURON  | NEURON |   CONNECTED   |     PCI      |      CPU      | NUMA |
| DEVICE | CORES  | CORE IDS | MEMORY |    DEVICES    |     BDF      |   AFFINITY    | NODE |
+--------+--------+----------+--------+---------------+--------------+---------------+------+
| 0      | 8      | 0-7      | 96 GB  | 12, 1, 3, 4   | 0000:cc:00.0 | 48-95,144-191 | 1    |
| 1      | 8      | 8-15     | 96 GB  | 0, 13, 5, 2   | 0000:b5:00.0 | 48-95,144-191 | 1    |
| 2      | 8      | 16-23    | 96 GB  | 14, 3, 1, 6   | 0000:b6:00.0 | 48-95,144-191 | 1    |
| 3      | 8      | 24-31    | 96 GB  | 2, 15, 7, 0   | 0000:cb:00.0 | 48-95,144-191 | 1    |
| 4      | 8      | 32-39    | 96 GB  | 8, 5, 7, 0    | 0000:6f:00.0 | 0-47,96-143   | 0    |
| 5      | 8      | 40-47    | 96 GB  | 4, 9, 1, 6    | 0000:58:00.0 | 0-47,96-143   | 0    |
| 6      | 8      | 48-55    | 96 GB  | 10, 7, 5, 2   | 0000:59:00.0 | 0-47,96-143   | 0    |
| 7      | 8      | 56-63    | 96 GB  | 6, 11, 3, 4   | 0000:6e:00.0 | 0-47,96-143   | 0    |
| 8      | 8      | 64-71    | 96 GB  | 4, 9, 11, 12  | 0000:9b:00.0 | 0-47,96-143   | 0    |
| 9      | 8      | 72-79    | 96 GB  | 8, 5, 13, 10  | 0000:84:00.0 | 0-47,96-143   | 0    |
| 10     | 8      | 80-87    | 96 GB  | 6, 11, 9, 14  | 0000:85:00.0 | 0-47,96-143   | 0    |
| 11     | 8      | 88-95    | 96 GB  | 10, 7, 15, 8  | 0000:9a:00.0 | 0-47,96-143   | 0    |
| 12     | 8      | 96-103   | 96 GB  | 0, 13, 15, 8  | 0000:f8:00.0 | 48-95,144-191 | 1    |
| 13     | 8      | 104-111  | 96 GB  | 12, 1, 9, 14  | 0000:e1:00.0 | 48-95,144-191 | 1    |
| 14     | 8      | 112-119  | 96 GB  | 2, 15, 13, 10 | 0000:e2:00.0 | 48-95,144-191 | 1    |
| 15     | 8      | 120-127  | 96 GB  | 14, 3, 11, 12 | 0000:f7:00.0 | 48-95,144-191 | 1    |
+--------+--------+----------+--------+---------------+--------------+---------------+------+
)");
}

// Real capture (tools 2.28): a runtime on the only device; no COMMAND in this
// layout, the runtime's version as major.minor.patch.
BOOST_AUTO_TEST_CASE(inf2_xlarge_with_a_runtime_matches_the_capture) {
    auto h = instance_sample("inf2.xlarge");
    h.instance_id = "i-123456abcd00";
    add_runtime(h, 4290, "python3 serve.py", {0}, "2.28.23.0");
    BOOST_TEST(ls(h) == R"(instance-type: inf2.xlarge
instance-id: i-123456abcd00
+--------+--------+----------+--------+--------------+------+----------+------+---------+
| NEURON | NEURON |  NEURON  | NEURON |     PCI      | PID  |   CPU    | NUMA | RUNTIME |
| DEVICE | CORES  | CORE IDS | MEMORY |     BDF      |      | AFFINITY | NODE | VERSION |
+--------+--------+----------+--------+--------------+------+----------+------+---------+
| 0      | 2      | 0-1      | 32 GB  | 0000:00:1f.0 | 4290 | 0-3      | -1   | 2.28.23 |
+--------+--------+----------+--------+--------------+------+----------+------+---------+
)");
}

// No process: no PID or RUNTIME VERSION column; no link: no CONNECTED
// DEVICES; a process that is not a runtime shows only with -a.
BOOST_AUTO_TEST_CASE(inf2_xlarge_without_runtimes_has_no_process_columns) {
    auto h = instance_sample("inf2.xlarge");
    add_device_user(h, 77, "neuron-monitor", {0});
    BOOST_TEST(ls(h) == R"(instance-type: inf2.xlarge
instance-id: i-0123456789abcdef0
+--------+--------+----------+--------+--------------+----------+------+
| NEURON | NEURON |  NEURON  | NEURON |     PCI      |   CPU    | NUMA |
| DEVICE | CORES  | CORE IDS | MEMORY |     BDF      | AFFINITY | NODE |
+--------+--------+----------+--------+--------------+----------+------+
| 0      | 2      | 0-1      | 32 GB  | 0000:00:1f.0 | 0-3      | -1   |
+--------+--------+----------+--------+--------------+----------+------+
)");
}

// Real capture: two of inf1.6xlarge's devices given to a container; the
// chain's links as the driver lists them (east, then west).
BOOST_AUTO_TEST_CASE(inf1_6xlarge_matches_the_capture) {
    auto h = instance_sample("inf1.6xlarge");
    h.instance_id = "<redacted>";
    h.devices.resize(2);
    BOOST_TEST(ls(h) == R"(instance-type: inf1.6xlarge
instance-id: <redacted>
+--------+--------+----------+--------+-----------+--------------+----------+------+
| NEURON | NEURON |  NEURON  | NEURON | CONNECTED |     PCI      |   CPU    | NUMA |
| DEVICE | CORES  | CORE IDS | MEMORY |  DEVICES  |     BDF      | AFFINITY | NODE |
+--------+--------+----------+--------+-----------+--------------+----------+------+
| 0      | 4      | 0-3      | 8 GB   | 1         | 0000:00:1c.0 | 0-23     | -1   |
| 1      | 4      | 4-7      | 8 GB   | 2, 0      | 0000:00:1d.0 | 0-23     | -1   |
+--------+--------+----------+--------+-----------+--------------+----------+------+
)");
}

// Real capture (runtime 2.34): trn2.48xlarge's device 13 alone in a
// container, renumbered 0, keeps its links: CONNECTED DEVICES shows with one
// device. Two runtimes: the second row leaves the device cells blank.
BOOST_AUTO_TEST_CASE(trn2_device_with_two_runtimes_matches_the_capture) {
    auto h = instance_sample("trn2.48xlarge");
    h.instance_id = "i-0dcf246b9a7d5f066";
    h.devices = {h.devices[13]};
    h.devices[0].index = 0;
    add_runtime(h, 1966681, "", {0}, "2.34.10.0");
    add_runtime(h, 1966680, "", {0}, "2.34.10.0");
    BOOST_TEST(ls(h) == R"(instance-type: trn2.48xlarge
instance-id: i-0dcf246b9a7d5f066
logical-neuroncore-config: 2
+--------+--------+----------+--------+--------------+--------------+---------+---------------+------+---------+
| NEURON | NEURON |  NEURON  | NEURON |  CONNECTED   |     PCI      |   PID   |      CPU      | NUMA | RUNTIME |
| DEVICE | CORES  | CORE IDS | MEMORY |   DEVICES    |     BDF      |         |   AFFINITY    | NODE | VERSION |
+--------+--------+----------+--------+--------------+--------------+---------+---------------+------+---------+
| 0      | 4      | 0-3      | 96 GB  | 12, 1, 9, 14 | 0000:e1:00.0 | 1966680 | 48-95,144-191 | 1    | 2.34.10 |
|        |        |          |        |              |              | 1966681 |               |      | 2.34.10 |
+--------+--------+----------+--------+--------------+--------------+---------+---------------+------+---------+
)");
}

// A device without a runtime while others have one: NA in the process
// columns; a device with two: a border after every device.
BOOST_AUTO_TEST_CASE(devices_without_runtimes_show_na_and_multi_row_devices_add_borders) {
    auto h = instance_sample("inf1.6xlarge");
    add_runtime(h, 23518, "neuron-app01 infer", {0});
    add_runtime(h, 23531, "neuron-app02 infer", {0});
    add_runtime(h, 23595, "neuron-app01 infer", {1});
    add_runtime(h, 23608, "neuron-app02 infer", {2});
    BOOST_TEST(ls(h) == R"(instance-type: inf1.6xlarge
instance-id: i-0123456789abcdef0
+--------+--------+----------+--------+-----------+--------------+-------+----------+------+---------+
| NEURON | NEURON |  NEURON  | NEURON | CONNECTED |     PCI      |  PID  |   CPU    | NUMA | RUNTIME |
| DEVICE | CORES  | CORE IDS | MEMORY |  DEVICES  |     BDF      |       | AFFINITY | NODE | VERSION |
+--------+--------+----------+--------+-----------+--------------+-------+----------+------+---------+
| 0      | 4      | 0-3      | 8 GB   | 1         | 0000:00:1c.0 | 23518 | 0-23     | -1   | 2.0.0   |
|        |        |          |        |           |              | 23531 |          |      | 2.0.0   |
+--------+--------+----------+--------+-----------+--------------+-------+----------+------+---------+
| 1      | 4      | 4-7      | 8 GB   | 2, 0      | 0000:00:1d.0 | 23595 | 0-23     | -1   | 2.0.0   |
+--------+--------+----------+--------+-----------+--------------+-------+----------+------+---------+
| 2      | 4      | 8-11     | 8 GB   | 3, 1      | 0000:00:1e.0 | 23608 | 0-23     | -1   | 2.0.0   |
+--------+--------+----------+--------+-----------+--------------+-------+----------+------+---------+
| 3      | 4      | 12-15    | 8 GB   | 2         | 0000:00:1f.0 | NA    | 0-23     | -1   | NA      |
+--------+--------+----------+--------+-----------+--------------+-------+----------+------+---------+
)");
}

// What the sample does not know prints NA.
BOOST_AUTO_TEST_CASE(unknown_values_print_na) {
    auto h = instance_sample("inf2.xlarge");
    h.instance_type.clear();
    h.instance_id.clear();
    auto& d = h.devices[0];
    d.memory_bytes = 0;
    d.bdf.clear();
    d.cpu_affinity.clear();
    d.numa_node.clear();
    BOOST_TEST(ls(h) == R"(instance-type: NA
instance-id: NA
+--------+--------+----------+--------+-----+----------+------+
| NEURON | NEURON |  NEURON  | NEURON | PCI |   CPU    | NUMA |
| DEVICE | CORES  | CORE IDS | MEMORY | BDF | AFFINITY | NODE |
+--------+--------+----------+--------+-----+----------+------+
| 0      | 2      | 0-1      | NA     | NA  | NA       | NA   |
+--------+--------+----------+--------+-----+----------+------+
)");
}
