#include "neuron/recording/tree_diff.h"

#include "neuron/common/posix_names.h"
#include "neuron/common/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <string_view>
#include <tuple>

namespace neuron::recording {
namespace {

constexpr std::array groups{"identity", "structure", "modes", "links", "reads", "values", "formats"};

std::string quoted(const std::string& value) { return "\"" + common::printable(value, 60) + "\""; }

std::string read_of(const tree_entry& e) { return e.read_error != 0 ? common::errno_name(e.read_error) : "read"; }

void compare(const tree_entry& a, const tree_entry& b, const diff_options& o, std::vector<difference>& out) {
    if (a.type != b.type) {
        out.push_back({"structure", a.path, std::string(type_name(a.type)), std::string(type_name(b.type))});
        return;
    }
    if (a.mode != b.mode)
        out.push_back({"modes", a.path, fmt::format("{:04o}", a.mode), fmt::format("{:04o}", b.mode)});
    if (a.type == entry_type::link && a.target != b.target) out.push_back({"links", a.path, a.target, b.target});
    if (a.type != entry_type::file) return;
    if (a.read_error != b.read_error) {
        out.push_back({"reads", a.path, read_of(a), read_of(b)});
        return;
    }
    if (a.read_error != 0 || a.value == b.value) return;
    if (!(a.counter || b.counter)) {
        out.push_back({"values", a.path, quoted(a.value), quoted(b.value)});
    } else if (o.values) {
        out.push_back({"values", a.path, quoted(a.value), quoted(b.value)});
    } else if (number_shape(a.value) != number_shape(b.value)) {
        out.push_back({"formats", a.path, quoted(number_shape(a.value)), quoted(number_shape(b.value))});
    }
}

// The path with the number after each "neuron" or "neuron_core" as '*'.
std::string pattern_of(const std::string& path) {
    std::string out;
    for (std::size_t i = 0; i < path.size();) {
        std::size_t name = 0;
        for (const std::string_view prefix : {"neuron_core", "neuron"}) {
            if (path.compare(i, prefix.size(), prefix) == 0) {
                name = prefix.size();
                break;
            }
        }
        const auto digits_at = i + name;
        if (name > 0 && digits_at < path.size() && std::isdigit(static_cast<unsigned char>(path[digits_at])) != 0) {
            out.append(path, i, name);
            out += '*';
            i = digits_at;
            while (i < path.size() && std::isdigit(static_cast<unsigned char>(path[i])) != 0) ++i;
            continue;
        }
        out += path[i++];
    }
    return out;
}

// Both are sorted by path: one merge. What lies below a directory one side
// lacks is counted with it, not listed.
void diff_entries(const std::vector<tree_entry>& a, const std::vector<tree_entry>& b, const diff_options& o,
                  std::vector<difference>& out) {
    const auto absent = [&](const std::vector<tree_entry>& entries, std::size_t& k, bool in_a) {
        const auto& e = entries[k++];
        std::size_t below = 0;
        while (k < entries.size() && entries[k].path.starts_with(e.path + "/")) ++below, ++k;
        auto present = std::string(type_name(e.type));
        if (below > 0) present += fmt::format(" with {} entries below", below);
        out.push_back({"structure", e.path, in_a ? present : "absent", in_a ? "absent" : present});
    };
    std::size_t i = 0;
    std::size_t j = 0;
    while (i < a.size() || j < b.size()) {
        if (j == b.size() || (i < a.size() && path_less(a[i].path, b[j].path))) {
            absent(a, i, true);
        } else if (i == a.size() || path_less(b[j].path, a[i].path)) {
            absent(b, j, false);
        } else {
            compare(a[i++], b[j++], o, out);
        }
    }
}

// Identity files each machine has its own value of (ids, serials, UUIDs):
// without --values their shapes are compared, each hex digit as 'X'.
constexpr std::string_view machine_specific[] = {"board_asset_tag", "board_serial",   "chassis_asset_tag",
                                                 "chassis_serial",  "product_serial", "product_uuid"};

std::string hex_shape(std::string_view value) {
    std::string out(value);
    for (auto& c : out) {
        if (std::isxdigit(static_cast<unsigned char>(c)) != 0) c = 'X';
    }
    return out;
}

// The identity files as the DMI directory's entries ("dmi/id/NAME"), in
// the order diff_entries needs.
std::vector<tree_entry> comparable_identity(const std::vector<tree_entry>& identity, const diff_options& o) {
    std::vector<tree_entry> out;
    out.reserve(identity.size());
    for (auto e : identity) {
        if (!o.values &&
            std::find(std::begin(machine_specific), std::end(machine_specific), e.path) != std::end(machine_specific)) {
            e.value = hex_shape(e.value);
        }
        e.path = "dmi/id/" + e.path;
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(),
              [](const tree_entry& x, const tree_entry& y) { return path_less(x.path, y.path); });
    return out;
}

} // namespace

std::string number_shape(std::string_view value) {
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (std::isdigit(static_cast<unsigned char>(value[i])) == 0) {
            out += value[i];
            continue;
        }
        out += 'N';
        while (i + 1 < value.size() && std::isdigit(static_cast<unsigned char>(value[i + 1])) != 0) ++i;
    }
    return out;
}

std::vector<difference> diff_recordings(const tree_recording& a, const tree_recording& b, const diff_options& o) {
    std::vector<difference> out;
    if (a.driver_release != b.driver_release)
        out.push_back({"identity", "driver release", a.driver_release, b.driver_release});
    if (a.instance_type != b.instance_type)
        out.push_back({"identity", "instance type", a.instance_type, b.instance_type});
    if (a.device_count != b.device_count) {
        out.push_back({"identity", "device count", std::to_string(a.device_count), std::to_string(b.device_count)});
    }
    diff_entries(a.entries, b.entries, o, out);
    // A recording without an identity list did not record one: only two
    // lists are compared.
    if (!a.identity.empty() && !b.identity.empty()) {
        diff_entries(comparable_identity(a.identity, o), comparable_identity(b.identity, o), o, out);
    }
    return out;
}

std::string format_differences(const std::vector<difference>& differences, std::size_t shown) {
    std::string out;
    for (const std::string group : groups) {
        // (a, b, pattern) -> how many paths
        std::map<std::tuple<std::string, std::string, std::string>, std::size_t> kinds;
        std::size_t count = 0;
        for (const auto& d : differences) {
            if (d.group != group) continue;
            ++count;
            ++kinds[{d.a, d.b, group == "identity" ? d.path : pattern_of(d.path)}];
        }
        if (count == 0) continue;
        out += fmt::format("{}: {} difference{}\n", group, count, count == 1 ? "" : "s");
        std::size_t lines = 0;
        for (const auto& [kind, n] : kinds) {
            if (lines++ == shown) {
                out += fmt::format("  ... and {} more\n", kinds.size() - shown);
                break;
            }
            const auto& [a, b, pattern] = kind;
            out += fmt::format("  {}: A {} | B {}{}\n", common::printable(pattern, 200), a.empty() ? "(none)" : a,
                               b.empty() ? "(none)" : b, n > 1 ? fmt::format(" ({} paths)", n) : "");
        }
    }
    return out;
}

} // namespace neuron::recording
