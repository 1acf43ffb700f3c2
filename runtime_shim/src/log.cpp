#include "log.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

namespace neuron::shim {
namespace {

constexpr int quiet = -1;

int enabled_level() {
    static const int level = [] {
        const char* value = std::getenv("NEURON_RT_LOG_LEVEL");
        if (value == nullptr) return static_cast<int>(log_level::error);
        const std::string v = value;
        if (v == "QUIET") return quiet;
        if (v == "WARN" || v == "WARNING") return static_cast<int>(log_level::warning);
        if (v == "INFO") return static_cast<int>(log_level::info);
        if (v == "DEBUG") return static_cast<int>(log_level::debug);
        if (v == "TRACE") return static_cast<int>(log_level::trace);
        return static_cast<int>(log_level::error);
    }();
    return level;
}

const char* level_name(log_level level) {
    switch (level) {
    case log_level::error: return "ERROR";
    case log_level::warning: return "WARN";
    case log_level::info: return "INFO";
    case log_level::debug: return "DEBUG";
    case log_level::trace: return "TRACE";
    }
    return "ERROR";
}

} // namespace

void log(log_level level, std::string_view module, std::string_view function, std::string_view message) {
    if (static_cast<int>(level) > enabled_level()) return;
    timeval now{};
    ::gettimeofday(&now, nullptr);
    tm local{};
    ::localtime_r(&now.tv_sec, &local);
    char stamp[32];
    std::strftime(stamp, sizeof(stamp), "%Y-%b-%d %H:%M:%S", &local);
    std::fprintf(stderr, "%s.%06ld %6d:%-6ld %-6s %.*s:%.*s  %.*s\n", stamp, static_cast<long>(now.tv_usec),
                 static_cast<int>(::getpid()), static_cast<long>(::syscall(SYS_gettid)), level_name(level),
                 static_cast<int>(module.size()), module.data(), static_cast<int>(function.size()), function.data(),
                 static_cast<int>(message.size()), message.data());
}

} // namespace neuron::shim
