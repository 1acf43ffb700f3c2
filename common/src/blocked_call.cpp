#include "neuron/common/blocked_call.h"

#include <fmt/format.h>

#include <fstream>
#include <string>

namespace neuron::common {
namespace {

bool waits_for_an_answer(long number) {
#if defined(__x86_64__)
    return number == 7 || number == 271 || number == 47; // poll, ppoll, recvmsg
#elif defined(__aarch64__)
    return number == 73 || number == 212; // ppoll, recvmsg
#else
    return false;
#endif
}

} // namespace

blocked_call main_thread_call(pid_t pid) {
    // The first field of /proc/PID/syscall is the number of the call the
    // main thread is blocked in ("running" while it runs).
    std::ifstream in(fmt::format("/proc/{}/syscall", pid));
    std::string first;
    if (!(in >> first)) return blocked_call::gone;
    if (first == "running") return blocked_call::something_else;
    try {
        return waits_for_an_answer(std::stol(first)) ? blocked_call::waiting_for_an_answer
                                                     : blocked_call::something_else;
    } catch (const std::exception&) {
        return blocked_call::something_else;
    }
}

} // namespace neuron::common
