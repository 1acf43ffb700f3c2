#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::model {

// A device print: what a core reports through the runtime's debug stream
// (nrt-api.md §2). The runtime layer turns it into the stream's payload.
struct debug_event {
    std::uint32_t device = 0;
    std::uint32_t core = 0; // physical
    std::string prefix;
    std::string dtype; // lowercase NRT dtype string: "float32", "int8" ...
    std::vector<std::uint64_t> shape;
    std::uint32_t pipe = 0; // 0 stdout, else stderr
    std::vector<std::uint8_t> data;
};

// Bytes per element of a debug dtype string; 0 for an unknown one.
std::size_t debug_dtype_size(std::string_view dtype);

// What became of an emitted event.
enum class debug_delivery : std::uint8_t {
    accepted,  // into the connected stream's buffer
    dropped,   // the stream's buffer was full
    discarded, // no client connected to the stream (or nobody owns the core)
};

// Where device prints go. Kernel thread only; the sink must not block.
class debug_event_source {
public:
    using sink = std::function<debug_delivery(debug_event&&)>;
    void connect(sink s) { m_sink = std::move(s); }
    debug_delivery emit(debug_event&& event) { return m_sink ? m_sink(std::move(event)) : debug_delivery::discarded; }

private:
    sink m_sink;
};

} // namespace neuron::model
