#include "neuron/profile/naming.h"

#include <fmt/format.h>

#include <array>
#include <cctype>

namespace neuron::profile {
namespace {

constexpr std::array<std::string_view, engine_count> engine_labels{"Tensor", "Vector", "Scalar", "GpSimd", "Sync"};

struct vendor_opcode {
    std::string_view nki;
    std::string_view shown;
};
constexpr std::array<vendor_opcode, 2> vendor_opcodes{{{"nc_matmul", "MATMUL"}, {"activation", "ACTIVATE"}}};

std::string_view opcode_name(const core_timeline& t, const instruction_record& r) {
    return r.opcode < t.opcodes.size() ? std::string_view(t.opcodes[r.opcode]) : std::string_view("unknown");
}

std::string shown_opcode(std::string_view name) {
    for (const auto& v : vendor_opcodes) {
        if (v.nki == name) return std::string(v.shown);
    }
    std::string shown(name);
    for (auto& c : shown) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return shown;
}

} // namespace

std::string_view label_of(const core_timeline& t, const instruction_record& r) {
    const auto name = opcode_name(t, r);
    // The PE array's work: a matmul, or a transpose (a matmul by the identity).
    if (name == "nc_matmul" || (name == "nc_transpose" && r.engine == tensor_engine)) return "TensorMatrix";
    return engine_labels[r.engine % engine_count];
}

std::string opcode_of(const core_timeline& t, const instruction_record& r) { return shown_opcode(opcode_name(t, r)); }

std::vector<std::string> shown_opcodes(const core_timeline& t) {
    std::vector<std::string> out;
    for (const auto& name : t.opcodes) out.push_back(shown_opcode(name));
    return out;
}

std::string queue_of(const transfer_record& r) {
    return fmt::format("q{}IO{}", engine_labels[r.engine % engine_count], r.queue);
}

std::map<std::uint32_t, std::string> semaphore_tracks(const core_timeline& t) {
    std::map<std::uint32_t, std::string> adders; // the first engine, then queue, adding to each
    for (const auto& r : t.instructions) {
        if (r.signal_semaphore != none) adders.emplace(r.signal_semaphore, label_of(t, r));
    }
    for (const auto& r : t.transfers) {
        if (r.signal_semaphore != none && !adders.contains(r.signal_semaphore))
            adders.emplace(r.signal_semaphore, queue_of(r));
    }
    std::map<std::uint32_t, std::string> names;
    for (const auto& s : t.semaphores) {
        if (names.contains(s.index)) continue;
        const auto adder = adders.find(s.index);
        names.emplace(s.index, adder == adders.end() ? fmt::format("S[{}]", s.index)
                                                     : fmt::format("S[{}] ({})", s.index, adder->second));
    }
    return names;
}

} // namespace neuron::profile
