/*
 * neuron-emu runtime shim: point-to-point tensor transfers between logical
 * NeuronCores (reference/nrt-api-surface.md §8). Here `lnc` is the host's
 * logical core index, not the process's. Between the processes of one
 * emulated instance the peer address is the instance's own (any address
 * of this host; "127.0.0.1" works).
 */
#pragma once

#include "nrt/nrt.h"
#include "nrt/nrt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nrt_async_sendrecv_comm nrt_async_sendrecv_comm_t;
typedef struct nrt_async_sendrecv_request nrt_async_sendrecv_request_t;

NRT_STATUS nrt_async_sendrecv_get_max_num_communicators_per_lnc(int* num);
NRT_STATUS nrt_async_sendrecv_get_max_num_pending_request(int* num);

/* Between nrt_init and nrt_close; every init is closed before nrt_close. */
NRT_STATUS nrt_async_sendrecv_init(int lnc);
NRT_STATUS nrt_async_sendrecv_close(int lnc);

/* A communicator is usable once test_comm reports it connected. */
NRT_STATUS nrt_async_sendrecv_connect(const char* peer_ip, int peer_lnc, int lnc,
                                      nrt_async_sendrecv_comm_t** send_comm);
NRT_STATUS nrt_async_sendrecv_accept(const char* peer_ip, int peer_lnc, int lnc, nrt_async_sendrecv_comm_t** recv_comm);
NRT_STATUS nrt_async_sendrecv_test_comm(nrt_async_sendrecv_comm_t* comm, bool* done);

NRT_STATUS nrt_async_sendrecv_send_tensor(nrt_tensor_t* tensor, size_t offset, size_t length,
                                          nrt_async_sendrecv_comm_t* send_comm, nrt_async_sendrecv_request_t** request);
NRT_STATUS nrt_async_sendrecv_recv_tensor(nrt_tensor_t* tensor, size_t offset, size_t length,
                                          nrt_async_sendrecv_comm_t* recv_comm, nrt_async_sendrecv_request_t** request);
/* Once it reported done, the request is gone: never test it again. */
NRT_STATUS nrt_async_sendrecv_test_request(nrt_async_sendrecv_request_t* request, bool* done, size_t* size);
/* Receives tested complete before this call are in memory when it returns. */
NRT_STATUS nrt_async_sendrecv_flush(int lnc);

#ifdef __cplusplus
}
#endif
