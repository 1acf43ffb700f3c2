#define BOOST_TEST_MODULE activity
#include "bare_model.h"
#include "neuron/model/activity.h"
#include "neuron/model/driver_format.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

using namespace neuron::model;
using neuron::model::testing::bare_model;
using neuron::model::testing::test_epoch_ns;

BOOST_AUTO_TEST_CASE(utilization_has_no_data_before_the_first_power_sample) {
    bare_model m;
    BOOST_TEST(format_utilization(read_utilization(m.state, 0)) == "POWER_STATUS_NO_DATA,0,0.00,0.00,0.00\n");
    m.state.clock().publish(power_sample_period_ns - 1);
    BOOST_TEST(read_utilization(m.state, 0).status == power_status_no_data);
}

BOOST_AUTO_TEST_CASE(an_idle_device_reports_valid_zero_utilization_at_the_last_sample) {
    bare_model m;
    m.state.clock().publish(3'020'000'000); // 3.02 s: last sample at 3.00 s
    const auto reading = read_utilization(m.state, 1);
    BOOST_TEST(reading.status == power_status_valid);
    BOOST_TEST(reading.epoch_seconds == (test_epoch_ns + 3'000'000'000) / 1'000'000'000);
    BOOST_TEST(format_utilization(reading) ==
               fmt::format("POWER_STATUS_VALID,{},0.00,0.00,0.00\n", reading.epoch_seconds));
}

BOOST_AUTO_TEST_CASE(an_idle_core_counts_every_cycle_as_idle) {
    bare_model m("trn2.3xlarge"); // NeuronCore-v3 at 1.2 GHz
    BOOST_TEST(format_pe_counters(read_pe_counters(m.state, 0, 7)) ==
               "xrow_grp,mm_active,wl_active,idle\n0,0,0,0\n1,0,0,0\n2,0,0,0\n3,0,0,0\n");
    m.state.clock().publish(1'000'000); // 1 ms = 1.2 M cycles
    const auto rows = read_pe_counters(m.state, 0, 7);
    BOOST_TEST_REQUIRE(rows.size() == 4u);
    for (const auto& row : rows) BOOST_TEST(row.idle == 1'200'000u);
}

BOOST_AUTO_TEST_CASE(active_cycles_are_not_idle) {
    bare_model m("trn1.2xlarge"); // 1.4 GHz
    m.state.clock().publish(1'000'000);
    m.state.add_pe_cycles(0, 1, 2, pe_activity::matmul_active, 400'000);
    m.state.add_pe_cycles(0, 1, 2, pe_activity::weight_load_active, 100'000);
    const auto rows = read_pe_counters(m.state, 0, 1);
    BOOST_TEST(rows[2].matmul_active == 400'000u);
    BOOST_TEST(rows[2].weight_load_active == 100'000u);
    BOOST_TEST(rows[2].idle == 900'000u);
    BOOST_TEST(rows[1].idle == 1'400'000u);
}

BOOST_AUTO_TEST_CASE(inf1_has_no_pe_counter_rows) {
    bare_model m("inf1.xlarge");
    BOOST_TEST(read_pe_counters(m.state, 0, 3).empty());
}
