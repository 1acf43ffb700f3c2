#include "neuron/neff/neff_file.h"

#include "archive_reader.h"

#include "neuron/common/printable.h"
#include "neuron/common/yaml_fields.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

namespace neuron::neff {
namespace {

constexpr std::uint64_t format_version = 2;
constexpr std::size_t name_offset = 0xdc;
constexpr std::size_t max_cores = 64;
constexpr std::size_t max_tensors = 4096;
constexpr std::size_t max_dimensions = 8;

std::uint64_t u64_at(std::string_view bytes, std::size_t offset) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<std::uint8_t>(bytes[offset + static_cast<std::size_t>(i)]);
    return v;
}

// A member the loader reads: JSON, which YAML reads too.
class members {
public:
    explicit members(std::vector<detail::member> all) : m_all(std::move(all)) {
        for (const auto& m : m_all) m_by_name.emplace(m.name, &m);
    }
    const detail::member* find(const std::string& name) const {
        const auto it = m_by_name.find(name);
        return it == m_by_name.end() ? nullptr : it->second;
    }
    YAML::Node json(const std::string& name) const {
        const auto* m = find(name);
        if (m == nullptr) throw neff_error(fmt::format("{}: missing", name));
        YAML::Node node;
        try {
            // Bounded in nodes, depth and keys per map, as model files are.
            node = common::yaml_fields(name).load(m->data);
        } catch (const common::yaml_error& e) {
            throw neff_error(fmt::format("{}: malformed JSON: {}", name, e.what()));
        } catch (const YAML::Exception& e) {
            throw neff_error(fmt::format("{}: malformed JSON at line {}, column {}: {}", name, e.mark.line + 1,
                                         e.mark.column + 1, e.msg));
        }
        if (!node.IsMap()) throw neff_error(fmt::format("{}: not a JSON object", name));
        return node;
    }
    const std::vector<detail::member>& all() const { return m_all; }

private:
    std::vector<detail::member> m_all;
    std::map<std::string, const detail::member*> m_by_name;
};

// The value at `key` as what the caller reads, or a neff_error naming the member.
template <typename T>
T value(const YAML::Node& node, const std::string& key, const std::string& member) {
    try {
        if (!node.IsMap()) throw neff_error(fmt::format("{}: not a JSON object", member));
        const auto v = node[key];
        if (!v) throw neff_error(fmt::format("{}: no \"{}\"", member, key));
        return v.as<T>();
    } catch (const YAML::Exception&) {
        throw neff_error(fmt::format("{}: \"{}\" is not what a NEFF holds there", member, common::printable(key, 100)));
    }
}

// A text value where one is optional: empty when absent or not text.
std::string optional_text(const YAML::Node& map, const std::string& key) {
    const auto v = map[key];
    return v && v.IsScalar() ? v.Scalar() : std::string();
}

std::uint64_t sum(std::uint64_t a, std::uint64_t b, const std::string& where) {
    if (b > UINT64_MAX - a) throw neff_error(fmt::format("{}: sizes that pass 2^64 bytes", where));
    return a + b;
}

// Runs `read` on the member's JSON, naming the member when a value is not
// what a NEFF holds there.
template <typename F>
auto interpreting(const std::string& member, F&& read) {
    try {
        return read();
    } catch (const YAML::Exception& e) {
        throw neff_error(fmt::format("{}: a value is not what a NEFF holds there ({})", member, e.msg));
    }
}

std::uint64_t product(const std::vector<std::uint64_t>& shape, std::uint64_t element, const std::string& where) {
    unsigned __int128 n = element;
    for (const auto d : shape) {
        n *= d;
        if (n > UINT64_MAX) throw neff_error(fmt::format("{}: a tensor of more than 2^64 bytes", where));
    }
    return static_cast<std::uint64_t>(n);
}

void read_signature(const members& all, const std::string& graph, neff_info& out) {
    const auto member = graph + "/tensor_map.json";
    const auto map = all.json(member);
    if (map.size() > max_tensors) throw neff_error(fmt::format("{}: more than {} tensors", member, max_tensors));
    for (const auto& entry : map) {
        if (!entry.first.IsScalar()) throw neff_error(fmt::format("{}: a tensor name is not text", member));
        const auto name = entry.first.Scalar();
        const auto& t = entry.second;
        if (!t.IsMap())
            throw neff_error(fmt::format("{}: \"{}\" is not an object", member, common::printable(name, 100)));
        const auto kind = optional_text(t, "kind");
        if (kind != "input" && kind != "output") continue; // constants and the like
        const auto where = fmt::format("{}: tensor \"{}\"", member, common::printable(name, 100));
        tensor x;
        x.name = name;
        x.dtype = value<std::string>(t, "dtype", where);
        x.shape = value<std::vector<std::uint64_t>>(t, "tf_shape", where);
        if (x.name.empty() || x.name.size() >= 256)
            throw neff_error(fmt::format("{}: a name of 1 to 255 bytes", where));
        // nrt reports a shape in 32-bit dimensions; a scalar has none.
        if (x.shape.size() > max_dimensions) throw neff_error(fmt::format("{}: more than 8 dimensions", where));
        for (const auto d : x.shape) {
            if (d > UINT32_MAX) throw neff_error(fmt::format("{}: a dimension of {}, past 2^32 - 1", where, d));
        }
        const auto element = dtype_bytes(x.dtype);
        if (element == 0)
            throw neff_error(fmt::format("{}: unknown dtype \"{}\"", where, common::printable(x.dtype, 40)));
        x.bytes = product(x.shape, element, where);
        (kind == "input" ? out.inputs : out.outputs).push_back(std::move(x));
    }
}

core_graph read_graph(const members& all, const std::string& name) {
    core_graph g;
    g.name = name;
    const auto folder = name + "/";
    for (const auto& m : all.all()) {
        if (m.name.starts_with(folder) && m.name.ends_with(".bin")) g.code_bytes = sum(g.code_bytes, m.size, folder);
    }
    const auto def_member = folder + "def.json";
    const auto def = all.json(def_member);
    if (const auto vars = def["var"]; vars) {
        if (!vars.IsMap()) throw neff_error(fmt::format("{}: \"var\" is not an object", def_member));
        for (const auto& v : vars) {
            const auto& var = v.second;
            if (!var.IsMap()) continue;
            const auto type = optional_text(var, "type");
            const auto where =
                fmt::format("{}: variable \"{}\"", def_member,
                            common::printable(v.first.IsScalar() ? v.first.Scalar() : std::string(), 100));
            if (type == "file")
                g.constant_bytes = sum(g.constant_bytes, value<std::uint64_t>(var, "size", where), where);
            if (type == "virtual") {
                const scratch_variable x{value<std::uint64_t>(var, "backing_variable_off", where),
                                         value<std::uint64_t>(var, "size", where)};
                g.scratchpad_bytes = std::max(g.scratchpad_bytes, sum(x.offset, x.size, where));
                g.scratch_variables.push_back(x);
            }
        }
    }
    for (std::size_t e = 0; e < engine_count; ++e) {
        const auto file = folder + std::string(engine_files[e]);
        if (const auto* bin = all.find(file + ".bin")) g.instructions[e] = bin->size / instruction_bytes;
        if (all.find(file + ".json") == nullptr) continue;
        const auto engine = all.json(file + ".json");
        if (const auto dma = engine["dma"]; dma) {
            if (!dma.IsSequence()) throw neff_error(fmt::format("{}.json: \"dma\" is not a list", file));
            g.dma_transfers += dma.size();
        }
    }
    return g;
}

} // namespace

std::uint64_t dtype_bytes(std::string_view dtype) {
    static const std::map<std::string_view, std::uint64_t> sizes{
        {"float32", 4},     {"float16", 2},    {"bfloat16", 2},   {"float64", 8},     {"int8", 1},
        {"uint8", 1},       {"int16", 2},      {"uint16", 2},     {"int32", 4},       {"uint32", 4},
        {"int64", 8},       {"uint64", 8},     {"bool", 1},       {"float8_e4m3", 1}, {"float8_e5m2", 1},
        {"float8_e3m4", 1}, {"float8e4m3", 1}, {"float8e5m2", 1}, {"float8e3m4", 1}};
    const auto it = sizes.find(dtype);
    return it == sizes.end() ? 0 : it->second;
}

memory_charge charge(const core_graph& g, const scratchpad_layout& layout) {
    memory_charge c;
    c.model_code = g.code_bytes;
    c.constants = g.constant_bytes;
    const auto page = layout.contiguous ? contiguous_scratchpad_page : std::max<std::uint64_t>(1, layout.page_bytes);
    // Absurd sizes saturate (and no device holds them) rather than wrap to small ones.
    const auto add = [](std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; };
    c.scratchpad = add(g.scratchpad_bytes, (page - g.scratchpad_bytes % page) % page);
    if (!layout.contiguous) {
        for (const auto& x : g.scratch_variables) {
            if (add(x.offset % page, x.size) > page) c.nonshared_scratchpad = add(c.nonshared_scratchpad, x.size);
        }
    }
    c.dma_rings = g.dma_transfers * descriptors_per_transfer * dma_descriptor_bytes;
    return c;
}

bool looks_like_neff(std::string_view bytes) {
    return bytes.size() >= 24 && u64_at(bytes, 8) == header_bytes && u64_at(bytes, 0) >= 1 && u64_at(bytes, 0) <= 16;
}

// The members read_neff reads: the top-level JSON it names and, in each
// graph's folder, def.json, tensor_map.json and the engines' JSON.
static bool read_by_loader(std::string_view name) {
    if (name == "info.json" || name == "kelf-0.json" || name == "hlo_stats.json") return true;
    const auto slash = name.find('/');
    if (slash == std::string_view::npos || name.find('/', slash + 1) != std::string_view::npos) return false;
    const auto file = name.substr(slash + 1);
    if (file == "def.json" || file == "tensor_map.json") return true;
    return std::any_of(engine_files.begin(), engine_files.end(), [&](std::string_view e) {
        return file.size() == e.size() + 5 && file.starts_with(e) && file.ends_with(".json");
    });
}

std::string header_name(std::string_view bytes) {
    if (bytes.size() < header_bytes) return {};
    const auto field = bytes.substr(name_offset, header_bytes - name_offset);
    return common::printable(field.substr(0, field.find('\0')), 255);
}

neff_info read_neff(std::string_view bytes) {
    if (bytes.size() < header_bytes) {
        throw neff_error(
            fmt::format("the file is {} bytes, shorter than a NEFF's {}-byte header", bytes.size(), header_bytes));
    }
    neff_info info;
    info.format_version = u64_at(bytes, 0);
    if (info.format_version != format_version) {
        throw neff_error(
            fmt::format("NEFF format version {}; this loader reads version {}", info.format_version, format_version));
    }
    if (u64_at(bytes, 8) != header_bytes) {
        throw neff_error(fmt::format("the header says it is {} bytes; a NEFF's is {}", u64_at(bytes, 8), header_bytes));
    }
    const auto payload = u64_at(bytes, 16);
    if (payload != bytes.size() - header_bytes) {
        throw neff_error(fmt::format("the header says {} bytes of payload follow; the file has {}", payload,
                                     bytes.size() - header_bytes));
    }
    const members all(detail::read_archive(bytes.substr(header_bytes), read_by_loader));

    const auto info_json = all.json("info.json");
    info.name = optional_text(info_json, "name");
    info.tool_version = optional_text(info_json, "tool_version");
    const auto kelf = all.json("kelf-0.json");
    const auto graphs = kelf["graphs"];
    if (!graphs || !graphs.IsSequence() || graphs.size() == 0) throw neff_error("kelf-0.json: no \"graphs\" list");
    if (graphs.size() > max_cores) throw neff_error(fmt::format("kelf-0.json: more than {} graphs", max_cores));
    for (const auto& g : graphs) {
        const auto name = value<std::string>(g, "name", "kelf-0.json: a graph");
        if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
            throw neff_error(fmt::format("kelf-0.json: a graph named \"{}\"", common::printable(name, 100)));
        }
        info.cores.push_back(interpreting(name + "/def.json", [&] { return read_graph(all, name); }));
    }
    interpreting(info.cores.front().name + "/tensor_map.json",
                 [&] { read_signature(all, info.cores.front().name, info); });
    if (all.find("hlo_stats.json") != nullptr) {
        const auto stats = all.json("hlo_stats.json");
        if (stats["HloMacCount"])
            info.macs = std::max<std::int64_t>(0, value<std::int64_t>(stats, "HloMacCount", "hlo_stats.json"));
        if (stats["Traffic"])
            info.traffic_bytes = std::max<std::int64_t>(0, value<std::int64_t>(stats, "Traffic", "hlo_stats.json"));
    }
    return info;
}

} // namespace neuron::neff
