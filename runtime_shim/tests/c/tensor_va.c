/*
 * nrt_tensor_get_va: distinct, stable, non-NULL addresses that cover each
 * tensor's bytes (what nrt_tensor_write puts there is what the address shows,
 * and the other way round); slices point inside their source and share its
 * bytes, even after the source is freed; a tensor with an attached buffer
 * returns the caller's buffer and writes into it.
 *
 * usage: tensor_va       (needs a runtime with logical core 0)
 *
 * Says "FAIL ..." for each broken expectation and "checks N failed F" at the
 * end; exit 1 when F > 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "checks.h"

enum { tensor_count = 4, tensor_size = 64 };

static int overlap(const unsigned char* a, size_t a_size, const unsigned char* b, size_t b_size) {
    return a < b + b_size && b < a + a_size;
}

/* What nrt_tensor_write puts in shows at the address, and the other way round. */
static void check_covers(nrt_tensor_t* t, size_t size, unsigned char seed) {
    unsigned char* va = (unsigned char*)nrt_tensor_get_va(t);
    unsigned char pattern[256];
    unsigned char back[256];
    if (va == NULL || size > sizeof pattern) return;
    for (size_t i = 0; i < size; ++i) pattern[i] = (unsigned char)(seed + 7 * i);
    CHECK_OK(nrt_tensor_write(t, pattern, 0, size));
    CHECK(memcmp(va, pattern, size) == 0, "the address does not show what nrt_tensor_write wrote");
    for (size_t i = 0; i < size; ++i) va[i] = (unsigned char)(seed ^ i);
    CHECK_OK(nrt_tensor_read(t, back, 0, size));
    CHECK(memcmp(va, back, size) == 0, "nrt_tensor_read does not return what was stored at the address");
    CHECK(back[size - 1] == (unsigned char)(seed ^ (size - 1)), "the last byte at the address is not the tensor's");
}

int main(void) {
    if (nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "") != NRT_SUCCESS) {
        SAY("FAIL nrt_init");
        return 2;
    }
    const nrt_tensor_placement_t placements[tensor_count] = {NRT_TENSOR_PLACEMENT_DEVICE, NRT_TENSOR_PLACEMENT_DEVICE,
                                                             NRT_TENSOR_PLACEMENT_HOST, NRT_TENSOR_PLACEMENT_VIRTUAL};
    nrt_tensor_t* tensors[tensor_count];
    unsigned char* vas[tensor_count];
    for (int i = 0; i < tensor_count; ++i) {
        tensors[i] = NULL;
        CHECK_OK(nrt_tensor_allocate(placements[i], placements[i] == NRT_TENSOR_PLACEMENT_DEVICE ? 0 : -1, tensor_size,
                                     "t", &tensors[i]));
        if (tensors[i] == NULL) return 1;
        vas[i] = (unsigned char*)nrt_tensor_get_va(tensors[i]);
        CHECK(vas[i] != NULL, "tensor %d (placement %d) has no address", i, (int)placements[i]);
        CHECK(nrt_tensor_get_size(tensors[i]) == tensor_size, "tensor %d has %zu bytes", i,
              nrt_tensor_get_size(tensors[i]));
    }
    for (int i = 0; i < tensor_count; ++i) {
        for (int j = i + 1; j < tensor_count; ++j) {
            CHECK(!overlap(vas[i], tensor_size, vas[j], tensor_size), "tensors %d and %d overlap (%p, %p)", i, j,
                  (void*)vas[i], (void*)vas[j]);
        }
    }
    for (int i = 0; i < tensor_count; ++i) check_covers(tensors[i], tensor_size, (unsigned char)(16 * i + 1));
    for (int i = 0; i < tensor_count; ++i) {
        CHECK(nrt_tensor_get_va(tensors[i]) == vas[i], "the address of tensor %d moved", i);
    }

    /* Slices: inside the source, sharing its bytes, outliving it. */
    nrt_tensor_t* slice = NULL;
    nrt_tensor_t* inner = NULL;
    CHECK_OK(nrt_tensor_allocate_slice(tensors[0], 16, 32, "slice", &slice));
    if (slice == NULL) return 1;
    CHECK(nrt_tensor_get_va(slice) == vas[0] + 16, "the slice at 16 is at %p, its source at %p",
          nrt_tensor_get_va(slice), (void*)vas[0]);
    CHECK(nrt_tensor_get_size(slice) == 32, "the slice has %zu bytes", nrt_tensor_get_size(slice));
    CHECK_OK(nrt_tensor_allocate_slice(slice, 4, 8, "inner", &inner));
    if (inner == NULL) return 1;
    CHECK(nrt_tensor_get_va(inner) == vas[0] + 20, "a slice of a slice at 4 is at %p, the source at %p",
          nrt_tensor_get_va(inner), (void*)vas[0]);
    const unsigned char word[4] = {0xde, 0xad, 0xbe, 0xef};
    CHECK_OK(nrt_tensor_write(inner, word, 0, sizeof word));
    unsigned char seen[4];
    CHECK_OK(nrt_tensor_read(tensors[0], seen, 20, sizeof seen));
    CHECK(memcmp(seen, word, sizeof word) == 0, "a write through the slice does not show in its source");
    CHECK(nrt_tensor_write(slice, word, 30, sizeof word) == NRT_INVALID, "a slice reaches past its own end");
    nrt_tensor_free(&tensors[0]);
    CHECK_OK(nrt_tensor_read(inner, seen, 0, sizeof seen));
    CHECK(memcmp(seen, word, sizeof word) == 0, "the slice lost its bytes when its source was freed");
    check_covers(inner, 8, 0x40);
    nrt_tensor_free(&inner);
    nrt_tensor_free(&slice);

    /* The caller's buffer. */
    unsigned char buffer[128];
    memset(buffer, 0, sizeof buffer);
    nrt_tensor_t* attached = NULL;
    CHECK_OK(nrt_tensor_allocate_empty("attached", &attached));
    if (attached == NULL) return 1;
    CHECK(nrt_tensor_get_va(attached) == NULL, "a tensor without storage has address %p", nrt_tensor_get_va(attached));
    CHECK_OK(nrt_tensor_attach_buffer(attached, buffer, sizeof buffer));
    CHECK(nrt_tensor_get_va(attached) == (void*)buffer, "the attached tensor is at %p, the buffer at %p",
          nrt_tensor_get_va(attached), (void*)buffer);
    CHECK(nrt_tensor_get_size(attached) == sizeof buffer, "the attached tensor has %zu bytes",
          nrt_tensor_get_size(attached));
    CHECK_OK(nrt_tensor_write(attached, word, 100, sizeof word));
    CHECK(memcmp(buffer + 100, word, sizeof word) == 0, "nrt_tensor_write did not write into the caller's buffer");
    nrt_tensor_t* view = NULL;
    CHECK_OK(nrt_tensor_allocate_slice(attached, 64, 64, "view", &view));
    CHECK(nrt_tensor_get_va(view) == (void*)(buffer + 64), "a slice of the attached tensor is at %p, expected %p",
          nrt_tensor_get_va(view), (void*)(buffer + 64));
    nrt_tensor_free(&view);
    nrt_tensor_free(&attached);
    buffer[0] = 1; /* still the caller's: freeing the tensor must not free it */

    for (int i = 1; i < tensor_count; ++i) nrt_tensor_free(&tensors[i]);
    nrt_close();
    return finish_checks();
}
