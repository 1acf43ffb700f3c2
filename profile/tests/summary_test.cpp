#define BOOST_TEST_MODULE summary
#include "timeline_fixture.h"

#include "neuron/profile/profile_diff.h"
#include "neuron/profile/summary.h"
#include "neuron/profile/summary_views.h"

#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include <map>
#include <sstream>

// The summary's figures from the fixture's records, its text and JSON
// forms, the instruction rows of the json view, and the diff of two
// profiles.

using namespace neuron::profile;
using namespace neuron::profile::testing;

namespace {

std::map<std::string, summary_value> fields_of(const core_timeline& t) {
    std::map<std::string, summary_value> out;
    for (auto& f : summarize(t)) out.emplace(f.key, f.value);
    return out;
}

double number(const std::map<std::string, summary_value>& f, const std::string& key) {
    BOOST_TEST_REQUIRE(f.count(key) == 1u, "no summary key " << key);
    const auto& v = f.at(key);
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
    return std::get<double>(v);
}

} // namespace

BOOST_AUTO_TEST_CASE(totals_counts_and_active_times_come_from_the_records) {
    const auto f = fields_of(small_timeline());
    BOOST_TEST(number(f, "nc_idx") == 0);
    BOOST_TEST(number(f, "nd_idx") == 0);
    BOOST_TEST(number(f, "total_time") == 10e-6);
    BOOST_TEST(number(f, "neuroncore_cycle_count") == 14000);
    BOOST_TEST(number(f, "event_count") == 8); // 6 instructions, 2 DMA runs
    BOOST_TEST(number(f, "tensor_engine_instruction_count") == 2);
    BOOST_TEST(number(f, "tensor_engine_active_time") == 2e-6);
    BOOST_TEST(number(f, "tensor_engine_active_time_percent") == 0.2);
    BOOST_TEST(number(f, "vector_engine_instruction_time") == 1e-6);
    BOOST_TEST(number(f, "scalar_engine_active_time") == 0.5e-6);
    BOOST_TEST(number(f, "sync_engine_instruction_count") == 2);
    BOOST_TEST(number(f, "sync_engine_instruction_time") == 1.2e-6);
    BOOST_TEST(number(f, "gpsimd_engine_instruction_count") == 0);
    BOOST_TEST(number(f, "matmul_instruction_count") == 2);
    BOOST_TEST(number(f, "activate_instruction_count") == 1);
    BOOST_TEST(number(f, "activate_instruction_time") == 0.5e-6);
    // From the first instruction or run to the last, gaps included: 1000-6000.
    BOOST_TEST(number(f, "total_active_time") == 5e-6);
    BOOST_TEST(number(f, "dma_active_time") == 1.6e-6); // 2300-3900
    BOOST_TEST(number(f, "dma_transfer_count") == 2);
    BOOST_TEST(number(f, "dma_transfer_total_bytes") == 262144);
    BOOST_TEST(number(f, "hbm_read_bytes") == 262144);
    BOOST_TEST(number(f, "hbm_write_bytes") == 0);
    BOOST_TEST(number(f, "dma_queue_count") == 1);
}

// Real summaries: 223.78 on trn1, 109.84 on trn2 (engines-calibration.md,
// "Profiler denominators"), whatever the model's own memory rate.
BOOST_AUTO_TEST_CASE(peak_flops_bandwidth_ratio_is_what_real_summaries_show) {
    auto trn1 = small_timeline();
    trn1.figures.engine_clock_hz[0] = 2'800'000'000;
    trn1.figures.memory_bytes_per_ns = 880;
    BOOST_TEST(number(fields_of(trn1), "peak_flops_bandwidth_ratio") == 223.78, boost::test_tools::tolerance(0.001));
    auto trn2 = small_timeline();
    trn2.instance_type = "trn2.48xlarge";
    trn2.figures.engine_clock_hz[0] = 2'400'000'000;
    trn2.figures.memory_bytes_per_ns = 2900;
    trn2.figures.cores_per_device = 8;
    BOOST_TEST(number(fields_of(trn2), "peak_flops_bandwidth_ratio") == 109.84, boost::test_tools::tolerance(0.001));
    // mbu on trn2: HBM bytes over 716 GB/s for total_time (10 us).
    BOOST_TEST(number(fields_of(trn2), "mbu_estimated_percent") == 262144 / (716e9 * 10e-6),
               boost::test_tools::tolerance(1e-12));
}

// engines-calibration.md K2 (trn2.3xlarge, LNC=2): 64 transposes of 128 x
// 128 fp32 through the Tensor engine and no matmul show transpose_flops =
// hardware_flops = 268435456, model_flops 0, matmul_instruction_count 64,
// and hfu_estimated_percent 0.0364258, that over twice one physical core's
// peak for total_time (46.85326 us).
BOOST_AUTO_TEST_CASE(tensor_transposes_are_hardware_flops_against_the_logical_cores_peak) {
    auto t = small_timeline();
    t.instance_type = "trn2.3xlarge";
    t.lnc = 2;
    t.figures.engine_clock_hz[0] = 2'400'000'000;
    t.end_ps = t.start_ps + 46'853'260;
    t.opcodes.emplace_back("nc_transpose");
    const auto transpose_opcode = static_cast<std::uint32_t>(t.opcodes.size() - 1);
    std::vector<instruction_record> kept;
    for (const auto& r : t.instructions) {
        if (t.opcodes[r.opcode] != "nc_matmul") kept.push_back(r);
    }
    t.instructions = kept;
    for (int i = 0; i < 64; ++i) {
        instruction_record r;
        r.engine = tensor_engine;
        r.opcode = transpose_opcode;
        r.start_ps = 4000 * ns;
        r.end_ps = 4100 * ns;
        r.macs = 128 * 128 * 128;
        t.instructions.push_back(r);
    }
    instruction_record on_vector; // a Vector transpose is no PE work
    on_vector.engine = 1;
    on_vector.opcode = transpose_opcode;
    on_vector.start_ps = 4000 * ns;
    on_vector.end_ps = 4100 * ns;
    t.instructions.push_back(on_vector);
    const auto f = fields_of(t);
    BOOST_TEST(number(f, "model_flops") == 0);
    BOOST_TEST(number(f, "transpose_flops") == 268435456);
    BOOST_TEST(number(f, "hardware_flops") == 268435456);
    BOOST_TEST(number(f, "matmul_instruction_count") == 64);
    BOOST_TEST(number(f, "mfu_estimated_percent") == 0);
    BOOST_TEST(number(f, "hfu_estimated_percent") == 0.036425781791918, boost::test_tools::tolerance(1e-5)); // ns
}

BOOST_AUTO_TEST_CASE(an_instance_without_a_real_summary_shares_the_device_rate_among_its_cores) {
    auto inf1 = small_timeline();
    inf1.instance_type = "inf1.xlarge";
    inf1.figures.memory_bytes_per_ns = 50;
    inf1.figures.cores_per_device = 4;
    const double peak = 2.0 * 128 * 128 * 1.4e9;
    BOOST_TEST(number(fields_of(inf1), "peak_flops_bandwidth_ratio") == peak / 12.5e9,
               boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(flops_and_utilisation_are_fractions_of_the_hardware_peaks) {
    const auto f = fields_of(small_timeline());
    const double flops = 2.0 * 2 * 8'388'608;
    BOOST_TEST(number(f, "model_flops") == flops);
    BOOST_TEST(number(f, "hardware_flops") == flops);
    const double peak = 2.0 * 128 * 128 * 1.4e9; // FLOP/s of the PE array
    BOOST_TEST(number(f, "mfu_estimated_percent") == flops / (peak * 10e-6), boost::test_tools::tolerance(1e-12));
    const double hbm_per_core = 820e9 / 2;
    BOOST_TEST(number(f, "mbu_estimated_percent") == 262144 / (hbm_per_core * 10e-6),
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(number(f, "peak_flops_bandwidth_ratio") == peak / hbm_per_core, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(number(f, "mm_arithmetic_intensity") == flops / 262144, boost::test_tools::tolerance(1e-12));
    for (const auto& [key, value] : f) {
        if (key.ends_with("_percent")) BOOST_TEST((number(f, key) >= 0 && number(f, key) <= 1), key);
    }
}

BOOST_AUTO_TEST_CASE(an_engine_the_core_lacks_has_no_keys) {
    auto t = small_timeline();
    t.figures.engine_clock_hz[3] = 0; // no GpSimd, no Sync (Inferentia)
    t.figures.engine_clock_hz[4] = 0;
    const auto f = fields_of(t);
    BOOST_TEST(f.count("gpsimd_engine_instruction_count") == 0u);
    BOOST_TEST(f.count("sync_engine_active_time") == 0u);
    BOOST_TEST(f.count("vector_engine_active_time") == 1u);
}

BOOST_AUTO_TEST_CASE(the_current_limit_has_keys_only_where_it_held) {
    auto t = small_timeline();
    BOOST_TEST(fields_of(t).count("throttle_active_nc0_time_ns") == 0u);
    BOOST_TEST(fields_of(t).count("throttle_avg_util_limit_nc0_percent") == 0u);
    t.core = 3;
    t.throttled = {{1'000'000, 11'000'000, 3'000'000}, {12'000'000, 17'470'400, 2'894'222}};
    const auto f = fields_of(t);
    BOOST_TEST(number(f, "throttle_active_nc3_time_ns") == 15470); // ns, as its name says
    BOOST_TEST(std::holds_alternative<std::uint64_t>(f.at("throttle_active_nc3_time_ns")));
    BOOST_TEST(number(f, "throttle_avg_util_limit_nc3_percent") == 5'894'222.0 / 15'470'400.0);
}

BOOST_AUTO_TEST_CASE(summary_text_aligns_one_field_per_line) {
    const auto text = summary_text(std::vector{small_timeline()});
    std::istringstream lines(text);
    std::string line;
    std::size_t count = 0;
    std::size_t value_column = 0;
    while (std::getline(lines, line)) {
        const auto column = line.find_first_not_of(' ', line.find(' '));
        if (count++ == 0) value_column = column;
        BOOST_TEST(column == value_column, line);
    }
    BOOST_TEST(count == summarize(small_timeline()).size());
    BOOST_TEST(text.starts_with("nc_idx"));
    BOOST_TEST(text.find("\ntotal_time ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(summary_json_has_one_key_per_worker) {
    auto other = small_timeline();
    other.device = 1; // cores_per_device 2: global core 2
    const auto json = YAML::Load(summary_json(std::vector{small_timeline(), other}));
    BOOST_TEST(json.size() == 2u);
    BOOST_TEST(json["0"]["total_time"].as<double>() == 10e-6);
    BOOST_TEST(json["2"]["nd_idx"].as<int>() == 1);
    BOOST_TEST(json["0"].size() == summarize(small_timeline()).size());
}

BOOST_AUTO_TEST_CASE(json_rows_are_the_instructions_in_time_order) {
    const auto json = YAML::Load(profile_json(std::vector{small_timeline()}));
    BOOST_TEST(json["summary"].size() == 1u);
    const auto rows = json["instruction"];
    BOOST_TEST_REQUIRE(rows.size() == 6u);
    std::uint64_t last = 0;
    std::uint64_t tensor_ns = 0;
    for (const auto& row : rows) {
        BOOST_TEST(row["timestamp"].as<std::uint64_t>() >= last);
        last = row["timestamp"].as<std::uint64_t>();
        if (row["engine"].as<std::string>() == "tensor") tensor_ns += row["duration"].as<std::uint64_t>();
    }
    BOOST_TEST(tensor_ns == 2000u); // the summary's tensor_engine_instruction_time
    const auto mm = rows[3];        // 1000 copy, 1000 dma, 1600 dma, 4000 matmul
    BOOST_TEST(mm["label"].as<std::string>() == "TensorMatrix");
    BOOST_TEST(mm["opcode"].as<std::string>() == "MATMUL");
    BOOST_TEST(mm["nki_source_location"].as<std::string>() == "k.py:1");
    BOOST_TEST(mm["operands"].as<std::string>() == "wait S[0]>=32 signal S[1]+1 sbuf psum row_groups=4 macs=8388608");
    BOOST_TEST(rows[1]["operands"].as<std::string>() == "hbm->sbuf 128x1024B qSyncIO0 engines=16 signal S[0]+16");
    BOOST_TEST(!rows[0]["nki_source_location"]);
}

BOOST_AUTO_TEST_CASE(a_profile_diffed_with_itself_changes_nothing) {
    const auto json = YAML::Load(diff_json(small_timeline(), small_timeline()));
    for (const auto& f : json["summary"]) {
        if (f.second["delta"]) BOOST_TEST(f.second["delta"].as<double>() == 0, f.first.as<std::string>());
    }
    BOOST_TEST(json["opcodes"]["MATMUL"]["count_a"].as<int>() == 2);
    BOOST_TEST(json["opcodes"]["MATMUL"]["time_ns_delta"].as<int>() == 0);
}

BOOST_AUTO_TEST_CASE(a_diff_shows_what_changed_by_opcode_and_engine) {
    auto slower = small_timeline();
    slower.instructions[1].end_ps += 500 * ns; // the second matmul takes 1500 ns
    slower.end_ps += 500 * ns;
    const auto json = YAML::Load(diff_json(small_timeline(), slower));
    BOOST_TEST(json["opcodes"]["MATMUL"]["time_ns_delta"].as<int>() == 500);
    BOOST_TEST(json["engines"]["tensor"]["time_ns_b"].as<int>() == 2500);
    BOOST_TEST(json["summary"]["total_time"]["delta"].as<double>() == 0.5e-6, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(json["summary"]["tensor_engine_instruction_count"]["delta"].as<int>() == 0);
    const auto text = diff_text(small_timeline(), slower);
    BOOST_TEST(text.find("A: fixture on trn1.2xlarge nd0 nc0 (execution 1)") != std::string::npos);
    BOOST_TEST(text.find("+500") != std::string::npos, text);
}
