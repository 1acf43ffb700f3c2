#include "executor_state.h"

#include "neuron/common/posix_names.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <sstream>

namespace neuron::conformance {
namespace {

using sum_type = unsigned __int128; // a sum of u64 counters cannot wrap

std::string decimal(sum_type n) {
    if (n == 0) return "0";
    std::string out;
    for (; n > 0; n /= 10) out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(n % 10)));
    return out;
}

// "12, 3, 4, 1\n": the device indices a connected_devices file lists.
std::optional<std::set<std::uint32_t>> listed_devices(const std::string& text) {
    std::set<std::uint32_t> out;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, ',')) {
        while (!item.empty() && (item.front() == ' ' || item.front() == '\n')) item.erase(item.begin());
        while (!item.empty() && (item.back() == ' ' || item.back() == '\n')) item.pop_back();
        if (item.empty()) continue;
        if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 9) return std::nullopt;
        out.insert(static_cast<std::uint32_t>(std::stoul(item)));
    }
    return out;
}

} // namespace

std::uint64_t scenario_executor::runner::number_in(const std::string& file) const {
    const auto r = read_file(file);
    if (r.error != 0)
        fail("reading {} failed with {}", file.substr(session.root().size() + 1), common::errno_name(r.error));
    const auto n = counter_value(r.text);
    if (!n) fail("{} reads {}, not a number", file.substr(session.root().size() + 1), quote_text(r.text));
    return *n;
}

void scenario_executor::runner::operator()(const relation_step& r) {
    if (!r.sum.empty()) {
        const auto add = [&](const std::vector<text_template>& files, std::vector<std::string>& shown) {
            sum_type total = 0;
            for (const auto& f : files) {
                const auto n = number_in(path(f));
                total += n;
                shown.push_back(fmt::format("{} {}", f.expand(values), n));
            }
            return total;
        };
        std::vector<std::string> left_shown, right_shown;
        const auto left = add(r.sum, left_shown);
        const auto right = add(r.other, right_shown);
        const bool holds = r.how == relation_step::compare::equals    ? left == right
                           : r.how == relation_step::compare::at_most ? left <= right
                                                                      : left >= right;
        if (!holds) {
            const char* relation = r.how == relation_step::compare::equals    ? "equal to"
                                   : r.how == relation_step::compare::at_most ? "at most"
                                                                              : "at least";
            fail("expected {} ({}) {} {} ({})", decimal(left), fmt::join(left_shown, " + "), relation, decimal(right),
                 fmt::join(right_shown, " + "));
        }
    }
    if (!r.same_text.empty()) {
        std::optional<std::pair<std::string, read_result>> first;
        for (const auto& f : r.same_text) {
            const auto file = path(f);
            const auto now = read_file(file);
            if (now.error != 0) fail("reading {} failed with {}", f.expand(values), common::errno_name(now.error));
            if (!first) {
                first.emplace(f.expand(values), now);
            } else if (now.text != first->second.text) {
                fail("{} reads {}, {} reads {}", first->first, quote_text(first->second.text), f.expand(values),
                     quote_text(now.text));
            }
        }
    }
    if (r.symmetric) {
        const auto name = r.symmetric->expand(values);
        std::map<std::uint32_t, std::set<std::uint32_t>> links;
        for (std::uint32_t d = 0;; ++d) {
            const auto file = fmt::format("{}/neuron{}/{}", session.root(), d, name);
            if (d > 0 && stat_path(fmt::format("{}/neuron{}", session.root(), d)).error != 0) break;
            const auto now = read_file(file);
            if (now.error != 0) fail("reading neuron{}/{} failed with {}", d, name, common::errno_name(now.error));
            const auto listed = listed_devices(now.text);
            if (!listed) fail("neuron{}/{} reads {}, not a list of device numbers", d, name, quote_text(now.text));
            links[d] = *listed;
        }
        for (const auto& [device, peers] : links) {
            for (const auto peer : peers) {
                if (peer == device) fail("neuron{}/{} lists the device itself", device, name);
                const auto it = links.find(peer);
                if (it == links.end()) fail("neuron{}/{} lists {}, which does not exist", device, name, peer);
                if (!it->second.contains(device)) {
                    fail("neuron{}/{} lists {}, but neuron{}/{} does not list {}", device, name, peer, peer, name,
                         device);
                }
            }
        }
    }
}

} // namespace neuron::conformance
