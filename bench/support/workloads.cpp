#include "support/workloads.h"

namespace neuron::bench {
namespace {

using model::engine_kind;
using model::kernel;
using model::kernel_op;
using model::memory_kind;
using model::opcode;

kernel_op op(opcode code, std::uint32_t partitions, std::uint64_t free) {
    kernel_op o;
    o.op = code;
    o.partitions = partitions;
    o.free = free;
    return o;
}

} // namespace

model::kernel synthetic_layer(std::uint32_t blocks) {
    kernel k;
    auto& sync = k.streams[static_cast<std::size_t>(engine_kind::sync)];
    auto& tensor = k.streams[static_cast<std::size_t>(engine_kind::tensor)];
    auto& scalar = k.streams[static_cast<std::size_t>(engine_kind::scalar)];
    auto& vector = k.streams[static_cast<std::size_t>(engine_kind::vector)];
    for (std::uint32_t b = 0; b < blocks; ++b) {
        for (int l = 0; l < 2; ++l) {
            auto load = op(opcode::dma_copy, 128, 2048);
            load.from = memory_kind::hbm;
            load.signal_semaphore = 0;
            if (b > 0 && l == 0) {
                load.wait_semaphore = 1; // the matmuls read the previous tiles
                load.wait_value = b;
            }
            sync.push_back(load);
        }
        for (int m = 0; m < 4; ++m) {
            auto mm = op(opcode::nc_matmul, 128, 512);
            mm.stationary_free = 128;
            mm.to = memory_kind::psum;
            if (m == 0) {
                mm.wait_semaphore = 0;
                mm.wait_value = 32 * (b + 1);
            }
            if (m == 3) mm.signal_semaphore = 1;
            tensor.push_back(mm);
        }
        auto act = op(opcode::activation, 128, 512);
        act.from = memory_kind::psum;
        act.wait_semaphore = 1;
        act.wait_value = b + 1;
        act.signal_semaphore = 2;
        scalar.push_back(act);
        auto copy = op(opcode::tensor_copy, 128, 512);
        copy.wait_semaphore = 2;
        copy.wait_value = b + 1;
        vector.push_back(copy);
    }
    return k;
}

model::kernel looped_layer(std::uint64_t blocks) {
    kernel k;
    auto& sync = k.streams[static_cast<std::size_t>(engine_kind::sync)];
    auto& tensor = k.streams[static_cast<std::size_t>(engine_kind::tensor)];
    auto& scalar = k.streams[static_cast<std::size_t>(engine_kind::scalar)];
    auto& vector = k.streams[static_cast<std::size_t>(engine_kind::vector)];
    auto load = op(opcode::dma_copy, 128, 2048);
    load.from = memory_kind::hbm;
    load.signal_semaphore = 0;
    sync.push_back(load);
    sync.push_back(load);
    if (blocks > 1) {
        sync.begin_loop(blocks - 1, 0, {{1, 1}});
        auto waiting = load;
        waiting.wait_semaphore = 1; // the matmuls read the previous tiles
        waiting.wait_value = 1;
        sync.push_back(waiting);
        sync.push_back(load);
        sync.end_loop();
    }
    auto mm = op(opcode::nc_matmul, 128, 512);
    mm.stationary_free = 128;
    mm.to = memory_kind::psum;
    tensor.begin_loop(blocks, 0, {{0, 32}});
    auto first = mm;
    first.wait_semaphore = 0;
    first.wait_value = 32;
    tensor.push_back(first);
    tensor.push_back(mm);
    tensor.push_back(mm);
    auto last = mm;
    last.signal_semaphore = 1;
    tensor.push_back(last);
    tensor.end_loop();
    auto act = op(opcode::activation, 128, 512);
    act.from = memory_kind::psum;
    act.wait_semaphore = 1;
    act.wait_value = 1;
    act.signal_semaphore = 2;
    scalar.begin_loop(blocks, 0, {{1, 1}});
    scalar.push_back(act);
    scalar.end_loop();
    auto copy = op(opcode::tensor_copy, 128, 512);
    copy.wait_semaphore = 2;
    copy.wait_value = 1;
    vector.begin_loop(blocks, 0, {{2, 1}});
    vector.push_back(copy);
    vector.end_loop();
    return k;
}

} // namespace neuron::bench
