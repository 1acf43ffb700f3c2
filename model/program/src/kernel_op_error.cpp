#include "kernel_op_error.h"

#include "neuron/model/spec/errors.h"

#include <fmt/format.h>

namespace neuron::model {

std::string where(const kernel& k, const kernel_op& op) {
    if (op.at.line == 0) return k.file.empty() ? std::string() : k.file + ": ";
    return fmt::format("{}:{}:{}: ", k.file, op.at.line, op.at.column);
}

void refuse(const kernel& k, const kernel_op& op, std::string_view what) {
    throw invalid_argument_error(fmt::format("{}{}: {}", where(k, op), info(op.op).name, what));
}

} // namespace neuron::model
