// The debug-stream client API (nrt-api.md §2).

#include "nrt/ndebug_stream.h"

#include "api.h"
#include "debug_streams.h"

using namespace neuron::shim;

NRT_API NRT_STATUS nrt_debug_client_connect(int logical_nc_idx, int* stream_fd) {
    return guarded("nrt_debug_client_connect", [&] { return debug_streams::get().connect(logical_nc_idx, stream_fd); });
}

NRT_API void nrt_debug_client_connect_close(int stream_fd) {
    guarded("nrt_debug_client_connect_close", [&] {
        debug_streams::get().close(stream_fd);
        return NRT_SUCCESS;
    });
}

NRT_API NRT_STATUS nrt_debug_client_read_one_event(int stream_fd, ndebug_stream_event_header_t* header,
                                                   void** payload) {
    return guarded("nrt_debug_client_read_one_event",
                   [&] { return debug_streams::get().read_one(stream_fd, header, payload); });
}
