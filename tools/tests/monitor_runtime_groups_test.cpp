#define BOOST_TEST_MODULE monitor_runtime_groups
#include "support/monitor_samples.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

const std::string every_runtime_group = R"({"period": "1s", "neuron_runtimes": [{"metrics": [
    {"type": "neuroncore_counters"}, {"type": "execution_stats"}, {"type": "memory_used"},
    {"type": "neuron_runtime_vcpu_usage"}]}]})";

// `instance` with `runtime` at 1 s, and a copy 2 s on for the test to change.
std::pair<host_sample, host_sample> two_samples(const std::string& instance, std::uint32_t lnc,
                                                runtime_sample runtime) {
    auto before = instance_sample(instance, lnc);
    before.runtimes.push_back(std::move(runtime));
    auto after = before;
    after.time_ns = before.time_ns + 2 * second_ns;
    return {before, after};
}

double number(const YAML::Node& n) { return n.as<double>(); }

} // namespace

BOOST_AUTO_TEST_CASE(utilization_and_flops_are_the_period_s_busy_time_and_operations_per_second) {
    auto [before, after] = two_samples("trn1.2xlarge", 1, runtime_holding(4242, "my_app", 1, {{0, 0}, {0, 1}}));
    before.runtimes[0].activity[{0, 0}] = core_activity{100'000, 1'000'000'000, 0, {}};
    after.runtimes[0].activity[{0, 0}] = core_activity{1'100'000, 4'001'000'000'000, 0, {}}; // 1 s busy, 4e12 more
    after.runtimes[0].activity[{0, 1}] = core_activity{500'000, 0, 0, {}};                   // from 0: 0.5 s busy
    const auto report = parsed(report_between(config_from(every_runtime_group), before, after));
    BOOST_TEST(report["neuron_runtime_data"][0]["pid"].as<int>() == 4242);
    BOOST_TEST(report["neuron_runtime_data"][0]["neuron_runtime_tag"].as<std::string>() == "my_app");
    const auto counters = runtime_group(report, "neuroncore_counters");
    BOOST_TEST(number(counters["period"]) == 2.0);
    BOOST_TEST(counters["error"].as<std::string>() == "");
    const auto cores = counters["neuroncores_in_use"];
    BOOST_TEST(cores.size() == 2U);
    BOOST_TEST(number(cores["0"]["neuroncore_utilization"]) == 50.0);
    BOOST_TEST(cores["0"]["flops"].as<std::uint64_t>() == 2'000'000'000'000U);
    BOOST_TEST(number(cores["1"]["neuroncore_utilization"]) == 25.0);
    BOOST_TEST(cores["1"]["flops"].as<std::uint64_t>() == 0U);
    BOOST_TEST(!cores["0"]["v3d"]); // Trainium1 has no logical cores of two
}

BOOST_AUTO_TEST_CASE(trainium2_at_lnc_2_shows_each_physical_core_under_v3d) {
    // Device 1's physical cores 2 and 3: logical core 1*4 + 1 = 5, physical 10 and 11.
    auto [before, after] = two_samples("trn2.48xlarge", 2, runtime_holding(7, "llm", 2, {{1, 2}, {1, 3}}));
    after.runtimes[0].activity[{1, 2}].time_in_use_us = 400'000;
    after.runtimes[0].activity[{1, 3}].time_in_use_us = 1'200'000;
    const auto report = parsed(report_between(config_from(every_runtime_group), before, after));
    const auto cores = runtime_group(report, "neuroncore_counters")["neuroncores_in_use"];
    BOOST_TEST_REQUIRE(cores.size() == 1U);
    const auto core = cores["5"];
    BOOST_TEST(number(core["neuroncore_utilization"]) == 40.0); // 1.6 s of 2 cores x 2 s
    BOOST_TEST(core["v3d"].size() == 2U);
    BOOST_TEST(number(core["v3d"]["nc_v3.10"]["neuroncore_utilization"]) == 20.0);
    BOOST_TEST(number(core["v3d"]["nc_v3.11"]["neuroncore_utilization"]) == 60.0);
    BOOST_TEST(report["neuron_hardware_info"]["neuroncore_version"].as<std::string>() == "v3d");

    // At LNC 1 each physical core is a logical core, with no v3d member.
    auto [one_before, one_after] = two_samples("trn2.48xlarge", 1, runtime_holding(7, "llm", 1, {{1, 2}}));
    one_after.runtimes[0].activity[{1, 2}].time_in_use_us = 400'000;
    const auto lnc1 = parsed(report_between(config_from(every_runtime_group), one_before, one_after));
    const auto lnc1_core = runtime_group(lnc1, "neuroncore_counters")["neuroncores_in_use"]["10"];
    BOOST_TEST(number(lnc1_core["neuroncore_utilization"]) == 20.0);
    BOOST_TEST(!lnc1_core["v3d"]);
    BOOST_TEST(lnc1["neuron_hardware_info"]["neuroncore_version"].as<std::string>() == "v3");
}

BOOST_AUTO_TEST_CASE(execution_and_error_summaries_are_the_status_counters_differences) {
    auto [before, after] = two_samples("trn1.2xlarge", 1, runtime_holding(1, "a", 1, {{0, 0}, {0, 1}}));
    before.runtimes[0].activity[{0, 0}].statuses = {
        {"success", 10}, {"execute_completed_with_num_error", 1}, {"exec_bad_input", 2}, {"resource_error", 1}};
    after.runtimes[0].activity[{0, 0}].statuses = {
        {"success", 15}, {"execute_completed_with_num_error", 3}, {"exec_bad_input", 2}, {"resource_error", 2},
        {"timeout", 1},  {"execute_completed_with_error", 1},     {"not_a_status", 9}};
    // The 2.7 driver's names count the same; a core seen first counts from zero.
    after.runtimes[0].activity[{0, 1}].statuses = {
        {"infer_failed_to_queue", 4}, {"hw_hbm_ue_error", 1}, {"generic_error", 2}, {"invalid_error", 1}};
    const auto stats =
        runtime_group(parsed(report_between(config_from(every_runtime_group), before, after)), "execution_stats");
    const auto outcomes = stats["execution_summary"];
    BOOST_TEST(outcomes["completed"].as<int>() == 5);
    BOOST_TEST(outcomes["completed_with_err"].as<int>() == 2); // 1004, and the HBM error's execution
    BOOST_TEST(outcomes["completed_with_num_err"].as<int>() == 2);
    BOOST_TEST(outcomes["timed_out"].as<int>() == 1);
    BOOST_TEST(outcomes["incorrect_input"].as<int>() == 0);
    BOOST_TEST(outcomes["failed_to_queue"].as<int>() == 4);
    const auto errors = stats["error_summary"];
    BOOST_TEST(errors["generic"].as<int>() == 3);
    BOOST_TEST(errors["numerical"].as<int>() == 2);
    BOOST_TEST(errors["transient"].as<int>() == 0);
    BOOST_TEST(errors["model"].as<int>() == 1);
    BOOST_TEST(errors["runtime"].as<int>() == 1);
    BOOST_TEST(errors["hardware"].as<int>() == 1);
}

BOOST_AUTO_TEST_CASE(latency_percentiles_are_nearest_rank_over_the_executions_that_ended_in_the_period) {
    auto [before, after] = two_samples("trn1.2xlarge", 1, runtime_holding(1, "a", 1, {{0, 0}}));
    const auto from = before.time_ns;
    auto& latencies = after.runtimes[0].latencies;
    latencies.push_back({from, 900'000'000, 900'000'000}); // ended as the period began: not in it
    for (const std::uint64_t ms : {70, 10, 100, 40, 20, 90, 30, 60, 80, 50}) {
        latencies.push_back({from + ms * 1'000'000, ms * 1'000'000, ms * 1'000'000 - 1'000'000});
    }
    const auto text = report_between(config_from(every_runtime_group), before, after);
    const auto stats = runtime_group(parsed(text), "execution_stats")["latency_stats"];
    const auto total = stats["total_latency"];
    BOOST_TEST(number(total["p0"]) == 0.01);
    BOOST_TEST(number(total["p1"]) == 0.01);
    BOOST_TEST(number(total["p25"]) == 0.03);
    BOOST_TEST(number(total["p50"]) == 0.05);
    BOOST_TEST(number(total["p75"]) == 0.08);
    BOOST_TEST(number(total["p99"]) == 0.1);
    BOOST_TEST(number(total["p100"]) == 0.1);
    BOOST_TEST(number(stats["device_latency"]["p0"]) == 0.009);
    BOOST_TEST(number(stats["device_latency"]["p100"]) == 0.099);
    BOOST_TEST(
        text.find(R"("total_latency":{"p0":0.01,"p1":0.01,"p25":0.03,"p50":0.05,"p75":0.08,"p99":0.1,"p100":0.1})") !=
        std::string::npos);
}

BOOST_AUTO_TEST_CASE(latencies_are_null_when_nothing_ran_in_the_period) {
    auto [before, after] = two_samples("trn1.2xlarge", 1, runtime_holding(1, "a", 1, {{0, 0}}));
    before.runtimes[0].latencies.push_back({before.time_ns - 5, 1'000, 1'000});
    after.runtimes[0].latencies = before.runtimes[0].latencies;
    const auto text = report_between(config_from(every_runtime_group), before, after);
    BOOST_TEST(text.find(R"("latency_stats":{"total_latency":null,"device_latency":null})") != std::string::npos, text);
    BOOST_TEST(runtime_group(parsed(text), "execution_stats")["latency_stats"]["total_latency"].IsNull());
}

BOOST_AUTO_TEST_CASE(memory_used_breaks_down_the_runtime_s_cores_and_models) {
    auto [before, after] = two_samples("trn1.2xlarge", 1, runtime_holding(1, "a", 1, {{0, 0}, {0, 1}}));
    // What the runtime counts (the tree's counters, which lag, are not read).
    auto& runtime = after.runtimes[0];
    runtime.device_memory[{0, 0}] = {{"model_code", 100},    {"tensors", 200},
                                     {"constants", 300},     {"model_shared_scratchpad", 400},
                                     {"runtime_memory", 50}, {"dma_rings", 7}};
    runtime.device_memory[{0, 1}] = {{"tensors", 10}};
    runtime.host_memory[{0, 0}] = {{"application_memory", 1000}, {"dma_buffers", 20}, {"tensors", 30}};
    runtime.host_memory[{0, 1}] = {{"constants", 40}, {"driver_memory", 5}};
    after.devices[0].cores[0].device_mem = {{"tensors", 999999}};
    model_sample m;
    m.id = 10005;
    m.name = "model.neff";
    m.running = true;
    m.cores = {{0, 0}, {0, 1}};
    m.device_memory = {{"constants", 301}, {"model_code", 100}, {"tensors", 7}};
    m.host_memory = {{"dma_buffers", 10}};
    after.runtimes[0].models.push_back(m);
    const auto memory =
        runtime_group(parsed(report_between(config_from(every_runtime_group), before, after)), "memory_used");
    const auto used = memory["neuron_runtime_used_bytes"];
    BOOST_TEST(used["host"].as<int>() == 1095);
    BOOST_TEST(used["neuron_device"].as<int>() == 1067);
    const auto host = used["usage_breakdown"]["host"];
    BOOST_TEST(host["application_memory"].as<int>() == 1005); // and what the guide's categories leave out
    BOOST_TEST(host["constants"].as<int>() == 40);
    BOOST_TEST(host["dma_buffers"].as<int>() == 20);
    BOOST_TEST(host["tensors"].as<int>() == 30);
    const auto core0 = used["usage_breakdown"]["neuroncore_memory_usage"]["0"];
    BOOST_TEST(core0["constants"].as<int>() == 300);
    BOOST_TEST(core0["model_code"].as<int>() == 100);
    BOOST_TEST(core0["model_shared_scratchpad"].as<int>() == 400);
    BOOST_TEST(core0["runtime_memory"].as<int>() == 57);
    BOOST_TEST(core0["tensors"].as<int>() == 200);
    BOOST_TEST(used["usage_breakdown"]["neuroncore_memory_usage"]["1"]["tensors"].as<int>() == 10);

    const auto model = memory["loaded_models"][0];
    BOOST_TEST(model["name"].as<std::string>() == "model.neff");
    BOOST_TEST(model["uuid"].as<std::string>() == "");
    BOOST_TEST(model["model_id"].as<int>() == 10005);
    BOOST_TEST(model["is_running"].as<bool>());
    const auto sg0 = model["subgraphs"]["sg_00"];
    const auto sg1 = model["subgraphs"]["sg_01"];
    BOOST_TEST(sg0["memory_used_bytes"]["usage_breakdown"]["neuron_device"]["constants"].as<int>() == 151);
    BOOST_TEST(sg1["memory_used_bytes"]["usage_breakdown"]["neuron_device"]["constants"].as<int>() == 150);
    BOOST_TEST(sg0["memory_used_bytes"]["neuron_device"].as<int>() == 151 + 50 + 4);
    BOOST_TEST(sg1["memory_used_bytes"]["neuron_device"].as<int>() == 150 + 50 + 3);
    BOOST_TEST(sg0["memory_used_bytes"]["host"].as<int>() == 5);
    BOOST_TEST(sg0["memory_used_bytes"]["usage_breakdown"]["host"]["dma_buffers"].as<int>() == 5);
    BOOST_TEST(sg0["neuroncore_index"].as<int>() == 0);
    BOOST_TEST(sg1["neuroncore_index"].as<int>() == 1);
    BOOST_TEST(sg1["neuron_device_index"].as<int>() == 0);
}

BOOST_AUTO_TEST_CASE(runtime_vcpu_usage_is_its_cpu_time_over_all_vcpus_in_the_period) {
    auto [before, after] = two_samples("trn1.2xlarge", 1, runtime_holding(1, "a", 1, {{0, 0}}));
    for (auto* h : {&before, &after}) h->system.per_cpu.resize(4);
    before.runtimes[0].cpu = cpu_times{100, 0, 50, 0, 0, 0, 0};
    after.runtimes[0].cpu = cpu_times{300, 0, 90, 0, 0, 0, 0};
    // 2 s x 100 ticks x 4 vCPUs = 800 ticks of capacity.
    const auto usage = runtime_group(parsed(report_between(config_from(every_runtime_group), before, after)),
                                     "neuron_runtime_vcpu_usage");
    BOOST_TEST(number(usage["vcpu_usage"]["user"]) == 25.0);
    BOOST_TEST(number(usage["vcpu_usage"]["system"]) == 5.0);
    BOOST_TEST(usage["error"].as<std::string>() == "");

    after.runtimes[0].cpu.reset();
    const auto unknown = runtime_group(parsed(report_between(config_from(every_runtime_group), before, after)),
                                       "neuron_runtime_vcpu_usage");
    BOOST_TEST(unknown["error"].as<std::string>() == "the CPU times of process 1 are unknown (/proc/1/stat)");
}
