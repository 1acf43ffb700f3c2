#include "neuron/neff/neff_file.h"

#include "archive_reader.h"

#include "json_reader.h"

#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

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

using detail::json_document;
using detail::json_value;

std::uint64_t sum(std::uint64_t a, std::uint64_t b, const std::string& where) {
    if (b > UINT64_MAX - a) throw neff_error(fmt::format("{}: sizes that pass 2^64 bytes", where));
    return a + b;
}

// The members of the archive, and the JSON of those the loader reads: each
// parsed at most once (parsing one again would be a logic error, not work
// redone).
class members {
public:
    members(std::vector<detail::member> all, const read_options& options) : m_all(std::move(all)), m_options(options) {
        for (const auto& m : m_all) {
            m_by_name.emplace(m.name, &m);
            // A graph's code: every .bin below its folder.
            if (const auto slash = m.name.find('/'); slash != std::string::npos && m.name.ends_with(".bin")) {
                auto& bytes = m_bin_bytes[m.name.substr(0, slash)];
                bytes = sum(bytes, m.size, m.name.substr(0, slash + 1));
            }
        }
    }
    const detail::member* find(const std::string& name) const {
        const auto it = m_by_name.find(name);
        return it == m_by_name.end() ? nullptr : it->second;
    }
    std::uint64_t bin_bytes(const std::string& folder) const {
        const auto it = m_bin_bytes.find(folder);
        return it == m_bin_bytes.end() ? 0 : it->second;
    }
    // The member's JSON, parsed now; its root is an object.
    std::unique_ptr<const json_document> json(const std::string& name) {
        const auto* m = find(name);
        if (m == nullptr) throw neff_error(fmt::format("{}: missing", name));
        if (!m_parsed.insert(name).second) throw std::logic_error("read_neff parses " + name + " twice");
        if (m_options.work != nullptr) {
            ++m_options.work->json_members;
            m_options.work->json_bytes += m->data.size();
        }
        auto doc = std::make_unique<const json_document>(m->data, name, m_options.stopped);
        if (!doc->root().is_object()) throw neff_error(fmt::format("{}: not a JSON object", name));
        return doc;
    }

private:
    std::vector<detail::member> m_all;
    const read_options& m_options;
    std::map<std::string_view, const detail::member*, std::less<>> m_by_name;
    std::map<std::string, std::uint64_t, std::less<>> m_bin_bytes;
    std::set<std::string, std::less<>> m_parsed;
};

[[noreturn]] void not_what(const std::string& where, std::string_view key) {
    throw neff_error(fmt::format("{}: \"{}\" is not what a NEFF holds there", where, common::printable(key, 100)));
}

// The value at `key`, or a neff_error naming `where`.
json_value at(const json_value& map, std::string_view key, const std::string& where) {
    if (!map.is_object()) throw neff_error(fmt::format("{}: not a JSON object", where));
    const auto v = map.find(key);
    if (!v) throw neff_error(fmt::format("{}: no \"{}\"", where, key));
    return *v;
}

// A whole number of 0 or more, written as one.
std::optional<std::uint64_t> whole(const json_value& v) {
    if (v.type() != json_value::kind::number) return std::nullopt;
    const auto text = v.text();
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return n;
}

std::uint64_t unsigned_at(const json_value& map, std::string_view key, const std::string& where) {
    const auto n = whole(at(map, key, where));
    if (!n) not_what(where, key);
    return *n;
}

std::int64_t signed_at(const json_value& map, std::string_view key, const std::string& where) {
    const auto v = at(map, key, where);
    const auto text = v.text();
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (v.type() != json_value::kind::number || ec != std::errc() || end != text.data() + text.size()) {
        not_what(where, key);
    }
    return n;
}

std::string text_at(const json_value& map, std::string_view key, const std::string& where) {
    const auto v = at(map, key, where);
    if (v.type() != json_value::kind::string) not_what(where, key);
    return std::string(v.text());
}

// A text value where one is optional: empty when absent or not text.
std::string optional_text(const json_value& map, std::string_view key) {
    const auto v = map.find(key);
    return v && v->type() == json_value::kind::string ? std::string(v->text()) : std::string();
}

std::uint64_t product(const std::vector<std::uint64_t>& shape, std::uint64_t element, const std::string& where) {
    unsigned __int128 n = element;
    for (const auto d : shape) {
        n *= d;
        if (n > UINT64_MAX) throw neff_error(fmt::format("{}: a tensor of more than 2^64 bytes", where));
    }
    return static_cast<std::uint64_t>(n);
}

void read_signature(members& all, const std::string& graph, neff_info& out) {
    const auto member = graph + "/tensor_map.json";
    const auto doc = all.json(member);
    const auto map = doc->root();
    if (map.size() > max_tensors) throw neff_error(fmt::format("{}: more than {} tensors", member, max_tensors));
    for (const auto t : map) {
        const auto name = std::string(t.key());
        if (!t.is_object())
            throw neff_error(fmt::format("{}: \"{}\" is not an object", member, common::printable(name, 100)));
        const auto kind = optional_text(t, "kind");
        if (kind != "input" && kind != "output") continue; // constants and the like
        const auto where = fmt::format("{}: tensor \"{}\"", member, common::printable(name, 100));
        tensor x;
        x.name = name;
        x.dtype = text_at(t, "dtype", where);
        const auto shape = at(t, "tf_shape", where);
        if (!shape.is_array()) not_what(where, "tf_shape");
        // nrt reports a shape in 32-bit dimensions; a scalar has none.
        if (shape.size() > max_dimensions) throw neff_error(fmt::format("{}: more than 8 dimensions", where));
        for (const auto d : shape) {
            const auto n = whole(d);
            if (!n) not_what(where, "tf_shape");
            x.shape.push_back(*n);
        }
        if (x.name.empty() || x.name.size() >= 256)
            throw neff_error(fmt::format("{}: a name of 1 to 255 bytes", where));
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

core_graph read_graph(members& all, const std::string& name) {
    core_graph g;
    g.name = name;
    const auto folder = name + "/";
    g.code_bytes = all.bin_bytes(name);
    const auto def_member = folder + "def.json";
    const auto def_doc = all.json(def_member);
    const auto def = def_doc->root();
    if (const auto vars = def.find("var")) {
        if (!vars->is_object()) throw neff_error(fmt::format("{}: \"var\" is not an object", def_member));
        for (const auto var : *vars) {
            if (!var.is_object()) continue;
            const auto type = optional_text(var, "type");
            const auto where =
                fmt::format("{}: variable \"{}\"", def_member, common::printable(std::string(var.key()), 100));
            if (type == "file") g.constant_bytes = sum(g.constant_bytes, unsigned_at(var, "size", where), where);
            if (type == "virtual") {
                const scratch_variable x{unsigned_at(var, "backing_variable_off", where),
                                         unsigned_at(var, "size", where)};
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
        if (const auto dma = engine->root().find("dma")) {
            if (!dma->is_array()) throw neff_error(fmt::format("{}.json: \"dma\" is not a list", file));
            g.dma_transfers += dma->size();
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

neff_info read_neff(std::string_view bytes, const read_options& options) {
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
    members all(detail::read_archive(bytes.substr(header_bytes), read_by_loader, {}, options.stopped, options.work),
                options);

    {
        const auto doc = all.json("info.json");
        info.name = optional_text(doc->root(), "name");
        info.tool_version = optional_text(doc->root(), "tool_version");
    }
    std::vector<std::string> names;
    {
        const auto kelf = all.json("kelf-0.json");
        const auto graphs = kelf->root().find("graphs");
        if (!graphs || !graphs->is_array() || graphs->size() == 0) {
            throw neff_error("kelf-0.json: no \"graphs\" list");
        }
        if (graphs->size() > max_cores) throw neff_error(fmt::format("kelf-0.json: more than {} graphs", max_cores));
        std::set<std::string, std::less<>> seen;
        for (const auto g : *graphs) {
            auto name = text_at(g, "name", "kelf-0.json: a graph");
            if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..") {
                throw neff_error(fmt::format("kelf-0.json: a graph named \"{}\"", common::printable(name, 100)));
            }
            // Ours: one graph is one physical core's folder; two graphs of one
            // name would be one folder read, and charged, twice.
            if (!seen.insert(name).second) {
                throw neff_error(fmt::format("kelf-0.json: two graphs are named \"{}\"", common::printable(name, 100)));
            }
            names.push_back(std::move(name));
        }
    }
    for (const auto& name : names) info.cores.push_back(read_graph(all, name));
    read_signature(all, info.cores.front().name, info);
    if (all.find("hlo_stats.json") != nullptr) {
        const auto doc = all.json("hlo_stats.json");
        const auto stats = doc->root();
        if (stats.find("HloMacCount"))
            info.macs = std::max<std::int64_t>(0, signed_at(stats, "HloMacCount", "hlo_stats.json"));
        if (stats.find("Traffic"))
            info.traffic_bytes = std::max<std::int64_t>(0, signed_at(stats, "Traffic", "hlo_stats.json"));
    }
    return info;
}

} // namespace neuron::neff
