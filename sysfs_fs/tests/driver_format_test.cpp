#define BOOST_TEST_MODULE driver_format
#include "neuron/sysfs/driver_format.h"

#include <boost/test/unit_test.hpp>

#include <limits>
#include <vector>

using namespace neuron::sysfs;
using neuron::model::device_state;
using neuron::model::pe_row_reading;
using neuron::model::power_reading;
using neuron::model::power_status_no_data;
using neuron::model::power_status_valid;

BOOST_AUTO_TEST_CASE(counters_are_unsigned_decimal_with_newline) {
    BOOST_TEST(format_counter(0) == "0\n");
    BOOST_TEST(format_counter(std::numeric_limits<std::uint64_t>::max()) == "18446744073709551615\n");
}

BOOST_AUTO_TEST_CASE(core_count_has_no_newline) {
    BOOST_TEST(format_core_count(8) == "8");
    BOOST_TEST(format_core_count(2) == "2");
}

BOOST_AUTO_TEST_CASE(connected_devices_are_joined_by_comma_space) {
    const std::vector<std::uint32_t> four{12, 3, 4, 1};
    BOOST_TEST(format_connected_devices(four) == "12, 3, 4, 1\n");
    BOOST_TEST(format_connected_devices(std::vector<std::uint32_t>{1}) == "1\n");
    BOOST_TEST(format_connected_devices({}) == "\n");
    // The driver's buffer holds 19 characters; anything longer reads empty.
    BOOST_TEST(format_connected_devices(std::vector<std::uint32_t>{28, 17, 19, 20}) == "28, 17, 19, 20\n");
    BOOST_TEST(format_connected_devices(std::vector<std::uint32_t>{100, 200, 300, 400, 5}) == "");
}

BOOST_AUTO_TEST_CASE(serial_number_is_16_lowercase_hex_digits) {
    BOOST_TEST(format_serial_number(0x1a2b3c4d5e6f7081ull) == "1a2b3c4d5e6f7081\n");
    BOOST_TEST(format_serial_number(0x42) == "0000000000000042\n");
}

BOOST_AUTO_TEST_CASE(unreadable_serial_numbers_read_as_a_bare_newline) {
    BOOST_TEST(format_serial_number(0) == "\n");
    BOOST_TEST(format_serial_number(0x12345678deadbeefull) == "\n");
    BOOST_TEST(format_serial_number(0xdeadbeef00000001ull) == "\n");
}

BOOST_AUTO_TEST_CASE(arch_type_prefixes_nd_or_nc) {
    BOOST_TEST(format_arch_type(true, "v3") == "NDv3\n");
    BOOST_TEST(format_arch_type(false, "v2") == "NCv2\n");
}

BOOST_AUTO_TEST_CASE(strings_and_small_values) {
    BOOST_TEST(format_string_line("Trainium1") == "Trainium1\n");
    BOOST_TEST(format_notify_delay(false) == "-1\n");
    BOOST_TEST(format_notify_delay(true) == "0\n");
    BOOST_TEST(format_device_state(device_state::resetting) == "0\n");
    BOOST_TEST(format_device_state(device_state::ready) == "1\n");
    BOOST_TEST(format_device_state(device_state::invalid) == "2\n");
    BOOST_TEST(format_ecc_count(65535) == "65535\n");
}

BOOST_AUTO_TEST_CASE(utilization_matches_the_drivers_initial_value) {
    BOOST_TEST(format_utilization(power_reading{power_status_no_data}) == "POWER_STATUS_NO_DATA,0,0.00,0.00,0.00\n");
}

BOOST_AUTO_TEST_CASE(utilization_prints_basis_points_as_percent) {
    const power_reading r{power_status_valid, 1789180860, 5, 1234, 10000};
    BOOST_TEST(format_utilization(r) == "POWER_STATUS_VALID,1789180860,0.05,12.34,100.00\n");
}

BOOST_AUTO_TEST_CASE(utilization_status_is_cut_at_32_characters) {
    const power_reading r{"POWER_STATUS_0123456789ABCDEFGHIJKLMNOP", -1, 0, 0, 0};
    BOOST_TEST(format_utilization(r) == "POWER_STATUS_0123456789ABCDEFGHI,-1,0.00,0.00,0.00\n");
}

BOOST_AUTO_TEST_CASE(pe_counters_have_a_header_and_one_row_per_group) {
    const std::vector<pe_row_reading> rows{
        {0, 1, 2, 3}, {1, 0, 0, 18446744073709551615ull}, {2, 0, 0, 0}, {3, 9, 8, 7}};
    BOOST_TEST(format_pe_counters(rows) ==
               "xrow_grp,mm_active,wl_active,idle\n0,1,2,3\n1,0,0,18446744073709551615\n2,0,0,0\n3,9,8,7\n");
}
