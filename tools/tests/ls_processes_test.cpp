#define BOOST_TEST_MODULE ls_processes
// neuron-ls --wide and --show-all-procs: the layout the docs show for them
// (short BDF; PID, COMMAND, RUNTIME VERSION).
#include "neuron/tools/ls_view.h"
#include "support/ls_samples.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

ls_options wide() {
    ls_options o;
    o.wide = true;
    return o;
}

ls_options all_processes() {
    ls_options o;
    o.all_processes = true;
    return o;
}

host_sample docs_trn2n_with_bench() {
    auto h = docs_trn2n_sample();
    add_runtime(h, 268911, bench_command, all_devices(h));
    return h;
}

// The docs' inf1.6xlarge example: two runtimes on device 0, one on 1 and 2, none on 3.
const std::string app01 =
    "neuron-app01 infer --input-data-directory ~/my_input_data --inference-count 500 --output ~/out";
const std::string app02 =
    "neuron-app02 infer --input-data-directory ~/my_input_data --inference-count 500 --output ~/out";

host_sample docs_inf1_sample() {
    auto h = instance_sample("inf1.6xlarge");
    add_runtime(h, 23531, app02, {0});
    add_runtime(h, 23518, app01, {0});
    add_runtime(h, 23595, app01, {1});
    add_runtime(h, 23608, app02, {2});
    return h;
}

} // namespace

// The docs' trn2n.48xlarge --wide: COMMAND cut to 77 characters and "...";
// one row a device, so no border between devices.
BOOST_AUTO_TEST_CASE(wide_matches_the_docs) {
    BOOST_TEST(ls_text(docs_trn2n_with_bench(), wide()) == R"(instance-type: trn2n.48xlarge
instance-id: i-aabbccdd123456789
logical-neuroncore-config: 2
+--------+--------+--------+---------------+---------+--------+----------------------------------------------------------------------------------+---------+
| NEURON | NEURON | NEURON |   CONNECTED   |   PCI   |  PID   |                                     COMMAND                                      | RUNTIME |
| DEVICE | CORES  | MEMORY |    DEVICES    |   BDF   |        |                                                                                  | VERSION |
+--------+--------+--------+---------------+---------+--------+----------------------------------------------------------------------------------+---------+
| 0      | 4      | 96 GB  | 12, 3, 4, 1   | cc:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 1      | 4      | 96 GB  | 13, 0, 5, 2   | b5:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 2      | 4      | 96 GB  | 14, 1, 6, 3   | b6:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 3      | 4      | 96 GB  | 15, 2, 7, 0   | cb:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 4      | 4      | 96 GB  | 0, 7, 8, 5    | 6f:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 5      | 4      | 96 GB  | 1, 4, 9, 6    | 58:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 6      | 4      | 96 GB  | 2, 5, 10, 7   | 59:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 7      | 4      | 96 GB  | 3, 6, 11, 4   | 6e:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 8      | 4      | 96 GB  | 4, 11, 12, 9  | 9b:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 9      | 4      | 96 GB  | 5, 8, 13, 10  | 84:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 10     | 4      | 96 GB  | 6, 9, 14, 11  | 85:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 11     | 4      | 96 GB  | 7, 10, 15, 8  | 9a:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 12     | 4      | 96 GB  | 8, 15, 0, 13  | f8:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 13     | 4      | 96 GB  | 9, 12, 1, 14  | e1:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 14     | 4      | 96 GB  | 10, 13, 2, 15 | e2:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
| 15     | 4      | 96 GB  | 11, 14, 3, 12 | f7:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --warmup none --fixed-instance-count 64 --... | 2.0.0   |
+--------+--------+--------+---------------+---------+--------+----------------------------------------------------------------------------------+---------+
)");
}

// The docs' trn2n.48xlarge --show-all-procs: COMMAND cut to 37 and "...";
// neuron-ls itself (not a runtime) on every device, version NA; a border
// after every device.
BOOST_AUTO_TEST_CASE(show_all_procs_matches_the_docs) {
    auto h = docs_trn2n_with_bench();
    add_device_user(h, 269192, "neuron-ls --show-all-procs", all_devices(h));
    add_device_user(h, 268911, bench_command, all_devices(h)); // the runtime: listed once
    BOOST_TEST(ls_text(h, all_processes()) == R"(instance-type: trn2n.48xlarge
instance-id: i-aabbccdd123456789
logical-neuroncore-config: 2
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| NEURON | NEURON | NEURON |   CONNECTED   |   PCI   |  PID   |                 COMMAND                  | RUNTIME |
| DEVICE | CORES  | MEMORY |    DEVICES    |   BDF   |        |                                          | VERSION |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 0      | 4      | 96 GB  | 12, 3, 4, 1   | cc:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 1      | 4      | 96 GB  | 13, 0, 5, 2   | b5:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 2      | 4      | 96 GB  | 14, 1, 6, 3   | b6:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 3      | 4      | 96 GB  | 15, 2, 7, 0   | cb:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 4      | 4      | 96 GB  | 0, 7, 8, 5    | 6f:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 5      | 4      | 96 GB  | 1, 4, 9, 6    | 58:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 6      | 4      | 96 GB  | 2, 5, 10, 7   | 59:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 7      | 4      | 96 GB  | 3, 6, 11, 4   | 6e:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 8      | 4      | 96 GB  | 4, 11, 12, 9  | 9b:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 9      | 4      | 96 GB  | 5, 8, 13, 10  | 84:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 10     | 4      | 96 GB  | 6, 9, 14, 11  | 85:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 11     | 4      | 96 GB  | 7, 10, 15, 8  | 9a:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 12     | 4      | 96 GB  | 8, 15, 0, 13  | f8:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 13     | 4      | 96 GB  | 9, 12, 1, 14  | e1:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 14     | 4      | 96 GB  | 10, 13, 2, 15 | e2:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
| 15     | 4      | 96 GB  | 11, 14, 3, 12 | f7:00.0 | 268911 | neuron-bench exec --run-as-cc-neff --... | 2.0.0   |
|        |        |        |               |         | 269192 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+---------------+---------+--------+------------------------------------------+---------+
)");
}

// The docs' inf1.6xlarge --wide (with the short BDF of the docs' newer
// examples): runtimes by pid, NA where a device has none.
BOOST_AUTO_TEST_CASE(wide_shows_na_for_a_device_without_runtimes) {
    BOOST_TEST(ls_text(docs_inf1_sample(), wide()) == R"(instance-type: inf1.6xlarge
instance-id: i-0123456789abcdef0
+--------+--------+--------+-----------+---------+-------+----------------------------------------------------------------------------------+---------+
| NEURON | NEURON | NEURON | CONNECTED |   PCI   |  PID  |                                     COMMAND                                      | RUNTIME |
| DEVICE | CORES  | MEMORY |  DEVICES  |   BDF   |       |                                                                                  | VERSION |
+--------+--------+--------+-----------+---------+-------+----------------------------------------------------------------------------------+---------+
| 0      | 4      | 8 GB   | 1         | 00:1c.0 | 23518 | neuron-app01 infer --input-data-directory ~/my_input_data --inference-count 5... | 2.0.0   |
|        |        |        |           |         | 23531 | neuron-app02 infer --input-data-directory ~/my_input_data --inference-count 5... | 2.0.0   |
+--------+--------+--------+-----------+---------+-------+----------------------------------------------------------------------------------+---------+
| 1      | 4      | 8 GB   | 2, 0      | 00:1d.0 | 23595 | neuron-app01 infer --input-data-directory ~/my_input_data --inference-count 5... | 2.0.0   |
+--------+--------+--------+-----------+---------+-------+----------------------------------------------------------------------------------+---------+
| 2      | 4      | 8 GB   | 3, 1      | 00:1e.0 | 23608 | neuron-app02 infer --input-data-directory ~/my_input_data --inference-count 5... | 2.0.0   |
+--------+--------+--------+-----------+---------+-------+----------------------------------------------------------------------------------+---------+
| 3      | 4      | 8 GB   | 2         | 00:1f.0 | NA    | NA                                                                               | NA      |
+--------+--------+--------+-----------+---------+-------+----------------------------------------------------------------------------------+---------+
)");
}

// The docs' inf1.6xlarge --show-all-procs: runtimes first, then the other
// processes by pid; device 3 has only those.
BOOST_AUTO_TEST_CASE(show_all_procs_lists_other_processes_after_the_runtimes) {
    auto h = docs_inf1_sample();
    add_device_user(h, 23829, "neuron-ls --show-all-procs", {0, 1, 2, 3});
    add_device_user(h, 23764, "neuron-monitor", {0, 1, 2, 3});
    BOOST_TEST(ls_text(h, all_processes()) == R"(instance-type: inf1.6xlarge
instance-id: i-0123456789abcdef0
+--------+--------+--------+-----------+---------+-------+------------------------------------------+---------+
| NEURON | NEURON | NEURON | CONNECTED |   PCI   |  PID  |                 COMMAND                  | RUNTIME |
| DEVICE | CORES  | MEMORY |  DEVICES  |   BDF   |       |                                          | VERSION |
+--------+--------+--------+-----------+---------+-------+------------------------------------------+---------+
| 0      | 4      | 8 GB   | 1         | 00:1c.0 | 23518 | neuron-app01 infer --input-data-direc... | 2.0.0   |
|        |        |        |           |         | 23531 | neuron-app02 infer --input-data-direc... | 2.0.0   |
|        |        |        |           |         | 23764 | neuron-monitor                           | NA      |
|        |        |        |           |         | 23829 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+-----------+---------+-------+------------------------------------------+---------+
| 1      | 4      | 8 GB   | 2, 0      | 00:1d.0 | 23595 | neuron-app01 infer --input-data-direc... | 2.0.0   |
|        |        |        |           |         | 23764 | neuron-monitor                           | NA      |
|        |        |        |           |         | 23829 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+-----------+---------+-------+------------------------------------------+---------+
| 2      | 4      | 8 GB   | 3, 1      | 00:1e.0 | 23608 | neuron-app02 infer --input-data-direc... | 2.0.0   |
|        |        |        |           |         | 23764 | neuron-monitor                           | NA      |
|        |        |        |           |         | 23829 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+-----------+---------+-------+------------------------------------------+---------+
| 3      | 4      | 8 GB   | 2         | 00:1f.0 | 23764 | neuron-monitor                           | NA      |
|        |        |        |           |         | 23829 | neuron-ls --show-all-procs               | NA      |
+--------+--------+--------+-----------+---------+-------+------------------------------------------+---------+
)");
}
