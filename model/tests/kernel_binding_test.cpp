#define BOOST_TEST_MODULE kernel_binding
#include "bound_kernels.h"
#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>

#include <string>

// Binding a kernel to a device generation: each instruction's cost, its
// transfer, and the checks that name FILE:LINE:COLUMN.

using namespace neuron::model;
using namespace neuron::model::testing;

namespace {

kernel_op at(kernel_op op, std::uint32_t line, std::uint32_t column) {
    op.at = {line, column};
    return op;
}

const instruction& first(const program& p, engine_kind e) { return p.streams[static_cast<std::size_t>(e)].front(); }

} // namespace

BOOST_AUTO_TEST_CASE(each_instruction_costs_its_formula_at_its_engines_clock) {
    // 512 tensor cycles at 2.8 GHz; 128x128x512 MACs.
    const auto mm = bind(one(engine_kind::tensor, matmul(128, 512)));
    BOOST_TEST(first(*mm, engine_kind::tensor).busy_ps == 182'857u);
    BOOST_TEST(first(*mm, engine_kind::tensor).macs == 128u * 128 * 512);
    // activation max(64, N) scalar cycles at 1.4 GHz: 1000 -> 714 286 ps.
    const auto act = bind(one(engine_kind::scalar, op_of(opcode::activation, 128, 1000)));
    BOOST_TEST(first(*act, engine_kind::scalar).busy_ps == 714'286u);
    // tensor_tensor fp32 divide in SBUF: 2N vector cycles at 1.12 GHz.
    auto tt = op_of(opcode::tensor_tensor, 128, 560);
    tt.dtype = costs::element_type::fp32;
    tt.alu = alu_op::divide;
    BOOST_TEST(first(*bind(one(engine_kind::vector, tt)), engine_kind::vector).busy_ps == 1'000'000u);
    // iota: 150 + N gpsimd cycles at 1.4 GHz.
    BOOST_TEST(first(*bind(one(engine_kind::gpsimd, op_of(opcode::iota, 128, 1250))), engine_kind::gpsimd).busy_ps ==
               1'000'000u);
}

BOOST_AUTO_TEST_CASE(tensor_tensor_costs_n_with_one_input_in_psum_and_one_in_sbuf) {
    // fp32, 560 elements: N = 500 ns and 2N = 1000 ns at 1.12 GHz (A.3).
    auto tt = op_of(opcode::tensor_tensor, 128, 560);
    tt.dtype = costs::element_type::fp32;
    const auto cost = [](const kernel_op& op) {
        return first(*bind(one(engine_kind::vector, op)), engine_kind::vector).busy_ps;
    };
    tt.from = memory_kind::psum;
    BOOST_TEST(cost(tt) == 500'000u);
    tt.from = memory_kind::sbuf;
    tt.from2 = memory_kind::psum;
    BOOST_TEST(cost(tt) == 500'000u);
    tt.from = memory_kind::psum;
    BOOST_TEST(cost(tt) == 1'000'000u); // both in PSUM
    // Reading PSUM through its second input takes the PSUM port.
    BOOST_TEST((first(*bind(one(engine_kind::vector, tt)), engine_kind::vector).memories & touches_psum) != 0);
}

// K1 (engines-calibration.md): an fp32 SBUF+SBUF add of [128, 2000] takes
// about N Vector cycles on trn2, as A.3 gives all-bf16 simple arithmetic.
BOOST_AUTO_TEST_CASE(tensor_tensor_simple_arithmetic_on_two_sbuf_inputs_costs_n_in_any_dtype) {
    auto tt = op_of(opcode::tensor_tensor, 128, 560);
    tt.dtype = costs::element_type::fp32;
    const auto cost = [](const kernel_op& op) {
        return first(*bind(one(engine_kind::vector, op)), engine_kind::vector).busy_ps;
    };
    for (const auto alu : {alu_op::add, alu_op::subtract, alu_op::multiply}) {
        tt.alu = alu;
        BOOST_TEST(cost(tt) == 500'000u, alu_name(alu));
    }
    for (const auto alu : {alu_op::divide, alu_op::max, alu_op::min}) {
        tt.alu = alu;
        BOOST_TEST(cost(tt) == 1'000'000u, alu_name(alu));
    }
    tt.alu = alu_op::add;
    tt.dtype = costs::element_type::fp16;
    BOOST_TEST(cost(tt) == 500'000u);
    tt.dtype = costs::element_type::fp32;
    tt.from = tt.from2 = memory_kind::psum;
    BOOST_TEST(cost(tt) == 1'000'000u); // both in PSUM: 2N
}

BOOST_AUTO_TEST_CASE(nc_v3_vector_performance_mode_speeds_up_16_bit_copies_in_sbuf) {
    const auto copy = op_of(opcode::tensor_copy, 128, 960); // 960 cycles at 0.96 GHz: 1 us
    BOOST_TEST(first(*bind(one(engine_kind::vector, copy), device_kind::trainium2), engine_kind::vector).busy_ps ==
               250'000u);
    auto from_psum = copy;
    from_psum.from = memory_kind::psum;
    BOOST_TEST(first(*bind(one(engine_kind::vector, from_psum), device_kind::trainium2), engine_kind::vector).busy_ps ==
               500'000u);
    auto fp32 = copy;
    fp32.dtype = costs::element_type::fp32;
    BOOST_TEST(first(*bind(one(engine_kind::vector, fp32), device_kind::trainium2), engine_kind::vector).busy_ps ==
               1'000'000u);
}

// A static trigger (the default) costs its engine 64 cycles (K2: tens of
// ns); its data moves 1.3 us after it began (A.6).
BOOST_AUTO_TEST_CASE(a_dma_copy_occupies_its_engine_for_its_trigger_and_starts_a_transfer) {
    auto copy = op_of(opcode::dma_copy, 128, 2048);
    copy.from = memory_kind::hbm;
    copy.queue = 3;
    copy.signal_semaphore = 5;
    const auto p = bind(one(engine_kind::sync, copy));
    const auto& i = first(*p, engine_kind::sync);
    BOOST_TEST(i.busy_ps == 45'714u); // 64 cycles at 1.4 GHz
    BOOST_TEST(p->transfers[0].start_latency_ps == 1'300'000u - 45'714u);
    BOOST_TEST(i.signal_semaphore == no_semaphore); // its DMA engines signal, not the sync engine
    BOOST_REQUIRE(i.transfer == 0u);
    const auto& t = p->transfers[0];
    BOOST_TEST(t.partitions == 128u);
    BOOST_TEST(t.bytes_per_partition == 2048u);
    BOOST_TEST(t.dma_engines == 16u);
    BOOST_TEST(t.queue == 3u);
    BOOST_TEST(t.touches_hbm());
    BOOST_TEST(t.signal_semaphore == 5u);
}

// K2, K5 (engines-calibration.md): ScalarE takes about 2 cycles per fp32
// element, 1 per 16-bit one; other engines keep their formulas.
BOOST_AUTO_TEST_CASE(scalar_engine_instructions_on_4_byte_elements_cost_two_cycles_each) {
    const auto cost = [](engine_kind e, opcode code, costs::element_type type) {
        auto op = op_of(code, 128, 700);
        op.dtype = type;
        return first(*bind(one(e, op)), e).busy_ps;
    };
    // 700 ScalarE cycles at 1.4 GHz: 500 ns; 1400: 1 us.
    BOOST_TEST(cost(engine_kind::scalar, opcode::activation, costs::element_type::bf16) == 500'000u);
    BOOST_TEST(cost(engine_kind::scalar, opcode::activation, costs::element_type::fp32) == 1'000'000u);
    BOOST_TEST(cost(engine_kind::scalar, opcode::tensor_copy, costs::element_type::fp32) == 1'000'000u);
    BOOST_TEST(cost(engine_kind::scalar, opcode::tensor_copy, costs::element_type::int32) == 1'000'000u);
    BOOST_TEST(cost(engine_kind::scalar, opcode::tensor_copy, costs::element_type::fp8) == 500'000u);
    // The Vector engine's copy of fp32 stays N: 700 cycles at 1.12 GHz.
    BOOST_TEST(cost(engine_kind::vector, opcode::tensor_copy, costs::element_type::fp32) == 625'000u);
}

BOOST_AUTO_TEST_CASE(a_dma_copy_binds_its_runs_as_descriptors_and_a_transpose_as_its_rate) {
    auto copy = at(op_of(opcode::dma_copy, 128, 4096), 4, 7);
    copy.from = memory_kind::hbm;
    copy.contiguous_bytes = 1000; // 4 full runs and one of 96 bytes
    auto p = bind(one(engine_kind::sync, copy), device_kind::trainium2);
    BOOST_TEST(p->transfers[0].descriptors_per_partition == 5u);
    BOOST_TEST(p->transfers[0].rate_percent == 100u);
    copy.contiguous_bytes = 0;
    copy.dma_transpose = true;
    copy.dtype = costs::element_type::fp32;
    BOOST_TEST(bind(one(engine_kind::sync, copy), device_kind::trainium2)->transfers[0].rate_percent == 90u);
    copy.from = memory_kind::sbuf;
    BOOST_TEST(bind(one(engine_kind::sync, copy), device_kind::trainium2)->transfers[0].rate_percent == 50u);
    BOOST_TEST(error_of(one(engine_kind::sync, copy)) ==
               "m.yaml:4:7: dma_copy: transposes, which the DMA engines of Trainium1 (NC-v2) do not");
}

BOOST_AUTO_TEST_CASE(a_hardware_dge_dma_copy_takes_600_ns_where_the_generation_has_it) {
    auto copy = at(op_of(opcode::dma_copy, 128, 2048), 4, 7);
    copy.from = memory_kind::hbm;
    copy.trigger = dma_trigger::hardware;
    const auto p = bind(one(engine_kind::sync, copy), device_kind::trainium2);
    BOOST_TEST(first(*p, engine_kind::sync).busy_ps == 600'000u);
    BOOST_TEST(p->transfers[0].start_latency_ps == 700'000u);
    BOOST_TEST(error_of(one(engine_kind::sync, copy)) ==
               "m.yaml:4:7: dma_copy: asks for hardware descriptor generation, which Trainium1 (NC-v2) does not have");
}

BOOST_AUTO_TEST_CASE(an_instruction_on_an_engine_that_does_not_run_it_is_refused_where_it_was_written) {
    BOOST_TEST(error_of(one(engine_kind::vector, at(matmul(128, 512), 7, 9))) ==
               "m.yaml:7:9: nc_matmul: runs on the tensor engine, not vector");
    BOOST_TEST(error_of(one(engine_kind::tensor, at(op_of(opcode::tensor_copy, 128, 8), 3, 5))) ==
               "m.yaml:3:5: tensor_copy: runs on the vector or scalar or gpsimd engine, not tensor");
}

BOOST_AUTO_TEST_CASE(work_for_an_engine_the_device_lacks_is_unsupported) {
    BOOST_TEST(error_of<unsupported_error>(one(engine_kind::gpsimd, at(op_of(opcode::iota, 128, 8), 4, 3)),
                                           device_kind::inferentia) ==
               "m.yaml:4:3: the program has work for a gpsimd engine, which Inferentia does not have");
}

BOOST_AUTO_TEST_CASE(a_wait_nobody_signals_or_that_the_signals_cannot_reach_is_refused) {
    auto waits = at(op_of(opcode::activation, 128, 8), 12, 7);
    waits.wait_semaphore = 4;
    waits.wait_value = 1;
    BOOST_TEST(error_of(one(engine_kind::scalar, waits)) ==
               "m.yaml:12:7: activation: waits on semaphore 4, which no instruction signals");
    auto k = one(engine_kind::scalar, waits);
    auto copy = op_of(opcode::dma_copy, 128, 64);
    copy.signal_semaphore = 4; // adds 16, one per DMA engine
    k.streams[static_cast<std::size_t>(engine_kind::sync)] = {copy};
    k.streams[static_cast<std::size_t>(engine_kind::scalar)][0].wait_value = 16;
    BOOST_TEST(error_of(k) == "");
    k.streams[static_cast<std::size_t>(engine_kind::scalar)][0].wait_value = 17;
    BOOST_TEST(error_of(k) == "m.yaml:12:7: activation: waits for semaphore 4 to reach 17, but the program adds at "
                              "most 16 to it");
}

BOOST_AUTO_TEST_CASE(a_semaphore_beyond_the_cores_bank_is_refused) {
    auto op = at(op_of(opcode::activation, 128, 8), 2, 3);
    op.signal_semaphore = 32;
    BOOST_TEST(error_of(one(engine_kind::scalar, op), device_kind::inferentia) ==
               "m.yaml:2:3: activation: semaphore 32 does not exist (Inferentia has 32 per core, 0 to 31)");
    BOOST_TEST(error_of(one(engine_kind::scalar, op)) == "");
}

BOOST_AUTO_TEST_CASE(a_tile_beyond_an_sbuf_partition_is_refused_by_generation) {
    // 100 000 bf16 = 200 000 bytes: beyond trn1's 192 KiB, within trn2's 224 KiB.
    const auto big = at(op_of(opcode::tensor_copy, 128, 100'000), 5, 11);
    BOOST_TEST(error_of(one(engine_kind::vector, big)) ==
               "m.yaml:5:11: tensor_copy: reads 200000 bytes per partition of sbuf, whose partitions hold 196608 "
               "on Trainium1");
    BOOST_TEST(error_of(one(engine_kind::vector, big), device_kind::trainium2) == "");
    auto shifted = at(op_of(opcode::tensor_copy, 128, 1000), 6, 1);
    shifted.offset = 196'000;
    BOOST_TEST(error_of(one(engine_kind::vector, shifted)) ==
               "m.yaml:6:1: tensor_copy: writes bytes 196000 to 197999 of each sbuf partition, which holds 196608 on "
               "Trainium1");
}

BOOST_AUTO_TEST_CASE(a_matmul_output_must_fit_one_psum_bank) {
    BOOST_TEST(error_of(one(engine_kind::tensor, at(matmul(128, 513), 8, 2))) ==
               "m.yaml:8:2: nc_matmul: its output (513 fp32 per partition at byte 0) must fit one 2 KiB PSUM bank");
    auto straddles = at(matmul(128, 512), 9, 2);
    straddles.offset = 1024;
    BOOST_TEST(error_of(one(engine_kind::tensor, straddles)) ==
               "m.yaml:9:2: nc_matmul: its output (512 fp32 per partition at byte 1024) must fit one 2 KiB PSUM bank");
    auto last_bank = matmul(128, 512);
    last_bank.offset = 7 * 2048;
    BOOST_TEST(error_of(one(engine_kind::tensor, last_bank)) == "");
}

BOOST_AUTO_TEST_CASE(gpsimd_cannot_touch_psum_and_compute_cannot_touch_hbm) {
    auto copy = at(op_of(opcode::tensor_copy, 128, 8), 1, 1);
    copy.from = memory_kind::psum;
    BOOST_TEST(error_of(one(engine_kind::gpsimd, copy)) ==
               "m.yaml:1:1: tensor_copy: the gpsimd engine cannot access PSUM");
    auto tt = at(op_of(opcode::tensor_tensor, 128, 8), 1, 1);
    tt.from2 = memory_kind::psum;
    BOOST_TEST(error_of(one(engine_kind::gpsimd, tt)) ==
               "m.yaml:1:1: tensor_tensor: the gpsimd engine cannot access PSUM");
    copy.from = memory_kind::hbm;
    BOOST_TEST(
        error_of(one(engine_kind::vector, copy)) ==
        "m.yaml:1:1: tensor_copy: compute instructions read and write SBUF or PSUM; move HBM data with dma_copy");
}

BOOST_AUTO_TEST_CASE(a_dma_copy_names_an_existing_queue_and_1_to_16_engines) {
    auto copy = at(op_of(opcode::dma_copy, 128, 8), 2, 2);
    copy.queue = 16;
    BOOST_TEST(error_of(one(engine_kind::sync, copy)) ==
               "m.yaml:2:2: dma_copy: queue 16 does not exist (each DMA engine has 16)");
    copy.queue = 0;
    copy.dma_engines = 17;
    BOOST_TEST(error_of(one(engine_kind::sync, copy)) ==
               "m.yaml:2:2: dma_copy: splits across 17 DMA engines: it takes 1 to 16");
}

BOOST_AUTO_TEST_CASE(a_matmul_keeps_the_row_groups_of_its_contraction_busy) {
    auto half = matmul(128, 512);
    half.partitions = 64; // K = 64: row groups 0 and 1
    const auto p = bind(one(engine_kind::tensor, half));
    const auto& i = p->streams[static_cast<std::size_t>(engine_kind::tensor)].at(0);
    BOOST_TEST(i.busy_ps == 182'857u);
    BOOST_TEST(i.row_groups == 2u);
    BOOST_TEST(i.weight_load_ps == 11'429u);                 // 128 / 4 = 32 cycles at 2.8 GHz
    BOOST_TEST(i.memories == (touches_sbuf | touches_psum)); // reads SBUF, writes PSUM
}

// ---- loops ----

namespace {

// `op` in a loop of `trips` on `e`, with per-trip changes.
kernel looped(engine_kind e, kernel_op op, std::uint64_t trips, std::uint64_t stride = 0,
              std::vector<wait_step> steps = {}) {
    kernel k;
    k.file = "m.yaml";
    auto& s = k.streams[static_cast<std::size_t>(e)];
    s.begin_loop(trips, stride, std::move(steps));
    s.push_back(at(op, 7, 9));
    s.end_loop();
    return k;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_loop_is_bound_once_per_written_instruction_whatever_its_trips) {
    const auto p = bind(looped(engine_kind::vector, op_of(opcode::tensor_copy, 128, 512), 1'000'000));
    const auto& s = p->streams[static_cast<std::size_t>(engine_kind::vector)];
    BOOST_TEST(s.text().size() == 1u);
    BOOST_TEST(s.size() == 1'000'000u);
    BOOST_TEST(p->instruction_count() == 1'000'000u);
    // A dma_copy in a loop has one transfer, issued on every trip.
    const auto q = bind(looped(engine_kind::sync, op_of(opcode::dma_copy, 128, 64), 1000));
    BOOST_TEST(q->transfers.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_stride_that_takes_the_last_trip_past_the_partition_is_refused) {
    // trn1: SBUF partitions of 192 KiB; 2 KiB tiles 2 KiB apart fit 96 trips.
    auto copy = op_of(opcode::tensor_copy, 128, 1024);
    BOOST_TEST(error_of(looped(engine_kind::vector, copy, 96, 2048)) == "");
    BOOST_TEST(error_of(looped(engine_kind::vector, copy, 97, 2048)) ==
               "m.yaml:7:9: tensor_copy: writes bytes 196608 to 198655 of each sbuf partition, which holds 196608 on "
               "Trainium1");
    BOOST_TEST(error_of(looped(engine_kind::vector, copy, std::uint64_t{1} << 20, std::uint64_t{1} << 50)) ==
               "m.yaml:7:9: tensor_copy: writes bytes 18446744073709551615 and on of each sbuf partition, which holds "
               "196608 on Trainium1");
}

BOOST_AUTO_TEST_CASE(a_matmul_whose_strided_output_crosses_a_psum_bank_on_some_trip_is_refused) {
    // 1 KiB outputs 1 KiB apart stay in their banks; 1.5 KiB apart, trip 1 crosses.
    BOOST_TEST(error_of(looped(engine_kind::tensor, matmul(128, 256), 16, 1024)) == "");
    BOOST_TEST(error_of(looped(engine_kind::tensor, matmul(128, 256), 4, 1536)) ==
               "m.yaml:7:9: nc_matmul: its output (256 fp32 per partition at byte 1536) must fit one 2 KiB PSUM bank");
}

BOOST_AUTO_TEST_CASE(psum_banks_are_checked_on_a_device_whose_psum_size_is_not_known) {
    // inf1's PSUM size is not published: no trip's offset is bounded by it,
    // and the bank check must neither read outside its own table nor miss
    // a crossing.
    BOOST_TEST(error_of(looped(engine_kind::tensor, matmul(128, 256), 4, 1536), device_kind::inferentia) ==
               "m.yaml:7:9: nc_matmul: its output (256 fp32 per partition at byte 1536) must fit one 2 KiB PSUM bank");
    BOOST_TEST(error_of(looped(engine_kind::tensor, matmul(128, 256), 1'000'000, 2048), device_kind::inferentia) == "");
    BOOST_TEST(error_of(looped(engine_kind::tensor, matmul(128, 256), 1'000'000, (std::uint64_t{1} << 40) + 1024),
                        device_kind::inferentia) == "");
    BOOST_TEST(error_of(looped(engine_kind::tensor, matmul(128, 256), 1'000'000, (std::uint64_t{1} << 40) + 1536),
                        device_kind::inferentia) ==
               "m.yaml:7:9: nc_matmul: its output (256 fp32 per partition at byte 1099511629312) must fit one 2 KiB "
               "PSUM bank");
}

BOOST_AUTO_TEST_CASE(a_wait_that_steps_beyond_what_the_signals_add_is_refused) {
    kernel k;
    k.file = "m.yaml";
    auto& vector = k.streams[static_cast<std::size_t>(engine_kind::vector)];
    vector.begin_loop(10);
    auto signal = op_of(opcode::tensor_copy, 128, 64);
    signal.signal_semaphore = 2;
    vector.push_back(signal);
    vector.end_loop();
    auto wait = op_of(opcode::tensor_copy, 128, 64);
    wait.wait_semaphore = 2;
    wait.wait_value = 1;
    auto& scalar = k.streams[static_cast<std::size_t>(engine_kind::scalar)];
    scalar.begin_loop(10, 0, {{2, 1}});
    scalar.push_back(at(wait, 3, 5));
    scalar.end_loop();
    BOOST_TEST(error_of(k) == "");
    k.streams[static_cast<std::size_t>(engine_kind::scalar)] = {};
    auto& more = k.streams[static_cast<std::size_t>(engine_kind::scalar)];
    more.begin_loop(11, 0, {{2, 1}});
    more.push_back(at(wait, 3, 5));
    more.end_loop();
    BOOST_TEST(error_of(k) ==
               "m.yaml:3:5: tensor_copy: waits for semaphore 2 to reach 11, but the program adds at most 10 to it");
    auto huge = looped(engine_kind::scalar, wait, 1u << 20, 0, {{every_semaphore, 1u << 20}});
    huge.streams[static_cast<std::size_t>(engine_kind::vector)] = {signal};
    BOOST_TEST(error_of(huge).find("its last trip waits for semaphore 2 to reach 1099510579201, beyond what a "
                                   "semaphore holds (4294967295)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_program_runs_at_most_two_to_the_thirty_instructions) {
    auto k = looped(engine_kind::vector, op_of(opcode::tensor_copy, 128, 1), std::uint64_t{1} << 30);
    BOOST_TEST(error_of(k) == "");
    k = looped(engine_kind::vector, op_of(opcode::tensor_copy, 128, 1), (std::uint64_t{1} << 30) + 1);
    BOOST_TEST(error_of(k) ==
               "m.yaml: a program runs at most 1073741824 instructions (its loops' trips counted), not 1073741825");
    // Trips whose product overflows count as the most there can be.
    kernel nested;
    nested.file = "m.yaml";
    auto& s = nested.streams[0];
    s.begin_loop(UINT64_MAX);
    s.begin_loop(UINT64_MAX);
    s.push_back(matmul(128, 128));
    s.end_loop();
    s.end_loop();
    BOOST_TEST(error_of(nested) == "m.yaml: a program runs at most 1073741824 instructions (its loops' trips "
                                   "counted), not 18446744073709551615");
}

BOOST_AUTO_TEST_CASE(each_of_several_waits_must_exist_and_be_reachable) {
    kernel k;
    k.file = "m.yaml";
    auto signal = op_of(opcode::tensor_copy, 128, 64);
    signal.signal_semaphore = 2;
    auto other = op_of(opcode::tensor_copy, 128, 64);
    other.signal_semaphore = 6;
    k.streams[static_cast<std::size_t>(engine_kind::vector)] = {signal, other};
    auto wait = at(op_of(opcode::activation, 128, 64), 4, 3);
    wait.wait_semaphore = 2;
    wait.wait_value = 1;
    wait.also_waits[0] = {6, 1};
    k.streams[static_cast<std::size_t>(engine_kind::scalar)] = {wait};
    BOOST_TEST(error_of(k) == "");
    const auto p = bind(k);
    BOOST_TEST(first(*p, engine_kind::scalar).also_waits[0].semaphore == 6u);
    k.streams[static_cast<std::size_t>(engine_kind::scalar)][0].also_waits[0] = {6, 2};
    BOOST_TEST(error_of(k) ==
               "m.yaml:4:3: activation: waits for semaphore 6 to reach 2, but the program adds at most 1 to it");
    k.streams[static_cast<std::size_t>(engine_kind::scalar)][0].also_waits[0] = {300, 1};
    BOOST_TEST(error_of(k) == "m.yaml:4:3: activation: semaphore 300 does not exist (Trainium1 has 256 per core, 0 "
                              "to 255)");
}
