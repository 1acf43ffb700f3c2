#include "neuron/sysfs/char_major.h"

#include "neuron/sysfs/errors.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace neuron::sysfs {
namespace {

constexpr std::string_view character_header = "Character devices:";

// Majors in use in the character section, and where that section's lines are.
std::set<std::uint32_t> character_majors(std::string_view text) {
    std::set<std::uint32_t> majors;
    std::istringstream in{std::string(text)};
    std::string line;
    bool in_section = false;
    while (std::getline(in, line)) {
        if (line == character_header) {
            in_section = true;
            continue;
        }
        if (line.empty()) {
            if (in_section) break;
            continue;
        }
        if (!in_section) continue;
        std::istringstream fields(line);
        std::uint32_t major = 0;
        if (fields >> major) majors.insert(major);
    }
    return majors;
}

} // namespace

std::uint32_t dynamic_char_major(std::string_view proc_devices) {
    const auto used = character_majors(proc_devices);
    // The first range is searched by slot of the kernel's 255-entry hash
    // table: a slot is free only if no registered major hashes to it.
    constexpr std::uint32_t slots = 255;
    for (std::uint32_t m = 254; m >= 234; --m) {
        if (std::none_of(used.begin(), used.end(), [m](std::uint32_t u) { return u % slots == m; })) return m;
    }
    for (std::uint32_t m = 511; m >= 384; --m) {
        if (!used.contains(m)) return m;
    }
    throw model::model_error("no free dynamic character major (the kernel would fail with EBUSY)");
}

std::string read_proc_devices() {
    std::ifstream in("/proc/devices");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string proc_devices_with_neuron(std::string_view proc_devices, std::uint32_t major) {
    std::istringstream in{std::string(proc_devices)};
    std::string out;
    std::string line;
    bool in_section = false;
    bool added = false;
    const auto neuron_line = fmt::format("{:3} neuron", major);
    while (std::getline(in, line)) {
        if (line == character_header) {
            in_section = true;
        } else if (in_section && !added) {
            std::istringstream fields(line);
            std::uint32_t existing = 0;
            if (line.empty() || ((fields >> existing) && existing > major)) {
                out += neuron_line + "\n";
                added = true;
            }
            if (line.empty()) in_section = false;
        }
        out += line + "\n";
    }
    if (!added) {
        if (!in_section) out += std::string(character_header) + "\n";
        out += neuron_line + "\n";
    }
    return out;
}

} // namespace neuron::sysfs
