#include "neuron/conformance/scenario_library.h"

#include "neuron/common/yaml_fields.h"
#include "neuron/conformance/scenario_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <map>

namespace neuron::conformance {
namespace {

namespace fs = std::filesystem;

bool is_scenario_file(const fs::path& p) {
    if (p.extension() != ".yaml" && p.extension() != ".yml") return false;
    for (const auto& part : p.parent_path()) {
        if (part == "models") return false;
    }
    return true;
}

} // namespace

std::vector<scenario> load_scenarios(const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    for (const auto& path : paths) {
        std::error_code error;
        if (fs::is_directory(path, error)) {
            std::vector<std::string> found;
            for (const auto& entry : fs::recursive_directory_iterator(path, error)) {
                if (entry.is_regular_file() && is_scenario_file(entry.path())) found.push_back(entry.path().string());
            }
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (fs::is_regular_file(path, error)) {
            files.push_back(path);
        } else {
            throw common::yaml_error(fmt::format("{}:1:1: no such scenario file or folder", path));
        }
    }
    std::vector<scenario> out;
    std::map<std::string, std::string> seen;
    for (const auto& file : files) {
        auto s = parse_scenario_file(file);
        if (const auto [it, fresh] = seen.emplace(s.name, file); !fresh) {
            throw common::yaml_error(
                fmt::format("{}:1:1: scenario name '{}' is taken by {}", file, s.name, it->second));
        }
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<const scenario*> select_scenarios(const std::vector<scenario>& all, const std::string& filter,
                                              const std::vector<std::string>& tags) {
    const bool pattern = filter.find_first_of("*?[") != std::string::npos;
    std::vector<const scenario*> out;
    for (const auto& s : all) {
        if (!filter.empty()) {
            const bool hit =
                pattern ? ::fnmatch(filter.c_str(), s.name.c_str(), 0) == 0 : s.name.find(filter) != std::string::npos;
            if (!hit) continue;
        }
        if (!tags.empty() && std::none_of(tags.begin(), tags.end(), [&](const std::string& t) {
                return std::find(s.tags.begin(), s.tags.end(), t) != s.tags.end();
            })) {
            continue;
        }
        out.push_back(&s);
    }
    return out;
}

} // namespace neuron::conformance
