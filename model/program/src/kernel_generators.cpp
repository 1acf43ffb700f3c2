#include "neuron/model/program/kernel_generators.h"

#include "neuron/model/spec/engine_costs.h"
#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace neuron::model {
namespace {

using costs::element_type;
using enum engine_kind;

constexpr std::uint64_t max_dimension = UINT32_MAX; // a kernel_op's partitions and counts are 32-bit
constexpr std::uint64_t psum_bytes = psum_bank_bytes * psum_banks;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

[[noreturn]] void refuse(std::string_view generator, std::string_view what) {
    throw invalid_argument_error(fmt::format("{}: {}", generator, what));
}

void check_range(std::string_view generator, std::string_view name, std::uint64_t value, std::uint64_t low,
                 std::uint64_t high) {
    if (value < low || value > high)
        refuse(generator, fmt::format("{} must be from {} to {}, not {}", name, low, high, value));
}

void check_instruction_count(std::string_view generator, unsigned __int128 count) {
    if (count > max_kernel_instructions) {
        refuse(generator, fmt::format("these parameters make more than {} instructions (the most a program has)",
                                      max_kernel_instructions));
    }
}

// Appends instructions with what they read, and keeps each semaphore's
// value once every signal so far has arrived: a wait for "that copy ended"
// waits for the value right after it.
class kernel_writer {
public:
    kernel_writer(std::uint32_t dma_engines, bool record_reads)
            : m_dma_engines(dma_engines), m_record_reads(record_reads) {}

    std::size_t push(engine_kind engine, kernel_op op, std::vector<tile_region> reads = {}) {
        const auto e = static_cast<std::size_t>(engine);
        if (op.signal_semaphore != no_semaphore_index) {
            if (m_values.size() <= op.signal_semaphore) m_values.resize(op.signal_semaphore + 1);
            m_values[op.signal_semaphore] += op.op == opcode::dma_copy ? op.dma_engines : op.signal_increment;
        }
        m_out.program.streams[e].push_back(op);
        if (m_record_reads) m_out.reads[e].push_back(std::move(reads));
        return m_out.program.streams[e].size() - 1;
    }

    kernel_op& at(engine_kind engine, std::size_t index) {
        return m_out.program.streams[static_cast<std::size_t>(engine)][index];
    }
    std::size_t size(engine_kind engine) const {
        return m_out.program.streams[static_cast<std::size_t>(engine)].size();
    }
    std::uint32_t value(std::uint32_t semaphore) const {
        return semaphore < m_values.size() ? static_cast<std::uint32_t>(m_values[semaphore]) : 0;
    }

    kernel_op dma(std::uint32_t partitions, std::uint64_t bytes, memory_kind from, memory_kind to, std::uint64_t offset,
                  std::uint32_t signal, std::uint32_t queue = 0) const {
        kernel_op op;
        op.op = opcode::dma_copy;
        op.partitions = partitions;
        op.free = bytes;
        op.from = from;
        op.to = to;
        op.offset = to == memory_kind::hbm ? 0 : offset;
        op.queue = queue;
        op.dma_engines = m_dma_engines;
        op.signal_semaphore = signal;
        return op;
    }

    generated_kernel take() { return std::move(m_out); }

private:
    std::uint32_t m_dma_engines;
    bool m_record_reads;
    std::vector<std::uint64_t> m_values;
    generated_kernel m_out;
};

// The loads come in their own stream, between the compute's waits: they
// cannot share an engine with the compute.
void check_loads_on(std::string_view generator, engine_kind loads_on, std::initializer_list<engine_kind> computing) {
    for (const auto e : computing) {
        if (e == loads_on) {
            refuse(generator, fmt::format("loads_on: the {} engine computes in this kernel; issue the loads from an "
                                          "engine it leaves idle",
                                          engine_name(e)));
        }
    }
}

void set_wait(kernel_op& op, std::uint32_t semaphore, std::uint32_t value) {
    op.wait_semaphore = semaphore;
    op.wait_value = value;
}

// The output tile [m_size, n_size] of tile t in a tiled matmul.
struct matmul_plan {
    std::uint64_t mt, kt, nt;  // tile counts
    std::uint64_t panel_tiles; // m tiles whose A^T stays in SBUF at once
    std::uint64_t per_m_tile;  // SBUF bytes of one m tile's A^T (all k tiles)
    std::uint64_t b_block;     // SBUF bytes of one B column block (all k tiles)
    std::uint64_t out_tile;    // SBUF bytes of one output tile
};

constexpr std::uint32_t output_buffers = 4;
constexpr std::uint32_t max_panel_chunks = 16;

// Semaphores of the tiled matmul.
constexpr std::uint32_t sem_first = 0;                           // A chunk 0 and B block 0 of an A panel
constexpr std::uint32_t sem_b_slot = 1;                          // +slot: B blocks after the first of a panel
constexpr std::uint32_t sem_matmul = 3;                          // +1 when an output tile's last matmul ends
constexpr std::uint32_t sem_evacuated = 4;                       // +1 when ScalarE has moved an output tile out of PSUM
constexpr std::uint32_t sem_stored = 5;                          // +buffer: stores out of each output buffer
constexpr std::uint32_t sem_chunk = sem_stored + output_buffers; // +c - 1: A panel chunk c (c >= 1)

} // namespace

generated_kernel tiled_matmul(const tiled_matmul_params& p, bool record_reads) {
    constexpr std::string_view name = "tiled_matmul";
    check_range(name, "m", p.m, 1, max_dimension);
    check_range(name, "k", p.k, 1, max_dimension);
    check_range(name, "n", p.n, 1, max_dimension);
    check_range(name, "tile_m", p.tile_m, 1, 128);
    check_range(name, "tile_k", p.tile_k, 1, partitions_per_core);
    check_range(name, "tile_n", p.tile_n, 1, psum_bank_bytes / 4);
    check_range(name, "dma_engines", p.dma_engines, 1, default_dma_engines);
    check_loads_on(name, p.loads_on, {tensor, scalar});
    const auto es = costs::element_bytes(p.dtype);

    matmul_plan plan{};
    plan.mt = ceil_div(p.m, p.tile_m);
    plan.kt = ceil_div(p.k, p.tile_k);
    plan.nt = ceil_div(p.n, p.tile_n);
    plan.per_m_tile = plan.kt * p.tile_m * es;
    plan.b_block = plan.kt * p.tile_n * es;
    plan.out_tile = std::uint64_t{p.tile_n} * es;
    const auto fixed = 2 * plan.b_block + output_buffers * plan.out_tile;
    if (fixed + plan.per_m_tile > p.sbuf_budget) {
        refuse(name,
               fmt::format("k = {} needs {} bytes per partition of SBUF (two B blocks of {} k tiles, {} output "
                           "buffers and one m tile of A), more than the {} of sbuf_budget; use a smaller k or tile_n",
                           p.k, fixed + plan.per_m_tile, plan.kt, output_buffers, p.sbuf_budget));
    }
    plan.panel_tiles = std::min(plan.mt, (p.sbuf_budget - fixed) / plan.per_m_tile);
    const auto panels = ceil_div(plan.mt, plan.panel_tiles);
    const auto chunks_per_panel = plan.kt >= 2 ? std::min<std::uint64_t>(plan.panel_tiles, max_panel_chunks) : 1;
    check_instruction_count(name, static_cast<unsigned __int128>(plan.mt) * plan.nt * (plan.kt + 2) +
                                      static_cast<unsigned __int128>(panels) * (chunks_per_panel + plan.nt) * 2);

    const auto b_offset = [&](std::uint64_t block) {
        return plan.panel_tiles * plan.per_m_tile + (block % 2) * plan.b_block;
    };
    const auto out_offset = [&](std::uint64_t tile) {
        return plan.panel_tiles * plan.per_m_tile + 2 * plan.b_block + (tile % output_buffers) * plan.out_tile;
    };
    const auto size_of = [](std::uint64_t index, std::uint64_t tile, std::uint64_t total) {
        return static_cast<std::uint32_t>(std::min(tile, total - index * tile));
    };
    const auto k_partitions = static_cast<std::uint32_t>(std::min<std::uint64_t>(p.tile_k, p.k));
    const std::uint32_t d = p.dma_engines;
    // A k edge: the rows of the last k tile, fewer than its partitions.
    const auto k_edge = plan.kt > 1 ? static_cast<std::uint32_t>(p.k % p.tile_k) : 0u;

    kernel_writer w(d, record_reads);
    // Sync loads `row_bytes` of each of the k rows of an operand into SBUF at
    // `offset`, k tile t at t * row_bytes in each partition: one copy, or with
    // a k edge one of the whole k tiles and one of the edge. `wait` goes on
    // the first.
    const auto load_k_rows = [&](std::uint64_t row_bytes, std::uint64_t offset, std::uint32_t signal,
                                 std::uint32_t wait_on = no_semaphore_index, std::uint32_t wait_value = 0) {
        const auto whole_tiles = k_edge != 0 ? plan.kt - 1 : plan.kt;
        auto op = w.dma(k_partitions, whole_tiles * row_bytes, memory_kind::hbm, memory_kind::sbuf, offset, signal);
        if (wait_on != no_semaphore_index) set_wait(op, wait_on, wait_value);
        w.push(p.loads_on, op);
        if (k_edge != 0) {
            w.push(p.loads_on, w.dma(k_edge, row_bytes, memory_kind::hbm, memory_kind::sbuf,
                                     offset + whole_tiles * row_bytes, signal));
        }
    };
    std::uint64_t tile = 0;            // output tiles so far, in the order the tensor engine makes them
    std::uint64_t evacuated_known = 0; // the most of sem_evacuated the tensor engine has waited for, directly or not
    for (std::uint64_t panel = 0; panel < panels; ++panel) {
        const auto first_m = panel * plan.panel_tiles;
        const auto tiles_in_panel = std::min(plan.panel_tiles, plan.mt - first_m);
        const auto chunk_tiles = ceil_div(tiles_in_panel, std::min(chunks_per_panel, tiles_in_panel));
        const auto tile_base = tile;
        const auto block_base = panel * plan.nt;

        // Sync: the panel's A^T in chunks of m tiles (chunk 0 first, with the
        // first B block, on one semaphore the first tile waits for in full),
        // then the panel's B blocks, each once the block two before it is out of PSUM.
        // A chunk overwrites the m tiles of the panel before at its place:
        // it loads as soon as those tiles of that panel's last block are out
        // of PSUM, while the rest of the block still computes.
        std::vector<std::uint32_t> chunk_ready;
        std::vector<std::uint32_t> block_ready(plan.nt);
        std::vector<std::uint32_t> block_evacuated(plan.nt); // what the block's load waited for
        for (std::uint64_t c = 0; c * chunk_tiles < tiles_in_panel; ++c) {
            const auto first = c * chunk_tiles;
            const auto last = std::min(first + chunk_tiles, tiles_in_panel);
            std::uint64_t row_bytes = 0; // of the chunk's m tiles
            for (auto i = first; i < last; ++i) row_bytes += size_of(first_m + i, p.tile_m, p.m) * es;
            const auto signal = c == 0 ? sem_first : static_cast<std::uint32_t>(sem_chunk + c - 1);
            // Every panel but the last is whole, so the panel before ends with a
            // block of panel_tiles tiles; its tiles up to `last` read this chunk's place.
            const auto freed = panel > 0 ? static_cast<std::uint32_t>(tile_base - plan.panel_tiles + last) : 0u;
            if (panel > 0) {
                load_k_rows(row_bytes, first * plan.per_m_tile, signal, sem_evacuated, freed);
            } else {
                load_k_rows(row_bytes, first * plan.per_m_tile, signal);
            }
            chunk_ready.push_back(w.value(signal));
            if (c == 0) {
                // Its buffer held the block two before, which ended before the
                // panel before's last block began: Sync has waited for that already.
                load_k_rows(std::uint64_t{size_of(0, p.tile_n, p.n)} * es, b_offset(block_base), sem_first);
                block_ready[0] = w.value(sem_first);
                block_evacuated[0] = freed;
            }
        }
        for (std::uint64_t j = 1; j < plan.nt; ++j) {
            const auto width = size_of(j, p.tile_n, p.n);
            const auto slot = static_cast<std::uint32_t>(sem_b_slot + (block_base + j) % 2);
            const auto before = tile_base + (j - 1) * tiles_in_panel; // tiles of the blocks up to two before
            if (before > tile_base) {
                load_k_rows(std::uint64_t{width} * es, b_offset(block_base + j), slot, sem_evacuated,
                            static_cast<std::uint32_t>(before));
            } else {
                load_k_rows(std::uint64_t{width} * es, b_offset(block_base + j), slot);
            }
            block_ready[j] = w.value(slot);
            block_evacuated[j] = static_cast<std::uint32_t>(before);
        }

        for (std::uint64_t j = 0; j < plan.nt; ++j) {
            const auto width = size_of(j, p.tile_n, p.n);
            for (std::uint64_t i = 0; i < tiles_in_panel; ++i, ++tile) {
                const auto rows = size_of(first_m + i, p.tile_m, p.m);
                const auto bank = tile % psum_banks;
                const auto first_op = w.size(tensor);
                for (std::uint64_t kt = 0; kt < plan.kt; ++kt) {
                    const auto depth = size_of(kt, p.tile_k, p.k);
                    kernel_op mm;
                    mm.op = opcode::nc_matmul;
                    mm.dtype = p.dtype;
                    mm.partitions = depth;
                    mm.stationary_free = rows;
                    mm.free = width;
                    mm.from = memory_kind::sbuf;
                    mm.to = memory_kind::psum;
                    mm.offset = bank * psum_bank_bytes;
                    if (kt == 0) {
                        if (j == 0 && i == 0) {
                            set_wait(mm, sem_first, block_ready[0]);
                            evacuated_known = std::max<std::uint64_t>(evacuated_known, block_evacuated[0]);
                        } else if (j == 0 && i % chunk_tiles == 0) {
                            set_wait(mm, static_cast<std::uint32_t>(sem_chunk + i / chunk_tiles - 1),
                                     chunk_ready[i / chunk_tiles]);
                        } else if (i == 0) {
                            set_wait(mm, static_cast<std::uint32_t>(sem_b_slot + (block_base + j) % 2), block_ready[j]);
                            evacuated_known = std::max<std::uint64_t>(evacuated_known, block_evacuated[j]);
                        }
                    }
                    if (kt + 1 == plan.kt) mm.signal_semaphore = sem_matmul;
                    const auto a_offset = (i * plan.kt + kt) * p.tile_m * es;
                    const auto b_at = b_offset(block_base + j) + kt * width * es;
                    w.push(tensor, mm,
                           {{memory_kind::sbuf, depth, a_offset, std::uint64_t{rows} * es},
                            {memory_kind::sbuf, depth, b_at, std::uint64_t{width} * es}});
                }
                // The bank was last written for tile - 8: it must be out of PSUM
                // before the first matmul here. The wait goes on the latest
                // instruction at or before that one with no other wait (one
                // tile before is early enough not to wait on itself).
                if (tile >= psum_banks && evacuated_known < tile - psum_banks + 1) {
                    const auto value = static_cast<std::uint32_t>(tile - psum_banks + 1);
                    auto at = first_op;
                    while (w.at(tensor, at).wait_semaphore != no_semaphore_index &&
                           w.at(tensor, at).wait_semaphore != sem_evacuated) {
                        if (at == 0 || first_op - at >= (psum_banks - 1) * plan.kt) {
                            throw std::logic_error("tiled_matmul: no instruction to carry a PSUM bank's wait");
                        }
                        --at;
                    }
                    set_wait(w.at(tensor, at), sem_evacuated, std::max(value, w.at(tensor, at).wait_value));
                    evacuated_known = value;
                }

                // ScalarE: PSUM to SBUF, then the store; the store of the tile
                // before waits until the output buffer the next tile fills is stored.
                kernel_op out;
                out.op = p.activation ? opcode::activation : opcode::tensor_copy;
                out.dtype = p.dtype;
                out.partitions = rows;
                out.free = width;
                out.from = memory_kind::psum;
                out.to = memory_kind::sbuf;
                out.offset = out_offset(tile);
                set_wait(out, sem_matmul, static_cast<std::uint32_t>(tile + 1));
                out.signal_semaphore = sem_evacuated;
                w.push(scalar, out, {{memory_kind::psum, rows, bank * psum_bank_bytes, std::uint64_t{width} * 4}});
                auto store = w.dma(rows, std::uint64_t{width} * es, memory_kind::sbuf, memory_kind::hbm, 0,
                                   static_cast<std::uint32_t>(sem_stored + tile % output_buffers), 1);
                if (tile + 1 >= output_buffers) {
                    set_wait(store, static_cast<std::uint32_t>(sem_stored + (tile + 1) % output_buffers),
                             static_cast<std::uint32_t>(d * ((tile + 1) / output_buffers)));
                }
                w.push(scalar, store, {{memory_kind::sbuf, rows, out_offset(tile), std::uint64_t{width} * es}});
            }
        }
    }
    return w.take();
}

generated_kernel elementwise(const elementwise_params& p, bool record_reads) {
    constexpr std::string_view name = "elementwise";
    check_range(name, "rows", p.rows, 1, max_dimension);
    check_range(name, "cols", p.cols, 1, max_dimension);
    check_range(name, "dma_engines", p.dma_engines, 1, default_dma_engines);
    engine_kind engine = vector;
    switch (p.op) {
    case opcode::activation: engine = scalar; break;
    case opcode::tensor_scalar:
    case opcode::tensor_tensor:
    case opcode::tensor_copy: break;
    default:
        refuse(name, fmt::format("op must be activation, tensor_scalar, tensor_tensor or tensor_copy, not {}",
                                 info(p.op).name));
    }
    check_loads_on(name, p.loads_on, {engine});
    const std::uint32_t inputs = p.op == opcode::tensor_tensor ? 2 : 1;
    const auto es = costs::element_bytes(p.dtype);
    const auto tile_bytes = std::uint64_t{p.tile_free} * es;
    const auto need = 2 * (inputs + 1) * tile_bytes;
    if (p.tile_free == 0 || need > p.sbuf_budget) {
        refuse(name, fmt::format("tile_free must be from 1 to {} (2 input and 2 output buffers of it in the {} bytes "
                                 "of sbuf_budget), not {}",
                                 p.sbuf_budget / (2 * (inputs + 1) * es), p.sbuf_budget, p.tile_free));
    }
    const auto row_tiles = ceil_div(p.rows, partitions_per_core);
    const auto col_tiles = ceil_div(p.cols, p.tile_free);
    check_instruction_count(name, static_cast<unsigned __int128>(row_tiles) * col_tiles * (inputs + 2));

    constexpr std::uint32_t sem_loaded = 0;     // +buffer
    constexpr std::uint32_t sem_computed = 2;   // +1 per tile
    constexpr std::uint32_t sem_stored_out = 3; // +buffer
    const std::uint32_t d = p.dma_engines;
    const auto in_offset = [&](std::uint64_t t, std::uint32_t input) {
        return ((t % 2) * inputs + input) * tile_bytes;
    };
    const auto out_offset = [&](std::uint64_t t) { return 2 * inputs * tile_bytes + (t % 2) * tile_bytes; };

    kernel_writer w(d, record_reads);
    const auto tiles = row_tiles * col_tiles;
    for (std::uint64_t t = 0; t < tiles; ++t) {
        const auto rows = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(partitions_per_core, p.rows - (t / col_tiles) * partitions_per_core));
        const auto cols = std::min<std::uint64_t>(p.tile_free, p.cols - (t % col_tiles) * p.tile_free);
        const auto buffer = static_cast<std::uint32_t>(t % 2);
        std::vector<tile_region> reads;
        for (std::uint32_t input = 0; input < inputs; ++input) {
            auto load =
                w.dma(rows, cols * es, memory_kind::hbm, memory_kind::sbuf, in_offset(t, input), sem_loaded + buffer);
            // The compute two tiles before read this buffer.
            if (input == 0 && t >= 2) set_wait(load, sem_computed, static_cast<std::uint32_t>(t - 1));
            w.push(p.loads_on, load);
            reads.push_back({memory_kind::sbuf, rows, in_offset(t, input), cols * es});
        }
        kernel_op op;
        op.op = p.op;
        op.alu = p.alu;
        op.dtype = p.dtype;
        op.partitions = rows;
        op.free = cols;
        op.from = memory_kind::sbuf;
        op.to = memory_kind::sbuf;
        op.offset = out_offset(t);
        set_wait(op, sem_loaded + buffer, w.value(sem_loaded + buffer));
        op.signal_semaphore = sem_computed;
        w.push(engine, op, std::move(reads));
        auto store = w.dma(rows, cols * es, memory_kind::sbuf, memory_kind::hbm, 0, sem_stored_out + buffer, 1);
        // The next tile's compute fills the other output buffer: its last store must have ended.
        if (t >= 1) set_wait(store, sem_stored_out + 1 - buffer, static_cast<std::uint32_t>(d * ((t + 1) / 2)));
        w.push(engine, store, {{memory_kind::sbuf, rows, out_offset(t), cols * es}});
    }
    return w.take();
}

generated_kernel dma_copy(const dma_copy_params& p, bool record_reads) {
    constexpr std::string_view name = "dma_copy";
    check_range(name, "bytes", p.bytes, 1, UINT64_MAX);
    check_range(name, "dma_engines", p.dma_engines, 1, default_dma_engines);
    const auto capacity = [&](memory_kind m) -> std::uint64_t {
        return m == memory_kind::hbm ? UINT32_MAX : m == memory_kind::psum ? psum_bytes : p.sbuf_budget;
    };
    const bool same_on_chip = p.from == p.to && p.to != memory_kind::hbm;
    // Copying within one memory, the source takes the first bytes_per_partition.
    const auto most = same_on_chip ? capacity(p.to) / 2 : std::min(capacity(p.from), capacity(p.to));
    if (p.bytes_per_partition < 1 || p.bytes_per_partition > most) {
        refuse(name, fmt::format("bytes_per_partition must be from 1 to {} for a copy from {} to {}, not {}", most,
                                 memory_name(p.from), memory_name(p.to), p.bytes_per_partition));
    }
    const auto per_copy = std::uint64_t{partitions_per_core} * p.bytes_per_partition;
    const auto full = p.bytes / per_copy;
    const auto rows = p.bytes % per_copy / p.bytes_per_partition;
    const auto tail = p.bytes % p.bytes_per_partition;
    check_instruction_count(name, static_cast<unsigned __int128>(full) + (rows > 0) + (tail > 0));

    const bool to_chip = p.to != memory_kind::hbm;
    const auto base = same_on_chip ? p.bytes_per_partition : 0;
    constexpr std::uint64_t max_buffers = 8;
    const auto buffers = to_chip ? std::min(max_buffers, (capacity(p.to) - base) / p.bytes_per_partition) : 1;

    kernel_writer w(p.dma_engines, record_reads);
    std::uint64_t copy = 0;
    const auto emit = [&](std::uint32_t partitions, std::uint64_t bytes) {
        const auto buffer = static_cast<std::uint32_t>(copy % buffers);
        auto op = w.dma(partitions, bytes, p.from, p.to, base + buffer * p.bytes_per_partition,
                        to_chip ? buffer : no_semaphore_index);
        // The copy before into this buffer must have ended before this one writes it.
        if (to_chip && copy >= buffers) set_wait(op, buffer, w.value(buffer));
        std::vector<tile_region> reads;
        if (p.from != memory_kind::hbm) reads.push_back({p.from, partitions, 0, bytes});
        w.push(p.loads_on, op, std::move(reads));
        ++copy;
    };
    for (std::uint64_t c = 0; c < full; ++c) emit(partitions_per_core, p.bytes_per_partition);
    if (rows > 0) emit(static_cast<std::uint32_t>(rows), p.bytes_per_partition);
    if (tail > 0) emit(1, tail);
    return w.take();
}

} // namespace neuron::model
