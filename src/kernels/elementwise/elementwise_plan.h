// Element-wise decisions that need no GPU: type checks, the broadcast layout (broadcast.h), the
// variant (GROUP, BCAST, FIXED of shaders/elementwise/elementwise.comp), the grid and the push
// constants. Each check is made once, here; encode only adds the buffers' checks and records.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "elementwise/elementwise_push.h"
#include "kernels/elementwise/broadcast.h"
#include "onegpu/kernels/elementwise.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels::elementwise {

// elementwise.comp's GROUP: which operations a variant compiles.
enum class Group : uint32_t { float_ops = 0, where = 1, cast = 2, integer = 3, fill = 4 };
// BCAST: how the kernel walks the operands.
enum class Walk : uint32_t { same_shape = 0, rows = 1, broadcast = 2 };
// FIXED: operand types read from the push constants (any) or fixed at compile time.
enum class Fixed : uint32_t { any = 0, word32 = 1, int64 = 2 };  // word32: f32 / i32 / any 32-bit word

// The variants the family declares (src/kernels/elementwise/CMakeLists.txt): every combination
// plan() can choose. elementwise.cpp checks at compile time that each has a row in the table.
constexpr bool declared(Group g, Walk w, Fixed f) {
  switch (g) {
    case Group::float_ops: return f != Fixed::int64;
    case Group::where: case Group::integer: return true;
    case Group::cast: return f == Fixed::any;
    case Group::fill: return w == Walk::same_shape && f == Fixed::any;
  }
  return false;
}

// A TensorRef without its buffer.
struct Operand {
  std::span<const int64_t> shape, strides;
  DataType type = DataType::float32;
  uint64_t offset = 0;
  const char* name = "x";
};
inline Operand operand_of(const TensorRef& t, const char* name) { return {t.shape, t.strides, t.type, t.offset, name}; }

struct Request {
  const char* operation = "Elementwise";  // the name errors start with
  ElementwiseOperation kind = ElementwiseOperation::binary;
  uint32_t op = 0;                        // the operation's code (BinaryOp, ...)
  // In the shader's slot order: a, b, c (Where: x, y, cond).
  std::array<Operand, 3> inputs{};
  uint32_t input_count = 0;
  Operand out;
  UnaryFunction activation{};  // binary only
  float alpha = 0, beta = 0;   // unary parameters; Range's float start and delta
  std::array<uint32_t, 4> values{};  // Fill's value (two words); Range's integer start and delta
};

// What the device allows the grid.
struct GridLimits {
  std::array<uint32_t, 3> max_workgroup_count{65535, 65535, 65535};
};

struct Plan {
  Layout layout;
  uint32_t kind = 0;  // OG_ELT_*
  Group group = Group::float_ops;
  Walk walk = Walk::same_shape;
  Fixed fixed = Fixed::any;
  DataType in_type = DataType::float32;  // the type the shader reads its operands as
  uint32_t words = 4;                    // output words per invocation
  // Workgroups: rows walk (x, y, z); otherwise linear (a count the encoder spreads over the grid).
  std::array<uint32_t, 3> groups{1, 1, 1};
  uint64_t linear_groups = 0;
  bool empty() const { return layout.count == 0; }
};

// Checks types, strides, the output's shape and density, and the counts; chooses the variant and
// the grid. Throws KernelShapeError(request.operation, argument, ...). Allocates nothing.
Plan plan(const Request& request, const GridLimits& limits = {});

// The push constants of a plan.
EltPush push_constants(const Plan& plan, const Request& request);

// The shader's kind code of an operation.
uint32_t kind_code(ElementwiseOperation kind);

}  // namespace onegpu::kernels::elementwise
