#include "tensor_use.h"

#include "execution_units.h"
#include "objects.h"

#include <condition_variable>
#include <map>
#include <mutex>

namespace neuron::shim {
namespace {

// Never destroyed: a unit's thread may still release at exit.
struct registry {
    std::mutex mutex;
    std::condition_variable released;
    std::map<const tensor_storage*, std::uint32_t> holds;
};

registry& the_registry() {
    static auto* r = new registry;
    return *r;
}

} // namespace

tensors_in_use::tensors_in_use(std::vector<const tensor_storage*> held) : m_held(std::move(held)) {
    auto& r = the_registry();
    std::lock_guard lock(r.mutex);
    for (const auto* s : m_held) ++r.holds[s];
}

tensors_in_use::~tensors_in_use() { release(); }

tensors_in_use::tensors_in_use(tensors_in_use&& other) noexcept : m_held(std::move(other.m_held)) {
    other.m_held.clear();
}

tensors_in_use& tensors_in_use::operator=(tensors_in_use&& other) noexcept {
    if (this != &other) {
        release();
        m_held = std::move(other.m_held);
        other.m_held.clear();
    }
    return *this;
}

void tensors_in_use::release() {
    if (m_held.empty()) return;
    auto& r = the_registry();
    {
        std::lock_guard lock(r.mutex);
        for (const auto* s : m_held) {
            if (--r.holds[s] == 0) r.holds.erase(s);
        }
    }
    m_held.clear();
    r.released.notify_all();
}

void wait_until_unused(const nrt_tensor_t* tensor) {
    if (tensor == nullptr || !tensor->storage || on_unit_thread()) return;
    auto& r = the_registry();
    std::unique_lock lock(r.mutex);
    r.released.wait(lock, [&] { return !r.holds.contains(tensor->storage.get()); });
}

} // namespace neuron::shim
