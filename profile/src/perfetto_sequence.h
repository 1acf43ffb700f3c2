#pragma once

// Reading a .pftrace, sequence level: interning, defaults and clocks
// resolved, what is left is a stream of tracks and events for a visitor.

#include "perfetto_packets.h"

#include "neuron/profile/perfetto_writer.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace neuron::profile::perfetto::detail {

struct arg_view {
    std::string_view name;
    value_kind kind = value_kind::none;
    std::uint64_t bits = 0;
    std::string_view text;

    std::string value() const {
        switch (kind) {
        case value_kind::boolean: return bits != 0 ? "true" : "false";
        case value_kind::uint: return fmt::format("{}", bits);
        case value_kind::sint: return fmt::format("{}", static_cast<std::int64_t>(bits));
        case value_kind::real: return fmt::format("{}", std::bit_cast<double>(bits));
        case value_kind::pointer: return fmt::format("0x{:x}", bits);
        case value_kind::text:
        case value_kind::text_iid: return std::string(text);
        case value_kind::none: break;
        }
        return {};
    }
};

struct event_view {
    std::size_t packet = 0;
    bool timed = false; // false after a problem with its timestamp
    std::uint64_t ts = 0;
    std::uint64_t type = 0;
    uuid track = 0;
    std::string_view name;
    std::span<const arg_view> args;
    std::span<const std::uint64_t> flows, terminating;
    std::optional<double> counter_value;
    std::span<const std::uint64_t> extra_tracks, extra_values;
};

struct track_view {
    std::size_t packet = 0;
    uuid id = 0;
    uuid parent = 0;
    std::string_view name;
    bool counter = false;
    std::optional<std::int32_t> pid;
    std::string_view process_name;
};

class visitor {
public:
    virtual ~visitor() = default;
    virtual void track(const track_view& t) = 0;
    virtual void event(const event_view& e) = 0;
    // A fatal problem leaves the decoded data wrong (a name or time unknown);
    // the others only break a rule Perfetto's importer relies on.
    virtual void problem(std::size_t packet, std::size_t byte, bool fatal, std::string message) = 0;
};

// Feeds every packet of `bytes` to `v`. Throws std::runtime_error("byte N:
// ...") on malformed wire format.
void read_sequence(std::string_view bytes, visitor& v);

} // namespace neuron::profile::perfetto::detail
