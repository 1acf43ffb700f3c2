// Compiled NEFFs (neff/include/neuron/neff/neff_file.h): any bytes to
// looks_like_neff and read_neff, as nrt_load and `neuron-emu inspect-neff`
// read a file. A neff_error is the expected answer to bad input; anything
// else escaping, a crash, a hang or a blow-up of memory is a finding, and so
// is a NEFF that reads into figures read_neff promises never to give (a
// tensor whose bytes are not its shape times its element size, no core, ...)
// or whose reading did more work than it promises (a JSON member parsed
// twice, more JSON parsed than the archive may keep, more inflated than
// 16 GiB).
//
// Input that does not look like a NEFF is read twice more: as the
// uncompressed tar of a NEFF's payload (gzipped and given a header here),
// so that mutations reach the tar and JSON readers without going through
// deflate, and as a JSON member on its own, walked whole. Each NEFF is also
// read with a stop test that ends the reading after a few polls (the first
// byte says how many), as a server stopping does: it ends with
// read_cancelled, a neff_error, or the same figures. The seeds
// (corpus/neff/) are synthetic NEFFs, bare tars and a def.json, written by
// neff/tests/neff_builder.h (NEURON_NEFF_CORPUS_DIR, see
// neff/tests/neff_file_test.cpp).

#include "neuron/neff/neff_file.h"

#include "../neff/src/json_reader.h"
#include "../neff/tests/neff_builder.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace neuron::neff;

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "neff_fuzzer: %s\n", what);
    std::abort();
}

void check_tensor(const tensor& t) {
    if (t.name.empty() || t.name.size() > 255) finding("a tensor name outside 1 to 255 bytes");
    if (t.shape.size() > 8) finding("a tensor with more than 8 dimensions");
    for (const auto d : t.shape) {
        if (d > UINT32_MAX) finding("a dimension nrt cannot report");
    }
    const auto element = dtype_bytes(t.dtype);
    if (element == 0) finding("a tensor of a dtype dtype_bytes does not know");
    unsigned __int128 n = element;
    for (const auto d : t.shape) {
        n *= d;
        if (n > UINT64_MAX) finding("a tensor of more than 2^64 bytes read");
    }
    if (n != t.bytes) finding("a tensor whose bytes are not its shape times its element size");
}

void check(const neff_info& info, std::string_view bytes) {
    if (!looks_like_neff(bytes)) finding("read_neff read a file looks_like_neff says is not one");
    if (info.format_version != 2) finding("a format version other than 2 read");
    if (info.cores.empty() || info.cores.size() > 64) finding("a NEFF of no core or more than 64 read");
    for (const auto& core : info.cores) {
        if (core.name.empty() || core.name.find('/') != std::string::npos) finding("a core named empty or with a /");
        for (const auto n : core.instructions) {
            if (n > core.code_bytes / instruction_bytes) finding("more instructions than the core's code holds");
        }
    }
    for (std::size_t i = 0; i < info.cores.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            if (info.cores[i].name == info.cores[j].name) finding("two cores of one name read");
        }
    }
    for (const auto& t : info.inputs) check_tensor(t);
    for (const auto& t : info.outputs) check_tensor(t);
}

// What read_neff promises of its work, read or refused.
void check(const read_work& work) {
    // info, kelf, hlo_stats, and per graph def.json, tensor_map.json and five engines'.
    if (work.json_members > 3 + 64 * 7) finding("more JSON members parsed than a NEFF can have read");
    if (work.json_bytes > std::uint64_t{256} << 20) finding("more JSON parsed than the archive may keep");
    if (work.inflated_bytes > std::uint64_t{16} << 30) finding("more than 16 GiB inflated");
}

void read(std::string_view bytes, unsigned polls) {
    neff_info info;
    read_work work;
    try {
        info = read_neff(bytes, {{}, &work});
    } catch (const neff_error&) {
        check(work);
        return;
    }
    check(work);
    check(info, bytes);
    // Again, stopped after `polls` polls: stopped, or the same NEFF.
    unsigned asked = 0;
    try {
        const auto again = read_neff(bytes, {[&] { return ++asked > polls; }, nullptr});
        if (again.cores.size() != info.cores.size() || again.inputs.size() != info.inputs.size() ||
            again.outputs.size() != info.outputs.size() || again.macs != info.macs) {
            finding("a NEFF read differently the second time");
        }
    } catch (const read_cancelled&) {
        if (asked != polls + 1) finding("read_cancelled without the stop test saying so");
    }
}

// Every value of a JSON document, as read_neff walks them: the sizes agree
// with what iterating finds.
void walk(const detail::json_value& root) {
    std::vector<detail::json_value> pending{root};
    std::size_t values = 0;
    while (!pending.empty()) {
        const auto v = pending.back();
        pending.pop_back();
        ++values;
        std::size_t children = 0;
        for (const auto child : v) {
            // find() walks the members: the first few are enough to check it.
            if (v.is_object() && children < 16 && !v.find(child.key())) {
                finding("an object's member not found by its key");
            }
            ++children;
            pending.push_back(child);
        }
        if (children != v.size()) finding("a value's size is not what iterating finds");
        if (!v.is_object() && !v.is_array() && children != 0) finding("a scalar with children");
    }
    if (values > detail::json_limits{}.max_values) finding("more JSON values than the limit read");
}

void read_json(std::string_view bytes) {
    try {
        const detail::json_document doc(bytes, "fuzz.json", {});
        walk(doc.root());
    } catch (const neff_error&) {}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const unsigned polls = size == 0 ? 0 : data[0] % 8;
    read(bytes, polls);
    if (!looks_like_neff(bytes)) {
        namespace t = neuron::neff::testing;
        read(t::wrap(t::gzip(bytes, 1)), polls);
        read_json(bytes);
    }
    return 0;
}
