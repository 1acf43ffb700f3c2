// Compiled NEFFs (neff/include/neuron/neff/neff_file.h): any bytes to
// looks_like_neff and read_neff, as nrt_load and `neuron-emu inspect-neff`
// read a file. A neff_error is the expected answer to bad input; anything
// else escaping, a crash, a hang or a blow-up of memory is a finding, and so
// is a NEFF that reads into figures read_neff promises never to give (a
// tensor whose bytes are not its shape times its element size, no core, ...).
//
// Input that does not look like a NEFF is read twice: as it is, and as the
// uncompressed tar of a NEFF's payload (gzipped and given a header here), so
// that mutations reach the tar and JSON readers without going through
// deflate. The seeds (corpus/neff/) are synthetic NEFFs and one bare tar,
// written by neff/tests/neff_builder.h (NEURON_NEFF_CORPUS_DIR, see
// neff/tests/neff_file_test.cpp).

#include "neuron/neff/neff_file.h"

#include "../neff/tests/neff_builder.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

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

void read(std::string_view bytes) {
    neff_info info;
    try {
        info = read_neff(bytes);
    } catch (const neff_error&) {
        return;
    }
    if (!looks_like_neff(bytes)) finding("read_neff read a file looks_like_neff says is not one");
    if (info.format_version != 2) finding("a format version other than 2 read");
    if (info.cores.empty() || info.cores.size() > 64) finding("a NEFF of no core or more than 64 read");
    for (const auto& core : info.cores) {
        if (core.name.empty() || core.name.find('/') != std::string::npos) finding("a core named empty or with a /");
        for (const auto n : core.instructions) {
            if (n > core.code_bytes / instruction_bytes) finding("more instructions than the core's code holds");
        }
    }
    for (const auto& t : info.inputs) check_tensor(t);
    for (const auto& t : info.outputs) check_tensor(t);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    read(bytes);
    if (!looks_like_neff(bytes)) {
        namespace t = neuron::neff::testing;
        read(t::wrap(t::gzip(bytes, 1)));
    }
    return 0;
}
