#include "kernel_binding.h"

#include "kernel_op_error.h"
#include "kernel_semaphores.h"
#include "op_cycles.h"

#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/engine_costs.h"
#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace neuron::model {
namespace {

using costs::element_type;
using loops_of = std::span<const loop_block* const>;

constexpr std::uint64_t psum_element_bytes = 4; // nc_matmul accumulates fp32

class binder {
public:
    binder(const kernel& k, const device_spec& spec) : m_kernel(k), m_spec(spec) {}

    std::shared_ptr<const program> bind() {
        check_semaphores(m_kernel, m_spec);
        auto p = std::make_shared<program>();
        p->prints = m_kernel.prints;
        p->sources = m_kernel.sources;
        for (std::size_t e = 0; e < engine_count; ++e) {
            const auto& ops = m_kernel.streams[e];
            if (ops.empty()) continue;
            const auto kind = static_cast<engine_kind>(e);
            const auto* engine = find_engine(kind);
            if (engine == nullptr) {
                throw unsupported_error(fmt::format("{}the program has work for a {} engine, which {} does not have",
                                                    where(m_kernel, ops.front()), engine_name(kind),
                                                    m_spec.device_name));
            }
            // Each instruction of the text is bound once, in the order written
            // (so are its transfers), whatever its loops' trips.
            std::vector<instruction> bound;
            bound.reserve(ops.text().size());
            each_in_text(ops, [&](const kernel_op& op, loops_of loops) {
                bound.push_back(bind_op(on_last_trip(op, loops), loops, *engine, *p));
            });
            std::size_t next = 0;
            p->streams[e] = ops.template map<instruction>([&](const kernel_op&) { return bound[next++]; });
        }
        return p;
    }

private:
    const engine_spec* find_engine(engine_kind kind) const {
        const auto it = std::find_if(m_spec.engines.begin(), m_spec.engines.end(),
                                     [kind](const engine_spec& s) { return s.kind == kind; });
        return it == m_spec.engines.end() ? nullptr : &*it;
    }

    [[noreturn]] void fail(const kernel_op& op, std::string_view what) const { refuse(m_kernel, op, what); }

    // The instruction as its last trip writes: at its furthest offset (the
    // strides only grow it), which the checks of where it writes see.
    kernel_op on_last_trip(const kernel_op& op, loops_of loops) const {
        unsigned __int128 offset = op.offset;
        for (const auto* b : loops) offset += static_cast<unsigned __int128>(b->offset_stride) * (b->trips - 1);
        auto last = op;
        last.offset = offset > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(offset);
        return last;
    }

    // Every place in a PSUM bank some trip of an nc_matmul writes at: each
    // output must fit its bank. Only an offset modulo the bank's size
    // matters, so at most a bank's bytes of places, whatever the trips and
    // whether the device's PSUM size is known.
    void check_matmul_banks(const kernel_op& op, loops_of loops, std::uint64_t out) const {
        struct place {
            std::uint64_t in_bank;
            std::uint64_t offset; // the first trip's found there, for the message
        };
        std::array<bool, psum_bank_bytes> seen{};
        std::vector<place> places;
        // The first trip's offset: the last trip's less every stride's reach.
        auto base = op.offset;
        for (const auto* b : loops) base -= b->offset_stride * (b->trips - 1);
        places.push_back({base % psum_bank_bytes, base});
        seen[places.back().in_bank] = true;
        for (const auto* b : loops) {
            if (b->offset_stride == 0 || b->trips < 2) continue;
            const auto known = places.size();
            // Past a bank's bytes of trips, t x stride modulo the bank repeats.
            const auto trips = std::min<std::uint64_t>(b->trips, psum_bank_bytes + 1);
            for (std::size_t i = 0; i < known; ++i) {
                for (std::uint64_t t = 1; t < trips; ++t) {
                    const auto offset = places[i].offset + t * b->offset_stride;
                    const auto in_bank = offset % psum_bank_bytes;
                    if (!seen[in_bank]) {
                        seen[in_bank] = true;
                        places.push_back({in_bank, offset});
                    }
                }
            }
        }
        for (const auto& p : places) {
            if (p.in_bank + out > psum_bank_bytes) {
                fail(op, fmt::format("its output ({} fp32 per partition at byte {}) must fit one 2 KiB PSUM bank",
                                     op.free, p.offset));
            }
        }
    }

    std::uint64_t partition_bytes(memory_kind m) const {
        switch (m) {
        case memory_kind::sbuf: return m_spec.sbuf_bytes_per_core / partitions_per_core;
        case memory_kind::psum: return m_spec.psum_bytes_per_core / partitions_per_core;
        case memory_kind::hbm: return 0;
        }
        return 0;
    }

    // A tile of `bytes` per partition read from `m` fits a partition.
    void check_read(const kernel_op& op, memory_kind m, std::uint64_t bytes) const {
        const auto size = partition_bytes(m);
        if (size != 0 && bytes > size) {
            fail(op, fmt::format("reads {} bytes per partition of {}, whose partitions hold {} on {}", bytes,
                                 memory_name(m), size, m_spec.device_name));
        }
    }

    // A tile of `bytes` per partition written at op.offset of `m` fits.
    void check_write(const kernel_op& op, memory_kind m, std::uint64_t bytes) const {
        const auto size = partition_bytes(m);
        if (size != 0 && (op.offset > size || bytes > size - op.offset)) {
            const auto to = op.offset > UINT64_MAX - bytes + 1 ? std::string("and on")
                                                               : fmt::format("to {}", op.offset + bytes - 1);
            fail(op, fmt::format("writes bytes {} {} of each {} partition, which holds {} on {}", op.offset, to,
                                 memory_name(m), size, m_spec.device_name));
        }
    }

    void check_partitions(const kernel_op& op, std::uint32_t most) const {
        if (op.partitions == 0 || op.partitions > most) {
            fail(op, fmt::format("{} partitions: it takes 1 to {}", op.partitions, most));
        }
    }

    void check_compute_memory(const kernel_op& op, engine_kind on) const {
        if (touches(op, memory_kind::hbm)) {
            fail(op, "compute instructions read and write SBUF or PSUM; move HBM data with dma_copy");
        }
        if (on == engine_kind::gpsimd && touches(op, memory_kind::psum)) {
            fail(op, "the gpsimd engine cannot access PSUM");
        }
    }

    // `op` as its last trip writes (on_last_trip).
    instruction bind_op(const kernel_op& op, loops_of loops, const engine_spec& engine, program& p) const {
        const auto on = engine.kind;
        if ((info(op.op).engines & (1u << static_cast<unsigned>(on))) == 0) {
            std::string engines;
            for (std::size_t e = 0; e < engine_count; ++e) {
                if (info(op.op).engines & (1u << e)) {
                    engines += (engines.empty() ? "" : " or ") + std::string(engine_name(static_cast<engine_kind>(e)));
                }
            }
            fail(op, fmt::format("runs on the {} engine, not {}", engines, engine_name(on)));
        }
        instruction i;
        i.wait_semaphore = op.wait_semaphore;
        i.wait_value = op.wait_value;
        if (op.wait_semaphore != no_semaphore_index) {
            std::size_t n = 0; // packed: the engines stop at the first unused one
            for (const auto& w : op.also_waits) {
                if (w.semaphore != no_semaphore_index) i.also_waits[n++] = w;
            }
        }
        i.signal_semaphore = op.signal_semaphore;
        i.signal_increment = op.signal_increment;
        i.source = op.source;
        i.op = static_cast<std::uint8_t>(op.op);
        if (op.op == opcode::dma_copy) {
            bind_dma(op, engine, i, p);
            return i;
        }
        if (op.op == opcode::print) {
            if (op.print >= p.prints.size()) fail(op, "names a print the program does not have");
            i.print = op.print;
            return i;
        }
        i.busy_ps = cycles_to_ps(compute_cycles(op, loops, on), engine.clock_hz);
        // One that leaves its dtype out must cost the same whatever it is, here.
        if (op.dtype_unsaid && cost_depends_on_dtype(m_spec.costs(), op, on)) {
            fail(op, fmt::format("what it costs on {}'s {} engine ({}) depends on its dtype, which it leaves out: "
                                 "give it a dtype",
                                 m_spec.device_name, engine_name(on), m_spec.costs().name));
        }
        i.memories = static_cast<std::uint8_t>((touches(op, memory_kind::sbuf) ? touches_sbuf : 0) |
                                               (touches(op, memory_kind::psum) ? touches_psum : 0));
        if (op.op == opcode::nc_matmul) {
            i.macs = std::uint64_t{op.partitions} * op.stationary_free * op.free;
            // The contraction runs down the rows: K rows, 32 to a row group.
            // LoadStationary, in the background, is 4x faster than a
            // MultiplyMoving of the same free size (A.4).
            i.row_groups = static_cast<std::uint8_t>((op.partitions + 31) / 32);
            i.weight_load_ps = static_cast<std::uint32_t>(
                cycles_to_ps(std::max<std::uint64_t>(1, op.stationary_free / 4), engine.clock_hz));
        } else if (op.op == opcode::nc_transpose && on == engine_kind::tensor) {
            // A matmul of the [P, F] tile by a P x P identity: profiles count
            // it as hardware work (transpose_flops), not as the model's.
            i.macs = std::uint64_t{op.partitions} * op.free * op.partitions;
        }
        return i;
    }

    // Cycles of a compute instruction, after checking its tiles.
    std::uint64_t compute_cycles(const kernel_op& op, loops_of loops, engine_kind on) const {
        const auto elem = costs::element_bytes(op.dtype);
        if (op.free == 0) fail(op, "a tile needs at least one element per partition");
        switch (op.op) {
        case opcode::nc_matmul: {
            check_partitions(op, partitions_per_core);
            if (op.from != memory_kind::sbuf || op.to != memory_kind::psum) fail(op, "reads SBUF and writes PSUM");
            if (op.stationary_free == 0 || op.stationary_free > partitions_per_core) {
                fail(op, fmt::format("a stationary free size of {}: it takes 1 to 128", op.stationary_free));
            }
            const auto out = op.free * psum_element_bytes;
            const bool strided = std::any_of(loops.begin(), loops.end(),
                                             [](const loop_block* b) { return b->offset_stride != 0 && b->trips > 1; });
            if (op.free > psum_bank_bytes / psum_element_bytes ||
                (!strided && op.offset % psum_bank_bytes + out > psum_bank_bytes)) {
                fail(op, fmt::format("its output ({} fp32 per partition at byte {}) must fit one 2 KiB PSUM bank",
                                     op.free, op.offset));
            }
            check_read(op, memory_kind::sbuf, op.free * elem);
            check_read(op, memory_kind::sbuf, op.stationary_free * elem);
            check_write(op, memory_kind::psum, out);
            if (strided) check_matmul_banks(op, loops, out);
            return op_cycles(m_spec.costs(), op, on);
        }
        case opcode::nc_transpose:
            if (on == engine_kind::tensor) {
                check_partitions(op, partitions_per_core);
                if (op.free > partitions_per_core) fail(op, "the tensor engine transposes tiles up to 128x128");
                if (op.to != memory_kind::psum) fail(op, "the tensor engine writes PSUM");
                check_read(op, op.from, op.free * elem);
                check_write(op, memory_kind::psum, std::uint64_t{op.partitions} * psum_element_bytes);
                return op_cycles(m_spec.costs(), op, on);
            }
            check_partitions(op, 32);
            if (op.free > 32) fail(op, "the vector engine transposes tiles up to 32x32");
            break;
        default: check_partitions(op, partitions_per_core); break;
        }
        check_compute_memory(op, on);
        if (op.op == opcode::bn_stats && op.free > bn_stats_most) {
            fail(op, fmt::format("takes up to {} elements per partition, not {}", bn_stats_most, op.free));
        }
        check_read(op, op.from, op.free * elem);
        if (two_inputs(op)) check_read(op, op.from2, op.free * elem);
        check_write(op, op.to, output_bytes(op, elem));
        return op_cycles(m_spec.costs(), op, on);
    }

    // bn_stats writes 6 fp32 statistics per partition, bn_aggr the mean and
    // variance; the others a tile like their input.
    static constexpr std::uint64_t bn_stats_most = 512;
    static std::uint64_t output_bytes(const kernel_op& op, std::uint64_t elem) {
        if (op.op == opcode::bn_stats) return 6 * 4;
        if (op.op == opcode::bn_aggr) return 2 * 4;
        return op.free * elem;
    }

    void bind_dma(const kernel_op& op, const engine_spec& engine, instruction& i, program& p) const {
        check_partitions(op, partitions_per_core);
        if (op.dma_engines == 0 || op.dma_engines > default_dma_engines) {
            fail(op,
                 fmt::format("splits across {} DMA engines: it takes 1 to {}", op.dma_engines, default_dma_engines));
        }
        if (op.queue >= m_spec.queues_per_dma_engine) {
            fail(op, fmt::format("queue {} does not exist (each DMA engine has {})", op.queue,
                                 m_spec.queues_per_dma_engine));
        }
        if (op.from != memory_kind::hbm) check_read(op, op.from, op.free);
        if (op.to != memory_kind::hbm) check_write(op, op.to, op.free);
        dma_transfer t;
        t.partitions = op.partitions;
        t.bytes_per_partition = op.free;
        if (op.contiguous_bytes != 0)
            t.descriptors_per_partition = (op.free + op.contiguous_bytes - 1) / op.contiguous_bytes;
        t.dma_engines = op.dma_engines;
        t.queue = op.queue;
        t.from = op.from;
        t.to = op.to;
        t.signal_semaphore = op.signal_semaphore;
        const auto& c = m_spec.costs();
        if (op.dma_transpose) {
            if (!c.has_dma_transpose) {
                fail(op,
                     fmt::format("transposes, which the DMA engines of {} ({}) do not", m_spec.device_name, c.name));
            }
            const bool sbuf_to_sbuf = op.from == memory_kind::sbuf && op.to == memory_kind::sbuf;
            t.rate_percent = static_cast<std::uint32_t>(
                (sbuf_to_sbuf ? c.dma_sbuf_transpose_percent : c.dma_transpose_percent).value);
        }
        if (op.trigger == dma_trigger::hardware) {
            if (!c.has_hardware_dge) {
                fail(op, fmt::format("asks for hardware descriptor generation, which {} ({}) does not have",
                                     m_spec.device_name, c.name));
            }
            i.busy_ps = c.dma_instruction_ns.value * 1000;
        } else {
            i.busy_ps = cycles_to_ps(c.dma_static_trigger_cycles.value, engine.clock_hz);
        }
        const auto start_ps = c.dma_start_ns.value * 1000;
        t.start_latency_ps = start_ps > i.busy_ps ? start_ps - i.busy_ps : 0;
        i.signal_semaphore = no_semaphore; // the DMA engines signal it, one each
        i.transfer = static_cast<std::uint32_t>(p.transfers.size());
        p.transfers.push_back(t);
    }

    const kernel& m_kernel;
    const device_spec& m_spec;
};

} // namespace

std::shared_ptr<const program> bind_kernel(const kernel& k, const device_spec& spec) {
    std::uint64_t written = 0;
    for (const auto& s : k.streams) {
        if (!s.complete()) throw invalid_argument_error(fmt::format("{}: a loop is not closed", k.file));
        written += s.text().size();
    }
    if (written > max_kernel_instructions) {
        throw invalid_argument_error(fmt::format("{}: a program has at most {} instructions written, not {}", k.file,
                                                 max_kernel_instructions, written));
    }
    if (k.instruction_count() > max_executed_instructions) {
        throw invalid_argument_error(fmt::format("{}: a program runs at most {} instructions (its loops' trips "
                                                 "counted), not {}",
                                                 k.file, max_executed_instructions, k.instruction_count()));
    }
    return binder(k, spec).bind();
}

} // namespace neuron::model
