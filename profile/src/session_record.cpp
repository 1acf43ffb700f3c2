#include "session_record.h"

#include <algorithm>
#include <cstring>

namespace neuron::profile::detail {
namespace {

using reader = session_bytes_reader;

// Bounds a reader holds a file to (docs/profile-session-format.md).
constexpr std::size_t max_name_bytes = 256;
constexpr std::size_t max_source_bytes = 4096;
constexpr std::size_t max_opcodes = 256;
constexpr std::uint32_t max_semaphore = 65535;
// Records of each kind in one execution: a program has at most 2^20
// instructions, each DMA copy at most 16 runs and 16 semaphore adds.
constexpr std::size_t max_records = std::size_t{1} << 25;
constexpr std::size_t max_faults = 16;
// Records are read into vectors sized by their counts once the rest of the
// file is known to be long enough to hold that many: never more room than
// the file's bytes could describe, and no copies as they grow.

// Which optional fields an instruction record carries.
enum instruction_field : std::uint8_t {
    has_macs = 1,
    has_source = 2,
    has_wait = 4,
    has_signal = 8,
    has_transfer = 16,
    has_weight_load = 32,
    has_tiles = 64, // memories and row groups
};

std::uint64_t add_signed(reader& in, std::uint64_t base, std::int64_t delta, std::string_view what) {
    const auto sum = static_cast<__int128>(base) + delta;
    if (sum < 0 || sum > static_cast<__int128>(UINT64_MAX)) in.fail(fmt::format("{} is out of range", what));
    return static_cast<std::uint64_t>(sum);
}

std::uint64_t add_unsigned(reader& in, std::uint64_t base, std::uint64_t more, std::string_view what) {
    if (more > UINT64_MAX - base) in.fail(fmt::format("{} is out of range", what));
    return base + more;
}

void put_optional(std::string& out, std::uint32_t index) {
    put_varint(out, index == none ? 0 : std::uint64_t{index} + 1);
}

std::uint32_t optional_index(reader& in, std::string_view what, std::size_t size) {
    const auto v = in.varint(what);
    if (v == 0) return none;
    if (v > size) in.fail(fmt::format("{} is {}; there are {}", what, v - 1, size));
    return static_cast<std::uint32_t>(v - 1);
}

void encode_header(std::string& out, const core_timeline& t) {
    put_string(out, t.instance_type);
    put_string(out, t.model_name);
    for (const auto v : {t.device, t.core, t.logical_core, t.lnc, t.status}) put_varint(out, v);
    put_varint(out, t.execution);
    put_varint(out, t.start_ps);
    put_varint(out, t.end_ps - t.start_ps);
    const auto& f = t.figures;
    put_varint(out, f.core_clock_hz);
    for (const auto hz : f.engine_clock_hz) put_varint(out, hz);
    for (const auto v : {f.pe_rows, f.pe_columns, f.dma_engines, f.queues_per_dma_engine, f.cores_per_device}) {
        put_varint(out, v);
    }
    put_varint(out, f.dma_bytes_per_ns);
    put_varint(out, f.memory_bytes_per_ns);
}

void decode_header(reader& in, core_timeline& t) {
    t.instance_type = in.string("the instance type", max_name_bytes);
    t.model_name = in.string("the model name", max_name_bytes);
    t.device = in.u32("the device");
    t.core = in.u32("the core");
    t.logical_core = in.u32("the logical core");
    t.lnc = in.u32("the LNC");
    t.status = in.u32("the status");
    t.execution = in.varint("the execution number");
    t.start_ps = in.varint("the start");
    t.end_ps = add_unsigned(in, t.start_ps, in.varint("the duration"), "the end");
    auto& f = t.figures;
    f.core_clock_hz = in.varint("the core clock");
    for (auto& hz : f.engine_clock_hz) hz = in.varint("an engine clock");
    f.pe_rows = in.u32("the PE rows");
    f.pe_columns = in.u32("the PE columns");
    f.dma_engines = in.u32("the DMA engines", 32);
    f.queues_per_dma_engine = in.u32("the DMA queues", 32);
    f.cores_per_device = in.u32("the cores per device");
    f.dma_bytes_per_ns = in.varint("the DMA rate");
    f.memory_bytes_per_ns = in.varint("the memory rate");
}

void encode_transfers(std::string& out, const core_timeline& t, std::size_t most) {
    put_varint(out, t.transfers.size());
    std::uint64_t previous = 0;
    for (const auto& r : t.transfers) {
        check_size(out, most);
        put_varint(out, detail::zigzag(static_cast<std::int64_t>(r.issued_ps - previous)));
        put_varint(out, r.arrives_ps - r.issued_ps);
        previous = r.issued_ps;
        put_varint(out, r.bytes_per_partition);
        for (const auto v : {r.partitions, r.dma_engines, r.queue}) put_varint(out, v);
        put_optional(out, r.signal_semaphore);
        put_varint(out, r.engine);
        put_varint(out, static_cast<std::uint64_t>(r.from) * 3 + static_cast<std::uint64_t>(r.to));
    }
}

void decode_transfers(reader& in, core_timeline& t) {
    const auto transfers = in.count("the transfer count", 9, max_records);
    t.transfers.reserve(transfers);
    std::uint64_t previous = 0;
    for (std::size_t n = 0; n < transfers; ++n) {
        auto& r = t.transfers.emplace_back();
        r.issued_ps = previous =
            add_signed(in, previous, detail::unzigzag(in.varint("a transfer's issue")), "a transfer's issue");
        r.arrives_ps = add_unsigned(in, r.issued_ps, in.varint("a transfer's arrival"), "a transfer's arrival");
        r.bytes_per_partition = in.varint("a transfer's bytes per partition");
        r.partitions = in.u32("a transfer's partitions");
        r.dma_engines = in.u32("a transfer's DMA engines", 32);
        r.queue = in.u32("a transfer's queue", 31);
        r.signal_semaphore = optional_index(in, "a transfer's semaphore", max_semaphore + 1);
        r.engine = static_cast<std::uint8_t>(in.u32("a transfer's engine", engine_count - 1));
        const auto memories = in.u32("a transfer's memories", 8);
        r.from = static_cast<memory>(memories / 3);
        r.to = static_cast<memory>(memories % 3);
    }
}

void encode_instructions(std::string& out, const core_timeline& t, std::size_t most) {
    put_varint(out, t.instructions.size());
    std::uint64_t previous_end = 0;
    std::uint32_t next_index = 0;
    for (const auto& r : t.instructions) {
        check_size(out, most);
        std::uint8_t fields = 0;
        if (r.macs != 0) fields |= has_macs;
        if (r.source != none) fields |= has_source;
        if (r.wait_semaphore != none) fields |= has_wait;
        if (r.signal_semaphore != none) fields |= has_signal;
        if (r.transfer != none) fields |= has_transfer;
        if (r.weight_load_ps != 0) fields |= has_weight_load;
        if (r.memories != 0 || r.row_groups != 0) fields |= has_tiles;
        out.push_back(static_cast<char>(r.engine));
        out.push_back(static_cast<char>(fields));
        put_varint(out, r.opcode);
        put_varint(out, detail::zigzag(std::int64_t{r.index} - next_index));
        put_varint(out, detail::zigzag(static_cast<std::int64_t>(r.start_ps - previous_end)));
        put_varint(out, r.end_ps - r.start_ps);
        previous_end = r.end_ps;
        next_index = r.index + 1;
        if (fields & has_macs) put_varint(out, r.macs);
        if (fields & has_source) put_varint(out, r.source);
        if (fields & has_wait) {
            put_varint(out, r.wait_semaphore);
            put_varint(out, r.wait_value);
        }
        if (fields & has_signal) {
            put_varint(out, r.signal_semaphore);
            put_varint(out, r.signal_increment);
        }
        if (fields & has_transfer) put_varint(out, r.transfer);
        if (fields & has_weight_load) put_varint(out, r.weight_load_ps);
        if (fields & has_tiles) {
            out.push_back(static_cast<char>(r.memories));
            out.push_back(static_cast<char>(r.row_groups));
        }
    }
}

std::uint32_t index_below(reader& in, std::string_view what, std::size_t size) {
    const auto v = in.varint(what);
    if (v >= size) in.fail(fmt::format("{} is {}; there are {}", what, v, size));
    return static_cast<std::uint32_t>(v);
}

void decode_instructions(reader& in, core_timeline& t) {
    const auto instructions = in.count("the instruction count", 6, max_records);
    t.instructions.reserve(instructions);
    std::uint64_t previous_end = 0;
    std::uint32_t next_index = 0;
    for (std::size_t n = 0; n < instructions; ++n) {
        auto& r = t.instructions.emplace_back();
        r.engine = in.byte("an instruction's engine", engine_count - 1);
        const auto fields = in.byte("an instruction's fields", 127);
        r.opcode = index_below(in, "an instruction's opcode", t.opcodes.size());
        const auto index =
            add_signed(in, next_index, detail::unzigzag(in.varint("an instruction's index")), "an instruction's index");
        if (index > UINT32_MAX) in.fail("an instruction's index is out of range");
        r.index = static_cast<std::uint32_t>(index);
        r.start_ps = add_signed(in, previous_end, detail::unzigzag(in.varint("an instruction's start")),
                                "an instruction's start");
        r.end_ps = add_unsigned(in, r.start_ps, in.varint("an instruction's duration"), "an instruction's end");
        previous_end = r.end_ps;
        next_index = r.index + 1;
        if (fields & has_macs) r.macs = in.varint("an instruction's MACs");
        if (fields & has_source) r.source = index_below(in, "an instruction's source", t.sources.size());
        if (fields & has_wait) {
            r.wait_semaphore = in.u32("a semaphore", max_semaphore);
            r.wait_value = in.u32("a semaphore value");
        }
        if (fields & has_signal) {
            r.signal_semaphore = in.u32("a semaphore", max_semaphore);
            r.signal_increment = in.u32("a semaphore increment");
        }
        if (fields & has_transfer) r.transfer = index_below(in, "an instruction's transfer", t.transfers.size());
        if (fields & has_weight_load) r.weight_load_ps = in.u32("a weight load");
        if (fields & has_tiles) {
            r.memories = in.byte("an instruction's memories", touches_sbuf | touches_psum);
            r.row_groups = in.byte("an instruction's row groups");
        }
    }
}

void encode_events(std::string& out, const core_timeline& t, std::size_t most) {
    put_varint(out, t.dma_runs.size());
    std::uint64_t previous = 0;
    for (const auto& r : t.dma_runs) {
        check_size(out, most);
        put_varint(out, detail::zigzag(static_cast<std::int64_t>(r.start_ps - previous)));
        put_varint(out, r.end_ps - r.start_ps);
        previous = r.start_ps;
        put_varint(out, r.bytes);
        put_varint(out, r.transfer);
        put_varint(out, r.engines);
        put_varint(out, r.cut ? 1 : 0);
    }
    put_varint(out, t.semaphores.size());
    previous = 0;
    for (const auto& s : t.semaphores) {
        check_size(out, most);
        put_varint(out, detail::zigzag(static_cast<std::int64_t>(s.at_ps - previous)));
        previous = s.at_ps;
        put_varint(out, s.index);
        put_varint(out, s.value);
    }
    put_varint(out, t.faults.size());
    for (const auto& f : t.faults) {
        put_varint(out, f.at_ps);
        put_string(out, f.kind);
        put_varint(out, f.status);
        put_varint(out, f.dma_engine);
    }
    put_varint(out, t.throttled.size());
    previous = 0;
    for (const auto& r : t.throttled) {
        check_size(out, most);
        put_varint(out, detail::zigzag(static_cast<std::int64_t>(r.start_ps - previous)));
        previous = r.start_ps;
        put_varint(out, r.end_ps - r.start_ps);
        put_varint(out, r.work_ps);
    }
}

void decode_events(reader& in, core_timeline& t) {
    const auto dma_runs = in.count("the DMA run count", 6, max_records);
    t.dma_runs.reserve(dma_runs);
    std::uint64_t previous = 0;
    for (std::size_t n = 0; n < dma_runs; ++n) {
        auto& r = t.dma_runs.emplace_back();
        r.start_ps = previous =
            add_signed(in, previous, detail::unzigzag(in.varint("a DMA run's start")), "a DMA run's start");
        r.end_ps = add_unsigned(in, r.start_ps, in.varint("a DMA run's duration"), "a DMA run's end");
        r.bytes = in.varint("a DMA run's bytes");
        r.transfer = index_below(in, "a DMA run's transfer", t.transfers.size());
        r.engines = in.u32("a DMA run's engines");
        r.cut = in.u32("a DMA run's end", 1) == 1;
    }
    const auto semaphores = in.count("the semaphore change count", 3, max_records);
    t.semaphores.reserve(semaphores);
    previous = 0;
    for (std::size_t n = 0; n < semaphores; ++n) {
        auto& s = t.semaphores.emplace_back();
        s.at_ps = previous =
            add_signed(in, previous, detail::unzigzag(in.varint("a semaphore change")), "a semaphore change");
        s.index = in.u32("a semaphore", max_semaphore);
        s.value = in.u32("a semaphore value");
    }
    const auto faults = in.count("the fault count", 4, max_faults);
    t.faults.reserve(faults);
    for (std::size_t n = 0; n < faults; ++n) {
        auto& f = t.faults.emplace_back();
        f.at_ps = in.varint("a fault's time");
        f.kind = in.string("a fault's kind", max_name_bytes);
        f.status = in.u32("a fault's status");
        f.dma_engine = in.u32("a fault's DMA engine");
    }
    const auto throttled = in.count("the throttled stretch count", 3, max_records);
    t.throttled.reserve(throttled);
    previous = 0;
    for (std::size_t n = 0; n < throttled; ++n) {
        auto& r = t.throttled.emplace_back();
        r.start_ps = previous = add_signed(in, previous, detail::unzigzag(in.varint("a throttled stretch's start")),
                                           "a throttled stretch's start");
        const auto length = in.varint("a throttled stretch's length");
        r.end_ps = add_unsigned(in, r.start_ps, length, "a throttled stretch's end");
        r.work_ps = in.varint("a throttled stretch's work");
        if (r.work_ps > length) {
            in.fail(fmt::format("a throttled stretch's work ({} ps) exceeds its length ({} ps)", r.work_ps, length));
        }
    }
}

void encode_strings(std::string& out, const std::vector<std::string>& strings, std::size_t most) {
    put_varint(out, strings.size());
    for (const auto& s : strings) {
        check_size(out, most);
        put_string(out, s);
    }
}

std::vector<std::string> decode_strings(reader& in, std::string_view what, std::size_t most, std::size_t bytes) {
    std::vector<std::string> out(in.count(what, 1));
    if (out.size() > most) in.fail(fmt::format("{} says {}, more than {}", what, out.size(), most));
    for (auto& s : out) s = in.string(what, bytes);
    return out;
}

} // namespace

[[noreturn]] void too_large(std::size_t most) {
    throw session_too_large(fmt::format("a session file larger than {} bytes, the most it may be", most));
}

void check_size(const std::string& out, std::size_t most) {
    if (out.size() > most) too_large(most);
}

// The record of `t`, of at most `most` bytes.
std::string encode_record(const core_timeline& t, std::size_t most) {
    std::string out;
    encode_header(out, t);
    encode_strings(out, t.opcodes, most);
    encode_strings(out, t.sources, most);
    encode_transfers(out, t, most);
    encode_instructions(out, t, most);
    encode_events(out, t, most);
    check_size(out, most);
    return out;
}

core_timeline decode_record(reader& in) {
    core_timeline t;
    decode_header(in, t);
    t.opcodes = decode_strings(in, "the opcode names", max_opcodes, max_name_bytes);
    t.sources = decode_strings(in, "the sources", SIZE_MAX, max_source_bytes);
    decode_transfers(in, t);
    decode_instructions(in, t);
    decode_events(in, t);
    if (!in.done()) in.fail(fmt::format("{} bytes follow the end of an execution", in.remaining()));
    return t;
}

} // namespace neuron::profile::detail
