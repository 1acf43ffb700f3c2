#include "neuron/recording/recording_file.h"

#include "neuron/common/posix_names.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace neuron::recording {
namespace {

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

void emit_entry(YAML::Emitter& out, const tree_entry& e) {
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
    for (const auto& e : r.entries) emit_entry(out, e);
    out << YAML::EndSeq;
    if (!r.identity.empty()) {
        out << YAML::Key << "identity" << YAML::Value << YAML::BeginSeq;
        for (const auto& e : r.identity) emit_entry(out, e);
        out << YAML::EndSeq;
    }
    if (!r.samples.empty()) {
        out << YAML::Key << "samples" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "interval_ns" << YAML::Value << r.interval_ns;
        out << YAML::Key << "taken" << YAML::Value << YAML::BeginSeq;
        for (const auto& s : r.samples) {
            out << YAML::BeginMap << YAML::Key << "at_ns" << YAML::Value << s.at_ns;
            out << YAML::Key << "values" << YAML::Value << YAML::Flow << YAML::BeginSeq;
            for (std::size_t i = 0; i < s.values.size(); ++i) out << YAML::DoubleQuoted << std::string(s.values[i]);
            out << YAML::EndSeq << YAML::EndMap;
        }
        out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

} // namespace neuron::recording
