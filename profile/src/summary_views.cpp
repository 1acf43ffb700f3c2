#include "neuron/profile/summary_views.h"

#include "neuron/profile/naming.h"
#include "neuron/profile/summary.h"

#include "neuron/common/json_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace neuron::profile {
namespace {

std::string text_of(const summary_value& v) {
    return std::visit([](const auto& x) { return fmt::format("{}", x); }, v);
}

void write_value(common::json_writer& out, const summary_value& v) {
    std::visit([&](const auto& x) { out.value(x); }, v);
}

void write_summary(common::json_writer& out, const core_timeline& t) {
    out.begin_object();
    for (const auto& f : summarize(t)) {
        out.key(f.key);
        write_value(out, f.value);
    }
    out.end_object();
}

// The instructions of `t` in the order they started (then engine, then
// stream order), as indexes.
std::vector<std::uint32_t> time_order(const core_timeline& t) {
    std::vector<std::uint32_t> order(t.instructions.size());
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const auto& x = t.instructions[a];
        const auto& y = t.instructions[b];
        if (x.start_ps != y.start_ps) return x.start_ps < y.start_ps;
        if (x.engine != y.engine) return x.engine < y.engine;
        return x.index < y.index;
    });
    return order;
}

// Writes what `out` holds once it is worth a write.
void written(common::json_writer& out, const output& to, bool now = false) {
    if (now || out.str().size() >= (std::size_t{1} << 20)) {
        const auto piece = out.take();
        if (!piece.empty()) to(piece);
    }
}

} // namespace

std::string operands_of(const core_timeline& t, const instruction_record& r) {
    std::string out;
    const auto add = [&out](const std::string& part) { out += (out.empty() ? "" : " ") + part; };
    if (r.wait_semaphore != none) add(fmt::format("wait S[{}]>={}", r.wait_semaphore, r.wait_value));
    if (r.signal_semaphore != none) add(fmt::format("signal S[{}]+{}", r.signal_semaphore, r.signal_increment));
    if (r.transfer != none && r.transfer < t.transfers.size()) {
        const auto& x = t.transfers[r.transfer];
        add(fmt::format("{}->{} {}x{}B {} engines={}", memory_names[static_cast<std::size_t>(x.from)],
                        memory_names[static_cast<std::size_t>(x.to)], x.partitions, x.bytes_per_partition, queue_of(x),
                        x.dma_engines));
        if (x.signal_semaphore != none) add(fmt::format("signal S[{}]+{}", x.signal_semaphore, x.dma_engines));
    }
    if (r.memories & touches_sbuf) add("sbuf");
    if (r.memories & touches_psum) add("psum");
    if (r.row_groups != 0) add(fmt::format("row_groups={}", r.row_groups));
    if (r.macs != 0) add(fmt::format("macs={}", r.macs));
    return out;
}

void summary_text(const timeline_source& profiles, const output& out) {
    bool first = true;
    profiles.each([&](const core_timeline& t) {
        std::string text = first ? "" : "\n";
        first = false;
        const auto fields = summarize(t);
        std::size_t width = 0;
        for (const auto& f : fields) width = std::max(width, f.key.size());
        for (const auto& f : fields) text += fmt::format("{:<{}}{}\n", f.key, width + 2, text_of(f.value));
        out(text);
    });
}

void summary_json(const timeline_source& profiles, const output& to) {
    common::json_writer out;
    out.begin_object();
    std::map<std::string, std::size_t> seen; // a key used again gets ".1", ".2", ...
    profiles.each([&](const core_timeline& t) {
        auto key = worker_key(t);
        if (const auto n = seen[key]++; n > 0) key += fmt::format(".{}", n);
        out.key(key);
        write_summary(out, t);
        written(out, to);
    });
    out.end_object();
    written(out, to, true);
}

void profile_json(const timeline_source& profiles, const output& to) {
    common::json_writer out(false);
    out.begin_object().key("summary").begin_array();
    profiles.each([&](const core_timeline& t) { write_summary(out, t); });
    out.end_array().key("instruction").begin_array();
    profiles.each([&](const core_timeline& t) {
        const auto opcodes = shown_opcodes(t);
        for (const auto i : time_order(t)) {
            const auto& r = t.instructions[i];
            const auto start = to_ns(r.start_ps);
            out.begin_object();
            out.key("timestamp").value(start);
            out.key("duration").value(to_ns(r.end_ps) - start);
            out.key("label").value(label_of(t, r));
            out.key("opcode").value(opcodes[r.opcode]);
            out.key("operands").value(operands_of(t, r));
            if (r.source != none) out.key("nki_source_location").value(t.sources[r.source]);
            out.key("engine").value(engine_names[r.engine]);
            out.key("nc_idx").value(t.core);
            out.key("nd_idx").value(t.device);
            out.key("id").value(std::uint64_t{i});
            out.end_object();
            written(out, to);
        }
    });
    out.end_array().end_object();
    written(out, to, true);
}

std::string summary_text(std::span<const core_timeline> profiles) {
    return whole_output([&](const output& out) { summary_text(timeline_span(profiles), out); });
}

std::string summary_json(std::span<const core_timeline> profiles) {
    return whole_output([&](const output& out) { summary_json(timeline_span(profiles), out); });
}

std::string profile_json(std::span<const core_timeline> profiles) {
    return whole_output([&](const output& out) { profile_json(timeline_span(profiles), out); });
}

} // namespace neuron::profile
