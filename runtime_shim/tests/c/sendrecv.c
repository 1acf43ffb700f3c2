/*
 * One side of a transfer between two processes' NeuronCores
 * (nrt_async_sendrecv_*); the harness gives each process one core in
 * NEURON_RT_VISIBLE_CORES.
 *
 * usage: sendrecv send PEER_LNC BYTES      sends BYTES bytes (byte i is i * 7 + 1)
 *        sendrecv receive PEER_LNC BYTES   receives into a tensor of exactly BYTES
 *        sendrecv free PEER_LNC BYTES      posts a receive, then frees its tensor
 *        sendrecv hold PEER_LNC            connects, then waits for a line before closing
 *
 * Says "connected", then "sent STATUS SIZE" / "received STATUS SIZE MATCHES"
 * (MATCHES: 1 when the bytes are the sender's) / for `free`: "freed DONE"
 * (whether the receive had ended when nrt_tensor_free returned), then
 * "received STATUS SIZE". Statuses by name.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common.h"

#include <nrt/nrt_async_sendrecv.h>
#include <nrt/nrt_experimental.h>
#include <unistd.h>

static NRT_STATUS wait_request(nrt_async_sendrecv_request_t* request, size_t* size) {
    bool done = false;
    NRT_STATUS s = NRT_SUCCESS;
    while ((s = nrt_async_sendrecv_test_request(request, &done, size)) == NRT_SUCCESS && !done) usleep(1000);
    return s;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: sendrecv send|receive|free PEER_LNC BYTES | sendrecv hold PEER_LNC\n");
        return 2;
    }
    const char* mode = argv[1];
    const int sending = strcmp(mode, "send") == 0 || strcmp(mode, "hold") == 0;
    const int peer = atoi(argv[2]);
    const size_t bytes = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 0;
    const char* visible = getenv("NEURON_RT_VISIBLE_CORES");
    const int lnc = visible != NULL ? atoi(visible) : 0;
    if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS || nrt_async_sendrecv_init(lnc) != NRT_SUCCESS)
        return 2;
    nrt_async_sendrecv_comm_t* comm = NULL;
    const NRT_STATUS opened = sending ? nrt_async_sendrecv_connect("127.0.0.1", peer, lnc, &comm)
                                      : nrt_async_sendrecv_accept("127.0.0.1", peer, lnc, &comm);
    bool connected = false;
    while (opened == NRT_SUCCESS && nrt_async_sendrecv_test_comm(comm, &connected) == NRT_SUCCESS && !connected)
        usleep(1000);
    if (!connected) return 2;
    SAY("connected");
    if (strcmp(mode, "hold") == 0) {
        char line[64];
        (void)next_line(line, sizeof(line));
        nrt_async_sendrecv_close(lnc);
        nrt_close();
        return 0;
    }
    nrt_tensor_t* t = NULL;
    if (nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, bytes > 0 ? bytes : 1, "t", &t) != NRT_SUCCESS) return 2;
    unsigned char* pattern = malloc(bytes > 0 ? bytes : 1);
    if (pattern == NULL) return 2;
    for (size_t i = 0; i < bytes; ++i) pattern[i] = (unsigned char)(i * 7 + 1);
    if (sending) nrt_tensor_write(t, pattern, 0, bytes);
    nrt_async_sendrecv_request_t* request = NULL;
    NRT_STATUS s = sending ? nrt_async_sendrecv_send_tensor(t, 0, bytes, comm, &request)
                           : nrt_async_sendrecv_recv_tensor(t, 0, bytes, comm, &request);
    size_t size = 0;
    if (strcmp(mode, "free") == 0 && s == NRT_SUCCESS) {
        nrt_tensor_free(&t); /* the receive is pending: this waits until it ended */
        bool done = false;
        s = nrt_async_sendrecv_test_request(request, &done, &size);
        SAY("freed %d", done ? 1 : 0);
        if (s == NRT_SUCCESS && !done) s = wait_request(request, &size);
        SAY("received %s %zu", nrt_get_status_as_str(s), size);
    } else {
        if (s == NRT_SUCCESS) s = wait_request(request, &size);
        if (sending) {
            SAY("sent %s %zu", nrt_get_status_as_str(s), size);
        } else {
            unsigned char* got = malloc(bytes > 0 ? bytes : 1);
            int matches =
                got != NULL && nrt_tensor_read(t, got, 0, bytes) == NRT_SUCCESS && memcmp(got, pattern, bytes) == 0;
            free(got);
            SAY("received %s %zu %d", nrt_get_status_as_str(s), size, matches);
        }
        nrt_tensor_free(&t);
    }
    free(pattern);
    nrt_async_sendrecv_close(lnc);
    nrt_close();
    return 0;
}
