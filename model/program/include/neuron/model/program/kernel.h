#pragma once

#include "neuron/model/program/compiled_model.h"
#include "neuron/model/program/looped_stream.h"
#include "neuron/model/spec/device_spec.h"
#include "neuron/model/spec/engine_costs.h"
#include "neuron/model/spec/memory_kind.h"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// A kernel: what a model file's `program:` says, before it is bound to a
// device generation. Instructions are named and shaped as the NKI ISA names
// them (engines.md A.3); build_program() turns them into timed instructions
// for one device and checks them against it.
namespace neuron::model {

enum class opcode : std::uint8_t {
    nc_matmul,
    nc_transpose,
    activation,
    activation_reduce,
    tensor_tensor,
    tensor_tensor_scan,
    tensor_scalar,
    scalar_tensor_tensor,
    tensor_scalar_reduce,
    tensor_reduce,
    tensor_copy,
    tensor_copy_predicated,
    reciprocal,
    bn_stats,
    bn_aggr,
    memset,
    iota,
    affine_select,
    range_select,
    dma_copy,
    print, // a device print, emitted when the instruction runs
};

// One row per opcode: its name in a model file and the engines that run it
// (engines.md A.3). `dma_copy` and `print` may be issued from any engine.
struct opcode_info {
    opcode op;
    std::string_view name;
    std::uint8_t engines;      // bit (1 << engine_kind)
    bool second_input = false; // it reads a second tile, placed by `from2`
};
std::span<const opcode_info> opcodes();
const opcode_info& info(opcode op);
std::optional<opcode> find_opcode(std::string_view name);
// "nc_matmul, nc_transpose, ...", for a message naming the valid ones.
std::string opcode_names();

// The ALU operator of tensor_tensor and tensor_reduce: bf16 add/subtract/
// multiply (tensor_tensor) and add/max (tensor_reduce) take a faster path.
enum class alu_op : std::uint8_t { add, subtract, multiply, divide, max, min, power };
std::string_view alu_name(alu_op op);
std::optional<alu_op> find_alu_op(std::string_view name);

// The function an activation applies (nki.language's names). ScalarE
// computes some directly and the others from its lookup tables, which
// costs 4-byte elements more passes (core_costs.h).
enum class activation_function : std::uint8_t {
    copy,
    identity,
    relu,
    square,
    abs,
    exp,
    log,
    tanh,
    sigmoid,
    gelu,
    silu,
    softplus,
    sqrt,
    rsqrt,
    sin,
    erf,
};
std::string_view function_name(activation_function f);
std::optional<activation_function> find_function(std::string_view name);
// "copy, identity, ...", for a message naming the valid ones.
std::string function_names();
bool from_lookup_table(activation_function f);

// Where an instruction was written, for errors; line 0: generated.
struct text_position {
    std::uint32_t line = 0;
    std::uint32_t column = 0;
};

inline constexpr std::uint32_t no_semaphore_index = UINT32_MAX;
inline constexpr std::uint32_t partitions_per_core = 128;
// A dma_copy is split across this many DMA engines unless it says otherwise;
// each one adds 1 to the copy's semaphore when its part ends, even one with
// no data (engines.md A.6), so waiting for a default copy is waiting for 16.
inline constexpr std::uint32_t default_dma_engines = 16;
inline constexpr std::uint32_t dma_queues = 16; // per DMA engine
// PSUM: 8 banks of 512 fp32 per partition; one matmul output fits one (A.1).
inline constexpr std::uint64_t psum_bank_bytes = 2048;
inline constexpr std::uint32_t psum_banks = 8;

// How a dma_copy's descriptors come to be: written by the compiler and
// only triggered (static), or made by the hardware (HWDGE, NC-v3 on).
enum class dma_trigger : std::uint8_t { static_descriptors, hardware };

struct kernel_op {
    opcode op = opcode::tensor_copy;
    costs::element_type dtype = costs::element_type::bf16;
    // A model file left `dtype` out: binding refuses it where the cost
    // depends on the dtype, on the engine and generation it runs on.
    bool dtype_unsaid = false;
    // The tile: `partitions` x `free` elements (for dma_copy, bytes per
    // partition). nc_matmul: the contraction K is `partitions`, the moving
    // tile is [K, free] and the stationary one [K, stationary_free]; it
    // writes [stationary_free, free] fp32 into PSUM.
    std::uint32_t partitions = partitions_per_core;
    std::uint64_t free = 1;
    std::uint64_t stationary_free = 0;
    // Where the instruction reads and writes; `offset` is where its output
    // starts within each partition of `to`, in bytes (SBUF and PSUM only).
    memory_kind from = memory_kind::sbuf;
    memory_kind from2 = memory_kind::sbuf; // a second input (opcode_info::second_input)
    memory_kind to = memory_kind::sbuf;
    std::uint64_t offset = 0;
    alu_op alu = alu_op::add;  // tensor_tensor, tensor_reduce, scalar_tensor_tensor
    alu_op alu1 = alu_op::add; // scalar_tensor_tensor: its second operator, with the second input
    activation_function function = activation_function::copy; // activation, activation_reduce
    double value = 0;                                         // memset
    std::uint32_t queue = 0;                                  // dma_copy: the queue on each DMA engine
    std::uint32_t dma_engines = default_dma_engines;
    dma_trigger trigger = dma_trigger::static_descriptors; // dma_copy
    // dma_copy: each partition's bytes lie in runs of this many contiguous
    // bytes (0: one run), each a descriptor of its own; and whether the DMA
    // transposes its elements (of `dtype`) on the way.
    std::uint64_t contiguous_bytes = 0;
    bool dma_transpose = false;
    std::uint32_t print = no_semaphore_index;          // print: index into kernel::prints
    std::uint32_t wait_semaphore = no_semaphore_index; // waits until it is at least wait_value
    std::uint32_t wait_value = 0;
    more_waits also_waits{};                             // and until each of these is reached (only with a first wait)
    std::uint32_t signal_semaphore = no_semaphore_index; // adds signal_increment when it ends
    std::uint32_t signal_increment = 1;                  // (dma_copy: 1 per DMA engine, fixed)
    std::uint32_t source = no_semaphore_index;           // index into kernel::sources
    text_position at;
};

using kernel_stream = looped_stream<kernel_op>;

struct kernel {
    std::string file;                                // the model file, for errors: "FILE:LINE:COLUMN: ..."
    std::array<kernel_stream, engine_count> streams; // indexed by engine_kind
    std::vector<device_print> prints;
    std::vector<std::string> sources; // "kernel.py:12", as the program wrote them

    // Instructions it runs (loops count trips x body), saturating.
    std::uint64_t instruction_count() const {
        std::uint64_t n = 0;
        for (const auto& s : streams) n = saturating_add(n, s.size());
        return n;
    }
};

// At most this many instructions written in one program (a loop's body
// once), generated or written; and at most this many run per execution
// (loops counted trips x body), which keeps an execution within seconds of
// wall-clock time.
inline constexpr std::size_t max_kernel_instructions = 1u << 20;
inline constexpr std::uint64_t max_executed_instructions = std::uint64_t{1} << 30;

} // namespace neuron::model
