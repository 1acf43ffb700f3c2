#define BOOST_TEST_MODULE activity
#include "bare_model.h"
#include "neuron/model/state/activity.h"

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

BOOST_AUTO_TEST_CASE(matmul_cycles_are_not_idle_and_weight_loads_hide_behind_them) {
    bare_model m("trn1.2xlarge"); // 1.4 GHz
    m.state.clock().publish(1'000'000);
    pe_timeline t;
    t.matmul_ps[2] = 200'000'000; // 200 us: 280 000 cycles
    t.weight_load_ps[2] = 50'000'000;
    m.state.publish(0, 1, t);
    const auto rows = read_pe_counters(m.state, 0, 1);
    BOOST_TEST(rows[2].matmul_active == 280'000u);
    BOOST_TEST(rows[2].weight_load_active == 70'000u);
    BOOST_TEST(rows[2].idle == 1'120'000u);
    BOOST_TEST(rows[1].idle == 1'400'000u);
}

// A stretch under way counts in proportion to the time it has run, so the
// counters move during a long execution, and idle never goes back.
BOOST_AUTO_TEST_CASE(the_stretch_under_way_counts_for_the_part_that_has_run) {
    bare_model m("trn2.3xlarge"); // 1.2 GHz: 1 ns is 1.2 cycles
    pe_timeline t;
    t.stretch_start_ps = 1'000'000; // 1 us, for 4 us
    t.stretch_ps = 4'000'000;
    t.stretch_matmul_ps[0] = 4'000'000;
    t.stretch_weight_load_ps[0] = 1'000'000;
    t.stretch_matmul_ps[1] = 2'000'000; // half the stretch
    m.state.publish(0, 0, t);
    std::uint64_t last_idle = 0;
    for (const std::uint64_t ns : {0, 500, 1'000, 2'000, 3'000, 5'000, 9'000}) {
        m.state.clock().publish(ns);
        const auto rows = read_pe_counters(m.state, 0, 0);
        const auto run_ns = std::min<std::uint64_t>(ns > 1'000 ? ns - 1'000 : 0, 4'000);
        BOOST_TEST(rows[0].matmul_active == run_ns * 12 / 10, "at " << ns << " ns");
        BOOST_TEST(rows[0].weight_load_active == run_ns * 3 / 10, "at " << ns << " ns");
        BOOST_TEST(rows[1].matmul_active == run_ns * 6 / 10, "at " << ns << " ns");
        BOOST_TEST(rows[0].idle >= last_idle);
        last_idle = rows[0].idle;
    }
    BOOST_TEST(last_idle == 6'000u); // 9 us, 4 of them multiplying
}

// The sample window a record's change falls in is completed by the reader;
// one the kernel has moved past is kept whole; one with no change is constant.
BOOST_AUTO_TEST_CASE(occupancy_windows_roll_at_each_power_sample) {
    bare_model m("trn2.3xlarge"); // 8 cores
    occupancy_record r;
    r = occupancy_changed(r, 20'000'000, 4); // 20 ms: 4 cores
    m.state.publish(0, r);
    m.state.clock().publish(60'000'000);
    auto u = read_utilization(m.state, 0); // 0..50 ms: 0 for 20 ms, 4 for 30 ms
    BOOST_TEST(u.avg_bp == 3000u);
    BOOST_TEST(u.min_bp == 0u);
    BOOST_TEST(u.max_bp == 5000u);
    r = occupancy_changed(r, 70'000'000, 8); // in the next window
    m.state.publish(0, r);
    BOOST_TEST(read_utilization(m.state, 0).avg_bp == 3000u); // still the sample at 50 ms
    m.state.clock().publish(100'000'000);
    u = read_utilization(m.state, 0); // 50..100 ms: 4 for 20 ms, 8 for 30 ms
    BOOST_TEST(u.avg_bp == 8000u);
    BOOST_TEST(u.min_bp == 5000u);
    BOOST_TEST(u.max_bp == 10000u);
    r = occupancy_changed(r, 260'000'000, 0); // long after: 8 cores throughout 200..250 ms
    m.state.publish(0, r);
    m.state.clock().publish(265'000'000);
    u = read_utilization(m.state, 0);
    BOOST_TEST(u.avg_bp == 10000u);
    BOOST_TEST(u.min_bp == 10000u);
    m.state.clock().publish(300'000'000); // 250..300 ms: 8 for 10 ms, then none
    u = read_utilization(m.state, 0);
    BOOST_TEST(u.avg_bp == 2000u);
    BOOST_TEST(u.min_bp == 0u);
    BOOST_TEST(u.max_bp == 10000u);
}

BOOST_AUTO_TEST_CASE(inf1_has_no_pe_counter_rows) {
    bare_model m("inf1.xlarge");
    BOOST_TEST(read_pe_counters(m.state, 0, 3).empty());
}
