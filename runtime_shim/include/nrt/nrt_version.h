/*
 * neuron-emu runtime shim: the runtime version (reference/nrt-api.md §3.2).
 * Like the runtime's own header it includes nothing: include it after nrt.h.
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

#define NRT_VERSION_DETAIL_LEN 128
#define NRT_VERSION_GIT_HASH_LEN 64

typedef struct nrt_version {
    uint64_t rt_major;
    uint64_t rt_minor;
    uint64_t rt_patch;
    uint64_t rt_maintenance;
    char rt_detail[NRT_VERSION_DETAIL_LEN];
    char git_hash[NRT_VERSION_GIT_HASH_LEN];
} nrt_version_t;

/* Copies min(size, sizeof(nrt_version_t)) bytes of the version into ver. */
NRT_STATUS nrt_get_version(nrt_version_t* ver, size_t size);

#ifdef __cplusplus
}
#endif
