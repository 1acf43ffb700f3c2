#include "neuron/recording/recording_file.h"

#include "neuron/common/posix_names.h"
#include "neuron/common/yaml_fields.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>

namespace neuron::recording {
namespace {

// A recording of the largest instance is about 20 000 entries of up to 7 nodes.
constexpr std::uint64_t max_nodes = 4'000'000;

std::string hex(std::string_view s) {
    std::string out;
    for (const unsigned char c : s) out += fmt::format("{:02x}", c);
    return out;
}

std::string mode_text(std::uint32_t mode) { return fmt::format("{:04o}", mode); }

void emit_value(YAML::Emitter& out, const char* key, const std::string& value) {
    if (is_text(value)) {
        out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
    } else {
        out << YAML::Key << (std::string(key) + "_hex") << YAML::Value << YAML::DoubleQuoted << hex(value);
    }
}

// An errno as errno_name writes it: "EACCES", or "errno 524" for one without a name here.
std::optional<int> errno_of(const std::string& text) {
    if (const auto named = common::errno_from_name(text)) return named;
    constexpr std::string_view prefix = "errno ";
    if (!text.starts_with(prefix)) return std::nullopt;
    int n = 0;
    const auto digits = std::string_view(text).substr(prefix.size());
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return n;
}

// Names in a tree (paths, link targets, identity strings) are printable ASCII.
bool printable_name(std::string_view s) {
    for (const unsigned char c : s) {
        if (c < 0x20 || c >= 0x7f) return false;
    }
    return true;
}

// As a file system takes them (NAME_MAX, PATH_MAX): what a tree can hold.
constexpr std::size_t max_name_bytes = 255;
constexpr std::size_t max_path_bytes = 4096;

bool well_formed_path(std::string_view path) {
    if (path.empty() || path.size() > max_path_bytes) return false;
    for (std::size_t start = 0; start <= path.size();) {
        const auto slash = std::min(path.find('/', start), path.size());
        const auto name = path.substr(start, slash - start);
        if (name.empty() || name.size() > max_name_bytes || name == "." || name == "..") return false;
        start = slash + 1;
    }
    return true;
}

class reader {
public:
    explicit reader(const std::string& source) : m_fields(source, max_nodes) {}

    tree_recording read(std::string_view text) {
        const auto root = m_fields.load(text);
        m_fields.require_map(root, "a recording");
        m_fields.only_keys(
            root,
            {"neuron_tree_recording", "root", "driver_release", "instance_type", "device_count", "entries", "samples"},
            "a recording");
        const auto version = m_fields.required(root, "neuron_tree_recording", "a recording");
        if (m_fields.unsigned_number(version, "neuron_tree_recording") != recording_format_version) {
            m_fields.fail(version, fmt::format("a recording of format {} (this reads format {})", version.Scalar(),
                                               recording_format_version));
        }
        tree_recording r;
        r.root = name(m_fields.required(root, "root", "a recording"), "root");
        if (const auto n = root["driver_release"]) r.driver_release = name(n, "driver_release");
        if (const auto n = root["instance_type"]) r.instance_type = name(n, "instance_type");
        r.device_count = static_cast<std::uint32_t>(
            m_fields.unsigned_number(m_fields.required(root, "device_count", "a recording"), "device_count", 4096));
        const auto entries = m_fields.required(root, "entries", "a recording");
        m_fields.require_sequence(entries, "entries");
        for (const auto& e : entries) r.entries.push_back(entry(e, r.entries.empty() ? nullptr : &r.entries.back()));
        if (const auto samples = root["samples"]) read_samples(samples, r);
        return r;
    }

private:
    std::string name(const YAML::Node& node, const char* what) {
        auto text = m_fields.text(node, what);
        if (!printable_name(text)) m_fields.fail(node, fmt::format("{} is printable ASCII", what));
        return text;
    }

    tree_entry entry(const YAML::Node& node, const tree_entry* previous) {
        m_fields.require_map(node, "an entry");
        m_fields.only_keys(node, {"path", "type", "mode", "target", "value", "value_hex", "error", "counter"},
                           "an entry");
        tree_entry e;
        const auto path = m_fields.required(node, "path", "an entry");
        e.path = name(path, "path");
        if (!well_formed_path(e.path)) {
            m_fields.fail(path, fmt::format("a path is relative to the root and stays in it: names of 1 to {} "
                                            "characters, never '.' or '..', joined by single '/', {} at most",
                                            max_name_bytes, max_path_bytes));
        }
        if (previous != nullptr && !path_less(previous->path, e.path)) {
            m_fields.fail(path, fmt::format("'{}' comes after '{}': entries are sorted by path, each once", e.path,
                                            previous->path));
        }
        const auto type = m_fields.required(node, "type", "an entry");
        const auto type_text = m_fields.text(type, "type");
        constexpr std::array types{entry_type::directory, entry_type::file, entry_type::link};
        const auto found =
            std::find_if(types.begin(), types.end(), [&](entry_type t) { return type_name(t) == type_text; });
        if (found == types.end()) m_fields.fail(type, "type is directory, file or link");
        e.type = *found;
        const auto mode = m_fields.required(node, "mode", "an entry");
        const auto mode_text = m_fields.text(mode, "mode");
        std::uint32_t bits = 0;
        if (mode_text.empty() || mode_text.size() > 5 || mode_text.find_first_not_of("01234567") != std::string::npos) {
            m_fields.fail(mode, "mode is octal permission bits, such as \"0444\"");
        }
        for (const char c : mode_text) bits = bits * 8 + static_cast<std::uint32_t>(c - '0');
        if (bits > 07777) m_fields.fail(mode, "mode is octal permission bits, such as \"0444\"");
        e.mode = bits;
        const auto only_for = [&](const char* key, entry_type t) {
            if (node[key] && e.type != t)
                m_fields.fail(node[key], fmt::format("a {} has no {}", type_name(e.type), key));
        };
        only_for("target", entry_type::link);
        only_for("value", entry_type::file);
        only_for("value_hex", entry_type::file);
        only_for("error", entry_type::file);
        only_for("counter", entry_type::file);
        if (e.type == entry_type::link) e.target = name(m_fields.required(node, "target", "a link"), "target");
        if (node["value"] && node["value_hex"]) m_fields.fail(node, "an entry has value or value_hex, not both");
        if (const auto v = node["value"]) e.value = m_fields.text(v, "value");
        if (const auto v = node["value_hex"]) e.value = unhex(v);
        if (const auto err = node["error"]) {
            const auto code = errno_of(m_fields.text(err, "error"));
            if (!code || *code <= 0) m_fields.fail(err, "error is an errno name, such as EACCES, or \"errno N\"");
            if (node["value"] || node["value_hex"]) m_fields.fail(err, "a file whose read failed has no value");
            e.read_error = *code;
        }
        if (const auto c = node["counter"]) e.counter = m_fields.boolean(c, "counter");
        return e;
    }

    std::string unhex(const YAML::Node& node) {
        const auto text = m_fields.text(node, "value_hex");
        if (text.size() % 2 != 0 || text.find_first_not_of("0123456789abcdef") != std::string::npos) {
            m_fields.fail(node, "value_hex is pairs of lowercase hex digits");
        }
        std::string out;
        for (std::size_t i = 0; i < text.size(); i += 2)
            out += static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16));
        return out;
    }

    void read_samples(const YAML::Node& node, tree_recording& r) {
        m_fields.require_map(node, "samples");
        m_fields.only_keys(node, {"interval_ns", "taken"}, "samples");
        r.interval_ns = m_fields.unsigned_number(m_fields.required(node, "interval_ns", "samples"), "interval_ns");
        const auto taken = m_fields.required(node, "taken", "samples");
        m_fields.require_sequence(taken, "taken");
        std::size_t counters = 0;
        for (const auto& e : r.entries) counters += e.counter ? 1 : 0;
        for (const auto& t : taken) {
            m_fields.require_map(t, "a sample");
            m_fields.only_keys(t, {"at_ns", "values"}, "a sample");
            sample s;
            s.at_ns = m_fields.unsigned_number(m_fields.required(t, "at_ns", "a sample"), "at_ns");
            if (!r.samples.empty() && s.at_ns < r.samples.back().at_ns)
                m_fields.fail(t["at_ns"], "samples come in time order");
            const auto values = m_fields.required(t, "values", "a sample");
            m_fields.require_sequence(values, "values");
            if (values.size() != counters) {
                m_fields.fail(values, fmt::format("{} values; the recording has {} counters", values.size(), counters));
            }
            for (const auto& v : values) {
                auto text = m_fields.text(v, "a value");
                if (!is_text(text)) m_fields.fail(v, "a sampled value is text (printable ASCII, newlines and tabs)");
                s.values.push_back(std::move(text));
            }
            r.samples.push_back(std::move(s));
        }
    }

    common::yaml_fields m_fields;
};

} // namespace

std::string write_recording(const tree_recording& r) {
    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "neuron_tree_recording" << YAML::Value << recording_format_version;
    out << YAML::Key << "root" << YAML::Value << YAML::DoubleQuoted << r.root;
    if (!r.driver_release.empty())
        out << YAML::Key << "driver_release" << YAML::Value << YAML::DoubleQuoted << r.driver_release;
    if (!r.instance_type.empty())
        out << YAML::Key << "instance_type" << YAML::Value << YAML::DoubleQuoted << r.instance_type;
    out << YAML::Key << "device_count" << YAML::Value << r.device_count;
    out << YAML::Key << "entries" << YAML::Value << YAML::BeginSeq;
    for (const auto& e : r.entries) {
        out << YAML::Flow << YAML::BeginMap;
        out << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << e.path;
        out << YAML::Key << "type" << YAML::Value << std::string(type_name(e.type));
        out << YAML::Key << "mode" << YAML::Value << YAML::DoubleQuoted << mode_text(e.mode);
        if (e.type == entry_type::link) out << YAML::Key << "target" << YAML::Value << YAML::DoubleQuoted << e.target;
        if (e.type == entry_type::file) {
            if (e.read_error != 0) {
                out << YAML::Key << "error" << YAML::Value << common::errno_name(e.read_error);
            } else {
                emit_value(out, "value", e.value);
            }
            if (e.counter) out << YAML::Key << "counter" << YAML::Value << true;
        }
        out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    if (!r.samples.empty()) {
        out << YAML::Key << "samples" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "interval_ns" << YAML::Value << r.interval_ns;
        out << YAML::Key << "taken" << YAML::Value << YAML::BeginSeq;
        for (const auto& s : r.samples) {
            out << YAML::BeginMap << YAML::Key << "at_ns" << YAML::Value << s.at_ns;
            out << YAML::Key << "values" << YAML::Value << YAML::Flow << YAML::BeginSeq;
            for (const auto& v : s.values) out << YAML::DoubleQuoted << v;
            out << YAML::EndSeq << YAML::EndMap;
        }
        out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

tree_recording read_recording(std::string_view text, const std::string& source) { return reader(source).read(text); }

} // namespace neuron::recording
