#define BOOST_TEST_MODULE monitor_report_at_start
// neuron-monitor's first report, printed as it starts: every group over the
// moment between its first two samples (a real one shows periods under a
// millisecond; stepped time, none), and the periods after it counted from
// the start.
#include "support/monitor_samples.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

const std::string every_group_every_hour = R"({"period": "1h",
    "neuron_runtimes": [{"metrics": [{"type": "neuron_runtime_vcpu_usage"}, {"type": "memory_used"},
                                     {"type": "execution_stats"}, {"type": "neuroncore_counters"}]}],
    "system_metrics": [{"type": "memory_info"}, {"type": "vcpu_usage"}, {"type": "neuron_hw_counters"}]})";

constexpr std::uint64_t hour_ns = 3600 * second_ns;

// A trn1.2xlarge with a runtime that has been busy on core 0, and the host's CPU times.
host_sample busy_host() {
    auto h = instance_sample("trn1.2xlarge");
    h.devices[0].mem_ecc_corrected = 2;
    h.system.memory_total_bytes = 1 << 30;
    h.system.memory_used_bytes = 1 << 20;
    h.system.total = cpu_times{500, 0, 100, 4000, 0, 0, 0};
    h.system.per_cpu = {cpu_times{250, 0, 50, 2000, 0, 0, 0}, cpu_times{250, 0, 50, 2000, 0, 0, 0}};
    h.runtimes.push_back(runtime_holding(9, "app", 1, {{0, 0}}));
    auto& core = h.runtimes[0].activity[{0, 0}];
    core.time_in_use_us = 700'000;
    core.flops = 1'000'000;
    core.statuses["success"] = 5;
    h.runtimes[0].cpu = cpu_times{300, 0, 20, 0, 0, 0, 0};
    return h;
}

std::vector<std::string> groups_of(const YAML::Node& object) {
    std::vector<std::string> names;
    for (const auto& entry : object) names.push_back(entry.first.as<std::string>());
    return names;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_report_at_start_has_every_group_over_the_moment_since_the_start) {
    monitor_state state(config_from(every_group_every_hour), test_ticks_per_second);
    const auto first = busy_host();
    auto second = first;
    second.time_ns += 690'876; // as a real first report's periods
    second.system.total->idle += 1;
    second.devices[0].mem_ecc_corrected = 3;
    state.start(first);
    const auto report = parsed(state.report_at_start(second));

    const auto system = report["system_data"];
    BOOST_TEST(groups_of(system) == (std::vector<std::string>{"neuron_hw_counters", "vcpu_usage", "memory_info"}),
               system);
    for (const auto& name : groups_of(system)) BOOST_TEST(system[name]["period"].as<double>() == 0.000690876, name);
    BOOST_TEST(system["neuron_hw_counters"]["neuron_devices"][0]["mem_ecc_corrected"].as<int>() == 1);
    BOOST_TEST(system["vcpu_usage"]["average_usage"]["idle"].as<double>() == 100.0);
    BOOST_TEST(system["vcpu_usage"]["usage_data"]["0"]["idle"].as<double>() == 0.0);
    BOOST_TEST(system["memory_info"]["memory_used_bytes"].as<int>() == 1 << 20);

    const auto runtime = report["neuron_runtime_data"][0]["report"];
    BOOST_TEST(groups_of(runtime) == (std::vector<std::string>{"neuroncore_counters", "execution_stats", "memory_used",
                                                               "neuron_runtime_vcpu_usage"}),
               report["neuron_runtime_data"]);
    for (const auto& name : groups_of(runtime)) BOOST_TEST(runtime[name]["period"].as<double>() == 0.000690876, name);
    // Nothing ran in that moment: what ran before the start is not this report's.
    BOOST_TEST(runtime["neuroncore_counters"]["neuroncores_in_use"]["0"]["flops"].as<double>() == 0.0);
    BOOST_TEST(runtime["execution_stats"]["execution_summary"]["completed"].as<int>() == 0);
    BOOST_TEST(runtime["neuron_runtime_vcpu_usage"]["vcpu_usage"]["user"].as<double>() == 0.0);
}

BOOST_AUTO_TEST_CASE(in_stepped_time_the_report_at_start_is_over_no_time_with_rates_of_zero) {
    monitor_state state(config_from(every_group_every_hour), test_ticks_per_second);
    const auto first = busy_host();
    auto second = first; // the clock moves only when advanced
    second.runtimes[0].cpu->user += 1;
    state.start(first);
    const auto text = state.report_at_start(second);

    // (A rate that divided by the zero period would be written null, and read as no number.)
    const auto report = parsed(text);
    const auto runtime = report["neuron_runtime_data"][0]["report"];
    BOOST_TEST(runtime.size() == 4U, text);
    for (const auto& name : groups_of(runtime)) BOOST_TEST(runtime[name]["period"].as<double>() == 0.0, name);
    const auto core = runtime["neuroncore_counters"]["neuroncores_in_use"]["0"];
    BOOST_TEST(core["neuroncore_utilization"].as<double>() == 0.0);
    BOOST_TEST(core["flops"].as<double>() == 0.0);
    BOOST_TEST(runtime["neuron_runtime_vcpu_usage"]["vcpu_usage"]["user"].as<double>() == 0.0);
    BOOST_TEST(runtime["memory_used"]["neuron_runtime_used_bytes"].IsMap());
    const auto system = report["system_data"];
    BOOST_TEST(system.size() == 3U, text);
    for (const auto& name : groups_of(system)) BOOST_TEST(system[name]["period"].as<double>() == 0.0, name);
    BOOST_TEST(system["vcpu_usage"]["average_usage"]["user"].as<double>() == 0.0);
    BOOST_TEST(system["neuron_hw_counters"]["neuron_devices"][0]["mem_ecc_corrected"].as<int>() == 0);
}

BOOST_AUTO_TEST_CASE(after_the_report_at_start_each_group_is_due_its_period_after_the_start) {
    monitor_state state(config_from(R"({"period": "1s", "system_metrics": [{"type": "neuron_hw_counters"},
                                        {"type": "memory_info", "period": "2s"}]})"),
                        test_ticks_per_second);
    auto h = instance_sample("trn1.2xlarge"); // at 1 s
    h.devices[0].mem_ecc_corrected = 0;
    state.start(h);
    h.time_ns += 500'000;
    h.devices[0].mem_ecc_corrected = 1;
    BOOST_TEST(parsed(state.report_at_start(h))["system_data"].size() == 2U);
    BOOST_TEST(state.next_due_ns() == 2 * second_ns);

    // Each event is in one report: the next period runs from the report at start.
    h.time_ns = 2 * second_ns;
    h.devices[0].mem_ecc_corrected = 4;
    const auto second = parsed(state.update(h));
    const auto counters = second["system_data"]["neuron_hw_counters"];
    BOOST_TEST(counters["period"].as<double>() == 0.9995);
    BOOST_TEST(counters["neuron_devices"][0]["mem_ecc_corrected"].as<int>() == 3);
    BOOST_TEST(second["system_data"]["memory_info"]["period"].as<double>() == 0.0005, "not due before 3 s");
    BOOST_TEST(state.next_due_ns() == 3 * second_ns);
    h.time_ns = 3 * second_ns;
    BOOST_TEST(parsed(state.update(h))["system_data"]["memory_info"]["period"].as<double>() == 1.9995);
}

BOOST_AUTO_TEST_CASE(a_long_period_still_starts_with_a_report_and_is_due_one_period_on) {
    monitor_state state(config_from(every_group_every_hour), test_ticks_per_second);
    state.start(busy_host());
    BOOST_TEST(parsed(state.report_at_start(busy_host()))["neuron_runtime_data"][0]["report"].size() == 4U);
    BOOST_TEST(state.next_due_ns() == second_ns + hour_ns);
}
