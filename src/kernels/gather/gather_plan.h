// Gather decisions that need no GPU: the output shapes, the checks on types, ranks, axes and
// counts, the variant (shaders/gather/*.comp: MODE, WIDTH, UNIT), the grid and the push constants.
// Each check is made once, here; the family only adds the buffers' checks and records.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "gather/gather_push.h"
#include "onegpu/kernels/gather.h"
#include "kernels/common/operand.h"
#include "onegpu/tensor.h"

namespace onegpu::kernels::gather {

using kernels::Operand;
using kernels::operand_of;

struct Request {
  GatherOperation operation = GatherOperation::gather;
  Operand data, indices, out;
  int64_t axis = 0;  // batch_dims for GatherND
};

// How the variant walks the output (the shader's MODE).
enum class Path : uint32_t { index = 0, elements = 1, rows = 2 };

struct Plan {
  Path path = Path::index;
  uint32_t width = 32;     // payload bits (index and elements paths)
  uint32_t unit = 4;       // bytes per unit (rows path): 4 or 16
  GatherPush push{};       // codes without the record flag and index width set by the caller
  uint64_t workgroups = 0;
  // What each tensor reaches, in elements from its offset.
  uint64_t data_elements = 0, index_elements = 0, out_elements = 0;
  bool empty() const { return out_elements == 0; }
};

// The name errors start with: "Gather", "GatherElements", "GatherND".
const char* operation_name(GatherOperation op);

std::vector<int64_t> gather_shape(std::span<const int64_t> data, std::span<const int64_t> indices, int64_t axis);
std::vector<int64_t> gather_nd_shape(std::span<const int64_t> data, std::span<const int64_t> indices,
                                     int64_t batch_dims);

// Checks the request and plans it; KernelShapeError(operation, argument) on the first problem.
Plan plan(const Request& request);

// The variant table's name for a plan: "gather.rows.uvec4", "gather.rows.word",
// "gather.index.w<bits>", "gather.elements.w<bits>".
std::string_view variant_name(const Plan& plan);

}  // namespace onegpu::kernels::gather
