#include "model_program.h"

#include "model_fields.h"

#include "neuron/model/program/kernel_generators.h"
#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

namespace neuron::control {
namespace {

using common::yaml_fields;
using model::alu_op;
using model::engine_kind;
using model::kernel;
using model::kernel_op;
using model::memory_kind;
using model::opcode;
using model::costs::element_type;

// The model file's dtype names (nrt_dtype.cpp) for what the engines compute
// with, and tfloat32, which only the engines have.
struct program_dtype {
    std::string_view name;
    element_type type;
};
constexpr program_dtype program_dtypes[] = {
    {"bfloat16", element_type::bf16},  {"float16", element_type::fp16},   {"float32", element_type::fp32},
    {"tfloat32", element_type::tf32},  {"float8e4m3", element_type::fp8}, {"float8e5m2", element_type::fp8},
    {"float8e3m4", element_type::fp8}, {"int8", element_type::int8},      {"uint8", element_type::int8},
    {"int16", element_type::int16},    {"uint16", element_type::int16},   {"int32", element_type::int32},
    {"uint32", element_type::int32},
};
constexpr std::string_view no_engine_dtypes[] = {"int64", "uint64", "float32r"};

std::string program_dtype_names() {
    std::string out;
    for (const auto& d : program_dtypes) out += (out.empty() ? "" : ", ") + std::string(d.name);
    return out;
}

// The most semaphores a core has (256 on NC-v2 and later) less one; a
// device with fewer is build_program's to check.
constexpr std::uint64_t max_semaphore = 255;
// The largest SBUF partition of any generation (trn2: 24 MiB / 128).
constexpr std::uint64_t max_sbuf_budget = 224 * 1024;

constexpr std::string_view common_keys[] = {"op", "wait", "signal", "source", "repeat"};

std::vector<std::string_view> keys_of(opcode op) {
    std::vector<std::string_view> keys(std::begin(common_keys), std::end(common_keys));
    const auto add = [&](std::initializer_list<std::string_view> more) { keys.insert(keys.end(), more); };
    switch (op) {
    case opcode::nc_matmul: add({"stationary", "moving", "dtype", "from", "to", "offset"}); break;
    case opcode::tensor_tensor: add({"shape", "dtype", "from", "from2", "to", "offset", "operator"}); break;
    case opcode::tensor_reduce: add({"shape", "dtype", "from", "to", "offset", "operator"}); break;
    case opcode::memset: add({"shape", "dtype", "to", "offset", "value"}); break;
    case opcode::iota: add({"shape", "dtype", "to", "offset"}); break;
    case opcode::dma_copy:
        add({"from", "to", "partitions", "bytes_per_partition", "queue", "dma_engines", "offset", "trigger"});
        break;
    case opcode::print: keys.insert(keys.end(), std::begin(print_keys), std::end(print_keys)); break;
    default: add({"shape", "dtype", "from", "to", "offset"}); break;
    }
    return keys;
}

class program_reader {
public:
    program_reader(const yaml_fields& fields, const YAML::Node& node) : m_fields(fields), m_node(node) {
        m_kernel.file = fields.source();
    }

    std::shared_ptr<const kernel> read() {
        m_fields.require_map(m_node, "program");
        if (const auto generate = m_node["generate"]) {
            read_generator(generate);
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
            if (const auto r = node["repeat"]) repeat = range(r, "repeat", 1, model::max_executed_instructions);
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
        const auto trips = range(trips_node, "trips", 1, model::max_executed_instructions);
        if (runs * trips > model::max_executed_instructions) {
            m_fields.fail(trips_node, fmt::format("the loops here run {} trips in all, more than the {} instructions "
                                                  "a program runs",
                                                  runs * trips, model::max_executed_instructions));
        }
        std::uint64_t stride = 0;
        if (const auto o = node["offset_stride"]) stride = range(o, "offset_stride", 0, UINT32_MAX);
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
            return {{model::every_semaphore, static_cast<std::uint32_t>(range(node, "wait_step", 0, UINT32_MAX))}};
        }
        if (!node.IsMap()) m_fields.fail(node, "wait_step must be a number or a map {SEMAPHORE: STEP}");
        std::vector<model::wait_step> steps;
        for (const auto& kv : node) {
            steps.push_back(
                {semaphore(kv.first), static_cast<std::uint32_t>(range(kv.second, "a wait step", 0, UINT32_MAX))});
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
        const auto stationary = pair(m_fields.required(node, "stationary", "this nc_matmul"), "stationary", "[K, M]");
        const auto moving = pair(m_fields.required(node, "moving", "this nc_matmul"), "moving", "[K, N]");
        k.partitions = static_cast<std::uint32_t>(
            range(stationary[0], "stationary's K (partitions)", 1, model::partitions_per_core));
        k.stationary_free = range(stationary[1], "stationary's free size M", 1, 128);
        const auto depth = range(moving[0], "moving's K (partitions)", 1, model::partitions_per_core);
        if (depth != k.partitions) {
            m_fields.fail(moving[0], fmt::format("moving's K must be stationary's, {}, not {}", k.partitions, depth));
        }
        k.free = range(moving[1], "moving's free size N", 1, UINT32_MAX);
        k.dtype = dtype(node);
        k.from = on_chip(node, "from", memory_kind::sbuf);
        k.to = on_chip(node, "to", memory_kind::psum);
        k.offset = offset(node);
    }

    void read_compute(engine_kind engine, const YAML::Node& node, kernel_op& k) {
        const auto shape = pair(m_fields.required(node, "shape", fmt::format("this {}", model::info(k.op).name)),
                                "shape", "[partitions, free]");
        k.partitions = static_cast<std::uint32_t>(range(shape[0], "partitions", 1, model::partitions_per_core));
        k.free = range(shape[1], "the free size", 1, UINT32_MAX);
        k.dtype = dtype(node);
        if (k.op != opcode::memset && k.op != opcode::iota) k.from = on_chip(node, "from", memory_kind::sbuf);
        if (k.op == opcode::tensor_tensor) k.from2 = on_chip(node, "from2", memory_kind::sbuf);
        const bool to_psum = k.op == opcode::nc_transpose && engine == engine_kind::tensor;
        k.to = on_chip(node, "to", to_psum ? memory_kind::psum : memory_kind::sbuf);
        k.offset = offset(node);
        if (const auto op = node["operator"]) k.alu = alu(op);
        if (const auto value = node["value"]) k.value = m_fields.number(value, "value");
    }

    void read_dma(const YAML::Node& node, kernel_op& k) {
        k.from = memory(m_fields.required(node, "from", "this dma_copy"), "from");
        k.to = memory(m_fields.required(node, "to", "this dma_copy"), "to");
        if (const auto p = node["partitions"]) {
            k.partitions = static_cast<std::uint32_t>(range(p, "partitions", 1, model::partitions_per_core));
        }
        k.free = range(m_fields.required(node, "bytes_per_partition", "this dma_copy"), "bytes_per_partition", 1,
                       UINT32_MAX);
        if (const auto q = node["queue"])
            k.queue = static_cast<std::uint32_t>(range(q, "queue", 0, model::dma_queues - 1));
        if (const auto d = node["dma_engines"]) {
            k.dma_engines = static_cast<std::uint32_t>(range(d, "dma_engines", 1, model::default_dma_engines));
        }
        if (const auto t = node["trigger"]) k.trigger = trigger(t);
        k.offset = offset(node);
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
        return {semaphore(m_fields.required(node, "semaphore", "wait")),
                static_cast<std::uint32_t>(
                    range(m_fields.required(node, "value", "wait"), "a wait's value", 0, UINT32_MAX))};
    }

    void read_signal(const YAML::Node& node, kernel_op& k) {
        if (node.IsScalar()) {
            k.signal_semaphore = semaphore(node);
            return;
        }
        if (!node.IsMap()) m_fields.fail(node, "signal must be a semaphore number or {semaphore: S, increment: N}");
        m_fields.only_keys(node, {"semaphore", "increment"}, "signal");
        k.signal_semaphore = semaphore(m_fields.required(node, "semaphore", "signal"));
        if (const auto inc = node["increment"]) {
            if (k.op == opcode::dma_copy) {
                m_fields.fail(inc,
                              "a dma_copy adds 1 for each of its DMA engines when that engine's part ends; it takes "
                              "no increment");
            }
            k.signal_increment = static_cast<std::uint32_t>(range(inc, "increment", 1, UINT32_MAX));
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

    // ---- generators ----

    void read_generator(const YAML::Node& generate) {
        const auto name = m_fields.text(generate, "generate");
        try {
            if (name == "tiled_matmul") {
                m_fields.only_keys(m_node,
                                   {"generate", "m", "k", "n", "dtype", "tile_m", "tile_k", "tile_n", "activation",
                                    "dma_engines", "sbuf_budget", "loads_on"},
                                   "a tiled_matmul program");
                model::tiled_matmul_params p;
                p.m = range(m_fields.required(m_node, "m", "tiled_matmul"), "m", 1, UINT32_MAX);
                p.k = range(m_fields.required(m_node, "k", "tiled_matmul"), "k", 1, UINT32_MAX);
                p.n = range(m_fields.required(m_node, "n", "tiled_matmul"), "n", 1, UINT32_MAX);
                p.dtype = dtype(m_node);
                p.tile_m = static_cast<std::uint32_t>(optional_range("tile_m", p.tile_m, 1, 128));
                p.tile_k =
                    static_cast<std::uint32_t>(optional_range("tile_k", p.tile_k, 1, model::partitions_per_core));
                p.tile_n =
                    static_cast<std::uint32_t>(optional_range("tile_n", p.tile_n, 1, model::psum_bank_bytes / 4));
                if (const auto a = m_node["activation"]) p.activation = m_fields.boolean(a, "activation");
                p.dma_engines = static_cast<std::uint32_t>(
                    optional_range("dma_engines", p.dma_engines, 1, model::default_dma_engines));
                p.sbuf_budget = optional_range("sbuf_budget", p.sbuf_budget, 1, max_sbuf_budget);
                p.loads_on = loads_on(p.loads_on);
                m_kernel.streams = model::tiled_matmul(p).program.streams;
            } else if (name == "elementwise") {
                m_fields.only_keys(m_node,
                                   {"generate", "rows", "cols", "op", "operator", "dtype", "tile_free", "dma_engines",
                                    "sbuf_budget", "loads_on"},
                                   "an elementwise program");
                model::elementwise_params p;
                p.rows = range(m_fields.required(m_node, "rows", "elementwise"), "rows", 1, UINT32_MAX);
                p.cols = range(m_fields.required(m_node, "cols", "elementwise"), "cols", 1, UINT32_MAX);
                if (const auto op = m_node["op"]) {
                    const auto text = m_fields.text(op, "op");
                    const auto found = model::find_opcode(text);
                    if (!found || (*found != opcode::activation && *found != opcode::tensor_scalar &&
                                   *found != opcode::tensor_tensor && *found != opcode::tensor_copy)) {
                        m_fields.fail(op,
                                      fmt::format("an elementwise op is activation, tensor_scalar, tensor_tensor or "
                                                  "tensor_copy, not '{}'",
                                                  quoted(text)));
                    }
                    p.op = *found;
                }
                if (const auto op = m_node["operator"]) {
                    if (p.op != opcode::tensor_tensor) m_fields.fail(op, "operator goes with op: tensor_tensor");
                    p.alu = alu(op);
                }
                p.dtype = dtype(m_node);
                p.tile_free = static_cast<std::uint32_t>(optional_range("tile_free", p.tile_free, 1, UINT32_MAX));
                p.dma_engines = static_cast<std::uint32_t>(
                    optional_range("dma_engines", p.dma_engines, 1, model::default_dma_engines));
                p.sbuf_budget = optional_range("sbuf_budget", p.sbuf_budget, 1, max_sbuf_budget);
                p.loads_on = loads_on(p.loads_on);
                m_kernel.streams = model::elementwise(p).program.streams;
            } else if (name == "dma_copy") {
                m_fields.only_keys(m_node,
                                   {"generate", "bytes", "bytes_per_partition", "from", "to", "dma_engines",
                                    "sbuf_budget", "loads_on"},
                                   "a dma_copy program");
                model::dma_copy_params p;
                p.bytes = range(m_fields.required(m_node, "bytes", "dma_copy"), "bytes", 1, UINT64_MAX);
                p.bytes_per_partition = optional_range("bytes_per_partition", p.bytes_per_partition, 1, UINT32_MAX);
                if (const auto from = m_node["from"]) p.from = memory(from, "from");
                if (const auto to = m_node["to"]) p.to = memory(to, "to");
                p.dma_engines = static_cast<std::uint32_t>(
                    optional_range("dma_engines", p.dma_engines, 1, model::default_dma_engines));
                p.sbuf_budget = optional_range("sbuf_budget", p.sbuf_budget, 1, max_sbuf_budget);
                p.loads_on = loads_on(p.loads_on);
                m_kernel.streams = model::dma_copy(p).program.streams;
            } else {
                m_fields.fail(
                    generate,
                    fmt::format("unknown generator '{}' (valid: tiled_matmul, elementwise, dma_copy)", quoted(name)));
            }
        } catch (const model::invalid_argument_error& e) {
            // What the parameters ask for together (SBUF room, instruction count).
            m_fields.fail(generate, e.what());
        }
        // Errors about a generated instruction point at its generator.
        const model::text_position at{static_cast<std::uint32_t>(m_node.Mark().line + 1),
                                      static_cast<std::uint32_t>(m_node.Mark().column + 1)};
        for (auto& stream : m_kernel.streams) {
            for (auto& op : stream.text()) op.at = at;
        }
    }

    // ---- values ----

    engine_kind loads_on(engine_kind fallback) const {
        const auto node = m_node["loads_on"];
        if (!node) return fallback;
        const auto name = m_fields.text(node, "loads_on");
        const auto engine = model::find_engine(name);
        if (!engine) {
            std::string valid;
            for (std::size_t e = 0; e < model::engine_count; ++e) {
                valid += (valid.empty() ? "" : ", ") + std::string(model::engine_name(static_cast<engine_kind>(e)));
            }
            m_fields.fail(node, fmt::format("unknown engine '{}' (valid: {})", quoted(name), valid));
        }
        return *engine;
    }

    std::uint64_t range(const YAML::Node& node, std::string_view what, std::uint64_t low, std::uint64_t high) const {
        const auto n = m_fields.unsigned_number(node, what);
        if (n < low || n > high)
            m_fields.fail(node, fmt::format("{} must be from {} to {}, not {}", what, low, high, n));
        return n;
    }

    std::uint64_t optional_range(std::string_view key, std::uint64_t fallback, std::uint64_t low,
                                 std::uint64_t high) const {
        const auto node = m_node[std::string(key)];
        return node ? range(node, key, low, high) : fallback;
    }

    std::vector<YAML::Node> pair(const YAML::Node& node, std::string_view what, std::string_view form) const {
        if (!node.IsSequence() || node.size() != 2) m_fields.fail(node, fmt::format("{} must be {}", what, form));
        return {node[0], node[1]};
    }

    element_type dtype(const YAML::Node& map) const {
        const auto node = map["dtype"];
        if (!node) return element_type::bf16;
        const auto name = m_fields.text(node, "dtype");
        for (const auto& d : program_dtypes) {
            if (d.name == name) return d.type;
        }
        for (const auto n : no_engine_dtypes) {
            if (n == name) {
                m_fields.fail(node, fmt::format("the engines do not compute with {} (they do with: {})", name,
                                                program_dtype_names()));
            }
        }
        m_fields.fail(node, fmt::format("unknown dtype '{}' (valid: {})", quoted(name), program_dtype_names()));
    }

    model::dma_trigger trigger(const YAML::Node& node) const {
        const auto name = m_fields.text(node, "trigger");
        if (name == "static") return model::dma_trigger::static_descriptors;
        if (name == "hardware") return model::dma_trigger::hardware;
        m_fields.fail(node, fmt::format("unknown trigger '{}' (valid: static, hardware)", quoted(name)));
    }

    memory_kind memory(const YAML::Node& node, std::string_view what) const {
        const auto name = m_fields.text(node, what);
        for (const auto kind : {memory_kind::hbm, memory_kind::sbuf, memory_kind::psum}) {
            if (model::memory_name(kind) == name) return kind;
        }
        m_fields.fail(node, fmt::format("unknown memory '{}' for {} (valid: hbm, sbuf, psum)", quoted(name), what));
    }

    // Where a compute instruction reads or writes: the engines reach SBUF and PSUM only.
    memory_kind on_chip(const YAML::Node& map, std::string_view key, memory_kind fallback) const {
        const auto node = map[std::string(key)];
        if (!node) return fallback;
        const auto kind = memory(node, key);
        if (kind == memory_kind::hbm) {
            m_fields.fail(node,
                          fmt::format("an engine reads and writes sbuf or psum, not hbm (a dma_copy moves data to and "
                                      "from hbm)"));
        }
        return kind;
    }

    std::uint64_t offset(const YAML::Node& map) const {
        const auto node = map["offset"];
        return node ? range(node, "offset", 0, UINT32_MAX) : 0;
    }

    std::uint32_t semaphore(const YAML::Node& node) const {
        return static_cast<std::uint32_t>(range(node, "a semaphore", 0, max_semaphore));
    }

    alu_op alu(const YAML::Node& node) const {
        const auto name = m_fields.text(node, "operator");
        if (const auto op = model::find_alu_op(name)) return *op;
        std::string names;
        for (auto a = static_cast<unsigned>(alu_op::add); a <= static_cast<unsigned>(alu_op::power); ++a) {
            names += (names.empty() ? "" : ", ") + std::string(model::alu_name(static_cast<alu_op>(a)));
        }
        m_fields.fail(node, fmt::format("unknown operator '{}' (valid: {})", quoted(name), names));
    }

    const yaml_fields& m_fields;
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
