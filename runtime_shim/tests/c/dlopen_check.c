/*
 * The shim as frameworks load the runtime: dlopen("libnrt.so.1") and dlsym.
 * Its exports carry the version node NRT_2.0.0 (nrt-api.md §3.8), which
 * binaries linked against the real libnrt ask for; dlvsym finds them there
 * and nowhere else. This program is not linked to the shim.
 *
 * usage: dlopen_check    (LD_LIBRARY_PATH must reach libnrt.so.1)
 *
 * Says "FAIL ..." for each broken expectation and "checks N failed F";
 * exit 1 when F > 0, 2 when the library does not load.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>

#include "checks.h"

static const char* const symbols[] = {
    "nrt_init",
    "nrt_close",
    "nrt_get_version",
    "nrt_get_instance_info",
    "nrt_get_total_nc_count",
    "nrt_get_total_vnc_count",
    "nrt_get_visible_nc_count",
    "nrt_get_visible_vnc_count",
    "nrt_get_vnc_memory_stats",
    "nrt_load",
    "nrt_load_collectives",
    "nrt_unload",
    "nrt_get_model_nc_count",
    "nrt_get_model_vnc_count",
    "nrt_get_model_tensor_info",
    "nrt_free_model_tensor_info",
    "nrt_get_model_instance_count",
    "nrt_get_model_info",
    "nrt_tensor_allocate",
    "nrt_tensor_free",
    "nrt_tensor_read",
    "nrt_tensor_write",
    "nrt_tensor_copy",
    "nrt_tensor_get_size",
    "nrt_tensor_memset",
    "nrt_tensor_allocate_empty",
    "nrt_tensor_attach_buffer",
    "nrt_tensor_allocate_slice",
    "nrt_tensor_get_va",
    "nrt_tensor_get_device_allocation_info",
    "nrt_tensor_read_batch",
    "nrt_tensor_write_batch",
    "nrt_allocate_tensor_set",
    "nrt_destroy_tensor_set",
    "nrt_add_tensor_to_tensor_set",
    "nrt_get_tensor_from_tensor_set",
    "nrt_execute",
    "nrt_execute_repeat",
    "nrt_get_status_as_str",
    "nrt_debug_client_connect",
    "nrt_debug_client_connect_close",
    "nrt_debug_client_read_one_event",
};

typedef const char* (*status_as_str_fn)(NRT_STATUS);
typedef NRT_STATUS (*init_fn)(nrt_framework_type_t, const char*, const char*);

int main(void) {
    void* library = dlopen("libnrt.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        SAY("FAIL dlopen(libnrt.so.1): %s", dlerror());
        return 2;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; ++i) {
        void* plain = dlsym(library, symbols[i]);
        void* versioned = dlvsym(library, symbols[i], "NRT_2.0.0");
        CHECK(plain != NULL, "dlsym(%s) found nothing", symbols[i]);
        CHECK(versioned != NULL, "dlvsym(%s, NRT_2.0.0) found nothing", symbols[i]);
        CHECK(plain == versioned, "%s: dlsym and dlvsym(NRT_2.0.0) disagree", symbols[i]);
        CHECK(dlvsym(library, symbols[i], "NRT_1.0.0") == NULL, "%s also has version NRT_1.0.0", symbols[i]);
    }
    /* Only the API is exported: the shim's C++ internals stay hidden. */
    CHECK(dlsym(library, "_ZN6neuron4shim7runtime3getEv") == NULL, "neuron::shim::runtime::get() is exported");

    status_as_str_fn as_str = NULL;
    *(void**)(&as_str) = dlvsym(library, "nrt_get_status_as_str", "NRT_2.0.0");
    if (as_str != NULL) {
        CHECK(strcmp(as_str(NRT_EXEC_HW_ERR_HBM_UE), "NRT_EXEC_HW_ERR_HBM_UE") == 0, "status 1201 is '%s'",
              as_str(NRT_EXEC_HW_ERR_HBM_UE));
        CHECK(strcmp(as_str(NRT_QUEUE_EMPTY), "NRT_QUEUE_EMPTY") == 0, "status 15 is '%s'", as_str(NRT_QUEUE_EMPTY));
        CHECK(strcmp(as_str(NRT_SUCCESS), "NRT_SUCCESS") == 0, "status 0 is '%s'", as_str(NRT_SUCCESS));
        CHECK(strcmp(as_str(NRT_NETWORK_PROXY_FAILURE), "NRT_NETWORK_PROXY_FAILURE") == 0, "status 1206 is '%s'",
              as_str(NRT_NETWORK_PROXY_FAILURE));
        CHECK(strcmp(as_str((NRT_STATUS)4242), "UNKNOWN") == 0, "status 4242 is '%s'", as_str((NRT_STATUS)4242));
        CHECK(strcmp(as_str((NRT_STATUS)8), "UNKNOWN") == 0, "status 8 (unused) is '%s'", as_str((NRT_STATUS)8));
        CHECK(strcmp(as_str((NRT_STATUS)-1), "UNKNOWN") == 0, "status -1 is '%s'", as_str((NRT_STATUS)-1));
    }
    /* Called through the pointer, the runtime behaves as linked: no emulator here. */
    init_fn init = NULL;
    *(void**)(&init) = dlsym(library, "nrt_init");
    if (init != NULL) {
        const NRT_STATUS s = init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
        CHECK(s == NRT_FAILURE, "nrt_init without an emulator returned %s", as_str != NULL ? as_str(s) : "?");
    }
    CHECK(dlclose(library) == 0, "dlclose: %s", dlerror());
    return finish_checks();
}
