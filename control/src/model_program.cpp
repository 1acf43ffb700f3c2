#include "model_program.h"

#include "model_fields.h"
#include "program_generators.h"
#include "program_values.h"

#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

namespace neuron::control {
namespace {

using common::yaml_fields;
using model::engine_kind;
using model::kernel;
using model::kernel_op;
using model::memory_kind;
using model::opcode;

constexpr std::string_view common_keys[] = {"op", "wait", "signal", "source", "repeat"};

std::vector<std::string_view> keys_of(opcode op) {
    std::vector<std::string_view> keys(std::begin(common_keys), std::end(common_keys));
    const auto add = [&](std::initializer_list<std::string_view> more) { keys.insert(keys.end(), more); };
    switch (op) {
    case opcode::nc_matmul: add({"stationary", "moving", "dtype", "from", "to", "offset"}); break;
    case opcode::tensor_tensor:
    case opcode::tensor_reduce: add({"shape", "dtype", "from", "to", "offset", "operator"}); break;
    case opcode::scalar_tensor_tensor: add({"shape", "dtype", "from", "to", "offset", "operator", "operator1"}); break;
    case opcode::memset: add({"shape", "dtype", "to", "offset", "value"}); break;
    case opcode::activation:
    case opcode::activation_reduce: add({"shape", "dtype", "from", "to", "offset", "function"}); break;
    case opcode::iota: add({"shape", "dtype", "to", "offset"}); break;
    case opcode::dma_copy:
        add({"from", "to", "partitions", "bytes_per_partition", "queue", "dma_engines", "offset", "trigger",
             "contiguous_bytes", "transpose", "dtype"});
        break;
    case opcode::print: keys.insert(keys.end(), std::begin(print_keys), std::end(print_keys)); break;
    default: add({"shape", "dtype", "from", "to", "offset"}); break;
    }
    if (model::info(op).second_input) add({"from2"});
    return keys;
}

class program_reader {
public:
    program_reader(const yaml_fields& fields, const YAML::Node& node)
            : m_fields(fields), m_values(fields), m_node(node) {
        m_kernel.file = fields.source();
    }

    std::shared_ptr<const kernel> read() {
        m_fields.require_map(m_node, "program");
        if (const auto generate = m_node["generate"]) {
            read_generator(m_fields, m_node, m_kernel);
        } else {
            std::vector<std::string_view> keys;
            for (std::size_t e = 0; e < model::engine_count; ++e)
                keys.push_back(model::engine_name(static_cast<engine_kind>(e)));
            keys.push_back("generate");
            m_fields.only_keys(m_node, std::span<const std::string_view>(keys), "program");
            for (std::size_t e = 0; e < model::engine_count; ++e) {
                const auto engine = static_cast<engine_kind>(e);
                if (const auto stream = m_node[std::string(model::engine_name(engine))]) read_stream(engine, stream);
            }
            if (m_kernel.instruction_count() == 0) {
                m_fields.fail(m_node, "the program has no instructions (give a list under tensor, vector, scalar, "
                                      "gpsimd or sync, or generate: a generator)");
            }
        }
        return std::make_shared<const kernel>(std::move(m_kernel));
    }

private:
    // ---- written streams ----

    void read_stream(engine_kind engine, const YAML::Node& list) {
        m_fields.require_sequence(list, fmt::format("program.{}", model::engine_name(engine)));
        read_items(engine, list, m_kernel.streams[static_cast<std::size_t>(engine)], 1, 0);
    }

    // The items of a list: instructions and loops. `runs`: how many times
    // each runs (its loops' trips multiplied, at most what a program runs),
    // `depth`: the loops they are in.
    void read_items(engine_kind engine, const YAML::Node& list, model::kernel_stream& stream, std::uint64_t runs,
                    std::size_t depth) {
        for (const auto& node : list) {
            if (node.IsMap() && node["loop"]) {
                read_loop(engine, node, stream, runs, depth);
                continue;
            }
            const auto op = read_instruction(engine, node);
            std::uint64_t repeat = 1;
            if (const auto r = node["repeat"])
                repeat = m_values.range(r, "repeat", 1, model::max_executed_instructions);
            // Counted before anything is added, so nothing can exhaust memory first.
            count(node, op, runs * repeat);
            if (repeat == 1) {
                stream.push_back(op);
            } else {
                stream.begin_loop(repeat);
                stream.push_back(op);
                stream.end_loop();
            }
        }
    }

    // `- loop: {trips: N, body: [...], offset_stride: B, wait_step: S}`.
    void read_loop(engine_kind engine, const YAML::Node& item, model::kernel_stream& stream, std::uint64_t runs,
                   std::size_t depth) {
        m_fields.only_keys(item, {"loop"}, "a loop item");
        const auto node = item["loop"];
        m_fields.require_map(node, "loop");
        m_fields.only_keys(node, {"trips", "body", "offset_stride", "wait_step"}, "loop");
        if (depth >= model::max_loop_depth) {
            m_fields.fail(item, fmt::format("loops nest at most {} deep", model::max_loop_depth));
        }
        const auto trips_node = m_fields.required(node, "trips", "loop");
        const auto trips = m_values.range(trips_node, "trips", 1, model::max_executed_instructions);
        if (runs * trips > model::max_executed_instructions) {
            m_fields.fail(trips_node, fmt::format("the loops here run {} trips in all, more than the {} instructions "
                                                  "a program runs",
                                                  runs * trips, model::max_executed_instructions));
        }
        std::uint64_t stride = 0;
        if (const auto o = node["offset_stride"]) stride = m_values.range(o, "offset_stride", 0, UINT32_MAX);
        std::vector<model::wait_step> steps;
        if (const auto w = node["wait_step"]) steps = wait_steps(w);
        const auto body = m_fields.required(node, "body", "loop");
        m_fields.require_sequence(body, "a loop's body");
        if (body.size() == 0) m_fields.fail(body, "a loop's body needs at least one instruction");
        stream.begin_loop(trips, stride, std::move(steps));
        read_items(engine, body, stream, runs * trips, depth + 1);
        stream.end_loop();
    }

    // A number (added on each trip to every wait in the body) or a map of
    // semaphore to step.
    std::vector<model::wait_step> wait_steps(const YAML::Node& node) const {
        if (node.IsScalar()) {
            return {
                {model::every_semaphore, static_cast<std::uint32_t>(m_values.range(node, "wait_step", 0, UINT32_MAX))}};
        }
        if (!node.IsMap()) m_fields.fail(node, "wait_step must be a number or a map {SEMAPHORE: STEP}");
        std::vector<model::wait_step> steps;
        for (const auto& kv : node) {
            steps.push_back({m_values.semaphore(kv.first),
                             static_cast<std::uint32_t>(m_values.range(kv.second, "a wait step", 0, UINT32_MAX))});
        }
        return steps;
    }

    // Adds an instruction that runs `runs` times to the counts, within the
    // limits: instructions written, run, and prints run.
    void count(const YAML::Node& node, const kernel_op& op, std::uint64_t runs) {
        const auto& where = node["repeat"] ? node["repeat"] : node;
        if (++m_written > model::max_kernel_instructions) {
            m_fields.fail(node, fmt::format("the program would have more than {} instructions written (loops "
                                            "repeat them)",
                                            model::max_kernel_instructions));
        }
        if (m_count + runs > model::max_executed_instructions) {
            m_fields.fail(where, fmt::format("the program would run more than {} instructions (the most a program "
                                             "runs, loops counted)",
                                             model::max_executed_instructions));
        }
        if (op.op == opcode::print && (m_print_count += runs) > max_program_prints) {
            m_fields.fail(node, fmt::format("the program would have more than {} print instructions (each prints "
                                            "on every execution)",
                                            max_program_prints));
        }
        m_count += runs;
    }

    kernel_op read_instruction(engine_kind engine, const YAML::Node& node) {
        m_fields.require_map(node, "an instruction");
        const auto op_node = m_fields.required(node, "op", "an instruction");
        const auto name = m_fields.text(op_node, "op");
        const auto op = model::find_opcode(name);
        if (!op)
            m_fields.fail(op_node, fmt::format("unknown opcode '{}' (valid: {})", quoted(name), model::opcode_names()));
        const auto keys = keys_of(*op);
        m_fields.only_keys(node, std::span<const std::string_view>(keys), fmt::format("this {}", name));

        kernel_op k;
        k.op = *op;
        k.at = {static_cast<std::uint32_t>(node.Mark().line + 1), static_cast<std::uint32_t>(node.Mark().column + 1)};
        switch (*op) {
        case opcode::nc_matmul: read_matmul(node, k); break;
        case opcode::dma_copy: read_dma(node, k); break;
        case opcode::print: read_print_op(node, k); break;
        default: read_compute(engine, node, k); break;
        }
        if (const auto wait = node["wait"]) read_wait(wait, k);
        if (const auto signal = node["signal"]) read_signal(signal, k);
        if (const auto source = node["source"]) k.source = read_source(source);
        return k;
    }

    void read_matmul(const YAML::Node& node, kernel_op& k) {
        const auto stationary =
            m_values.pair(m_fields.required(node, "stationary", "this nc_matmul"), "stationary", "[K, M]");
        const auto moving = m_values.pair(m_fields.required(node, "moving", "this nc_matmul"), "moving", "[K, N]");
        k.partitions = static_cast<std::uint32_t>(
            m_values.range(stationary[0], "stationary's K (partitions)", 1, model::partitions_per_core));
        k.stationary_free = m_values.range(stationary[1], "stationary's free size M", 1, 128);
        const auto depth = m_values.range(moving[0], "moving's K (partitions)", 1, model::partitions_per_core);
        if (depth != k.partitions) {
            m_fields.fail(moving[0], fmt::format("moving's K must be stationary's, {}, not {}", k.partitions, depth));
        }
        k.free = m_values.range(moving[1], "moving's free size N", 1, UINT32_MAX);
        k.dtype = m_values.dtype(node);
        k.dtype_unsaid = !node["dtype"];
        k.from = m_values.on_chip(node, "from", memory_kind::sbuf);
        k.to = m_values.on_chip(node, "to", memory_kind::psum);
        k.offset = m_values.offset(node);
    }

    void read_compute(engine_kind engine, const YAML::Node& node, kernel_op& k) {
        const auto shape =
            m_values.pair(m_fields.required(node, "shape", fmt::format("this {}", model::info(k.op).name)), "shape",
                          "[partitions, free]");
        k.partitions =
            static_cast<std::uint32_t>(m_values.range(shape[0], "partitions", 1, model::partitions_per_core));
        k.free = m_values.range(shape[1], "the free size", 1, UINT32_MAX);
        k.dtype = m_values.dtype(node);
        k.dtype_unsaid = !node["dtype"];
        if (k.op != opcode::memset && k.op != opcode::iota) k.from = m_values.on_chip(node, "from", memory_kind::sbuf);
        if (model::info(k.op).second_input) k.from2 = m_values.on_chip(node, "from2", memory_kind::sbuf);
        const bool to_psum = k.op == opcode::nc_transpose && engine == engine_kind::tensor;
        k.to = m_values.on_chip(node, "to", to_psum ? memory_kind::psum : memory_kind::sbuf);
        k.offset = m_values.offset(node);
        if (const auto op = node["operator"]) k.alu = m_values.alu(op, "operator");
        if (const auto op = node["operator1"]) k.alu1 = m_values.alu(op, "operator1");
        if (const auto f = node["function"]) k.function = m_values.function(f);
        if (const auto value = node["value"]) k.value = m_fields.number(value, "value");
    }

    void read_dma(const YAML::Node& node, kernel_op& k) {
        k.from = m_values.memory(m_fields.required(node, "from", "this dma_copy"), "from");
        k.to = m_values.memory(m_fields.required(node, "to", "this dma_copy"), "to");
        if (const auto p = node["partitions"]) {
            k.partitions = static_cast<std::uint32_t>(m_values.range(p, "partitions", 1, model::partitions_per_core));
        }
        k.free = m_values.range(m_fields.required(node, "bytes_per_partition", "this dma_copy"), "bytes_per_partition",
                                1, UINT32_MAX);
        if (const auto q = node["queue"])
            k.queue = static_cast<std::uint32_t>(m_values.range(q, "queue", 0, model::dma_queues - 1));
        if (const auto d = node["dma_engines"]) {
            k.dma_engines = static_cast<std::uint32_t>(m_values.range(d, "dma_engines", 1, model::default_dma_engines));
        }
        if (const auto t = node["trigger"]) k.trigger = m_values.trigger(t);
        if (const auto c = node["contiguous_bytes"])
            k.contiguous_bytes = m_values.range(c, "contiguous_bytes", 1, k.free);
        if (const auto t = node["transpose"]) k.dma_transpose = m_fields.boolean(t, "transpose");
        if (k.dma_transpose) {
            const auto d = m_fields.required(node, "dtype", "a transposing dma_copy");
            k.dtype = m_values.dtype(node);
            const auto size = model::costs::element_bytes(k.dtype);
            if (size != 2 && size != 4) {
                m_fields.fail(d, fmt::format("a DMA transposes 2- and 4-byte elements, not {}-byte ones", size));
            }
            if (k.free % size != 0) {
                m_fields.fail(
                    node["bytes_per_partition"],
                    fmt::format("bytes_per_partition {} is not a whole number of {}-byte elements", k.free, size));
            }
        } else if (const auto d = node["dtype"]) {
            m_fields.fail(d, "a dma_copy takes a dtype only with transpose: true");
        }
        k.offset = m_values.offset(node);
    }

    void read_print_op(const YAML::Node& node, kernel_op& k) {
        k.print = static_cast<std::uint32_t>(m_kernel.prints.size());
        m_kernel.prints.push_back(read_print(m_fields, node));
    }

    // `{semaphore: S, value: V}`, or a list of up to four: it runs once
    // every one is reached.
    void read_wait(const YAML::Node& node, kernel_op& k) {
        if (node.IsSequence()) {
            if (node.size() == 0 || node.size() > model::max_waits) {
                m_fields.fail(node, fmt::format("an instruction waits on 1 to {} semaphores, not {}", model::max_waits,
                                                node.size()));
            }
            std::set<std::uint32_t> seen;
            for (std::size_t i = 0; i < node.size(); ++i) {
                const auto w = read_one_wait(node[i]);
                if (!seen.insert(w.semaphore).second) {
                    m_fields.fail(node[i], fmt::format("waits twice on semaphore {}", w.semaphore));
                }
                if (i == 0) {
                    k.wait_semaphore = w.semaphore;
                    k.wait_value = w.value;
                } else {
                    k.also_waits[i - 1] = w;
                }
            }
            return;
        }
        const auto w = read_one_wait(node);
        k.wait_semaphore = w.semaphore;
        k.wait_value = w.value;
    }

    model::semaphore_wait read_one_wait(const YAML::Node& node) const {
        if (!node.IsMap()) {
            m_fields.fail(node, "wait must be a map: {semaphore: S, value: V} (proceeds once S is at least V), or a "
                                "list of them");
        }
        m_fields.only_keys(node, {"semaphore", "value"}, "wait");
        return {m_values.semaphore(m_fields.required(node, "semaphore", "wait")),
                static_cast<std::uint32_t>(
                    m_values.range(m_fields.required(node, "value", "wait"), "a wait's value", 0, UINT32_MAX))};
    }

    void read_signal(const YAML::Node& node, kernel_op& k) {
        if (node.IsScalar()) {
            k.signal_semaphore = m_values.semaphore(node);
            return;
        }
        if (!node.IsMap()) m_fields.fail(node, "signal must be a semaphore number or {semaphore: S, increment: N}");
        m_fields.only_keys(node, {"semaphore", "increment"}, "signal");
        k.signal_semaphore = m_values.semaphore(m_fields.required(node, "semaphore", "signal"));
        if (const auto inc = node["increment"]) {
            if (k.op == opcode::dma_copy) {
                m_fields.fail(inc,
                              "a dma_copy adds 1 for each of its DMA engines when that engine's part ends; it takes "
                              "no increment");
            }
            k.signal_increment = static_cast<std::uint32_t>(m_values.range(inc, "increment", 1, UINT32_MAX));
        }
    }

    std::uint32_t read_source(const YAML::Node& node) {
        auto text = m_fields.text(node, "source");
        if (text.empty() || text.size() > max_source) m_fields.fail(node, "a source needs 1 to 255 characters");
        const auto [it, added] =
            m_sources.emplace(std::move(text), static_cast<std::uint32_t>(m_kernel.sources.size()));
        if (added) m_kernel.sources.push_back(it->first);
        return it->second;
    }

    const yaml_fields& m_fields;
    program_values m_values;
    YAML::Node m_node;
    kernel m_kernel;
    std::map<std::string, std::uint32_t, std::less<>> m_sources;
    std::uint64_t m_count = 0;   // instructions run, loops counted
    std::uint64_t m_written = 0; // instructions written
    std::uint64_t m_print_count = 0;
};

} // namespace

std::shared_ptr<const model::kernel> read_program(const common::yaml_fields& fields, const YAML::Node& node) {
    return program_reader(fields, node).read();
}

} // namespace neuron::control
