/*
 * A debug-stream consumer in the manner of AWS's nkipy one
 * (nrt-api.md §2.4): connect to every visible logical core, wait with epoll,
 * read events until NRT_QUEUE_EMPTY, free every payload.
 *
 * usage: epoll_consumer EVENTS
 *
 * Says "READY <visible cores>" once connected, then one line per event:
 *   EVENT fd_core=<core whose fd it came on> nc=<logical_nc_id> pipe=<pipe>
 *         prefix=<prefix> dtype=<dtype> shape=<d1,d2..> bytes=<tensor_data_size>
 *         data=<elements>
 * until EVENTS have arrived; then checks that every stream is empty
 * ("EMPTY <core>"), closes and exits 0. A malformed event or a stream that
 * stays silent for 20 s: "FAIL ..." and exit 1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common.h"

#include <sys/epoll.h>
#include <unistd.h>

enum { max_cores = 128, wait_ms = 20000 };

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: epoll_consumer EVENTS\n");
        return 64;
    }
    const long wanted = strtol(argv[1], NULL, 10);
    NRT_STATUS status = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
    if (status != NRT_SUCCESS) {
        SAY("FAIL nrt_init returned %s", nrt_get_status_as_str(status));
        return 2;
    }
    uint32_t cores = 0;
    status = nrt_get_visible_nc_count(&cores);
    if (status != NRT_SUCCESS || cores == 0 || cores > max_cores) {
        SAY("FAIL nrt_get_visible_nc_count returned %s, %u cores", nrt_get_status_as_str(status), (unsigned)cores);
        return 1;
    }
    const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd < 0) {
        SAY("FAIL epoll_create1");
        return 1;
    }
    int fds[max_cores];
    for (uint32_t c = 0; c < cores; ++c) {
        status = nrt_debug_client_connect((int)c, &fds[c]);
        if (status != NRT_SUCCESS) {
            SAY("FAIL nrt_debug_client_connect(%u) returned %s", (unsigned)c, nrt_get_status_as_str(status));
            return 1;
        }
        struct epoll_event e;
        memset(&e, 0, sizeof e);
        e.events = EPOLLIN;
        e.data.u32 = c;
        if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fds[c], &e) != 0) {
            SAY("FAIL epoll_ctl on the stream of core %u", (unsigned)c);
            return 1;
        }
    }
    SAY("READY %u", (unsigned)cores);

    long received = 0;
    while (received < wanted) {
        struct epoll_event ready[8];
        const int n = epoll_wait(epoll_fd, ready, 8, wait_ms);
        if (n == 0) {
            SAY("FAIL no event within %d ms (%ld of %ld arrived)", wait_ms, received, wanted);
            return 1;
        }
        for (int i = 0; i < n; ++i) {
            const int core = (int)ready[i].data.u32;
            for (;;) {
                ndebug_stream_event_header_t header;
                void* payload = NULL;
                status = nrt_debug_client_read_one_event(fds[core], &header, &payload);
                if (status == NRT_QUEUE_EMPTY) break;
                if (status != NRT_SUCCESS) {
                    SAY("FAIL nrt_debug_client_read_one_event returned %s", nrt_get_status_as_str(status));
                    return 1;
                }
                const char* problem = event_problem(&header, payload);
                if (problem != NULL) {
                    SAY("FAIL core %d: %s", core, problem);
                    free(payload);
                    return 1;
                }
                char shown[1024];
                format_event(payload, shown, sizeof shown);
                SAY("EVENT fd_core=%d %s", core, shown);
                free(payload);
                ++received;
            }
        }
    }
    for (uint32_t c = 0; c < cores; ++c) {
        ndebug_stream_event_header_t header;
        void* payload = NULL;
        status = nrt_debug_client_read_one_event(fds[c], &header, &payload);
        if (status != NRT_QUEUE_EMPTY) {
            SAY("FAIL core %u: %s after the last event, expected NRT_QUEUE_EMPTY", (unsigned)c,
                nrt_get_status_as_str(status));
            free(payload);
            return 1;
        }
        SAY("EMPTY %u", (unsigned)c);
        nrt_debug_client_connect_close(fds[c]);
    }
    close(epoll_fd);
    nrt_close();
    SAY("DONE %ld", received);
    return 0;
}
