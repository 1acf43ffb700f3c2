#include "tensor_checks.h"

#include "api.h"
#include "objects.h"

namespace neuron::shim {

NRT_STATUS check_tensor_io(const char* fn, const nrt_tensor* t, const void* buf, std::size_t offset, std::size_t size) {
    if (t == nullptr) return invalid(fn, "tensor is NULL");
    if (buf == nullptr && size > 0) return invalid(fn, "buffer is NULL");
    if (!t->storage) return invalid(fn, "tensor '" + t->name + "' has no buffer (allocated empty, never attached)");
    if (offset > t->size || size > t->size - offset) {
        return invalid(fn, "offset " + std::to_string(offset) + " + size " + std::to_string(size) +
                               " past the end of tensor '" + t->name + "' (" + std::to_string(t->size) + " bytes)");
    }
    return NRT_SUCCESS;
}

} // namespace neuron::shim
