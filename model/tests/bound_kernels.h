#pragma once

// Kernels of a few instructions bound for a device, without a simulation:
// what each instruction costs and what binding refuses.

#include "neuron/model/program/kernel.h"
#include "neuron/model/program/program_builder.h"
#include "neuron/model/spec/errors.h"

#include <memory>
#include <string>

namespace neuron::model::testing {

inline kernel_op op_of(opcode code, std::uint32_t partitions, std::uint64_t free) {
    kernel_op op;
    op.op = code;
    op.partitions = partitions;
    op.free = free;
    return op;
}

inline kernel_op matmul(std::uint64_t stationary_free, std::uint64_t moving_free,
                        costs::element_type type = costs::element_type::bf16) {
    auto op = op_of(opcode::nc_matmul, 128, moving_free);
    op.stationary_free = stationary_free;
    op.dtype = type;
    op.to = memory_kind::psum;
    return op;
}

// A kernel of `op` alone on engine `e`, from "m.yaml".
inline kernel one(engine_kind e, kernel_op op) {
    kernel k;
    k.file = "m.yaml";
    k.streams[static_cast<std::size_t>(e)].push_back(op);
    return k;
}

inline std::shared_ptr<const program> bind(const kernel& k, device_kind d = device_kind::trainium) {
    compiled_model m;
    m.program = std::make_shared<kernel>(k);
    return build_program(m, spec_of(d));
}

// What `op` alone on engine `e` costs once bound.
inline std::uint64_t busy_ps(engine_kind e, const kernel_op& op, device_kind d = device_kind::trainium) {
    return bind(one(e, op), d)->streams[static_cast<std::size_t>(e)].front().busy_ps;
}

// The message binding `k` fails with, or "" when it binds.
template <typename Error = invalid_argument_error>
std::string error_of(const kernel& k, device_kind d = device_kind::trainium) {
    try {
        bind(k, d);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

} // namespace neuron::model::testing
