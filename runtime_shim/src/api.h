#pragma once

// What every exported function of the shim shares: C linkage, default
// visibility (everything else is hidden), and a guard that turns any C++
// exception into a logged NRT_FAILURE so that none crosses into C.

#include "nrt/nrt.h"

#include "control_client.h"
#include "log.h"

#include <exception>
#include <string>

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

inline NRT_STATUS invalid(const char* function, const std::string& why) {
    log_error(function, why);
    return NRT_INVALID;
}

} // namespace neuron::shim
