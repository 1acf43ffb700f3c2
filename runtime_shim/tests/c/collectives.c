/*
 * Collectives between processes of one emulated instance, as rank RANK of
 * COUNT workers (each process owns one NeuronCore, given by the harness in
 * NEURON_RT_VISIBLE_CORES): a barrier, an all-gather of host buffers,
 * all-reduce, all-gather and reduce-scatter of tensors through nrta_cc_*,
 * and a tensor sent from rank 0's core to rank 1's with nrt_async_sendrecv
 * (PEER_LNC is the other rank's core as the host numbers it).
 *
 * usage: collectives RANK COUNT PEER_LNC
 *        collectives alone COUNT      a barrier nobody else joins: says "joining", then its status
 *        collectives noroot RANK COUNT
 *            the global communicator, a barrier, an all-gather and nrta_cc_prepare
 *            as rank RANK of COUNT: prints their statuses (for a process without
 *            NEURON_RT_ROOT_COMM_ID, which every one of them must refuse)
 *
 * Says "FAIL ..." for each broken expectation and "checks N failed F" at the
 * end; exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "checks.h"

#include <nrt/nrt_async.h>
#include <nrt/nrt_async_sendrecv.h>
#include <nrt/nrt_experimental.h>
#include <unistd.h>

enum { elements = 4, max_ranks = 8 };

static nrt_tensor_t* tensor(size_t size, const float* values) {
    nrt_tensor_t* t = NULL;
    CHECK_OK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, size, "t", &t));
    if (values != NULL) CHECK_OK(nrt_tensor_write(t, values, 0, size));
    return t;
}

static void wait_for(nrta_seq_t seq) {
    bool done = false;
    while (nrta_is_completed(seq, &done) == NRT_SUCCESS && !done) usleep(1000);
}

/* One collective of nrta_cc_*: rank r contributes `in` (elements floats each). */
static void cc(uint32_t rank, uint32_t count, nrt_cc_op_type_t op, const float* in, size_t in_elements, float* out,
               size_t out_elements) {
    uint32_t group[max_ranks];
    for (uint32_t i = 0; i < count; ++i) group[i] = i;
    nrt_cc_comm_t comm = {group, rank, count, rank, count, 0};
    nrt_tensor_t* input = tensor(in_elements * sizeof(float), in);
    nrt_tensor_t* output = tensor(out_elements * sizeof(float), NULL);
    nrt_tensor_list_t inputs = {&input, 1}, outputs = {&output, 1};
    nrt_cc_context_t* ctx = NULL;
    nrta_error_tracker_t* tracker = NULL;
    nrta_seq_t seq = 0;
    CHECK_OK(nrta_error_tracker_create(0, &tracker));
    CHECK_OK(nrta_cc_prepare(&comm, &inputs, &outputs, NRT_DTYPE_FLOAT32, NRT_OP_ADD, op, &ctx));
    CHECK_OK(nrta_cc_schedule(&ctx, 0, tracker, &seq));
    CHECK(ctx == NULL, "the context stayed with the caller");
    wait_for(seq);
    const nrta_error_t* errors = NULL;
    size_t error_count = 0;
    CHECK_OK(nrta_error_tracker_get_list(tracker, &errors, &error_count));
    CHECK(error_count == 0, "collective %d failed: %llu", (int)op,
          error_count ? (unsigned long long)errors[0].error_code : 0ull);
    CHECK_OK(nrt_tensor_read(output, out, 0, out_elements * sizeof(float)));
    nrta_error_tracker_destroy(tracker);
    nrt_tensor_free(&input);
    nrt_tensor_free(&output);
}

static void send_receive(uint32_t rank, int peer_lnc) {
    const int lnc = atoi(getenv("NEURON_RT_VISIBLE_CORES"));
    const float sent[elements] = {1.5f, 2.5f, 3.5f, 4.5f};
    nrt_tensor_t* t = tensor(sizeof(sent), rank == 0 ? sent : NULL);
    nrt_async_sendrecv_comm_t* comm = NULL;
    nrt_async_sendrecv_request_t* request = NULL;
    bool done = false;
    size_t moved = 0;
    CHECK_OK(nrt_async_sendrecv_init(lnc));
    if (rank == 0) {
        CHECK_OK(nrt_async_sendrecv_connect("127.0.0.1", peer_lnc, lnc, &comm));
    } else {
        CHECK_OK(nrt_async_sendrecv_accept("127.0.0.1", peer_lnc, lnc, &comm));
    }
    while (nrt_async_sendrecv_test_comm(comm, &done) == NRT_SUCCESS && !done) usleep(1000);
    CHECK(done, "never connected");
    if (rank == 0) {
        CHECK_OK(nrt_async_sendrecv_send_tensor(t, 0, sizeof(sent), comm, &request));
        CHECK_IS(nrt_async_sendrecv_recv_tensor(t, 0, sizeof(sent), comm, &request), NRT_FAILURE);
    } else {
        CHECK_OK(nrt_async_sendrecv_recv_tensor(t, 0, sizeof(sent), comm, &request));
    }
    CHECK_IS(nrt_async_sendrecv_close(lnc), NRT_FAILURE); /* a transfer is in flight */
    done = false;
    while (nrt_async_sendrecv_test_request(request, &done, &moved) == NRT_SUCCESS && !done) usleep(1000);
    CHECK(done && moved == sizeof(sent), "moved %zu bytes", moved);
    CHECK_IS(nrt_async_sendrecv_test_request(request, &done, &moved), NRT_INVALID_HANDLE);
    CHECK_OK(nrt_async_sendrecv_flush(lnc));
    /* Two whole pieces: the receiver learns where the bytes end. */
    const size_t two_pieces = 256 * 1024;
    nrt_tensor_t* large = tensor(two_pieces, NULL);
    unsigned char* pattern = malloc(two_pieces);
    for (size_t i = 0; pattern != NULL && i < two_pieces; ++i) pattern[i] = (unsigned char)(i * 13 + 5);
    if (rank == 0 && pattern != NULL) CHECK_OK(nrt_tensor_write(large, pattern, 0, two_pieces));
    done = false;
    moved = 0;
    if (rank == 0) {
        CHECK_OK(nrt_async_sendrecv_send_tensor(large, 0, two_pieces, comm, &request));
    } else {
        CHECK_OK(nrt_async_sendrecv_recv_tensor(large, 0, two_pieces, comm, &request));
    }
    while (nrt_async_sendrecv_test_request(request, &done, &moved) == NRT_SUCCESS && !done) usleep(1000);
    CHECK(done && moved == two_pieces, "moved %zu of %zu bytes", moved, two_pieces);
    if (rank == 1 && pattern != NULL) {
        unsigned char* got = malloc(two_pieces);
        if (got != NULL) {
            CHECK_OK(nrt_tensor_read(large, got, 0, two_pieces));
            CHECK(memcmp(got, pattern, two_pieces) == 0, "the large transfer arrived altered");
        }
        free(got);
    }
    free(pattern);
    nrt_tensor_free(&large);
    if (rank == 1) {
        float got[elements] = {0};
        CHECK_OK(nrt_tensor_read(t, got, 0, sizeof(got)));
        CHECK(memcmp(got, sent, sizeof(got)) == 0, "received %g %g %g %g", (double)got[0], (double)got[1],
              (double)got[2], (double)got[3]);
    }
    CHECK_OK(nrt_async_sendrecv_close(lnc));
    nrt_tensor_free(&t);
}

int main(int argc, char** argv) {
    if (argc == 3 && strcmp(argv[1], "alone") == 0) {
        if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) return 2;
        SAY("joining"); /* nrt_init is done: the next wait for an answer is the barrier's */
        SAY("barrier %d", (int)nrt_barrier(0, 0, (uint32_t)atoi(argv[2])));
        nrt_close();
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "noroot") == 0) {
        const uint32_t rank = (uint32_t)atoi(argv[2]), count = (uint32_t)atoi(argv[3]);
        if (count == 0 || count > max_ranks || rank >= count) return 2;
        if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) return 2;
        uint32_t mine = rank, all[max_ranks] = {0};
        uint32_t group[max_ranks];
        for (uint32_t i = 0; i < count; ++i) group[i] = i;
        nrt_cc_comm_t comm = {group, rank, count, rank, count, 0};
        nrt_tensor_t* input = tensor(sizeof(float), NULL);
        nrt_tensor_t* output = tensor(sizeof(float) * count, NULL);
        nrt_tensor_list_t inputs = {&input, 1}, outputs = {&output, 1};
        nrt_cc_context_t* ctx = NULL;
        const int built = (int)nrt_build_global_comm(0, rank, count);
        const int barrier = (int)nrt_barrier(0, rank, count);
        const int gathered = (int)nrt_all_gather(0, rank, count, sizeof(mine), &mine, all);
        const int prepared =
            (int)nrta_cc_prepare(&comm, &inputs, &outputs, NRT_DTYPE_FLOAT32, NRT_OP_ADD, NRT_CC_ALLGATHER, &ctx);
        SAY("noroot build %d barrier %d all_gather %d prepare %d", built, barrier, gathered, prepared);
        nrt_tensor_free(&input);
        nrt_tensor_free(&output);
        nrt_close();
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: collectives RANK COUNT PEER_LNC | collectives alone COUNT | collectives noroot RANK "
                        "COUNT\n");
        return 2;
    }
    const uint32_t rank = (uint32_t)atoi(argv[1]);
    const uint32_t count = (uint32_t)atoi(argv[2]);
    if (count == 0 || count > max_ranks || rank >= count) return 2;
    CHECK_OK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
    CHECK_OK(nrt_build_global_comm(0, rank, count));
    CHECK_OK(nrt_barrier(0, rank, count));

    /* Each rank's part names its job (the port of NEURON_RT_ROOT_COMM_ID): a job
       never gathers another's. */
    const char* root = getenv("NEURON_RT_ROOT_COMM_ID");
    const uint32_t job = root != NULL && strchr(root, ':') != NULL ? (uint32_t)atoi(strchr(root, ':') + 1) : 0;
    uint32_t mine[2] = {rank, job}, all[2 * max_ranks];
    CHECK_OK(nrt_all_gather(0, rank, count, sizeof(mine), mine, all));
    for (uint32_t r = 0; r < count; ++r) CHECK(all[2 * r] == r && all[2 * r + 1] == job, "rank %u's part is wrong", r);

    /* More than one message carries: the emulator gets it in pieces. */
    const size_t big = 300 * 1024 + 3;
    unsigned char *big_in = malloc(big), *big_out = malloc(big * count);
    for (size_t i = 0; big_in != NULL && i < big; ++i) big_in[i] = (unsigned char)(rank * 31 + i * 7);
    if (big_in != NULL && big_out != NULL) {
        CHECK_OK(nrt_all_gather(0, rank, count, (uint32_t)big, big_in, big_out));
        for (uint32_t r = 0; r < count; ++r) {
            CHECK(big_out[r * big] == (unsigned char)(r * 31) &&
                      big_out[r * big + big - 1] == (unsigned char)(r * 31 + (big - 1) * 7),
                  "rank %u's part of the large all-gather is wrong", r);
        }
    }
    free(big_in);
    free(big_out);

    float in[elements], out[elements * max_ranks];
    for (int i = 0; i < elements; ++i) in[i] = (float)(rank + 1) * (float)(i + 1);
    const float sum_of_ranks = (float)(count * (count + 1) / 2);
    cc(rank, count, NRT_CC_ALLREDUCE, in, elements, out, elements);
    for (int i = 0; i < elements; ++i)
        CHECK(out[i] == sum_of_ranks * (float)(i + 1), "all-reduce[%d] = %g", i, (double)out[i]);
    cc(rank, count, NRT_CC_ALLGATHER, in, elements, out, elements * count);
    for (uint32_t r = 0; r < count; ++r) CHECK(out[r * elements] == (float)(r + 1), "all-gather from rank %u", r);
    cc(rank, count, NRT_CC_REDUCESCATTER, in, elements, out, elements / count);
    CHECK(out[0] == sum_of_ranks * (float)(rank * (elements / count) + 1), "reduce-scatter[0] = %g", (double)out[0]);

    if (count == 2) send_receive(rank, atoi(argv[3]));
    CHECK_IS(nrt_barrier(0, count, count), NRT_INVALID);
    CHECK_OK(nrt_barrier(0, rank, count));
    nrt_close();
    return finish_checks();
}
