#include "stream_program.h"

#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/engine_costs.h"
#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

#include <algorithm>

namespace neuron::model {
namespace {

constexpr std::uint64_t pe_macs_per_cycle = std::uint64_t{partitions_per_core} * partitions_per_core;
constexpr std::uint64_t transfer_partition_bytes = 64 * 1024; // the largest tile a transfer moves

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

const engine_spec* engine_on(const device_spec& spec, engine_kind kind) {
    const auto it =
        std::find_if(spec.engines.begin(), spec.engines.end(), [kind](const engine_spec& s) { return s.kind == kind; });
    return it == spec.engines.end() ? nullptr : &*it;
}

// The engine that issues the traffic's transfers.
engine_kind issuer(const stream_work& w, const device_spec& spec) {
    const auto sync = static_cast<std::size_t>(engine_kind::sync);
    if (w.instructions[sync] > 0 && engine_on(spec, engine_kind::sync) != nullptr) return engine_kind::sync;
    const auto most = std::max_element(w.instructions.begin(), w.instructions.end()) - w.instructions.begin();
    return static_cast<engine_kind>(most);
}

// Splits `total` into `parts` shares, the first `total % parts` one larger.
std::uint64_t share(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
    return total / parts + (i < total % parts ? 1 : 0);
}

} // namespace

std::shared_ptr<const program> stream_program(const std::string& model, const stream_work& w, const device_spec& spec) {
    auto p = std::make_shared<program>();
    p->preambles_included = true; // a NEFF's streams are all it runs
    const auto cores = std::max<std::uint64_t>(1, w.cores);
    std::uint64_t total = 0;
    for (const auto n : w.instructions) total += n;
    if (total == 0) return p;
    const auto group = ceil_div(total, max_stream_instructions);
    const auto issuing = issuer(w, spec);
    const auto traffic = ceil_div(w.traffic_bytes, cores);
    for (std::size_t e = 0; e < engine_count; ++e) {
        const auto real = w.instructions[e];
        if (real == 0) continue;
        const auto kind = static_cast<engine_kind>(e);
        const auto* engine = engine_on(spec, kind);
        if (engine == nullptr) {
            throw unsupported_error(
                fmt::format("NEFF '{}' has {} instructions for the {} engine, which {} does not have", model, real,
                            engine_name(kind), spec.device_name));
        }
        const auto count = ceil_div(real, group);
        auto& stream = p->streams[e];
        stream.reserve(count);
        for (std::uint64_t i = 0; i < count; ++i) {
            const auto stands_for = std::min(group, real - i * group);
            instruction in;
            in.op = work_opcode;
            auto cycles = stands_for * spec.costs().min_ii.value;
            if (kind == engine_kind::tensor) {
                in.macs = share(w.macs, count, i);
                in.op = static_cast<std::uint8_t>(opcode::nc_matmul);
                in.row_groups = static_cast<std::uint8_t>(pe_row_groups);
                in.memories = touches_sbuf | touches_psum;
                cycles = std::max(cycles, ceil_div(in.macs, pe_macs_per_cycle * cores));
            }
            in.busy_ps = cycles_to_ps(cycles, engine->clock_hz);
            stream.push_back(in);
        }
    }
    if (traffic == 0) return p;
    auto& stream = p->streams[static_cast<std::size_t>(issuing)];
    const auto transfers =
        std::min<std::uint64_t>(stream.size(), ceil_div(traffic, partitions_per_core * transfer_partition_bytes));
    for (std::uint64_t t = 0; t < transfers; ++t) {
        dma_transfer x;
        x.partitions = partitions_per_core;
        x.bytes_per_partition = ceil_div(share(traffic, transfers, t), partitions_per_core);
        x.dma_engines = std::min(default_dma_engines, spec.dma_engines_per_core);
        x.from = memory_kind::hbm;
        x.to = memory_kind::sbuf;
        auto& in = stream[t * stream.size() / transfers];
        in.transfer = static_cast<std::uint32_t>(p->transfers.size());
        if (in.op == work_opcode) in.op = static_cast<std::uint8_t>(opcode::dma_copy);
        in.busy_ps = std::max(in.busy_ps, spec.costs().dma_instruction_ns.value * 1000);
        x.start_latency_ps = (spec.costs().dma_start_ns.value - spec.costs().dma_instruction_ns.value) * 1000;
        p->transfers.push_back(x);
    }
    return p;
}

} // namespace neuron::model
