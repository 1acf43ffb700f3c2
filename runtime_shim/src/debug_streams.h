#pragma once

#include "nrt/ndebug_stream.h"

#include "neuron/protocol/messages.h"

#include <map>
#include <mutex>

namespace neuron::shim {

// This process's debug-stream clients: each a SOCK_SEQPACKET connection on
// which the emulator sends one event per datagram, plus the counters page it
// shares with the emulator (accepted/consumed decide fullness and drops).
class debug_streams {
public:
    static debug_streams& get();

    NRT_STATUS connect(int logical_nc_idx, int* stream_fd);
    void close(int stream_fd);
    NRT_STATUS read_one(int stream_fd, ndebug_stream_event_header_t* header, void** payload);
    void close_all();

private:
    struct stream {
        int logical_nc = 0;
        protocol::stream_counters* counters = nullptr;
    };
    std::mutex m_mutex;
    std::map<int, stream> m_streams; // by fd
};

} // namespace neuron::shim
