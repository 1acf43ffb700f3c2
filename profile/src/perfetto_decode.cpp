#include "neuron/profile/perfetto_lint.h"

#include "perfetto_sequence.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace neuron::profile::perfetto {
namespace {

using namespace detail;

class decoder final : public visitor {
public:
    decoded_trace trace;

    void track(const track_view& t) override {
        trace.tracks.push_back({t.id, t.parent, std::string(t.name), t.counter, t.pid, std::string(t.process_name)});
    }

    void event(const event_view& v) override {
        decoded_event e;
        e.ts = v.ts;
        e.type = static_cast<int>(std::min<std::uint64_t>(v.type, std::numeric_limits<int>::max()));
        e.track = v.track;
        e.name = v.name;
        e.args.reserve(v.args.size());
        for (const auto& a : v.args) e.args.emplace_back(std::string(a.name), a.value());
        e.flows.assign(v.flows.begin(), v.flows.end());
        e.terminating_flows.assign(v.terminating.begin(), v.terminating.end());
        e.counter_value = v.counter_value.value_or(0);
        for (std::size_t i = 0; i < v.extra_tracks.size(); ++i)
            e.extra_counters.emplace_back(v.extra_tracks[i],
                                          static_cast<double>(static_cast<std::int64_t>(v.extra_values[i])));
        trace.events.push_back(std::move(e));
    }

    void problem(std::size_t packet, std::size_t byte, bool fatal, std::string message) override {
        if (fatal) throw std::runtime_error(fmt::format("byte {}: packet {}: {}", byte, packet, message));
    }
};

} // namespace

decoded_trace decode(std::string_view bytes) {
    decoder d;
    read_sequence(bytes, d);
    return std::move(d.trace);
}

} // namespace neuron::profile::perfetto
