#pragma once

#include "neuron/control/debug_stream_hub.h"
#include "neuron/control/runtime_service.h"
#include "neuron/model/runtime/api.h"
#include "neuron/protocol/messages.h"

#include <cstdint>
#include <string>
#include <vector>

namespace neuron::control {

// Serves `neuron-emu ctl` and test harnesses: status, fault injection,
// resets, device prints, and stepped time. I/O thread only.
class control_service {
public:
    control_service(model::api& model, debug_stream_hub& hub, const runtime_service& runtime,
                    std::string driver_release);

    // `administrator`: the client is root or the emulator's own user. Others
    // (a socket opened to every user with --control-mode) may read the
    // status and the clock, and change nothing.
    std::vector<std::uint8_t> handle(const protocol::frame_header& header, const std::uint8_t* body, std::size_t size,
                                     bool administrator);

    // The status report: instance, time, devices (reset state, ECC, cores and
    // their owners and non-zero counters), runtime sessions, debug streams.
    std::string status_json();

private:
    std::vector<std::uint8_t> emit_debug(std::uint32_t request_id, const protocol::emit_debug& request);

    model::api& m_model;
    debug_stream_hub& m_hub;
    const runtime_service& m_runtime;
    std::string m_driver_release;
};

} // namespace neuron::control
