#define BOOST_TEST_MODULE engine_costs
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/device_spec.h"
#include "neuron/model/spec/engine_costs.h"

#include <boost/test/unit_test.hpp>

// Each formula against a hand computation from engines.md A.3-A.5.

using namespace neuron::model;
using namespace neuron::model::costs;

namespace {

const core_costs& v2 = costs_of(core_generation::nc_v2);

std::uint64_t tensor_clock(device_kind kind) {
    for (const auto& e : spec_of(kind).engines) {
        if (e.kind == engine_kind::tensor) return e.clock_hz;
    }
    return 0;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_128x128x512_bf16_matmul_reaches_the_published_peaks) {
    const auto cycles = nc_matmul(v2, 128, 512, element_type::bf16);
    BOOST_TEST(cycles == 512u); // one moving column per cycle
    const double flops = 2.0 * 128 * 128 * 512;
    const auto trn1_ps = cycles_to_ps(cycles, tensor_clock(device_kind::trainium));  // 182.857 ns
    const auto trn2_ps = cycles_to_ps(cycles, tensor_clock(device_kind::trainium2)); // 213.333 ns
    BOOST_TEST(trn1_ps == 182'857u);
    BOOST_TEST(trn2_ps == 213'333u);
    BOOST_TEST(flops / static_cast<double>(trn1_ps) == 91.75, boost::test_tools::tolerance(0.001)); // TFLOPS
    BOOST_TEST(flops / static_cast<double>(trn2_ps) == 78.64, boost::test_tools::tolerance(0.001));
}

BOOST_AUTO_TEST_CASE(matmul_costs_follow_the_moving_size_with_a_floor_of_the_stationary_one) {
    BOOST_TEST(nc_matmul(v2, 128, 8, element_type::bf16) == 64u);     // min(64, 128) = 64 > 8
    BOOST_TEST(nc_matmul(v2, 16, 8, element_type::fp8) == 16u);       // a small stationary: 16
    BOOST_TEST(nc_matmul(v2, 128, 512, element_type::fp32) == 2048u); // fp32: 4x
}

BOOST_AUTO_TEST_CASE(vector_and_scalar_instructions_pay_the_minimum_initiation_interval) {
    BOOST_TEST(activation(v2, 1) == 64u);
    BOOST_TEST(activation(v2, 512) == 512u);
    BOOST_TEST(activation_reduce(v2, 512) == 576u);
    BOOST_TEST(tensor_scalar(v2, 10) == 64u);
    BOOST_TEST(tensor_copy(v2, 2048) == 2048u);
    BOOST_TEST(tensor_tensor(v2, 512, true, false) == 512u);
    BOOST_TEST(tensor_tensor(v2, 512, false, true) == 512u);
    BOOST_TEST(tensor_tensor(v2, 512, false, false) == 1024u);
    BOOST_TEST(tensor_tensor(v2, 16, false, false) == 64u);
    BOOST_TEST(tensor_reduce(v2, 512, true) == 256u);
    BOOST_TEST(tensor_reduce(v2, 512, false) == 512u);
    BOOST_TEST(tensor_reduce(v2, 3, false) == 64u); // K4: MIN_II, not 3 cycles
    BOOST_TEST(tensor_reduce(v2, 100, true) == 64u);
    BOOST_TEST(memset(v2, 512, true) == 256u);
    BOOST_TEST(memset(v2, 100, true) == 64u);
    BOOST_TEST(memset(v2, 512, false) == 512u);
    BOOST_TEST(nc_transpose_tensor(v2, 128, 128, element_type::bf16) == 128u);
    BOOST_TEST(nc_transpose_tensor(v2, 32, 512, element_type::bf16) == 64u);
    // fp32: 4 passes on NC-v2, 2 in NC-v3's transpose mode (A.4, K2).
    BOOST_TEST(nc_transpose_tensor(v2, 128, 128, element_type::fp32) == 512u);
    BOOST_TEST(nc_transpose_tensor(costs_of(core_generation::nc_v3), 128, 128, element_type::fp32) == 256u);
    BOOST_TEST(nc_transpose_vector(v2, 32) == 64u);
    BOOST_TEST(reciprocal(v2, 512) == 1536u); // 3N (K5)
    BOOST_TEST(reciprocal(v2, 20) == 64u);
    BOOST_TEST(tensor_tensor_scan(v2, 512) == 1024u);
    BOOST_TEST(tensor_tensor_scan(v2, 16) == 64u);
    BOOST_TEST(bn_stats(v2, 512) == 512u);
    BOOST_TEST(bn_stats(v2, 8) == 64u);
    BOOST_TEST(bn_aggr(v2, 96) == 416u); // 13 x 32
    BOOST_TEST(bn_aggr(v2, 6) == 64u);
    BOOST_TEST(tensor_copy_predicated(v2, 512, true) == 1024u); // 2N, data and predicate in SBUF
    BOOST_TEST(tensor_copy_predicated(v2, 512, false) == 512u);
    BOOST_TEST(tensor_copy_predicated(v2, 16, true) == 64u);
    BOOST_TEST(range_select(v2, 512) == 512u);
    BOOST_TEST(range_select(v2, 8) == 64u);
    BOOST_TEST(scalar_tensor_tensor(v2, 512, true) == 512u); // bf16 subtract then multiply, N even
    BOOST_TEST(scalar_tensor_tensor(v2, 511, true) == 1022u);
    BOOST_TEST(scalar_tensor_tensor(v2, 512, false) == 1024u);
    BOOST_TEST(scalar_tensor_tensor(v2, 16, true) == 64u);
    BOOST_TEST(tensor_scalar_reduce(v2, 512) == 576u); // N + MIN_II
    BOOST_TEST(tensor_scalar_reduce(v2, 8) == 128u);
}

BOOST_AUTO_TEST_CASE(gpsimd_instructions_pay_its_start) {
    BOOST_TEST(affine_select(v2, 100) == 250u);
    BOOST_TEST(iota(v2, 0) == 150u);
    BOOST_TEST(iota(v2, 512) == 662u);
}

BOOST_AUTO_TEST_CASE(cycles_and_picoseconds_round_to_the_nearest) {
    BOOST_TEST(cycles_to_ps(1, 2'800'000'000) == 357u);  // 357.14
    BOOST_TEST(cycles_to_ps(3, 2'800'000'000) == 1071u); // 1071.43
    BOOST_TEST(cycles_to_ps(140'000, 2'800'000'000) == 50'000'000u);
    BOOST_TEST(ps_to_cycles(50'000'000, 2'800'000'000) == 140'000u);
    BOOST_TEST(ps_to_cycles(357, 2'800'000'000) == 1u);
    BOOST_TEST(cycles_to_ps(std::uint64_t{1} << 50, 960'000'000) == 1'172'812'402'961'066'667u); // no overflow
}

BOOST_AUTO_TEST_CASE(each_generation_has_one_cost_table_with_a_source_beside_every_figure) {
    BOOST_TEST(every_core_costs().size() == 3u);
    for (const auto& c : every_core_costs()) {
        BOOST_TEST(&costs_of(c.generation) == &c);
        for (const auto& [name, figure] : c.figures()) {
            BOOST_TEST(!figure.source.empty(), c.name << " " << name);
            BOOST_TEST(figure.value > 0u, c.name << " " << name);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_device_takes_the_costs_of_its_cores_generation) {
    BOOST_TEST(spec_of(device_kind::inferentia).costs().name == "NC-v1");
    BOOST_TEST(spec_of(device_kind::inferentia2).costs().name == "NC-v2");
    BOOST_TEST(spec_of(device_kind::trainium).costs().name == "NC-v2");
    BOOST_TEST(spec_of(device_kind::trainium2).costs().name == "NC-v3");
}

BOOST_AUTO_TEST_CASE(only_nc_v2_shares_data_ports_and_only_nc_v3_has_vector_performance_mode) {
    BOOST_TEST(!costs_of(core_generation::nc_v1).shared_data_ports);
    BOOST_TEST(costs_of(core_generation::nc_v2).shared_data_ports);
    BOOST_TEST(!costs_of(core_generation::nc_v3).shared_data_ports);
    BOOST_TEST(!costs_of(core_generation::nc_v1).vector_performance_mode);
    BOOST_TEST(!costs_of(core_generation::nc_v2).vector_performance_mode);
    BOOST_TEST(costs_of(core_generation::nc_v3).vector_performance_mode);
}

BOOST_AUTO_TEST_CASE(nc_v1_takes_nc_v2s_figures_marked_unmeasured) {
    const auto v1 = costs_of(core_generation::nc_v1).figures();
    const auto v2_figures = v2.figures();
    for (std::size_t i = 0; i < v1.size(); ++i) {
        BOOST_TEST(v1[i].figure.tolerance_percent == 100u);
        // Trn1's DMA efficiency is its own (A.6 names Trn1 and Inf2).
        if (v1[i].name == "dma_efficiency_percent") {
            BOOST_TEST(v1[i].figure.value == 100u);
        } else {
            BOOST_TEST(v1[i].figure.value == v2_figures[i].figure.value, v1[i].name);
        }
    }
}
