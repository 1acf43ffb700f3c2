#pragma once

// What every exported function of the shim shares: C linkage, default
// visibility (everything else is hidden), and a guard that turns any C++
// exception into a logged NRT_FAILURE so that none crosses into C.

#include "nrt/nrt.h"

#include "control_client.h"
#include "log.h"

#include <cstring>
#include <exception>
#include <string>
#include <type_traits>

#define NRT_API extern "C" __attribute__((visibility("default")))

namespace neuron::shim {

template <typename F>
NRT_STATUS guarded(const char* function, F&& body) {
    try {
        return body();
    } catch (const request_failed& e) {
        log_error(function, e.what());
        return static_cast<NRT_STATUS>(e.status());
    } catch (const protocol::connection_error& e) {
        log_error(function, std::string("lost the emulator: ") + e.what());
        return NRT_FAILURE;
    } catch (const std::bad_alloc&) {
        log_error(function, "out of host memory");
        return NRT_RESOURCE;
    } catch (const std::exception& e) {
        log_error(function, e.what());
        return NRT_FAILURE;
    }
}

// An enum argument's value as passed. A C caller may pass any int; loading
// an out-of-range value as a C++ enum is undefined, so read its bytes.
template <typename E>
long long raw_value(const E& value) { // by reference: passing it by value would load it
    std::underlying_type_t<E> raw{};
    std::memcpy(&raw, &value, sizeof(raw));
    return static_cast<long long>(raw);
}

inline NRT_STATUS invalid(const char* function, const std::string& why) {
    log_error(function, why);
    return NRT_INVALID;
}

} // namespace neuron::shim
