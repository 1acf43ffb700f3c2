#define BOOST_TEST_MODULE ls_failure
// What neuron-ls logs when it has no device to show, for each reason: the
// 2.28 tools' line for no device (the capture), the same for no
// driver, Go's path error for a tree permissions keep out.
#include "neuron/tools/ls_view.h"

#include <boost/test/unit_test.hpp>

#include <cerrno>

using namespace neuron::tools;
using namespace std::chrono_literals;

namespace {

std::string on_a_pipe(const no_devices_error& failure) {
    return logrus_logfmt_line(ls_failure_entry(failure), "2026-11-28T15:40:00Z");
}

} // namespace

BOOST_AUTO_TEST_CASE(no_device_is_the_2_28_tools_line) {
    const no_devices_error none(discovery_failure::no_devices, "/sys/devices/virtual/neuron_device");
    BOOST_TEST(on_a_pipe(none) == "time=\"2026-11-28T15:40:00Z\" level=fatal msg=\"Failed to load MLA system "
                                  "information\" error=\"failed to discover Neuron devices\"\n");
    BOOST_TEST(logrus_terminal_line(ls_failure_entry(none), 0s) ==
               "\x1b[31mFATA\x1b[0m[0000] Failed to load MLA system information         "
               "\x1b[31merror\x1b[0m=\"failed to discover Neuron devices\"\n");
}

BOOST_AUTO_TEST_CASE(no_driver_is_no_device) {
    const no_devices_error none(discovery_failure::no_devices, "/sys/devices/virtual/neuron_device");
    const no_devices_error no_driver(discovery_failure::no_driver, "/sys/devices/virtual/neuron_device");
    BOOST_TEST(on_a_pipe(no_driver) == on_a_pipe(none));
}

BOOST_AUTO_TEST_CASE(a_tree_permissions_keep_out_is_gos_path_error) {
    BOOST_TEST(on_a_pipe(no_devices_error("/sys/devices/virtual/neuron_device", "open", EACCES)) ==
               "time=\"2026-11-28T15:40:00Z\" level=fatal msg=\"Failed to load MLA system information\" "
               "error=\"open /sys/devices/virtual/neuron_device: permission denied\"\n");
    BOOST_TEST(on_a_pipe(no_devices_error("/sys/x/neuron0/core_count", "read", EPERM)) ==
               "time=\"2026-11-28T15:40:00Z\" level=fatal msg=\"Failed to load MLA system information\" "
               "error=\"read /sys/x/neuron0/core_count: operation not permitted\"\n");
}
