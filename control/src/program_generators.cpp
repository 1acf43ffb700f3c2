#include "program_generators.h"

#include "model_fields.h"
#include "program_values.h"

#include "neuron/model/program/kernel_generators.h"
#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

namespace neuron::control {

using model::opcode;

namespace {

// What every generator takes about moving its data: how many DMA engines a
// copy spreads over, the SBUF it may fill, the engine that issues loads.
template <typename Params>
void read_staging(const program_values& values, const YAML::Node& program, Params& p) {
    p.dma_engines = static_cast<std::uint32_t>(
        values.optional_range(program, "dma_engines", p.dma_engines, 1, model::default_dma_engines));
    p.sbuf_budget = values.optional_range(program, "sbuf_budget", p.sbuf_budget, 1, max_sbuf_budget);
    p.loads_on = values.loads_on(program, p.loads_on);
}

} // namespace

void read_generator(const common::yaml_fields& fields, const YAML::Node& program, model::kernel& into) {
    const program_values values(fields);
    const auto generate = program["generate"];
    const auto name = fields.text(generate, "generate");
    try {
        if (name == "tiled_matmul") {
            fields.only_keys(program,
                             {"generate", "m", "k", "n", "dtype", "tile_m", "tile_k", "tile_n", "activation",
                              "dma_engines", "sbuf_budget", "loads_on"},
                             "a tiled_matmul program");
            model::tiled_matmul_params p;
            p.m = values.range(fields.required(program, "m", "tiled_matmul"), "m", 1, UINT32_MAX);
            p.k = values.range(fields.required(program, "k", "tiled_matmul"), "k", 1, UINT32_MAX);
            p.n = values.range(fields.required(program, "n", "tiled_matmul"), "n", 1, UINT32_MAX);
            p.dtype = values.dtype(program);
            p.tile_m = static_cast<std::uint32_t>(values.optional_range(program, "tile_m", p.tile_m, 1, 128));
            p.tile_k = static_cast<std::uint32_t>(
                values.optional_range(program, "tile_k", p.tile_k, 1, model::partitions_per_core));
            p.tile_n = static_cast<std::uint32_t>(
                values.optional_range(program, "tile_n", p.tile_n, 1, model::psum_bank_bytes / 4));
            if (const auto a = program["activation"]) p.activation = fields.boolean(a, "activation");
            read_staging(values, program, p);
            into.streams = model::tiled_matmul(p).program.streams;
        } else if (name == "elementwise") {
            fields.only_keys(program,
                             {"generate", "rows", "cols", "op", "operator", "dtype", "tile_free", "dma_engines",
                              "sbuf_budget", "loads_on"},
                             "an elementwise program");
            model::elementwise_params p;
            p.rows = values.range(fields.required(program, "rows", "elementwise"), "rows", 1, UINT32_MAX);
            p.cols = values.range(fields.required(program, "cols", "elementwise"), "cols", 1, UINT32_MAX);
            if (const auto op = program["op"]) {
                const auto text = fields.text(op, "op");
                const auto found = model::find_opcode(text);
                if (!found || (*found != opcode::activation && *found != opcode::tensor_scalar &&
                               *found != opcode::tensor_tensor && *found != opcode::tensor_copy)) {
                    fields.fail(op, fmt::format("an elementwise op is activation, tensor_scalar, tensor_tensor or "
                                                "tensor_copy, not '{}'",
                                                quoted(text)));
                }
                p.op = *found;
            }
            if (const auto op = program["operator"]) {
                if (p.op != opcode::tensor_tensor) fields.fail(op, "operator goes with op: tensor_tensor");
                p.alu = values.alu(op, "operator");
            }
            p.dtype = values.dtype(program);
            p.tile_free =
                static_cast<std::uint32_t>(values.optional_range(program, "tile_free", p.tile_free, 1, UINT32_MAX));
            read_staging(values, program, p);
            into.streams = model::elementwise(p).program.streams;
        } else if (name == "dma_copy") {
            fields.only_keys(
                program,
                {"generate", "bytes", "bytes_per_partition", "from", "to", "dma_engines", "sbuf_budget", "loads_on"},
                "a dma_copy program");
            model::dma_copy_params p;
            p.bytes = values.range(fields.required(program, "bytes", "dma_copy"), "bytes", 1, UINT64_MAX);
            p.bytes_per_partition =
                values.optional_range(program, "bytes_per_partition", p.bytes_per_partition, 1, UINT32_MAX);
            if (const auto from = program["from"]) p.from = values.memory(from, "from");
            if (const auto to = program["to"]) p.to = values.memory(to, "to");
            read_staging(values, program, p);
            into.streams = model::dma_copy(p).program.streams;
        } else {
            fields.fail(generate, fmt::format("unknown generator '{}' (valid: tiled_matmul, elementwise, dma_copy)",
                                              quoted(name)));
        }
    } catch (const model::invalid_argument_error& e) {
        // What the parameters ask for together (SBUF room, instruction count).
        fields.fail(generate, e.what());
    }
    // Errors about a generated instruction point at its generator.
    const model::text_position at{static_cast<std::uint32_t>(program.Mark().line + 1),
                                  static_cast<std::uint32_t>(program.Mark().column + 1)};
    for (auto& stream : into.streams) {
        for (auto& op : stream.text()) op.at = at;
    }
}

} // namespace neuron::control
