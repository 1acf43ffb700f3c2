#define BOOST_TEST_MODULE ls_json
// neuron-ls --json-output against a real capture and the docs' example.
#include "neuron/tools/ls_view.h"
#include "support/ls_samples.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::tools;
using namespace neuron::tools::testing;

// Real capture (tools 2.28.23.0): one device, connected_to null, no
// process (`[]` inline), no LNC key off trn2, no newline after the array.
BOOST_AUTO_TEST_CASE(trn1_2xlarge_matches_the_capture) {
    BOOST_TEST(ls_json(instance_sample("trn1.2xlarge")) == R"([
    {
        "neuron_device": 0,
        "bdf": "0000:00:1e.0",
        "cpu_affinity": "0-7",
        "numa_node": "-1",
        "connected_to": null,
        "nc_count": 2,
        "memory_size": 34359738368,
        "neuroncore_ids": [
            0,
            1
        ],
        "neuron_processes": []
    }
])");
}

// Real capture (runtime 2.34), without the instance_type and instance_id keys
// tools after 2.28 add: trn2.48xlarge's device 13 alone in a container,
// two runtimes whose command lines could not be read.
BOOST_AUTO_TEST_CASE(trn2_device_with_two_runtimes_matches_the_capture) {
    auto h = instance_sample("trn2.48xlarge");
    h.devices = {h.devices[13]};
    h.devices[0].index = 0;
    add_runtime(h, 1966681, "", {0}, "2.34.10.0");
    add_runtime(h, 1966680, "", {0}, "2.34.10.0");
    BOOST_TEST(ls_json(h) == R"([
    {
        "neuron_device": 0,
        "bdf": "0000:e1:00.0",
        "cpu_affinity": "48-95,144-191",
        "numa_node": "1",
        "connected_to": [
            12,
            1,
            9,
            14
        ],
        "nc_count": 4,
        "logical_neuroncore_config": 2,
        "memory_size": 103079215104,
        "neuroncore_ids": [
            0,
            1,
            2,
            3
        ],
        "neuron_processes": [
            {
                "pid": 1966680,
                "command": "",
                "neuron_runtime_version": "2.34.10"
            },
            {
                "pid": 1966681,
                "command": "",
                "neuron_runtime_version": "2.34.10"
            }
        ]
    }
])");
}

// The docs' trn2n.48xlarge example, its first and last device (the docs
// elide the rest), with the long BDF real output has and Go's indentation:
// the command cut as in the -a table, global core ids.
BOOST_AUTO_TEST_CASE(docs_example_devices_0_and_15) {
    auto h = docs_trn2n_sample();
    h.devices = {h.devices[0], h.devices[15]};
    add_runtime(h, 113985, bench_command, {0, 15});
    BOOST_TEST(ls_json(h) == R"([
    {
        "neuron_device": 0,
        "bdf": "0000:cc:00.0",
        "cpu_affinity": "48-95,144-191",
        "numa_node": "1",
        "connected_to": [
            12,
            3,
            4,
            1
        ],
        "nc_count": 4,
        "logical_neuroncore_config": 2,
        "memory_size": 103079215104,
        "neuroncore_ids": [
            0,
            1,
            2,
            3
        ],
        "neuron_processes": [
            {
                "pid": 113985,
                "command": "neuron-bench exec --run-as-cc-neff --...",
                "neuron_runtime_version": "2.0.0"
            }
        ]
    },
    {
        "neuron_device": 15,
        "bdf": "0000:f7:00.0",
        "cpu_affinity": "48-95,144-191",
        "numa_node": "1",
        "connected_to": [
            11,
            14,
            3,
            12
        ],
        "nc_count": 4,
        "logical_neuroncore_config": 2,
        "memory_size": 103079215104,
        "neuroncore_ids": [
            60,
            61,
            62,
            63
        ],
        "neuron_processes": [
            {
                "pid": 113985,
                "command": "neuron-bench exec --run-as-cc-neff --...",
                "neuron_runtime_version": "2.0.0"
            }
        ]
    }
])");
}

// LNC 1 on trn2: 8 cores a device, the key says 1; processes that are not
// runtimes are not listed.
BOOST_AUTO_TEST_CASE(trn2_at_lnc_1_counts_eight_cores) {
    auto h = instance_sample("trn2.3xlarge", 1);
    add_device_user(h, 500, "neuron-monitor", {0});
    BOOST_TEST(ls_json(h) == R"([
    {
        "neuron_device": 0,
        "bdf": "0000:33:00.0",
        "cpu_affinity": "0-11",
        "numa_node": "0",
        "connected_to": null,
        "nc_count": 8,
        "logical_neuroncore_config": 1,
        "memory_size": 103079215104,
        "neuroncore_ids": [
            0,
            1,
            2,
            3,
            4,
            5,
            6,
            7
        ],
        "neuron_processes": []
    }
])");
}

// Strings as Go's encoder writes them: HTML characters, control characters,
// U+2028 escaped; invalid UTF-8 replaced; other UTF-8 as it is.
BOOST_AUTO_TEST_CASE(strings_are_escaped_as_go_does) {
    auto h = instance_sample("inf2.xlarge");
    add_runtime(h, 7, "a<b>&\"c\"\\d\te\x01\xff\xc3\xa9\xe2\x80\xa8", {0});
    const auto json = ls_json(h);
    BOOST_TEST(json.find(R"("command": "a\u003cb\u003e\u0026\"c\"\\d\te\u0001\ufffdé\u2028",)") != std::string::npos);
}
