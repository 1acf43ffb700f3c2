#pragma once

// neuron-monitor's report (reference nrt-api.md §4.2): one JSON document a
// line, built from successive host samples. The first report comes as the
// tool starts, every group over the moment between its first two samples;
// after it each metric group is refreshed when its period has passed (the
// first counted from the start, the next from its last refresh), over the
// time since it was last refreshed; the groups not yet due repeat their last
// values, as the vendor's report does.

#include "neuron/tools/host_sample.h"
#include "neuron/tools/monitor_config.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace neuron::tools {

class monitor_state {
public:
    // `ticks_per_second`: the clock /proc counts CPU time in; 0: the host's
    // (sysconf(_SC_CLK_TCK)).
    explicit monitor_state(monitor_config config, std::uint64_t ticks_per_second = 0);

    // The sample every group's first period starts at.
    void start(host_sample first);

    // The report the tool prints when it starts: every group refreshed over
    // the interval from start()'s sample to `second`, taken right after it
    // (none in stepped time: rates are then 0). The groups' next due times
    // stay counted from start()'s sample. As update() without start() or when
    // the clock went back.
    std::string report_at_start(host_sample second);

    // When the next group is due, on the sample clock (host_sample::time_ns).
    std::uint64_t next_due_ns() const;

    // Refreshes the groups due at `sample.time_ns` and returns the whole
    // report: one line, without its newline. Without start(), or when the
    // clock went back (the emulator restarted), the sample starts the periods
    // anew and the report has no group yet.
    std::string update(host_sample sample);

private:
    struct group {
        group(const std::shared_ptr<const host_sample>& start, std::uint64_t period);
        std::shared_ptr<const host_sample> since; // the period's start
        std::uint64_t period_ns = 0;
        std::uint64_t due_ns = 0;        // on the sample clock
        std::optional<std::string> json; // none: not reported yet
        bool due(const host_sample& now) const { return now.time_ns >= due_ns; }
        // The next period runs from `now`, due one period on; after the
        // report at start, still due one period after the start.
        void begin_period(const std::shared_ptr<const host_sample>& now, bool at_start);
    };
    struct runtime_groups {
        std::string tag;
        std::map<runtime_metric, group> groups;
    };

    std::string refresh(host_sample sample, bool at_start);
    void refresh_runtimes(const std::shared_ptr<const host_sample>& now, bool at_start);
    std::map<runtime_metric, group> groups_for(const std::string& tag) const;
    std::string document(const host_sample& now) const;

    monitor_config m_config;
    std::uint64_t m_ticks_per_second;
    std::shared_ptr<const host_sample> m_last;
    std::map<system_metric, group> m_system;
    std::map<std::uint32_t, runtime_groups> m_runtimes; // by pid
};

} // namespace neuron::tools
