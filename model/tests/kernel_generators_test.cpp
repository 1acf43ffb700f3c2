#define BOOST_TEST_MODULE kernel_generators
// The generated kernels: their size, their work, and a protocol that lets
// every instruction run and never lets a buffer be read while it is written
// or written while it is read, whatever order the engines and the DMA
// engines finish in.

#include "neuron/model/program/kernel_generators.h"
#include "neuron/model/spec/engine_costs.h"
#include "neuron/model/spec/errors.h"

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <random>
#include <string>

using namespace neuron::model;
using neuron::model::costs::element_type;

namespace {

constexpr auto tensor_e = static_cast<std::size_t>(engine_kind::tensor);
constexpr auto vector_e = static_cast<std::size_t>(engine_kind::vector);
constexpr auto scalar_e = static_cast<std::size_t>(engine_kind::scalar);
constexpr auto sync_e = static_cast<std::size_t>(engine_kind::sync);

std::size_t count(const kernel_stream& stream, opcode op) {
    return static_cast<std::size_t>(
        std::count_if(stream.begin(), stream.end(), [op](const kernel_op& o) { return o.op == op; }));
}

std::uint64_t macs(const kernel& k) {
    std::uint64_t total = 0;
    for (const auto& op : k.streams[tensor_e]) {
        if (op.op == opcode::nc_matmul) total += std::uint64_t{op.partitions} * op.stationary_free * op.free;
    }
    return total;
}

std::uint64_t hbm_bytes(const kernel& k, memory_kind from, memory_kind to) {
    std::uint64_t total = 0;
    for (const auto& stream : k.streams) {
        for (const auto& op : stream) {
            if (op.op == opcode::dma_copy && op.from == from && op.to == to) total += op.partitions * op.free;
        }
    }
    return total;
}

// ---- The protocol checker -------------------------------------------------
// Runs a kernel as the model does (each engine in order, an instruction
// waiting until its semaphore reaches its value; a dma_copy split into one
// part per DMA engine over consecutive partitions, each part adding 1 when
// it ends) in a random order of every step that may happen next, and tracks
// happens-before with vector clocks: the engines and every DMA part are
// threads; a waiter acquires everything signalled to its semaphore so far.
// It fails on a deadlock (a wait never reached) and on two accesses to
// overlapping SBUF/PSUM bytes, one a write, that happens-before does not order.

using clock_vector = std::vector<std::uint32_t>;

struct region {
    memory_kind memory;
    std::uint32_t first_partition, end_partition;
    std::uint64_t offset, end;

    bool overlaps(const region& o) const {
        return memory == o.memory && first_partition < o.end_partition && o.first_partition < end_partition &&
               offset < o.end && o.offset < end;
    }
};

struct access {
    region where;
    bool write;
    clock_vector start;     // when it began
    std::size_t end_thread; // and the event that ended it
    std::uint32_t end_clock;
    std::string what;
};

bool happens_before(std::size_t thread, std::uint32_t clock, const clock_vector& later) {
    return later[thread] >= clock;
}

void join(clock_vector& into, const clock_vector& from) {
    for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

std::uint64_t written_bytes(const kernel_op& op) {
    if (op.op == opcode::dma_copy) return op.free;
    if (op.op == opcode::nc_matmul) return op.free * 4; // fp32 into PSUM
    return op.free * costs::element_bytes(op.dtype);
}
std::uint32_t written_partitions(const kernel_op& op) {
    return op.op == opcode::nc_matmul ? static_cast<std::uint32_t>(op.stationary_free) : op.partitions;
}

struct part {
    std::size_t engine, index; // the dma_copy
    std::uint32_t first_partition, end_partition;
    clock_vector start;
    std::size_t thread;
};

class protocol_checker {
public:
    explicit protocol_checker(const generated_kernel& g) : m_g(g) {
        std::size_t parts = 0;
        for (const auto& stream : g.program.streams) {
            for (const auto& op : stream) parts += op.op == opcode::dma_copy ? op.dma_engines : 0;
        }
        m_threads = engine_count + parts;
        for (std::size_t e = 0; e < engine_count; ++e) {
            BOOST_TEST_REQUIRE(g.reads[e].size() == g.program.streams[e].size(),
                               "reads recorded for every instruction");
        }
    }

    // Empty when the run ended with every instruction run and no race.
    std::optional<std::string> run(unsigned seed) {
        std::mt19937 random(seed);
        std::array<std::size_t, engine_count> next{};
        std::array<clock_vector, engine_count> engine_clock;
        for (auto& c : engine_clock) c.assign(m_threads, 0);
        std::vector<std::uint64_t> value(256, 0);
        std::vector<clock_vector> signalled(256, clock_vector(m_threads, 0));
        std::vector<part> pending;
        std::vector<access> accesses;
        std::size_t next_thread = engine_count;

        const auto record = [&](access a) -> std::optional<std::string> {
            for (const auto& b : accesses) {
                if (!(a.write || b.write) || !a.where.overlaps(b.where)) continue;
                if (happens_before(b.end_thread, b.end_clock, a.start) ||
                    happens_before(a.end_thread, a.end_clock, b.start))
                    continue;
                return fmt::format("race between {} and {}", b.what, a.what);
            }
            accesses.push_back(std::move(a));
            return std::nullopt;
        };

        for (;;) {
            std::vector<std::size_t> ready; // engines, then engine_count + pending part
            for (std::size_t e = 0; e < engine_count; ++e) {
                const auto& stream = m_g.program.streams[e];
                if (next[e] == stream.size()) continue;
                const auto& op = stream[next[e]];
                if (op.wait_semaphore == no_semaphore_index || value.at(op.wait_semaphore) >= op.wait_value)
                    ready.push_back(e);
            }
            for (std::size_t i = 0; i < pending.size(); ++i) ready.push_back(engine_count + i);
            if (ready.empty()) break;
            const auto pick = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(random)];

            if (pick >= engine_count) {
                auto p = std::move(pending[pick - engine_count]);
                pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(pick - engine_count));
                const auto& op = m_g.program.streams[p.engine][p.index];
                clock_vector end = p.start;
                end[p.thread] = 1;
                const auto name = fmt::format("{} #{} part {}", engine_name(static_cast<engine_kind>(p.engine)),
                                              p.index, p.first_partition);
                for (const auto& r : m_g.reads[p.engine][p.index]) {
                    const auto last = std::min(p.end_partition, r.partitions);
                    if (p.first_partition >= last) continue;
                    if (auto race = record({{r.memory, p.first_partition, last, r.offset, r.offset + r.bytes},
                                            false,
                                            p.start,
                                            p.thread,
                                            1,
                                            "read by " + name}))
                        return race;
                }
                if (op.to != memory_kind::hbm) {
                    if (auto race = record({{op.to, p.first_partition, p.end_partition, op.offset, op.offset + op.free},
                                            true,
                                            p.start,
                                            p.thread,
                                            1,
                                            "write by " + name}))
                        return race;
                }
                if (op.signal_semaphore != no_semaphore_index) {
                    value.at(op.signal_semaphore) += 1;
                    join(signalled.at(op.signal_semaphore), end);
                }
                continue;
            }

            const auto e = pick;
            const auto index = next[e]++;
            const auto& op = m_g.program.streams[e][index];
            auto& now = engine_clock[e];
            if (op.wait_semaphore != no_semaphore_index) join(now, signalled.at(op.wait_semaphore));
            ++now[e];
            const auto name =
                fmt::format("{} #{} ({})", engine_name(static_cast<engine_kind>(e)), index, info(op.op).name);
            if (op.op == opcode::dma_copy) {
                for (std::uint32_t d = 0; d < op.dma_engines; ++d) {
                    const auto first = op.partitions * d / op.dma_engines;
                    const auto end = op.partitions * (d + 1) / op.dma_engines;
                    pending.push_back({e, index, first, end, now, next_thread++});
                }
                continue;
            }
            for (const auto& r : m_g.reads[e][index]) {
                if (auto race = record({{r.memory, 0, r.partitions, r.offset, r.offset + r.bytes},
                                        false,
                                        now,
                                        e,
                                        now[e],
                                        "read by " + name}))
                    return race;
            }
            if (auto race = record({{op.to, 0, written_partitions(op), op.offset, op.offset + written_bytes(op)},
                                    true,
                                    now,
                                    e,
                                    now[e],
                                    "write by " + name}))
                return race;
            if (op.signal_semaphore != no_semaphore_index) {
                value.at(op.signal_semaphore) += op.signal_increment;
                join(signalled.at(op.signal_semaphore), now);
            }
        }
        for (std::size_t e = 0; e < engine_count; ++e) {
            const auto& stream = m_g.program.streams[e];
            if (next[e] < stream.size()) {
                const auto& op = stream[next[e]];
                return fmt::format("deadlock: {} #{} waits for semaphore {} to reach {}, which stays at {}",
                                   engine_name(static_cast<engine_kind>(e)), next[e], op.wait_semaphore, op.wait_value,
                                   value.at(op.wait_semaphore));
            }
        }
        return std::nullopt;
    }

private:
    const generated_kernel& m_g;
    std::size_t m_threads;
};

void check_protocol(const generated_kernel& g, int runs = 20) {
    protocol_checker checker(g);
    for (int seed = 0; seed < runs; ++seed) {
        const auto failure = checker.run(static_cast<unsigned>(seed));
        BOOST_TEST_REQUIRE(!failure, "seed " << seed << ": " << *failure);
    }
}

// Every SBUF and PSUM access within the memory (SBUF: the budget; PSUM:
// 16 KiB, a matmul's output in one 2 KiB bank), on at most 128 partitions.
void check_bounds(const generated_kernel& g, std::uint64_t sbuf = default_sbuf_budget) {
    const auto within = [&](memory_kind m, std::uint32_t partitions, std::uint64_t offset, std::uint64_t bytes) {
        BOOST_TEST(partitions >= 1u);
        BOOST_TEST(partitions <= partitions_per_core);
        BOOST_TEST(bytes >= 1u);
        if (m == memory_kind::sbuf) BOOST_TEST(offset + bytes <= sbuf);
        if (m == memory_kind::psum) BOOST_TEST(offset + bytes <= psum_bank_bytes * psum_banks);
    };
    for (std::size_t e = 0; e < engine_count; ++e) {
        for (std::size_t i = 0; i < g.program.streams[e].size(); ++i) {
            const auto& op = g.program.streams[e][i];
            if (op.to != memory_kind::hbm) within(op.to, written_partitions(op), op.offset, written_bytes(op));
            if (op.op == opcode::nc_matmul) {
                BOOST_TEST(op.offset / psum_bank_bytes == (op.offset + written_bytes(op) - 1) / psum_bank_bytes);
                BOOST_TEST(op.stationary_free <= 128u);
            }
            if (!g.reads[e].empty()) {
                for (const auto& r : g.reads[e][i]) within(r.memory, r.partitions, r.offset, r.bytes);
            }
        }
    }
}

template <class F>
void refused(F&& generate, const std::string& what) {
    try {
        (void)generate();
        BOOST_ERROR("accepted; expected: " << what);
    } catch (const invalid_argument_error& e) {
        BOOST_TEST(std::string(e.what()).find(what) != std::string::npos, e.what());
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(the_checker_finds_a_missing_wait_and_a_wait_never_reached) {
    // A load into SBUF and a matmul reading it with no wait: a race.
    generated_kernel g;
    kernel_op load;
    load.op = opcode::dma_copy;
    load.from = memory_kind::hbm;
    load.to = memory_kind::sbuf;
    load.free = 256;
    load.signal_semaphore = 0;
    g.program.streams[sync_e].push_back(load);
    g.reads[sync_e].push_back({});
    kernel_op mm;
    mm.op = opcode::nc_matmul;
    mm.to = memory_kind::psum;
    mm.stationary_free = 128;
    mm.free = 128;
    g.program.streams[tensor_e].push_back(mm);
    g.reads[tensor_e].push_back({{memory_kind::sbuf, 128, 0, 256}});
    protocol_checker racy(g);
    bool found = false;
    for (unsigned seed = 0; seed < 20 && !found; ++seed) found = racy.run(seed).has_value();
    BOOST_TEST(found);

    // Waiting for 15 of the 16 parts is not enough either.
    g.program.streams[tensor_e][0].wait_semaphore = 0;
    g.program.streams[tensor_e][0].wait_value = 15;
    protocol_checker early(g);
    found = false;
    for (unsigned seed = 0; seed < 50 && !found; ++seed) found = early.run(seed).has_value();
    BOOST_TEST(found);

    // All 16: ordered.
    g.program.streams[tensor_e][0].wait_value = 16;
    check_protocol(g);

    // 17: never reached.
    g.program.streams[tensor_e][0].wait_value = 17;
    const auto stuck = protocol_checker(g).run(0);
    BOOST_TEST_REQUIRE(stuck.has_value());
    BOOST_TEST(stuck->find("deadlock: tensor #0 waits for semaphore 0 to reach 17, which stays at 16") !=
                   std::string::npos,
               *stuck);
}

BOOST_AUTO_TEST_CASE(a_2048_cubed_bf16_matmul_is_1024_matmuls_with_a_resident_a) {
    const auto g = tiled_matmul({.m = 2048, .k = 2048, .n = 2048, .activation = true});
    const auto& k = g.program;
    BOOST_TEST(k.streams[tensor_e].size() == 1024u); // 16 m tiles x 16 k tiles x 4 n tiles
    BOOST_TEST(count(k.streams[tensor_e], opcode::nc_matmul) == 1024u);
    BOOST_TEST(macs(k) == 2048ull * 2048 * 2048); // flops: 2 x M x N x K
    for (const auto& op : k.streams[tensor_e]) {
        BOOST_TEST(op.partitions == 128u);
        BOOST_TEST(op.stationary_free == 128u);
        BOOST_TEST(op.free == 512u);
        BOOST_TEST((op.dtype == element_type::bf16));
    }
    // 64 output tiles: an activation out of PSUM and a store each.
    BOOST_TEST(count(k.streams[scalar_e], opcode::activation) == 64u);
    BOOST_TEST(count(k.streams[scalar_e], opcode::dma_copy) == 64u);
    BOOST_TEST(k.streams[scalar_e].size() == 128u);
    // A^T fits SBUF: loaded once, in 16 chunks; B once, in 4 column blocks.
    BOOST_TEST(k.streams[sync_e].size() == 20u);
    BOOST_TEST(hbm_bytes(k, memory_kind::hbm, memory_kind::sbuf) == 2 * 2048ull * 2048 * 2);
    BOOST_TEST(hbm_bytes(k, memory_kind::sbuf, memory_kind::hbm) == 2048ull * 2048 * 2);
    BOOST_TEST(k.instruction_count() == 1024u + 128u + 20u);
    BOOST_TEST(k.streams[static_cast<std::size_t>(engine_kind::vector)].empty());
}

BOOST_AUTO_TEST_CASE(tiled_matmul_protocol_holds_in_any_order) {
    const tiled_matmul_params cases[] = {
        {.m = 512, .k = 384, .n = 1536, .dma_engines = 4},                            // one panel, chunks, 3 blocks
        {.m = 300, .k = 200, .n = 700, .activation = true, .dma_engines = 3},         // edges everywhere
        {.m = 1280, .k = 128, .n = 1024, .dma_engines = 2},                           // one k tile: no chunks
        {.m = 128, .k = 128, .n = 5120, .dma_engines = 2},                            // one m tile, 10 blocks
        {.m = 1024, .k = 512, .n = 1024, .dma_engines = 2, .sbuf_budget = 16 * 1024}, // 2 panels of 4 m tiles
        {.m = 1024, .k = 128, .n = 2048, .dma_engines = 2, .sbuf_budget = 7 * 1024},  // 2 panels, one k tile
        {.m = 96,
         .k = 64,
         .n = 100,
         .dtype = element_type::fp32,
         .tile_m = 32,
         .tile_k = 32,
         .tile_n = 40,
         .dma_engines = 5},
    };
    for (const auto& p : cases) {
        BOOST_TEST_CONTEXT(fmt::format("m {} k {} n {} budget {}", p.m, p.k, p.n, p.sbuf_budget)) {
            const auto g = tiled_matmul(p, true);
            BOOST_TEST(macs(g.program) == p.m * p.k * p.n);
            check_bounds(g, p.sbuf_budget);
            check_protocol(g);
        }
    }
}

BOOST_AUTO_TEST_CASE(tiled_matmul_reloads_a_per_panel_when_it_does_not_fit) {
    // 1024 x 512: one m tile of A^T is 4 x 128 x 2 = 1 KiB; B blocks 2 x 4 KiB, outputs 4 KiB:
    // a 24 KiB budget holds 12 m tiles... of 8: one panel. 16 KiB holds 4: two panels.
    const auto one = tiled_matmul({.m = 1024, .k = 512, .n = 1024, .sbuf_budget = 24 * 1024});
    const auto two = tiled_matmul({.m = 1024, .k = 512, .n = 1024, .sbuf_budget = 16 * 1024});
    // Sync: chunks of A (8, then 4 + 4) and B blocks (2, then 2 per panel).
    BOOST_TEST(one.program.streams[sync_e].size() == 8u + 2u);
    BOOST_TEST(two.program.streams[sync_e].size() == 2 * (4u + 2u));
    BOOST_TEST(hbm_bytes(two.program, memory_kind::hbm, memory_kind::sbuf) ==
               1024ull * 512 * 2 + 2 * 512ull * 1024 * 2); // A once, B once per panel
    BOOST_TEST(macs(two.program) == 1024ull * 512 * 1024);
}

BOOST_AUTO_TEST_CASE(tiled_matmul_reads_a_k_edge_once) {
    // k = 300: two whole k tiles and an edge of 44 rows. A^T (one m tile)
    // and B (one block) each load in two copies: 128 partitions of the two
    // whole tiles, then 44 partitions of the edge tile after them.
    const auto g = tiled_matmul({.m = 128, .k = 300, .n = 512}, true);
    const auto& sync = g.program.streams[sync_e];
    BOOST_TEST(hbm_bytes(g.program, memory_kind::hbm, memory_kind::sbuf) == (128ull * 300 + 300ull * 512) * 2);
    BOOST_TEST_REQUIRE(sync.size() == 4u);
    BOOST_TEST(sync[0].partitions == 128u);
    BOOST_TEST(sync[0].free == 2 * 128u * 2);
    BOOST_TEST(sync[1].partitions == 44u);
    BOOST_TEST(sync[1].free == 128u * 2);
    BOOST_TEST(sync[1].offset == sync[0].offset + sync[0].free);
    BOOST_TEST(macs(g.program) == 128ull * 300 * 512);
    check_protocol(g);
}

BOOST_AUTO_TEST_CASE(tiled_matmul_refuses_what_it_cannot_lay_out) {
    refused([] { return tiled_matmul({.m = 0, .k = 1, .n = 1}); },
            "tiled_matmul: m must be from 1 to 4294967295, not 0");
    refused([] { return tiled_matmul({.m = 1, .k = 1, .n = 1, .tile_m = 129}); },
            "tile_m must be from 1 to 128, not 129");
    refused([] { return tiled_matmul({.m = 1, .k = 1, .n = 1, .tile_k = 0}); }, "tile_k must be from 1 to 128, not 0");
    refused([] { return tiled_matmul({.m = 1, .k = 1, .n = 1, .tile_n = 513}); },
            "tile_n must be from 1 to 512, not 513");
    refused([] { return tiled_matmul({.m = 1, .k = 1, .n = 1, .dma_engines = 17}); },
            "dma_engines must be from 1 to 16");
    refused([] { return tiled_matmul({.m = 128, .k = 65536, .n = 512}); },
            "k = 65536 needs 1183744 bytes per partition of SBUF");
    refused([] { return tiled_matmul({.m = 1u << 20, .k = 128, .n = 1u << 20}); },
            "these parameters make more than 1048576 instructions");
}

BOOST_AUTO_TEST_CASE(elementwise_layers_load_compute_and_store_each_tile) {
    const auto g = elementwise({.rows = 1024, .cols = 4096, .op = opcode::activation});
    // 8 row tiles x 2 column tiles of 2048.
    BOOST_TEST(g.program.streams[sync_e].size() == 16u);
    BOOST_TEST(count(g.program.streams[scalar_e], opcode::activation) == 16u);
    BOOST_TEST(count(g.program.streams[scalar_e], opcode::dma_copy) == 16u);
    BOOST_TEST(hbm_bytes(g.program, memory_kind::hbm, memory_kind::sbuf) == 1024ull * 4096 * 2);
    BOOST_TEST(hbm_bytes(g.program, memory_kind::sbuf, memory_kind::hbm) == 1024ull * 4096 * 2);

    const auto add = elementwise({.rows = 200,
                                  .cols = 3000,
                                  .op = opcode::tensor_tensor,
                                  .alu = alu_op::multiply,
                                  .dtype = element_type::fp32,
                                  .tile_free = 1024,
                                  .dma_engines = 4},
                                 true);
    // 2 row tiles x 3 column tiles, two loads each, on Vector.
    BOOST_TEST(add.program.streams[sync_e].size() == 12u);
    BOOST_TEST(count(add.program.streams[vector_e], opcode::tensor_tensor) == 6u);
    for (const auto& op : add.program.streams[vector_e]) {
        if (op.op == opcode::tensor_tensor) BOOST_TEST((op.alu == alu_op::multiply));
    }
    BOOST_TEST(hbm_bytes(add.program, memory_kind::hbm, memory_kind::sbuf) == 2 * 200ull * 3000 * 4);
    check_bounds(add);
    check_protocol(add);
    for (const auto op : {opcode::activation, opcode::tensor_scalar, opcode::tensor_copy}) {
        const auto one = elementwise({.rows = 300, .cols = 700, .op = op, .tile_free = 256, .dma_engines = 3}, true);
        check_bounds(one);
        check_protocol(one);
    }
    refused([] { return elementwise({.rows = 1, .cols = 1, .op = opcode::nc_matmul}); },
            "elementwise: op must be activation, tensor_scalar, tensor_tensor or tensor_copy, not nc_matmul");
    refused([] { return elementwise({.rows = 1, .cols = 1, .tile_free = 65536}); },
            "tile_free must be from 1 to 24576");
}

BOOST_AUTO_TEST_CASE(dma_copies_move_every_byte_once) {
    const auto g = dma_copy({.bytes = 64ull << 20, .bytes_per_partition = 4096});
    BOOST_TEST(g.program.streams[sync_e].size() == 128u); // 64 MiB in copies of 512 KiB
    BOOST_TEST(hbm_bytes(g.program, memory_kind::hbm, memory_kind::sbuf) == 64ull << 20);

    // A remainder: 3 full copies, one of 5 partitions, one of 100 bytes.
    const std::uint64_t odd = 3 * 128 * 1000 + 5 * 1000 + 100;
    const auto rest = dma_copy({.bytes = odd, .bytes_per_partition = 1000, .dma_engines = 4}, true);
    BOOST_TEST(rest.program.streams[sync_e].size() == 5u);
    BOOST_TEST(hbm_bytes(rest.program, memory_kind::hbm, memory_kind::sbuf) == odd);
    check_bounds(rest);
    check_protocol(rest);

    // Through 8 SBUF buffers in turn, each reused once the copy before it there ended.
    const auto ring = dma_copy({.bytes = 40 * 128 * 2048, .bytes_per_partition = 2048, .dma_engines = 2}, true);
    check_bounds(ring);
    check_protocol(ring);
    for (const auto& [from, to] : {std::pair{memory_kind::sbuf, memory_kind::hbm},
                                   {memory_kind::hbm, memory_kind::hbm},
                                   {memory_kind::sbuf, memory_kind::sbuf},
                                   {memory_kind::hbm, memory_kind::psum}}) {
        const auto other = dma_copy(
            {.bytes = 20 * 128 * 1024, .bytes_per_partition = 1024, .from = from, .to = to, .dma_engines = 2}, true);
        check_bounds(other);
        check_protocol(other);
    }
    refused([] { return dma_copy({.bytes = 1, .bytes_per_partition = 20000, .to = memory_kind::psum}); },
            "dma_copy: bytes_per_partition must be from 1 to 16384 for a copy from hbm to psum, not 20000");
    refused([] { return dma_copy({.bytes = 0}); }, "bytes must be from 1");
    refused([] { return dma_copy({.bytes = 1ull << 40, .bytes_per_partition = 1}); }, "more than 1048576 instructions");
}
