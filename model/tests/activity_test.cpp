#define BOOST_TEST_MODULE activity
#include "bare_model.h"
#include "neuron/model/activity.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::model;
using neuron::model::testing::bare_model;
using neuron::model::testing::test_epoch_ns;

BOOST_AUTO_TEST_CASE(utilization_has_no_data_before_the_first_power_sample) {
    bare_model m;
    const auto reading = read_utilization(m.state, 0);
    BOOST_TEST(reading.status == power_status_no_data);
    BOOST_TEST(reading.epoch_seconds == 0);
    BOOST_TEST(reading.min_bp == 0u);
    BOOST_TEST(reading.max_bp == 0u);
    BOOST_TEST(reading.avg_bp == 0u);
    m.state.clock().publish(power_sample_period_ns - 1);
    BOOST_TEST(read_utilization(m.state, 0).status == power_status_no_data);
}

BOOST_AUTO_TEST_CASE(an_idle_device_reports_valid_zero_utilization_at_the_last_sample) {
    bare_model m;
    m.state.clock().publish(3'020'000'000); // 3.02 s: last sample at 3.00 s
    const auto reading = read_utilization(m.state, 1);
    BOOST_TEST(reading.status == power_status_valid);
    BOOST_TEST(reading.epoch_seconds == (test_epoch_ns + 3'000'000'000) / 1'000'000'000);
    BOOST_TEST(reading.min_bp == 0u);
    BOOST_TEST(reading.max_bp == 0u);
    BOOST_TEST(reading.avg_bp == 0u);
}

BOOST_AUTO_TEST_CASE(an_idle_core_counts_every_cycle_as_idle) {
    bare_model m("trn2.3xlarge"); // NeuronCore-v3 at 1.2 GHz
    const auto at_start = read_pe_counters(m.state, 0, 7);
    BOOST_TEST_REQUIRE(at_start.size() == 4u);
    for (std::uint32_t group = 0; group < 4; ++group) {
        BOOST_TEST(at_start[group].row_group == group);
        BOOST_TEST(at_start[group].matmul_active == 0u);
        BOOST_TEST(at_start[group].weight_load_active == 0u);
        BOOST_TEST(at_start[group].idle == 0u);
    }
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
