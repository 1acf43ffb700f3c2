#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// What a compiled NEFF says without decoding its instruction set
// (reference/neff.md): its tensor signature, per NeuronCore the memory the
// runtime charges for it and the length of each engine's instruction
// stream, and the work HLO statistics count. Read from untrusted bytes:
// every length is checked before it is trusted, and nothing is allocated
// for what the file only claims.
namespace neuron::neff {

// What is wrong with a NEFF, naming the member where it is ("sg00/def.json:
// ..."), for the runtime's one log line.
class neff_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Reading stopped because the caller's stop_test said so: nothing is wrong
// with the NEFF.
class read_cancelled : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Asked while a NEFF is read, every 64 KiB it inflates or parses: true ends
// the reading at once with read_cancelled.
using stop_test = std::function<bool()>;

// What reading a NEFF took. Each JSON member is parsed at most once, so
// json_bytes never passes the JSON the archive holds (at most 256 MiB), and
// inflated_bytes never passes 16 GiB: the work is linear in those, and
// those are at most ~1032 times the NEFF's size (deflate's ratio).
struct read_work {
    std::uint64_t inflated_bytes = 0; // of the payload
    std::uint64_t json_members = 0;   // members parsed
    std::uint64_t json_bytes = 0;     // their bytes
};

struct read_options {
    stop_test stopped;         // none: the reading is never stopped
    read_work* work = nullptr; // filled as the reading goes, a refused one too
};

inline constexpr std::size_t header_bytes = 1024;
// The compute engines, in the model's order, and the instruction files the
// compiler writes for them.
inline constexpr std::size_t engine_count = 5;
inline constexpr std::array<std::string_view, engine_count> engine_files{"PE", "DVE", "Activation", "Pool", "SP"};
inline constexpr std::size_t instruction_bytes = 64; // one instruction in an engine's .bin

struct tensor {
    std::string name;
    std::string dtype;                // as tensor_map.json writes it: "float16", "bfloat16", ...
    std::vector<std::uint64_t> shape; // tf_shape
    std::uint64_t bytes = 0;
};

// A `virtual` variable of def.json: scratchpad the compiler placed at
// `offset` (backing_variable_off) in the runtime's scratchpad space.
struct scratch_variable {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

// One subgraph: what one physical NeuronCore runs.
struct core_graph {
    std::string name;                   // "sg00"
    std::uint64_t code_bytes = 0;       // every .bin member of its folder
    std::uint64_t constant_bytes = 0;   // its `file` variables
    std::uint64_t scratchpad_bytes = 0; // the high-water mark of its `virtual` variables (not rounded)
    std::vector<scratch_variable> scratch_variables;
    std::uint64_t dma_transfers = 0;                        // entries of its engines' `dma` lists
    std::array<std::uint64_t, engine_count> instructions{}; // per engine, in the model's order
};

struct neff_info {
    std::uint64_t format_version = 0;
    std::string name;         // info.json
    std::string tool_version; // the compiler's
    std::vector<tensor> inputs;
    std::vector<tensor> outputs;
    std::vector<core_graph> cores;   // kelf-0.json's graphs, in order
    std::uint64_t macs = 0;          // hlo_stats.json HloMacCount (0 when absent)
    std::uint64_t traffic_bytes = 0; // hlo_stats.json Traffic
};

// How the runtime lays out scratchpad (reference/neff.md): as one
// contiguous region grown in 64 MiB pages, or (NEURON_RT_CONTIGUOUS_SCRATCHPAD=0,
// and Trn2 with LNC=1) in pages of NEURON_SCRATCHPAD_PAGE_SIZE (512 MiB by
// default), where a variable that does not fit within one page gets a
// private, non-shared allocation of its own.
inline constexpr std::uint64_t contiguous_scratchpad_page = std::uint64_t{64} << 20;
inline constexpr std::uint64_t default_scratchpad_page = std::uint64_t{512} << 20;
struct scratchpad_layout {
    bool contiguous = true;
    std::uint64_t page_bytes = default_scratchpad_page; // non-contiguous pages only
};

// The device memory the runtime charges a core for its graph, by the
// driver's category (reference/neff.md, from the runtime's load logs).
inline constexpr std::uint64_t dma_descriptor_bytes = 16;
inline constexpr std::uint64_t descriptors_per_transfer = 16; // the semaphore update's
struct memory_charge {
    std::uint64_t model_code = 0;
    std::uint64_t constants = 0;
    std::uint64_t scratchpad = 0;           // the high-water mark rounded up to the page; shared by loaded graphs (max)
    std::uint64_t nonshared_scratchpad = 0; // variables no page holds, each allocated on its own
    std::uint64_t dma_rings = 0;            // 16 bytes per descriptor; only the semaphore updates' are known
};
memory_charge charge(const core_graph& g, const scratchpad_layout& layout = {});

// True when the bytes start as a NEFF does (its header's version and length).
bool looks_like_neff(std::string_view bytes);
// Throws neff_error, or read_cancelled when options.stopped says so.
neff_info read_neff(std::string_view bytes, const read_options& options = {});
// The file name the header carries ("file.neff"), printable, at most 255
// characters; empty when there is none.
std::string header_name(std::string_view bytes);

// Bytes of one element of a tensor_map dtype; 0 for one it does not know.
std::uint64_t dtype_bytes(std::string_view dtype);

} // namespace neuron::neff
