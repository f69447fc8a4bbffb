#include "kernels/common/variant.h"

#include <stdexcept>
#include <string>

#include "onegpu/errors.h"

namespace onegpu::kernels {

const ShaderSource& Variant::source() const {
  if (!built())
    throw UnsupportedError("shader_compiler", std::string(name()) + " (needs " + std::string(row_->requires_features) + ")",
                           "built without it");
  return row_->source();
}

void VariantTable::throw_unknown(std::string_view name) {
  throw std::logic_error("no kernel variant named " + std::string(name));
}

}  // namespace onegpu::kernels
