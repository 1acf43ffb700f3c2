#define BOOST_TEST_MODULE top_frame
#include "neuron/tools/top_screen.h"

#include "support/top_samples.h"

#include <boost/test/unit_test.hpp>

#include <sstream>
#include <string>
#include <vector>

using namespace neuron::tools;
using namespace neuron::tools::testing;

namespace {

std::vector<std::string> lines_of(const std::string& frame) {
    std::vector<std::string> lines;
    std::istringstream in(frame);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The first line that starts with `start`; empty when none does.
std::string line_with(const std::string& frame, const std::string& start) {
    for (const auto& line : lines_of(frame)) {
        if (line.rfind(start, 0) == 0) return line;
    }
    return {};
}

std::string spaces(std::size_t n) { return std::string(n, ' '); }
std::string bars(std::size_t n) { return std::string(n, '|'); }

// trn1.2xlarge with runtime 100 on both cores, busy 50% and 25% over one second.
struct two_cores {
    host_sample before = instance_sample("trn1.2xlarge");
    host_sample now;
    two_cores() {
        add_runtime(before, 100, 0, 2);
        busy(before, 100, {0, 0}, 7'000'000, 1'000);
        now = later(before);
        busy(now, 100, {0, 0}, 500'000, 5'000'000'000'000);
        busy(now, 100, {0, 1}, 250'000, 2'500'000'000'000);
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(the_title_names_the_version_instance_and_type_centred) {
    const auto h = instance_sample("trn2.3xlarge");
    const auto frame = top_frame(h, later(h), {}, 80, 0);
    BOOST_TEST(lines_of(frame).at(0) ==
               spaces(6) + "neuron-top 2.0.9646.0 running on i-0123456789abcdef0 (trn2.3xlarge)");
    BOOST_TEST(lines_of(frame).at(1) == "");
}

BOOST_AUTO_TEST_CASE(the_core_version_is_v2_v3_or_v3d_as_the_docs_say) {
    const std::vector<std::pair<host_sample, std::string>> cases{
        {instance_sample("trn1.2xlarge"), "NeuronCore v2 Utilization (Avg: 0.00%)"},
        {instance_sample("inf2.xlarge"), "NeuronCore v2 Utilization (Avg: 0.00%)"},
        {instance_sample("trn2.3xlarge", 1), "NeuronCore v3 Utilization (Avg: 0.00%)"},
        {instance_sample("trn2.3xlarge", 2), "NeuronCore v3d Utilization (Avg: 0.00%)"},
        {instance_sample("inf1.xlarge"), "NeuronCore v1 Utilization (Avg: 0.00%)"}, // inferred, as neuron-monitor's
    };
    for (const auto& [h, title] : cases) {
        BOOST_TEST(lines_of(top_frame(h, later(h), {}, 80, 0)).at(2) == title, h.instance_type);
    }
}

BOOST_AUTO_TEST_CASE(each_core_shows_a_bar_and_its_share_of_the_period) {
    const two_cores s;
    const auto frame = top_frame(s.before, s.now, {}, 80, 0);
    const auto lines = lines_of(frame);
    BOOST_TEST(lines.at(2) == "NeuronCore v2 Utilization (Avg: 37.50%)");
    // Label 4 columns, then two cells of 38: a bar of 29, the value, a space.
    BOOST_TEST(lines.at(3) == spaces(4 + 17) + "NC0" + spaces(18 + 17) + "NC1");
    BOOST_TEST(lines.at(4) == "ND0 " + bars(15) + spaces(14) + "[50.00%] " + bars(7) + spaces(22) + "[25.00%]");
}

BOOST_AUTO_TEST_CASE(a_logical_core_sums_its_physical_cores_over_lnc_times_the_period) {
    auto before = instance_sample("trn2.3xlarge"); // LNC 2: 4 logical cores of 2
    add_runtime(before, 7, 0, 4);
    auto now = later(before, 2 * one_second_ns);
    busy(now, 7, {0, 0}, 2'000'000);
    busy(now, 7, {0, 2}, 2'000'000);
    busy(now, 7, {0, 3}, 2'000'000);
    busy(now, 7, {0, 7}, 1'000'000);
    const auto frame = top_frame(before, now, {}, 80, 0);
    BOOST_TEST(line_with(frame, "NeuronCore") == "NeuronCore v3d Utilization (Avg: 43.75%)");
    const auto row = line_with(frame, "ND0");
    BOOST_TEST(row.find("[50.00%]") != std::string::npos, row);
    BOOST_TEST(row.find("[100.00%]") != std::string::npos, row);
    BOOST_TEST(row.find("[ 0.00%]") != std::string::npos, row);
    BOOST_TEST(row.substr(row.size() - 8) == "[25.00%]", row);
}

BOOST_AUTO_TEST_CASE(one_row_per_device_on_a_large_instance) {
    auto before = instance_sample("trn1.32xlarge");
    add_runtime(before, 5, 0, 32);
    auto now = later(before);
    busy(now, 5, {15, 1}, 1'000'000);
    const auto frame = top_frame(before, now, {}, 80, 0);
    BOOST_TEST(line_with(frame, "NeuronCore") == "NeuronCore v2 Utilization (Avg: 3.12%)");
    BOOST_TEST(line_with(frame, "ND0 ") == "ND0  " + spaces(28) + "[ 0.00%] " + spaces(28) + "[ 0.00%]");
    BOOST_TEST(line_with(frame, "ND15") ==
               "ND15 " + spaces(28) + "[ 0.00%] " + bars(27) + "[100.00%]"); // a wider value, a shorter bar
}

BOOST_AUTO_TEST_CASE(counters_of_a_new_runtime_or_after_a_reset_count_from_zero) {
    auto before = instance_sample("trn1.2xlarge");
    add_runtime(before, 1, 1, 1);
    busy(before, 1, {0, 1}, 9'000'000);
    auto now = later(before);
    runtime(now, 1).activity[{0, 1}].time_in_use_us = 100'000; // reset: 100 ms since
    add_runtime(now, 2, 0, 1);                                 // started during the period
    busy(now, 2, {0, 0}, 300'000);
    const auto usage = top_core_usages(before, now, nullptr);
    BOOST_TEST(usage.at(0).at(0).utilization == 30.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(usage.at(0).at(1).utilization == 10.0, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(f_toggles_teraflops) {
    const two_cores s;
    top_state state;
    BOOST_TEST(top_handle_key(state, {top_key_code::character, 'f'}, s.now));
    const auto frame = top_frame(s.before, s.now, state, 80, 0);
    BOOST_TEST(line_with(frame, "NeuronCore") == "NeuronCore v2 Utilization (Total: 7.50 TFLOPS)");
    BOOST_TEST(line_with(frame, "ND0") ==
               "ND0 " + bars(14) + spaces(14) + "[ 5.00TF] " + bars(7) + spaces(21) + "[ 2.50TF]");
    top_handle_key(state, {top_key_code::character, 'F'}, s.now);
    BOOST_TEST(line_with(top_frame(s.before, s.now, state, 80, 0), "NeuronCore") ==
               "NeuronCore v2 Utilization (Avg: 37.50%)");
}

BOOST_AUTO_TEST_CASE(vcpu_usage_is_user_and_system_shares_of_all_cpu_time) {
    two_cores s;
    s.before.system.total = cpu_times{100, 7, 50, 850, 3, 0, 0};
    s.now.system.total = cpu_times{200, 7, 100, 1200, 3, 0, 0}; // 500 ticks: 100 user, 50 system
    runtime(s.before, 100).cpu = cpu_times{10, 0, 5, 0, 0, 0, 0};
    runtime(s.now, 100).cpu = cpu_times{35, 0, 15, 0, 0, 0, 0};
    const auto frame = top_frame(s.before, s.now, {}, 80, 0);
    BOOST_TEST(line_with(frame, "vCPU") == "vCPU Utilization");
    // 80 - 19 (label) - 15 (values): a bar of 46.
    BOOST_TEST(line_with(frame, "System") == "System vCPU Usage  " + bars(14) + spaces(32) + "[20.00%,10.00%]");
    BOOST_TEST(line_with(frame, "Runtime") == "Runtime vCPU Usage " + bars(3) + spaces(43) + "[ 5.00%, 2.00%]");
}

BOOST_AUTO_TEST_CASE(sizes_take_one_decimal_and_binary_units) {
    BOOST_TEST(top_bytes(0) == "0.0B");
    BOOST_TEST(top_bytes(1023) == "1023.0B");
    BOOST_TEST(top_bytes(1024) == "1.0KB");
    BOOST_TEST(top_bytes(262'144) == "256.0KB");
    BOOST_TEST(top_bytes(1'048'575) == "1.0MB");
    BOOST_TEST(top_bytes(13'002'342) == "12.4MB");
    BOOST_TEST(top_bytes(18'790'481'920) == "17.5GB");
}

namespace {

// Memory as the vendor's screenshot has it, on trn2.3xlarge's first two cores.
host_sample with_memory() {
    auto h = instance_sample("trn2.3xlarge");
    h.devices[0].host_mem = {{"dma_buffers", 262'144}, {"application_memory", 18'790'481'920}, {"tensors", 0}};
    h.devices[0].cores[0].device_mem = {{"tensors", 2'147'483'648},
                                        {"constants", 9'985'798'963},
                                        {"model_code", 13'207'024'435},
                                        {"runtime_memory", 12'000'000}};
    h.devices[0].cores[1].device_mem = {{"model_shared_scratchpad", 4'402'341'478}, {"driver_memory", 1'002'342}};
    return h;
}

} // namespace

BOOST_AUTO_TEST_CASE(the_memory_summary_names_each_category) {
    const auto h = with_memory();
    const auto frame = top_frame(h, later(h), {}, 140, 0);
    BOOST_TEST(line_with(frame, "Memory Usage Summary") == "Memory Usage Summary");
    BOOST_TEST(line_with(frame, "Host Used Memory") == "Host Used Memory    Total: 17.5GB  Tensors: 0.0B  "
                                                       "Constants: 0.0B  DMA Buffers: 256.0KB  App. Memory: 17.5GB");
    BOOST_TEST(line_with(frame, "Device Used Memory") ==
               "Device Used Memory  Total: 27.7GB  Tensors: 2.0GB  Constants: 9.3GB  Model Code: 12.3GB  "
               "Runtime Memory: 12.4MB  Model Scratchpad: 4.1GB");
}

BOOST_AUTO_TEST_CASE(the_memory_summary_takes_columns_when_wide_enough) {
    const auto h = with_memory();
    const auto line = line_with(top_frame(h, later(h), {}, 200, 0), "Device Used Memory");
    BOOST_TEST(line.find("Tensors:") == 50u, line);
    BOOST_TEST(line.find("Model Scratchpad:") == 170u, line);
}

BOOST_AUTO_TEST_CASE(the_tab_bar_lists_all_then_each_runtime_by_pid) {
    auto h = instance_sample("trn1.2xlarge");
    add_runtime(h, 300, 1, 1).tag = "neuron app 2";
    add_runtime(h, 200, 0, 1);
    const auto frame = top_frame(h, later(h), {}, 80, 0);
    BOOST_TEST(line_with(frame, "Neuron Apps") == "Neuron Apps  >[1]:all<  [2]:200   [3]:neuron app 2");
    BOOST_TEST(lines_of(frame).back() ==
               " q: quit  arrows: move tree selection  enter: expand/collapse tree  x: expand/co");
}

BOOST_AUTO_TEST_CASE(keys_change_tabs_and_a_tab_shows_only_its_runtime) {
    auto before = instance_sample("trn1.2xlarge");
    add_runtime(before, 100, 0, 1);
    add_runtime(before, 200, 1, 1);
    before.devices[0].cores[0].device_mem = {{"tensors", 1024}};
    before.devices[0].cores[1].device_mem = {{"tensors", 4096}};
    auto now = later(before);
    busy(now, 100, {0, 0}, 400'000);
    busy(now, 200, {0, 1}, 800'000);
    top_state state;
    BOOST_TEST(line_with(top_frame(before, now, state, 80, 0), "NeuronCore") ==
               "NeuronCore v2 Utilization (Avg: 60.00%)");

    BOOST_TEST(top_handle_key(state, {top_key_code::character, '2'}, now));
    BOOST_TEST(state.tab_pid == 100u);
    auto frame = top_frame(before, now, state, 80, 0);
    BOOST_TEST(line_with(frame, "Neuron Apps") == "Neuron Apps   [1]:all  >[2]:100<  [3]:200");
    BOOST_TEST(line_with(frame, "NeuronCore") == "NeuronCore v2 Utilization (Avg: 20.00%)");
    BOOST_TEST(line_with(frame, "ND0").find("[ 0.00%]") != std::string::npos);
    BOOST_TEST(line_with(frame, "Device Used Memory").rfind("Device Used Memory  Total: 1.0KB  Tensors: 1.0KB", 0) ==
               0);

    top_handle_key(state, {top_key_code::character, 'd'}, now);
    BOOST_TEST(state.tab_pid == 200u);
    top_handle_key(state, {top_key_code::character, 'd'}, now);
    BOOST_TEST(state.tab_pid == 0u); // round to "all"
    top_handle_key(state, {top_key_code::character, 'a'}, now);
    BOOST_TEST(state.tab_pid == 200u);
    top_handle_key(state, {top_key_code::character, '9'}, now); // no such tab
    BOOST_TEST(state.tab_pid == 200u);
    top_handle_key(state, {top_key_code::character, '1'}, now);
    BOOST_TEST(state.tab_pid == 0u);
    BOOST_TEST(!top_handle_key(state, {top_key_code::character, 'q'}, now));
}

BOOST_AUTO_TEST_CASE(runtimes_that_cannot_be_known_are_said_so) {
    auto h = instance_sample("trn1.2xlarge");
    h.runtime_error = "the emulator does not answer";
    BOOST_TEST(line_with(top_frame(h, later(h), {}, 120, 0), "Neuron Apps") ==
               "Neuron Apps  >[1]:all<  (no runtimes: the emulator does not answer)");
}
