#include "neuron/control/model_file.h"

#include "model_fields.h"
#include "model_program.h"

#include "neuron/common/printable.h"
#include "neuron/common/yaml_fields.h"
#include "neuron/control/nrt_dtype.h"
#include "neuron/model/spec/errors.h"
#include "neuron/model/spec/nrt_status.h"

#include <fmt/format.h>

#include <set>

namespace neuron::control {
namespace {

using common::printable;
using common::yaml_fields;
using model::mem_type;
using protocol::model_tensor;
using protocol::output_rule;
using protocol::tensor_usage;

constexpr std::uint64_t max_tensor_bytes = 1ull << 32;
constexpr std::size_t max_name = 255;

struct category {
    std::string_view name;
    mem_type type;
};

// The sysfs category names (driver-sysfs.md §3) and the mem_type that feeds each.
constexpr category device_categories[] = {
    {"model_code", mem_type::code_device},
    {"tensors", mem_type::tensors_device},
    {"constants", mem_type::constants_device},
    {"model_shared_scratchpad", mem_type::scratchpad_device},
    {"runtime_memory", mem_type::misc_device},
    {"driver_memory", mem_type::ncdev_device},
    {"collectives", mem_type::collectives_device},
    {"nonshared_scratchpad", mem_type::scratchpad_nonshared_device},
    {"notifications", mem_type::notification_device},
    {"dma_rings", mem_type::dma_rings_device},
    {"uncategorized", mem_type::unknown_device},
};
constexpr category host_categories[] = {
    {"dma_buffers", mem_type::code_host},    {"tensors", mem_type::tensors_host},
    {"constants", mem_type::constants_host}, {"application_memory", mem_type::misc_host},
    {"driver_memory", mem_type::ncdev_host}, {"notifications", mem_type::notification_host},
    {"dma_rings", mem_type::dma_rings_host}, {"uncategorized", mem_type::unknown_host},
};

class model_parser {
public:
    explicit model_parser(std::string source) : m_fields(std::move(source), max_model_file_nodes) {}

    model_definition parse(std::string_view text) {
        if (text.size() > max_model_file_bytes) {
            throw common::yaml_error(fmt::format("{}:1:1: a model file has at most {} bytes, not {}",
                                                 printable(m_fields.source()), max_model_file_bytes, text.size()));
        }
        const auto root = m_fields.load(text);
        m_fields.only_keys(
            root, {"neuron_emu_model", "name", "inputs", "outputs", "memory", "work", "program", "prints", "faults"},
            "the model file");
        const auto version = m_fields.required(root, "neuron_emu_model", "the model file");
        if (m_fields.unsigned_number(version, "neuron_emu_model") != 1) {
            m_fields.fail(version, "neuron_emu_model must be 1 (the only format version)");
        }
        model_definition m;
        const auto name = m_fields.required(root, "name", "the model file");
        m.name = m_fields.text(name, "name");
        if (m.name.empty() || m.name.size() > max_name) m_fields.fail(name, "a model's name needs 1 to 255 characters");
        if (const auto inputs = root["inputs"]) read_tensors(inputs, tensor_usage::input, m);
        if (const auto outputs = root["outputs"]) read_tensors(outputs, tensor_usage::output, m);
        if (const auto memory = root["memory"]) read_memory(memory, m);
        if (const auto work = root["work"]) read_work(work, m);
        if (const auto program = root["program"]) {
            if (root["work"]) m_fields.fail(program, "a model has work or a program, not both");
            m.program = read_program(m_fields, program);
        }
        if (const auto prints = root["prints"]) read_prints(prints, m);
        if (const auto faults = root["faults"]) read_faults(faults, m);
        return m;
    }

private:
    void read_tensors(const YAML::Node& list, tensor_usage usage, model_definition& m) {
        const auto what = usage == tensor_usage::input ? "inputs" : "outputs";
        m_fields.require_sequence(list, what);
        for (const auto& node : list) {
            if (usage == tensor_usage::input) {
                m_fields.only_keys(node, {"name", "dtype", "shape"}, "an input");
            } else {
                m_fields.only_keys(node, {"name", "dtype", "shape", "sum", "copy", "fill"}, "an output");
            }
            model_tensor t;
            t.usage = usage;
            t.name = m_fields.text(m_fields.required(node, "name", "a tensor"), "a tensor name");
            if (t.name.empty() || t.name.size() > max_name)
                m_fields.fail(node["name"], "a tensor name needs 1 to 255 characters");
            if (!m_names.insert(t.name).second)
                m_fields.fail(node["name"], fmt::format("tensor '{}' is declared twice", quoted(t.name)));
            const auto dtype_node = m_fields.required(node, "dtype", "a tensor");
            const auto dtype = find_dtype(m_fields.text(dtype_node, "dtype"));
            if (!dtype)
                m_fields.fail(dtype_node, fmt::format("unknown dtype '{}' (valid: {})", quoted(dtype_node.Scalar()),
                                                      dtype_names()));
            t.dtype = dtype->value;
            t.shape = read_shape(m_fields, m_fields.required(node, "shape", "a tensor"));
            t.size = dtype->element_size;
            for (const auto d : t.shape) {
                if (t.size > max_tensor_bytes / d)
                    m_fields.fail(node["shape"], "the tensor would be larger than 4 GiB");
                t.size *= d;
            }
            if (usage == tensor_usage::output) read_rule(node, *dtype, t, m);
            m.tensors.push_back(std::move(t));
        }
    }

    void read_rule(const YAML::Node& node, const dtype_info& dtype, model_tensor& t, const model_definition& m) {
        const int rules = (node["sum"] ? 1 : 0) + (node["copy"] ? 1 : 0) + (node["fill"] ? 1 : 0);
        if (rules > 1) m_fields.fail(node, "an output takes at most one of sum, copy and fill");
        const auto input = [&](const YAML::Node& name_node) -> const model_tensor& {
            const auto name = m_fields.text(name_node, "an input name");
            for (const auto& other : m.tensors) {
                if (other.name == name && other.usage == tensor_usage::input) {
                    if (other.dtype != t.dtype || other.size != t.size) {
                        m_fields.fail(name_node, fmt::format("input '{}' differs from output '{}' in dtype or size",
                                                             quoted(name), quoted(t.name)));
                    }
                    return other;
                }
            }
            m_fields.fail(name_node, fmt::format("no input named '{}'", quoted(name)));
        };
        if (const auto copy = node["copy"]) {
            t.rule = output_rule::copy;
            t.sources.push_back(input(copy).name);
        } else if (const auto sum = node["sum"]) {
            if (!dtype.arithmetic) m_fields.fail(sum, fmt::format("sum cannot compute with {}", dtype.name));
            m_fields.require_sequence(sum, "sum");
            if (sum.size() == 0) m_fields.fail(sum, "sum needs at least one input");
            t.rule = output_rule::sum;
            for (const auto& s : sum) t.sources.push_back(input(s).name);
        } else if (const auto fill = node["fill"]) {
            if (!dtype.arithmetic) m_fields.fail(fill, fmt::format("fill cannot compute with {}", dtype.name));
            t.rule = output_rule::fill;
            t.fill_value = read_fill_value(m_fields, fill, "fill", dtype.name, dtype.element_size);
        }
    }

    void read_memory(const YAML::Node& node, model_definition& m) {
        std::vector<std::string_view> keys{"host"};
        for (const auto& c : device_categories) keys.push_back(c.name);
        check_keys(node, keys, "memory");
        for (const auto& c : device_categories)
            add_memory(node[std::string(c.name)], model::mem_location::device, c, m);
        if (const auto host = node["host"]) {
            std::vector<std::string_view> host_keys;
            for (const auto& c : host_categories) host_keys.push_back(c.name);
            check_keys(host, host_keys, "memory.host");
            for (const auto& c : host_categories)
                add_memory(host[std::string(c.name)], model::mem_location::host, c, m);
        }
    }

    void check_keys(const YAML::Node& node, const std::vector<std::string_view>& keys, std::string_view context) {
        m_fields.only_keys(node, std::span<const std::string_view>(keys), context);
    }

    void add_memory(const YAML::Node& value, model::mem_location where, const category& c, model_definition& m) {
        if (!value) return;
        const auto bytes = m_fields.unsigned_number(value, fmt::format("memory '{}'", c.name), max_tensor_bytes * 64);
        if (bytes > 0) m.memory.push_back({where, c.type, bytes});
    }

    void read_work(const YAML::Node& node, model_definition& m) {
        m_fields.only_keys(node, {"tensor", "vector", "scalar", "gpsimd", "sync", "macs"}, "work");
        for (std::size_t e = 0; e < model::engine_count; ++e) {
            const auto engine = model::engine_name(static_cast<model::engine_kind>(e));
            if (const auto cycles = node[std::string(engine)]) {
                m.engine_cycles[e] = m_fields.unsigned_number(cycles, fmt::format("{} cycles", engine), 1ull << 50);
            }
        }
        if (const auto macs = node["macs"]) m.macs = m_fields.unsigned_number(macs, "macs", 1ull << 60);
    }

    void read_prints(const YAML::Node& list, model_definition& m) {
        m_fields.require_sequence(list, "prints");
        for (const auto& node : list) {
            m_fields.only_keys(node, print_keys, "a print");
            m.prints.push_back(read_print(m_fields, node));
        }
    }

    void read_faults(const YAML::Node& list, model_definition& m) {
        m_fields.require_sequence(list, "faults");
        for (const auto& node : list) {
            m_fields.only_keys(node, {"status", "on_execution", "after_executions", "probability", "seed", "once"},
                               "a fault");
            fault_trigger f;
            const auto status = m_fields.required(node, "status", "a fault");
            const auto text = m_fields.text(status, "status");
            if (const auto named = model::status_from_name(text)) {
                f.status = *named;
            } else {
                f.status = static_cast<std::uint32_t>(
                    m_fields.unsigned_number(status, "status (an NRT_STATUS name or number)", UINT32_MAX));
                if (!model::status_name(f.status)) {
                    m_fields.fail(status,
                                  fmt::format("{} is not an NRT_STATUS value (give a name such as NRT_EXEC_OOB, "
                                              "or the number of one)",
                                              f.status));
                }
            }
            if (f.status == 0) m_fields.fail(status, "a fault's status cannot be NRT_SUCCESS");
            const int kinds =
                (node["on_execution"] ? 1 : 0) + (node["after_executions"] ? 1 : 0) + (node["probability"] ? 1 : 0);
            if (kinds != 1)
                m_fields.fail(node, "a fault needs exactly one of on_execution, after_executions and probability");
            if (const auto n = node["on_execution"]) {
                f.kind = trigger_kind::on_execution;
                f.n = m_fields.unsigned_number(n, "on_execution");
                if (f.n == 0) m_fields.fail(n, "on_execution counts from 1");
            } else if (const auto after = node["after_executions"]) {
                f.kind = trigger_kind::after_executions;
                f.n = m_fields.unsigned_number(after, "after_executions");
            } else {
                f.kind = trigger_kind::probability;
                const auto p = node["probability"];
                f.probability = m_fields.number(p, "probability");
                if (f.probability < 0 || f.probability > 1) m_fields.fail(p, "probability must be between 0 and 1");
                if (!node["seed"]) m_fields.fail(node, "a fault with a probability needs a seed (runs must repeat)");
            }
            if (const auto seed = node["seed"]) {
                if (f.kind != trigger_kind::probability)
                    m_fields.fail(seed, "seed goes with probability: the other triggers draw no numbers");
                f.seed = m_fields.unsigned_number(seed, "seed");
            }
            if (const auto once = node["once"]) f.once = m_fields.boolean(once, "once");
            m.faults.push_back(f);
        }
    }

    yaml_fields m_fields;
    std::set<std::string> m_names;
};

} // namespace

model_definition parse_model_file(std::string_view text, std::string source) {
    return model_parser(std::move(source)).parse(text);
}

bool looks_like_model_file(std::string_view bytes) {
    // Read within the bounds of every YAML we read (a plain YAML::Load of a
    // hostile map costs seconds), and only what one message holds: the
    // server asks this on its I/O thread. Past that, the marker alone
    // decides, and parsing then says which bound the file broke.
    try {
        if (bytes.size() <= protocol::max_model_piece_bytes) {
            const auto root = common::yaml_fields("model").load(bytes);
            return root.IsMap() && root["neuron_emu_model"];
        }
    } catch (const common::yaml_error&) {
    } catch (const YAML::Exception&) {}
    return bytes.find("neuron_emu_model:") != std::string_view::npos;
}

} // namespace neuron::control
