#define BOOST_TEST_MODULE monitor_system_groups
#include "support/monitor_samples.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

const std::string system_groups = R"({"period": "1s", "system_metrics": [{"type": "neuron_hw_counters"},
                                      {"type": "vcpu_usage"}, {"type": "memory_info"}]})";

std::pair<host_sample, host_sample> two_samples(const std::string& instance) {
    auto before = instance_sample(instance);
    auto after = before;
    after.time_ns += 2 * second_ns;
    return {before, after};
}

YAML::Node system_group(const host_sample& before, const host_sample& after, const std::string& name) {
    return parsed(report_between(config_from(system_groups), before, after))["system_data"][name];
}

YAML::Node hardware_info(const host_sample& h) {
    return parsed(report_between(config_from("{}"), h, h))["neuron_hardware_info"];
}

} // namespace

BOOST_AUTO_TEST_CASE(hardware_counters_are_the_ecc_events_of_the_period_per_device) {
    auto [before, after] = two_samples("trn2.48xlarge");
    before.devices[3].mem_ecc_corrected = 3;
    before.devices[3].sram_ecc_uncorrected = 1;
    before.devices[3].sram_ecc_corrected = 0;
    after.devices[3].mem_ecc_corrected = 5;
    after.devices[3].sram_ecc_uncorrected = 1;
    after.devices[3].sram_ecc_corrected = 7;
    // A count the first sample lacked (the emulator did not answer then) has
    // no baseline: its whole value is not this period's events.
    after.devices[3].mem_ecc_uncorrected = 2;
    const auto text = report_between(config_from(system_groups), before, after);
    const auto counters = parsed(text)["system_data"]["neuron_hw_counters"];
    BOOST_TEST(counters["error"].as<std::string>() == "");
    const auto devices = counters["neuron_devices"];
    BOOST_TEST_REQUIRE(devices.size() == 16U);
    BOOST_TEST(devices[3]["neuron_device_index"].as<int>() == 3);
    BOOST_TEST(devices[3]["mem_ecc_corrected"].as<int>() == 2);
    BOOST_TEST(devices[3]["mem_ecc_uncorrected"].as<int>() == 0);
    BOOST_TEST(devices[3]["sram_ecc_uncorrected"].as<int>() == 0);
    BOOST_TEST(devices[3]["sram_ecc_corrected"].as<int>() == 7);
    BOOST_TEST(devices[0]["mem_ecc_corrected"].as<int>() == 0);
    BOOST_TEST(text.find(R"({"neuron_device_index":3,"mem_ecc_corrected":2,"mem_ecc_uncorrected":0,)"
                         R"("sram_ecc_uncorrected":0,"sram_ecc_corrected":7})") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(hardware_counters_say_when_there_is_no_device) {
    host_sample none;
    auto later = none;
    later.time_ns = 2 * second_ns;
    const auto counters = system_group(none, later, "neuron_hw_counters");
    BOOST_TEST(counters["neuron_devices"].size() == 0U);
    BOOST_TEST(counters["error"].as<std::string>() == "no Neuron device found");
}

BOOST_AUTO_TEST_CASE(vcpu_usage_is_each_kind_of_time_s_share_of_the_period_and_the_context_switches) {
    auto [before, after] = two_samples("trn1.2xlarge");
    before.system.total = cpu_times{100, 0, 100, 100, 0, 0, 0};
    after.system.total = cpu_times{150, 10, 120, 210, 5, 3, 2}; // 200 ticks more
    before.system.per_cpu = {cpu_times{10, 0, 0, 10, 0, 0, 0}, cpu_times{}, cpu_times{}};
    after.system.per_cpu = {cpu_times{40, 0, 0, 20, 0, 0, 0}, cpu_times{0, 0, 1, 3, 0, 0, 0},
                            cpu_times{1, 0, 0, 2, 0, 0, 0}};
    before.system.context_switches = 1000;
    after.system.context_switches = 1500;
    const auto usage = system_group(before, after, "vcpu_usage");
    const auto average = usage["average_usage"];
    BOOST_TEST(average["user"].as<double>() == 25.0);
    BOOST_TEST(average["nice"].as<double>() == 5.0);
    BOOST_TEST(average["system"].as<double>() == 10.0);
    BOOST_TEST(average["idle"].as<double>() == 55.0);
    BOOST_TEST(average["io_wait"].as<double>() == 2.5);
    BOOST_TEST(average["irq"].as<double>() == 1.5);
    BOOST_TEST(average["soft_irq"].as<double>() == 1.0);
    BOOST_TEST(usage["usage_data"].size() == 3U);
    BOOST_TEST(usage["usage_data"]["0"]["user"].as<double>() == 75.0);
    BOOST_TEST(usage["usage_data"]["0"]["idle"].as<double>() == 25.0);
    BOOST_TEST(usage["usage_data"]["1"]["system"].as<double>() == 25.0);
    // To the hundredth, as the vendor's reports show them.
    BOOST_TEST(usage["usage_data"]["2"]["user"].as<std::string>() == "33.33");
    BOOST_TEST(usage["usage_data"]["2"]["idle"].as<std::string>() == "66.67");
    BOOST_TEST(usage["context_switch_count"].as<int>() == 500);
    BOOST_TEST(usage["error"].as<std::string>() == "");

    after.system.total.reset();
    BOOST_TEST(system_group(before, after, "vcpu_usage")["error"].as<std::string>() ==
               "the host's CPU times are unknown (/proc/stat)");
}

BOOST_AUTO_TEST_CASE(memory_info_is_the_host_s_memory_now_and_names_what_is_unknown) {
    auto [before, after] = two_samples("trn1.2xlarge");
    after.system.memory_total_bytes = 1000;
    after.system.memory_used_bytes = 600;
    after.system.swap_total_bytes = 50;
    const auto info = system_group(before, after, "memory_info");
    BOOST_TEST(info["memory_total_bytes"].as<int>() == 1000);
    BOOST_TEST(info["memory_used_bytes"].as<int>() == 600);
    BOOST_TEST(info["swap_total_bytes"].as<int>() == 50);
    BOOST_TEST(info["swap_used_bytes"].as<int>() == 0);
    BOOST_TEST(info["error"].as<std::string>() == "unknown (/proc/meminfo): swap_used_bytes");
}

BOOST_AUTO_TEST_CASE(instance_info_has_what_the_sample_knows_and_says_what_it_does_not) {
    auto h = instance_sample("trn2.48xlarge");
    auto info = parsed(report_between(config_from("{}"), h, h))["instance_info"];
    BOOST_TEST(info["instance_id"].as<std::string>() == "i-0123456789abcdef0");
    BOOST_TEST(info["instance_type"].as<std::string>() == "trn2.48xlarge");
    BOOST_TEST(info["instance_region"].as<std::string>() == "");
    BOOST_TEST(info["error"].as<std::string>() ==
               "no instance metadata: unknown instance_availability_zone, ami_id, subnet_id");
    h.instance_id.clear();
    info = parsed(report_between(config_from("{}"), h, h))["instance_info"];
    BOOST_TEST(info["error"].as<std::string>() ==
               "no instance metadata: unknown instance_id, instance_availability_zone, ami_id, subnet_id");
}

BOOST_AUTO_TEST_CASE(hardware_info_names_each_device_kind_as_neuron_monitor_does) {
    const auto trn2 = hardware_info(instance_sample("trn2.48xlarge", 2));
    BOOST_TEST(trn2["neuron_device_type"].as<std::string>() == "trainium2");
    BOOST_TEST(trn2["neuron_device_version"].as<std::string>() == "v4");
    BOOST_TEST(trn2["neuroncore_version"].as<std::string>() == "v3d");
    BOOST_TEST(trn2["neuron_device_count"].as<int>() == 16);
    BOOST_TEST(trn2["neuron_device_memory_size"].as<std::uint64_t>() == 103079215104U);
    BOOST_TEST(trn2["neuroncore_per_device_count"].as<int>() == 4);
    BOOST_TEST(trn2["logical_neuroncore_config"].as<int>() == 2);
    BOOST_TEST(trn2["error"].as<std::string>() == "");
    BOOST_TEST(hardware_info(instance_sample("trn2.48xlarge", 1))["neuroncore_per_device_count"].as<int>() == 8);

    const auto trn1 = hardware_info(instance_sample("trn1.2xlarge"));
    BOOST_TEST(trn1["neuron_device_type"].as<std::string>() == "trainium");
    BOOST_TEST(trn1["neuron_device_version"].as<std::string>() == "v2");
    BOOST_TEST(trn1["neuroncore_version"].as<std::string>() == "v2");
    BOOST_TEST(trn1["neuron_device_memory_size"].as<std::uint64_t>() == 34359738368U);
    BOOST_TEST(trn1["neuroncore_per_device_count"].as<int>() == 2);

    const auto inf2 = hardware_info(instance_sample("inf2.xlarge"));
    BOOST_TEST(inf2["neuron_device_type"].as<std::string>() == "inferentia2");
    BOOST_TEST(inf2["neuron_device_version"].as<std::string>() == "v3");
    BOOST_TEST(inf2["neuroncore_version"].as<std::string>() == "v2");
}

BOOST_AUTO_TEST_CASE(hardware_info_leaves_unknown_facts_empty_and_says_why) {
    auto odd = instance_sample("trn1.2xlarge");
    odd.devices[0].device_name = "Trainium9";
    odd.devices[0].memory_bytes = 0;
    const auto info = hardware_info(odd);
    BOOST_TEST(info["neuron_device_type"].as<std::string>() == "");
    BOOST_TEST(info["neuron_device_version"].as<std::string>() == "");
    BOOST_TEST(info["neuroncore_version"].as<std::string>() == "");
    BOOST_TEST(info["error"].as<std::string>() == "unknown device name 'Trainium9'; the device memory size is unknown");
    const auto none = hardware_info(host_sample{});
    BOOST_TEST(none["neuron_device_count"].as<int>() == 0);
    BOOST_TEST(none["error"].as<std::string>() == "no Neuron device found");
}
