// Model files (what nrt_load sends the emulator): any bytes, parsed as the
// control server parses them. A yaml_error or model_error is the expected
// answer to bad input; anything else escaping, a crash, a hang or a blow-up
// of memory is a finding. A file that parses is then used as a load and an
// execution would use it (duration on every device generation, fault
// triggers, device prints), since those read the values the parser let through.

#include "neuron/common/yaml_fields.h"
#include "neuron/control/model_file.h"
#include "neuron/model/runtime/loaded_model.h"
#include "neuron/model/spec/device_spec.h"
#include "neuron/model/spec/errors.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using namespace neuron;

constexpr model::device_kind every_kind[] = {model::device_kind::inferentia, model::device_kind::inferentia2,
                                             model::device_kind::trainium, model::device_kind::trainium2};

void use(control::model_definition definition) {
    for (const auto kind : every_kind) {
        try {
            (void)model::execution_duration(definition, model::spec_of(kind));
        } catch (const model::unsupported_error&) {}
    }
    model::loaded_model loaded(1, std::move(definition), 0);
    for (int i = 0; i < 3; ++i) {
        const auto next = loaded.begin_execution();
        (void)loaded.prints(next.number, model::physical_core{0, 0});
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    (void)control::looks_like_model_file(bytes);
    try {
        use(control::parse_model_file(bytes, "fuzz"));
    } catch (const common::yaml_error&) {
    } catch (const model::model_error&) {}
    return 0;
}
