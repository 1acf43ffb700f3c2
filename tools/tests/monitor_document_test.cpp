#define BOOST_TEST_MODULE monitor_document
#include "support/monitor_samples.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

const std::string every_group_every_second = R"({"period": "1s",
    "neuron_runtimes": [{"metrics": [{"type": "neuron_runtime_vcpu_usage"}, {"type": "memory_used"},
                                     {"type": "execution_stats"}, {"type": "neuroncore_counters"}]}],
    "system_metrics": [{"type": "memory_info"}, {"type": "vcpu_usage"}, {"type": "neuron_hw_counters"}]})";

host_sample at(host_sample h, std::uint64_t seconds) {
    h.time_ns = seconds * second_ns;
    return h;
}

// Where each of `keys` is in `text`, checking each comes after the one before.
void in_order(const std::string& text, std::initializer_list<std::string> keys) {
    std::size_t last = 0;
    std::string previous = "(start)";
    for (const auto& key : keys) {
        const auto at = text.find('"' + key + "\":", last);
        BOOST_TEST(at != std::string::npos, key << " is missing or before " << previous);
        if (at == std::string::npos) return;
        last = at;
        previous = key;
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(a_small_report_is_exactly_the_vendor_s_document_on_one_line) {
    auto before = instance_sample("trn1.2xlarge");
    before.system.memory_total_bytes = 49345835008;
    before.system.memory_used_bytes = 16042344448;
    before.system.swap_total_bytes = 0;
    before.system.swap_used_bytes = 0;
    auto after = before;
    after.time_ns += 1'500'000'000;
    const auto text =
        report_between(config_from(R"({"period": "1s", "system_metrics": [{"type": "memory_info"}]})"), before, after);
    BOOST_TEST(
        text ==
        R"({"neuron_runtime_data":[],"system_data":{"memory_info":{"period":1.5,"memory_total_bytes":49345835008,)"
        R"("memory_used_bytes":16042344448,"swap_total_bytes":0,"swap_used_bytes":0,"error":""}},)"
        R"("instance_info":{"instance_name":"","instance_id":"i-0123456789abcdef0","instance_type":"trn1.2xlarge",)"
        R"("instance_availability_zone":"","instance_availability_zone_id":"","instance_region":"","ami_id":"",)"
        R"("subnet_id":"","error":"no instance metadata: unknown instance_availability_zone, ami_id, subnet_id"},)"
        R"("neuron_hardware_info":{"neuron_device_type":"trainium","neuron_device_version":"v2",)"
        R"("neuroncore_version":"v2","neuron_device_count":1,"neuron_device_memory_size":34359738368,)"
        R"("neuroncore_per_device_count":2,"logical_neuroncore_config":1,"error":""}})");
}

BOOST_AUTO_TEST_CASE(keys_are_in_the_vendor_s_order_whatever_the_configuration_s_order) {
    auto before = instance_sample("trn1.2xlarge");
    before.runtimes.push_back(runtime_holding(9, "app", 1, {{0, 0}}));
    before.runtimes[0].cpu = cpu_times{};
    before.system.total = cpu_times{};
    const auto text = report_between(config_from(every_group_every_second), before, at(before, 3));
    in_order(text, {"neuron_runtime_data", "pid", "address", "neuron_runtime_tag", "error", "report",
                    "neuroncore_counters", "execution_stats", "memory_used", "neuron_runtime_vcpu_usage", "system_data",
                    "neuron_hw_counters", "vcpu_usage", "memory_info", "instance_info", "neuron_hardware_info"});
    in_order(text, {"execution_stats", "period", "error_summary", "execution_summary", "latency_stats", "error",
                    "memory_used"});
    BOOST_TEST(text.find('\n') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(groups_the_configuration_does_not_name_are_absent) {
    auto before = instance_sample("trn1.2xlarge");
    before.runtimes.push_back(runtime_holding(9, "serving", 1, {{0, 0}}));
    const auto some = parsed(report_between(config_from(R"({"period": "1s",
        "neuron_runtimes": [{"metrics": [{"type": "execution_stats"}]}],
        "system_metrics": [{"type": "memory_info"}]})"),
                                            before, at(before, 2)));
    const auto report = some["neuron_runtime_data"][0]["report"];
    BOOST_TEST(report.size() == 1U);
    BOOST_TEST(report["execution_stats"].IsMap());
    BOOST_TEST(some["system_data"].size() == 1U);
    BOOST_TEST(some["system_data"]["memory_info"].IsMap());

    // No system group: system_data is null. A filter that misses: the runtime is not listed.
    const auto none = parsed(report_between(config_from(R"({"period": "1s",
        "neuron_runtimes": [{"tag_filter": "^train", "metrics": [{"type": "execution_stats"}]}]})"),
                                            before, at(before, 2)));
    BOOST_TEST(none["system_data"].IsNull());
    BOOST_TEST(none["neuron_runtime_data"].size() == 0U);
    BOOST_TEST(none["instance_info"].IsMap());
    BOOST_TEST(none["neuron_hardware_info"].IsMap());
}

BOOST_AUTO_TEST_CASE(each_group_is_refreshed_on_its_own_period_and_repeats_its_last_values_between) {
    monitor_state state(config_from(R"({"period": "1s", "system_metrics": [{"type": "memory_info"},
                                        {"type": "neuron_hw_counters", "period": "2s"}]})"),
                        test_ticks_per_second);
    auto h = instance_sample("trn1.2xlarge");
    h.devices[0].mem_ecc_corrected = 0;
    h.system.memory_used_bytes = 100;
    state.start(at(h, 1));
    BOOST_TEST(state.next_due_ns() == 2 * second_ns);

    const auto first = parsed(state.update(at(h, 2)));
    BOOST_TEST(!first["system_data"]["neuron_hw_counters"]); // not due yet: not reported yet
    BOOST_TEST(first["system_data"]["memory_info"]["period"].as<double>() == 1.0);
    BOOST_TEST(state.next_due_ns() == 3 * second_ns);

    h.devices[0].mem_ecc_corrected = 4;
    const auto second = parsed(state.update(at(h, 3)));
    const auto counters = second["system_data"]["neuron_hw_counters"];
    BOOST_TEST(counters["period"].as<double>() == 2.0);
    BOOST_TEST(counters["neuron_devices"][0]["mem_ecc_corrected"].as<int>() == 4);

    h.devices[0].mem_ecc_corrected = 10;
    h.system.memory_used_bytes = 200;
    const auto third = parsed(state.update(at(h, 4)));
    BOOST_TEST(third["system_data"]["neuron_hw_counters"]["neuron_devices"][0]["mem_ecc_corrected"].as<int>() == 4);
    BOOST_TEST(third["system_data"]["memory_info"]["memory_used_bytes"].as<int>() == 200);
    BOOST_TEST(state.next_due_ns() == 5 * second_ns);
    const auto fourth = parsed(state.update(at(h, 5)));
    BOOST_TEST(fourth["system_data"]["neuron_hw_counters"]["neuron_devices"][0]["mem_ecc_corrected"].as<int>() == 6);
}

BOOST_AUTO_TEST_CASE(without_any_group_the_report_comes_every_root_period) {
    monitor_state state(config_from(R"({"period": "3s"})"), test_ticks_per_second);
    state.start(at(instance_sample("trn1.2xlarge"), 1));
    BOOST_TEST(state.next_due_ns() == 4 * second_ns);
}

BOOST_AUTO_TEST_CASE(a_runtime_that_appears_is_counted_from_zero_since_the_sample_before) {
    monitor_state state(config_from(every_group_every_second), test_ticks_per_second);
    auto h = instance_sample("trn1.2xlarge");
    h.system.per_cpu.resize(2);
    state.start(at(h, 1));
    h.runtimes.push_back(runtime_holding(9, "app", 1, {{0, 0}}));
    h.runtimes[0].activity[{0, 0}].time_in_use_us = 1'000'000;
    h.runtimes[0].cpu = cpu_times{1000, 0, 0, 0, 0, 0, 0};
    const auto first = parsed(state.update(at(h, 3)));
    const auto report = first["neuron_runtime_data"][0]["report"];
    BOOST_TEST(report["neuroncore_counters"]["period"].as<double>() == 2.0);
    BOOST_TEST(report["neuroncore_counters"]["neuroncores_in_use"]["0"]["neuroncore_utilization"].as<double>() == 50.0);
    // Its CPU times count from the process's start: its first period starts when they were first seen.
    BOOST_TEST(!report["neuron_runtime_vcpu_usage"]);

    h.runtimes[0].cpu->user += 100;
    const auto second = parsed(state.update(at(h, 4)));
    const auto vcpu = second["neuron_runtime_data"][0]["report"]["neuron_runtime_vcpu_usage"];
    BOOST_TEST(vcpu["vcpu_usage"]["user"].as<double>() == 50.0); // 100 ticks of 1 s x 100 ticks x 2 vCPUs
}

BOOST_AUTO_TEST_CASE(a_runtime_error_lists_the_device_users_with_the_error_and_no_groups) {
    monitor_state state(config_from(every_group_every_second), test_ticks_per_second);
    auto h = instance_sample("trn1.2xlarge");
    h.runtimes.push_back(runtime_holding(9, "app", 1, {{0, 0}}));
    state.start(at(h, 1));

    auto lost = at(h, 2);
    lost.runtimes.clear();
    lost.runtime_error = "the emulator's control socket does not answer";
    lost.device_users.push_back(device_user{77, "python", {0}});
    const auto text = state.update(lost);
    BOOST_TEST(text.find(R"("neuron_runtime_data":[{"pid":77,"address":"","neuron_runtime_tag":"77",)"
                         R"("error":"the emulator's control socket does not answer","report":{}}])") !=
                   std::string::npos,
               text);
    BOOST_TEST(parsed(text)["system_data"]["memory_info"].IsMap()); // the host's groups do not need the runtime

    // Back: the runtime's period runs from the last sample it was seen in.
    h.runtimes[0].activity[{0, 0}].time_in_use_us = 1'000'000;
    const auto back = parsed(state.update(at(h, 3)));
    const auto counters = back["neuron_runtime_data"][0]["report"]["neuroncore_counters"];
    BOOST_TEST(counters["period"].as<double>() == 2.0);
    BOOST_TEST(counters["neuroncores_in_use"]["0"]["neuroncore_utilization"].as<double>() == 50.0);
    BOOST_TEST(back["neuron_runtime_data"][0]["error"].as<std::string>() == "");

    // Known runtimes whose data is missing are listed by their own tag; a filter still applies.
    auto partial = at(h, 4);
    partial.runtime_error = "stale";
    const auto listed = parsed(state.update(partial));
    BOOST_TEST(listed["neuron_runtime_data"][0]["neuron_runtime_tag"].as<std::string>() == "app");
    BOOST_TEST(listed["neuron_runtime_data"][0]["error"].as<std::string>() == "stale");
    BOOST_TEST(listed["neuron_runtime_data"][0]["report"].size() == 0U);
    monitor_state filtered(config_from(R"({"neuron_runtimes": [{"tag_filter": "^x", "metrics": []}]})"), 100);
    filtered.start(at(h, 1));
    BOOST_TEST(parsed(filtered.update(partial))["neuron_runtime_data"].size() == 0U);
}

BOOST_AUTO_TEST_CASE(when_the_clock_goes_back_the_periods_start_anew) {
    monitor_state state(config_from(R"({"period": "1s", "system_metrics": [{"type": "memory_info"}]})"),
                        test_ticks_per_second);
    const auto h = instance_sample("trn1.2xlarge");
    state.start(at(h, 10));
    BOOST_TEST(parsed(state.update(at(h, 11)))["system_data"]["memory_info"].IsMap());
    const auto restarted = parsed(state.update(at(h, 2)));
    BOOST_TEST(restarted["system_data"].size() == 0U);
    BOOST_TEST(state.next_due_ns() == 3 * second_ns);
    BOOST_TEST(parsed(state.update(at(h, 3)))["system_data"]["memory_info"]["period"].as<double>() == 1.0);
}

BOOST_AUTO_TEST_CASE(a_tag_is_escaped_in_the_json) {
    auto before = instance_sample("trn1.2xlarge");
    before.runtimes.push_back(runtime_holding(9, "say \"hi\"\n", 1, {{0, 0}}));
    const auto text = report_between(config_from(every_group_every_second), before, at(before, 3));
    BOOST_TEST(text.find(R"("neuron_runtime_tag":"say \"hi\"\n")") != std::string::npos);
    BOOST_TEST(parsed(text)["neuron_runtime_data"][0]["neuron_runtime_tag"].as<std::string>() == "say \"hi\"\n");
}
