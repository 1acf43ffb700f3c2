#pragma once

// What the vendor's tools (neuron-ls, neuron-monitor, neuron-top) show of a
// host, taken at one moment. host_sampler.h fills it from a sysfs tree (any
// root: a real host's, a served or a materialized one), the emulator's
// control channel (what only the runtime knows) and /proc (the host's CPUs,
// memory and processes). The views are pure functions of one sample or of
// two (a period); tests build samples by hand.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace neuron::tools {

// Bytes by the driver's category name ("model_code", "tensors", "constants",
// "model_shared_scratchpad", "runtime_memory", "dma_buffers", ...).
using memory_breakdown = std::map<std::string, std::uint64_t>;

// A (device, physical core within the device) pair.
using physical_core_id = std::pair<std::uint32_t, std::uint32_t>;

// What a runtime accumulated on one physical core it holds, since it took
// the core: the datastore counters only the runtime sees before release.
struct core_activity {
    std::uint64_t time_in_use_us = 0;
    std::uint64_t flops = 0;
    std::uint64_t executions = 0;
    std::map<std::string, std::uint64_t> statuses; // by the driver's status counter name: success, timeout, ...
};

struct core_sample {
    std::uint32_t index = 0;     // physical, within its device
    memory_breakdown device_mem; // stats/memory_usage/device_mem/<category>/present
};

struct device_sample {
    std::uint32_t index = 0;
    std::uint32_t physical_cores = 0;     // core_count
    std::vector<std::uint32_t> connected; // connected_devices, in the driver's order
    std::string device_name;        // info/architecture/device_name: Inferentia, Inferentia2, Trainium1, Trainium2
    std::uint64_t memory_bytes = 0; // 0: unknown
    std::string bdf;                // "0000:cc:00.0"; empty: unknown
    std::string cpu_affinity;       // "48-95,144-191"; empty: unknown
    std::string numa_node;          // "1", "-1"; empty: unknown
    memory_breakdown host_mem;      // stats/memory_usage/host_mem/<category>/present
    // stats/hardware/<name>; absent where the driver has no such file.
    std::optional<std::uint64_t> mem_ecc_corrected, mem_ecc_uncorrected, sram_ecc_corrected, sram_ecc_uncorrected;
    std::vector<core_sample> cores;
};

struct execution_latency {
    std::uint64_t ended_ns = 0;  // on host_sample::time_ns's clock
    std::uint64_t total_ns = 0;  // from the request to its reply
    std::uint64_t device_ns = 0; // on the core
};

struct model_sample {
    std::uint32_t id = 0;
    std::string name; // the file's name as loaded
    bool running = false;
    std::uint32_t logical_core = 0;      // global
    std::vector<physical_core_id> cores; // one per graph (sg00, sg01, ...)
    memory_breakdown device_memory;      // on its cores, summed
    memory_breakdown host_memory;
};

struct cpu_times { // clock ticks, as /proc/stat counts them
    std::uint64_t user = 0, nice = 0, system = 0, idle = 0, io_wait = 0, irq = 0, soft_irq = 0;
    std::uint64_t sum() const { return user + nice + system + idle + io_wait + irq + soft_irq; }
};

// A process with libnrt sessions on the emulator.
struct runtime_sample {
    std::uint32_t pid = 0;
    std::string command;         // its command line, words joined by spaces (/proc/PID/cmdline; else its tag)
    std::string tag;             // neuron_runtime_tag: the session's label
    std::string runtime_version; // "2.30.50.0"
    std::uint32_t lnc = 1;
    std::uint32_t first_logical_core = 0; // global
    std::uint32_t logical_cores = 0;
    std::map<physical_core_id, core_activity> activity; // every physical core it holds
    // What it holds now, as the runtime counts it (sysfs shows the categories
    // up to a second late): by the core the allocation is for.
    std::map<physical_core_id, memory_breakdown> device_memory;
    std::map<physical_core_id, memory_breakdown> host_memory;
    std::vector<model_sample> models;
    std::vector<execution_latency> latencies; // its latest executions, oldest first (bounded)
    std::optional<cpu_times> cpu;             // utime and stime of /proc/PID/stat (user, system)
};

// Any process with a /dev/neuronN open (neuron-ls -a), runtime or not.
struct device_user {
    std::uint32_t pid = 0;
    std::string command;
    std::vector<std::uint32_t> devices;
};

struct system_sample {
    std::optional<cpu_times> total;     // /proc/stat "cpu"
    std::vector<cpu_times> per_cpu;     // "cpu0", "cpu1", ...
    std::uint64_t context_switches = 0; // "ctxt"
    std::optional<std::uint64_t> memory_total_bytes, memory_used_bytes, swap_total_bytes, swap_used_bytes;
};

struct host_sample {
    std::uint64_t time_ns = 0; // the emulator's simulated time, else the host's monotonic clock
    bool time_stepped = false; // the emulator's time moves only when advanced
    std::string instance_type; // "trn2.48xlarge"; empty: unknown
    std::string instance_id;   // "i-0123456789abcdef0"; empty: unknown
    std::uint32_t lnc = 1;     // the logical NeuronCore configuration
    std::vector<device_sample> devices;
    // Empty when the runtimes are known (the emulator answered), else why not:
    // the groups only the runtime feeds carry it as their "error".
    std::string runtime_error;
    std::vector<runtime_sample> runtimes;
    std::vector<device_user> device_users;
    system_sample system;
};

// Logical NeuronCores per device under the sample's LNC.
inline std::uint32_t logical_cores_of(const host_sample& h, const device_sample& d) {
    return h.lnc == 0 ? d.physical_cores : d.physical_cores / h.lnc;
}

// A core's number across the instance, as the runtime numbers them (the
// devices' cores one after the other, by device index, whether or not the
// tree shows every device): physical, and logical under `lnc` (n physical
// cores a logical one).
std::uint32_t global_physical_core(const host_sample& h, physical_core_id core);
std::uint32_t global_logical_core(const host_sample& h, physical_core_id core, std::uint32_t lnc);

} // namespace neuron::tools
