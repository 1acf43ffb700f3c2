#include "neuron/model/spec/instance_catalogue.h"

#include "neuron/model/spec/errors.h"

#include <array>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

namespace neuron::model {
namespace {

constexpr std::array catalogue{
    instance_type{"inf1.xlarge", device_kind::inferentia, 1},
    instance_type{"inf1.2xlarge", device_kind::inferentia, 1},
    instance_type{"inf1.6xlarge", device_kind::inferentia, 4},
    instance_type{"inf1.24xlarge", device_kind::inferentia, 16},
    instance_type{"inf2.xlarge", device_kind::inferentia2, 1},
    instance_type{"inf2.8xlarge", device_kind::inferentia2, 1},
    instance_type{"inf2.24xlarge", device_kind::inferentia2, 6},
    instance_type{"inf2.48xlarge", device_kind::inferentia2, 12},
    instance_type{"trn1.2xlarge", device_kind::trainium, 1},
    instance_type{"trn1.32xlarge", device_kind::trainium, 16},
    instance_type{"trn1n.32xlarge", device_kind::trainium, 16},
    instance_type{"trn2.3xlarge", device_kind::trainium2, 1},
    instance_type{"trn2.48xlarge", device_kind::trainium2, 16},
    instance_type{"trn2u.48xlarge", device_kind::trainium2, 16},
};

} // namespace

std::span<const instance_type> instance_catalogue() { return catalogue; }

const instance_type& find_instance_type(std::string_view name) {
    for (const auto& type : catalogue) {
        if (type.name == name) return type;
    }
    std::vector<std::string_view> names;
    for (const auto& type : catalogue) names.push_back(type.name);
    throw unknown_instance_error(
        fmt::format("unknown instance type '{}'; valid types: {}", name, fmt::join(names, ", ")));
}

} // namespace neuron::model
