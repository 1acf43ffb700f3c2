/*
 * neuron-emu runtime shim: NRT_STATUS, the status every libnrt call returns.
 * Values as the Neuron runtime numbers them (reference/nrt-api.md §1).
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    NRT_SUCCESS = 0,
    NRT_FAILURE = 1, /* non-specific failure */
    NRT_INVALID = 2, /* invalid model file, bad argument, tensor name/size mismatch */
    NRT_INVALID_HANDLE = 3,
    NRT_RESOURCE = 4, /* a resource could not be allocated */
    NRT_TIMEOUT = 5,
    NRT_HW_ERROR = 6,
    NRT_QUEUE_FULL = 7,
    NRT_LOAD_NOT_ENOUGH_NC = 9,
    NRT_UNSUPPORTED_NEFF_VERSION = 10,
    NRT_FAIL_HOST_MEM_ALLOC = 11, /* kept for backward compatibility */
    NRT_UNINITIALIZED = 13,       /* called before nrt_init */
    NRT_CLOSED = 14,              /* called after nrt_close */
    NRT_QUEUE_EMPTY = 15,         /* a queue (a debug stream) holds no data */
    NRT_EXEC_UNIT_UNRECOVERABLE = 101,
    NRT_EXEC_BAD_INPUT = 1002,
    NRT_EXEC_COMPLETED_WITH_NUM_ERR = 1003,
    NRT_EXEC_COMPLETED_WITH_ERR = 1004,
    NRT_EXEC_NC_BUSY = 1005,
    NRT_EXEC_OOB = 1006,
    NRT_COLL_PENDING = 1100,
    NRT_EXEC_HW_ERR_COLLECTIVES = 1200,
    NRT_EXEC_HW_ERR_HBM_UE = 1201,
    NRT_EXEC_HW_ERR_NC_UE = 1202,
    NRT_EXEC_HW_ERR_DMA_ABORT = 1203,
    NRT_EXEC_SW_NQ_OVERFLOW = 1204,
    NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE = 1205,
    NRT_NETWORK_PROXY_FAILURE = 1206
} NRT_STATUS;

/* The status's identifier ("NRT_INVALID"), or "UNKNOWN" for another value. */
const char* nrt_get_status_as_str(NRT_STATUS status);

#ifdef __cplusplus
}
#endif
