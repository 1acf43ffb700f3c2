#include "output_completion.h"

#include "api.h"
#include "objects.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace neuron::shim {
namespace {

std::mutex completions_mutex;
std::condition_variable completions_changed;

} // namespace

void count_completion(nrt_tensor& output) {
    {
        std::lock_guard lock(completions_mutex);
        ++output.completions;
    }
    completions_changed.notify_all();
}

NRT_STATUS wait_for_completions(const nrt_tensor& output, std::int64_t timeout_us, std::uint64_t expected) {
    std::unique_lock lock(completions_mutex);
    const auto reached = [&] { return output.completions >= expected; };
    if (timeout_us < 0) {
        completions_changed.wait(lock, reached);
        return NRT_SUCCESS;
    }
    // (at most a year: a longer wait would overflow the clock's arithmetic)
    const auto bound = std::min<std::int64_t>(timeout_us, 365LL * 24 * 3600 * 1'000'000);
    return completions_changed.wait_for(lock, std::chrono::microseconds(bound), reached) ? NRT_SUCCESS : NRT_TIMEOUT;
}

} // namespace neuron::shim

NRT_API NRT_STATUS nrt_tensor_check_output_completion(const nrt_tensor_t* output_tensor, int64_t timeout_us,
                                                      uint64_t expected_completion_count) {
    const char* fn = "nrt_tensor_check_output_completion";
    if (output_tensor == nullptr) return neuron::shim::invalid(fn, "output_tensor is NULL");
    return neuron::shim::guarded(
        fn, [&] { return neuron::shim::wait_for_completions(*output_tensor, timeout_us, expected_completion_count); });
}

NRT_API NRT_STATUS nrt_tensor_reset_output_completion(nrt_tensor_t* output_tensor) {
    const char* fn = "nrt_tensor_reset_output_completion";
    if (output_tensor == nullptr) return neuron::shim::invalid(fn, "output_tensor is NULL");
    output_tensor->completions = 0;
    return NRT_SUCCESS;
}
