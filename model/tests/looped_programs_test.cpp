#define BOOST_TEST_MODULE looped_programs
// A looped program runs exactly as its unrolled equivalent: the same busy
// time per engine, end time, DMA and profile, to the picosecond. Both run
// at once on two devices of one instance (each device has its own HBM), so
// they share the clock and nothing else.
#include "kernel_runs.h"

#include <boost/test/unit_test.hpp>

using namespace neuron::model;
using namespace neuron::model::testing;
using namespace std::chrono_literals;
namespace profile = neuron::profile;

namespace {

constexpr std::uint32_t tiles = 24;

kernel_op with_wait(kernel_op op, std::uint32_t semaphore, std::uint32_t value) {
    op.wait_semaphore = semaphore;
    op.wait_value = value;
    return op;
}

kernel_op with_signal(kernel_op op, std::uint32_t semaphore, std::uint32_t increment = 1) {
    op.signal_semaphore = semaphore;
    op.signal_increment = increment;
    return op;
}

// A tiled pipeline as NKI kernels write it: Sync loads tile i while Vector
// works on tile i-1 (two buffers: load i waits for the copy of i-2); Tensor
// accumulates four PSUM banks, one per outer trip (its offset strides a
// bank), each after four more tiles; Scalar evacuates each bank and stores
// it (one dma_copy issued on every trip); GpSimd prints on every trip.
kernel pipeline() {
    kernel k;
    k.file = "looped.yaml";
    auto load = dma(memory_kind::hbm, memory_kind::sbuf, 128, 2048);
    load.signal_semaphore = 0;
    auto& sync = stream(k, engine_kind::sync);
    sync.push_back(load);
    load.offset = 2048;
    sync.push_back(load);
    sync.begin_loop(tiles - 2, 0, {{1, 1}});
    sync.push_back(with_wait(load, 1, 1));
    sync.end_loop();

    auto& vector = stream(k, engine_kind::vector);
    vector.begin_loop(tiles, 0, {{0, 16}});
    vector.push_back(with_signal(with_wait(op_of(opcode::tensor_copy, 128, 1024), 0, 16), 1));
    vector.end_loop();

    auto& tensor = stream(k, engine_kind::tensor);
    tensor.begin_loop(4, psum_bank_bytes, {{1, tiles / 4}});
    tensor.push_back(with_wait(matmul(128, 512), 1, tiles / 4));
    tensor.begin_loop(3);
    tensor.push_back(matmul(128, 512));
    tensor.push_back(matmul(64, 256));
    tensor.end_loop();
    tensor.push_back(with_signal(matmul(128, 512), 3));
    tensor.end_loop();

    auto& scalar = stream(k, engine_kind::scalar);
    scalar.begin_loop(4, 0, {{3, 1}, {1, tiles / 4}});
    auto act = op_of(opcode::activation, 128, 512);
    act.from = memory_kind::psum;
    auto evacuate = with_wait(act, 3, 1);
    evacuate.also_waits[0] = {1, 6}; // and the copy of the bank's last tile
    scalar.push_back(evacuate);
    scalar.push_back(with_signal(dma(memory_kind::sbuf, memory_kind::hbm, 128, 1024, 4), 4));
    scalar.end_loop();

    auto& gpsimd = stream(k, engine_kind::gpsimd);
    device_print print;
    print.prefix = "tile";
    k.prints.push_back(print);
    auto printing = op_of(opcode::print, 128, 1);
    printing.print = 0;
    gpsimd.begin_loop(3);
    gpsimd.push_back(op_of(opcode::iota, 128, 256));
    gpsimd.push_back(with_wait(printing, 4, 4));
    gpsimd.end_loop();
    return k;
}

// The same program with its loops written out, trip by trip.
kernel unrolled(const kernel& k) {
    kernel flat;
    flat.file = k.file;
    flat.prints = k.prints;
    flat.sources = k.sources;
    for (std::size_t e = 0; e < engine_count; ++e) {
        for (auto c = k.streams[e].begin(); !c.done(); ++c) {
            auto op = *c;
            op.wait_value = static_cast<std::uint32_t>(c.wait_value(op.wait_semaphore, op.wait_value));
            for (auto& w : op.also_waits) w.value = static_cast<std::uint32_t>(c.wait_value(w.semaphore, w.value));
            op.offset = c.offset(op.offset);
            flat.streams[e].push_back(op);
        }
    }
    return flat;
}

run_options profiled() {
    run_options o;
    o.profile = std::make_shared<profile::core_timeline>();
    return o;
}

struct pair_of_runs {
    kernel_run looped, flat;
};

pair_of_runs run_both(const char* instance, const kernel& k) {
    simulation sim(stepped(instance));
    pair_of_runs out;
    const auto flat = unrolled(k);
    BOOST_TEST_REQUIRE(!flat.streams[0].looped());
    BOOST_TEST(flat.instruction_count() == k.instruction_count());
    sim.call([&](platform& p) {
        const auto start = [&](const kernel& which, std::uint32_t device, kernel_run& into) {
            p.device(device).core(0).run(
                build_program_of(which, p.published().spec()), 1,
                [&into](const run_report& r) {
                    into.report = r;
                    into.end_ps = static_cast<std::uint64_t>(sc_core::sc_time_stamp().value());
                },
                profiled());
        };
        start(k, 0, out.looped);
        start(flat, 1, out.flat);
    });
    sim.advance(10ms);
    BOOST_TEST_REQUIRE(out.looped.report.has_value());
    BOOST_TEST_REQUIRE(out.flat.report.has_value());
    return out;
}

void same_instructions(const profile::core_timeline& a, const profile::core_timeline& b) {
    BOOST_TEST_REQUIRE(a.instructions.size() == b.instructions.size());
    for (std::size_t i = 0; i < a.instructions.size(); ++i) {
        const auto& x = a.instructions[i];
        const auto& y = b.instructions[i];
        BOOST_TEST_CONTEXT("instruction record " << i) {
            BOOST_TEST(x.start_ps == y.start_ps);
            BOOST_TEST(x.end_ps == y.end_ps);
            BOOST_TEST(x.index == y.index);
            BOOST_TEST(x.engine == y.engine);
            BOOST_TEST(x.opcode == y.opcode);
            BOOST_TEST(x.macs == y.macs);
            BOOST_TEST(x.wait_semaphore == y.wait_semaphore);
            BOOST_TEST(x.wait_value == y.wait_value);
            BOOST_TEST(x.signal_semaphore == y.signal_semaphore);
            BOOST_TEST(x.signal_increment == y.signal_increment);
            BOOST_TEST(x.transfer == y.transfer);
            BOOST_TEST(x.weight_load_ps == y.weight_load_ps);
            BOOST_TEST(x.memories == y.memories);
            BOOST_TEST(x.row_groups == y.row_groups);
        }
    }
}

void same_dma(const profile::core_timeline& a, const profile::core_timeline& b) {
    BOOST_TEST_REQUIRE(a.transfers.size() == b.transfers.size());
    for (std::size_t i = 0; i < a.transfers.size(); ++i) {
        BOOST_TEST(a.transfers[i].issued_ps == b.transfers[i].issued_ps);
        BOOST_TEST(a.transfers[i].arrives_ps == b.transfers[i].arrives_ps);
        BOOST_TEST(a.transfers[i].engine == b.transfers[i].engine);
    }
    BOOST_TEST_REQUIRE(a.dma_runs.size() == b.dma_runs.size());
    for (std::size_t i = 0; i < a.dma_runs.size(); ++i) {
        BOOST_TEST(a.dma_runs[i].start_ps == b.dma_runs[i].start_ps);
        BOOST_TEST(a.dma_runs[i].end_ps == b.dma_runs[i].end_ps);
        BOOST_TEST(a.dma_runs[i].transfer == b.dma_runs[i].transfer);
        BOOST_TEST(a.dma_runs[i].engines == b.dma_runs[i].engines);
    }
    BOOST_TEST_REQUIRE(a.semaphores.size() == b.semaphores.size());
    for (std::size_t i = 0; i < a.semaphores.size(); ++i) {
        BOOST_TEST(a.semaphores[i].at_ps == b.semaphores[i].at_ps);
        BOOST_TEST(a.semaphores[i].index == b.semaphores[i].index);
        BOOST_TEST(a.semaphores[i].value == b.semaphores[i].value);
    }
}

void looped_runs_as_unrolled(const char* instance) {
    const auto k = pipeline();
    BOOST_TEST(k.instruction_count() == 2u + (tiles - 2) + tiles + 4 * (1 + 3 * 2 + 1) + 4 * 2 + 3 * 2);
    BOOST_TEST(k.streams[static_cast<std::size_t>(engine_kind::tensor)].text().size() == 4u);
    const auto [looped, flat] = run_both(instance, k);
    BOOST_TEST(looped.end_ps == flat.end_ps);
    for (std::size_t e = 0; e < engine_count; ++e) {
        BOOST_TEST(looped.report->busy_ps[e] == flat.report->busy_ps[e], engine_name(static_cast<engine_kind>(e)));
        BOOST_TEST(looped.report->busy_ps[e] > 0u);
    }
    BOOST_TEST(looped.report->macs == flat.report->macs);
    BOOST_TEST(looped.report->dma.busy_ps == flat.report->dma.busy_ps);
    BOOST_TEST(looped.report->dma.bytes == flat.report->dma.bytes);
    const auto& a = *looped.report->profile;
    const auto& b = *flat.report->profile;
    BOOST_TEST(a.end_ps == b.end_ps);
    same_instructions(a, b);
    same_dma(a, b);
    // Every store was issued on its own trip, and its runs name it.
    BOOST_TEST(a.transfers.size() == tiles + 4u);
}

} // namespace

// SystemC allows one simulation per process: one instance per test case.
BOOST_AUTO_TEST_CASE(a_looped_pipeline_times_as_its_unrolled_twin_on_trn1) { looped_runs_as_unrolled("trn1.32xlarge"); }

BOOST_AUTO_TEST_CASE(a_looped_pipeline_times_as_its_unrolled_twin_on_trn2) { looped_runs_as_unrolled("trn2.48xlarge"); }

BOOST_AUTO_TEST_CASE(four_million_looped_matmuls_cost_their_text_and_run_to_the_end) {
    kernel k;
    auto& tensor = stream(k, engine_kind::tensor);
    tensor.begin_loop(std::uint64_t{1} << 22);
    tensor.push_back(matmul(128, 128));
    tensor.end_loop();
    simulation sim(stepped("trn2.3xlarge"));
    kernel_run run;
    std::uint64_t one = 0;
    sim.call([&](platform& p) {
        const auto program = build_program_of(k, p.published().spec());
        one = program->streams[static_cast<std::size_t>(engine_kind::tensor)].text().at(0).busy_ps;
        BOOST_TEST(program->instruction_count() == std::uint64_t{1} << 22);
    });
    start_kernel(sim, k, run);
    sim.advance(1s);
    BOOST_TEST_REQUIRE(run.report.has_value());
    BOOST_TEST(run.report->busy_ps[static_cast<std::size_t>(engine_kind::tensor)] == one << 22);
    BOOST_TEST(run.report->macs == (std::uint64_t{128} * 128 * 128) << 22);
    BOOST_TEST(run.end_ps == one << 22);
}
