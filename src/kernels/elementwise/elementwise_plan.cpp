#include "kernels/elementwise/elementwise_plan.h"

#include <algorithm>
#include <string>

#include "common/activation.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::elementwise {

// The codes the shader reads are the enums' values.
static_assert(uint32_t(BinaryOp::add) == OG_BIN_ADD && uint32_t(BinaryOp::sub) == OG_BIN_SUB &&
              uint32_t(BinaryOp::mul) == OG_BIN_MUL && uint32_t(BinaryOp::div) == OG_BIN_DIV &&
              uint32_t(BinaryOp::pow) == OG_BIN_POW && uint32_t(BinaryOp::min) == OG_BIN_MIN &&
              uint32_t(BinaryOp::max) == OG_BIN_MAX);
static_assert(uint32_t(CompareOp::equal) == OG_CMP_EQUAL && uint32_t(CompareOp::less) == OG_CMP_LESS &&
              uint32_t(CompareOp::greater) == OG_CMP_GREATER && uint32_t(CompareOp::less_equal) == OG_CMP_LESS_EQUAL &&
              uint32_t(CompareOp::greater_equal) == OG_CMP_GREATER_EQUAL);
static_assert(uint32_t(IntegerOp::add) == OG_INT_ADD && uint32_t(IntegerOp::sub) == OG_INT_SUB &&
              uint32_t(IntegerOp::mul) == OG_INT_MUL && uint32_t(IntegerOp::div) == OG_INT_DIV &&
              uint32_t(IntegerOp::mod) == OG_INT_MOD && uint32_t(IntegerOp::fmod) == OG_INT_FMOD &&
              uint32_t(IntegerOp::min) == OG_INT_MIN && uint32_t(IntegerOp::max) == OG_INT_MAX &&
              uint32_t(IntegerOp::logical_and) == OG_INT_AND && uint32_t(IntegerOp::logical_or) == OG_INT_OR &&
              uint32_t(IntegerOp::logical_xor) == OG_INT_XOR);
static_assert(uint32_t(IntegerUnaryOp::neg) == OG_INT_NEG && uint32_t(IntegerUnaryOp::abs) == OG_INT_ABS &&
              uint32_t(IntegerUnaryOp::logical_not) == OG_INT_NOT);
static_assert(uint32_t(Group::float_ops) == OG_ELT_GROUP_FLOAT && uint32_t(Group::where) == OG_ELT_GROUP_WHERE &&
              uint32_t(Group::cast) == OG_ELT_GROUP_CAST && uint32_t(Group::integer) == OG_ELT_GROUP_INTEGER &&
              uint32_t(Group::fill) == OG_ELT_GROUP_FILL);
static_assert(uint32_t(Walk::same_shape) == OG_ELT_WALK_SAME_SHAPE && uint32_t(Walk::rows) == OG_ELT_WALK_ROWS &&
              uint32_t(Walk::broadcast) == OG_ELT_WALK_BROADCAST);
static_assert(uint32_t(Fixed::any) == OG_ELT_FIXED_ANY && uint32_t(Fixed::word32) == OG_ELT_FIXED_WORD32 &&
              uint32_t(Fixed::int64) == OG_ELT_FIXED_I64);

namespace {

// The codes word's fields: none overlaps another, all fit 32 bits, every code fits its field.
struct Field {
  uint32_t shift, width;
  constexpr uint64_t mask() const { return ((uint64_t(1) << width) - 1) << shift; }
  constexpr bool fits(uint64_t value) const { return value < (uint64_t(1) << width); }
};
constexpr Field kOp{OG_ELT_OP_SHIFT, OG_ELT_OP_WIDTH}, kKind{OG_ELT_KIND_SHIFT, OG_ELT_KIND_WIDTH},
    kInType{OG_ELT_IN_TYPE_SHIFT, OG_ELT_IN_TYPE_WIDTH}, kOutType{OG_ELT_OUT_TYPE_SHIFT, OG_ELT_OUT_TYPE_WIDTH},
    kAct{OG_ELT_ACT_SHIFT, OG_ELT_ACT_WIDTH}, kRank{OG_ELT_RANK_SHIFT, OG_ELT_RANK_WIDTH};
constexpr Field kFields[] = {kOp, kKind, kInType, kOutType, kAct, kRank};
constexpr bool fields_apart() {
  for (size_t i = 0; i < std::size(kFields); ++i) {
    if ((kFields[i].mask() >> 32) != 0) return false;
    for (size_t j = i + 1; j < std::size(kFields); ++j)
      if ((kFields[i].mask() & kFields[j].mask()) != 0) return false;
  }
  return true;
}
static_assert(fields_apart(), "the codes word's fields overlap or pass bit 31");
static_assert(kOp.fits(OG_UN_COUNT - 1) && kOp.fits(OG_BIN_MAX) && kOp.fits(OG_CMP_GREATER_EQUAL) &&
              kOp.fits(OG_INT_XOR) && kOp.fits(OG_INT_NOT));
static_assert(kKind.fits(OG_ELT_RANGE));
static_assert(kInType.fits(OG_T_BOOL) && kOutType.fits(OG_T_BOOL));
static_assert(kAct.fits(OG_UN_COUNT - 1));
static_assert(kRank.fits(OG_ELT_MAX_RANK) && OG_ELT_MAX_RANK == kMaxMergedRank);

std::string name_of(DataType t) { return std::string(data_type_name(t)); }

[[noreturn]] void type_error(const Request& r, const char* argument, DataType t, const char* expected) {
  throw KernelShapeError(r.operation, argument, name_of(t) + " is not " + expected);
}

void same_type(const Request& r, const Operand& x, const Operand& first) {
  if (x.type != first.type)
    throw KernelShapeError(r.operation, x.name, name_of(x.type) + " does not match " + first.name + "'s " + name_of(first.type));
}

bool is_float_pair(DataType t) { return t == DataType::float32 || t == DataType::float16; }
bool is_int(DataType t) { return t == DataType::int32 || t == DataType::int64; }
bool is_cast_type(DataType t) { return is_float_pair(t) || is_int(t) || t == DataType::boolean; }
// The element types the shader knows (3 bits: float32 .. bool).
bool is_shader_type(DataType t) { return uint32_t(t) <= OG_T_BOOL; }

void check_types(const Request& r) {
  const Operand* in = r.inputs.data();
  const Operand& out = r.out;
  switch (r.kind) {
    case ElementwiseOperation::binary:
    case ElementwiseOperation::unary:
    case ElementwiseOperation::compare:
      if (!is_float_pair(in[0].type)) type_error(r, in[0].name, in[0].type, "float32 or float16");
      for (uint32_t k = 1; k < r.input_count; ++k) same_type(r, in[k], in[0]);
      if (r.kind == ElementwiseOperation::compare) {
        if (out.type != DataType::boolean) type_error(r, out.name, out.type, "bool");
      } else {
        same_type(r, out, in[0]);
      }
      return;
    case ElementwiseOperation::where:  // slots: x, y, cond
      if (in[2].type != DataType::boolean) type_error(r, in[2].name, in[2].type, "bool");
      if (!is_shader_type(in[0].type) || in[0].type == DataType::boolean)
        type_error(r, in[0].name, in[0].type, "float32, float16, int32, uint32 or int64");
      same_type(r, in[1], in[0]);
      same_type(r, out, in[0]);
      return;
    case ElementwiseOperation::cast:
      if (!is_cast_type(in[0].type)) type_error(r, in[0].name, in[0].type, "a Cast type (float32, float16, int32, int64, bool)");
      if (!is_cast_type(out.type)) type_error(r, out.name, out.type, "a Cast type (float32, float16, int32, int64, bool)");
      return;
    case ElementwiseOperation::integer_binary:
    case ElementwiseOperation::integer_unary: {
      const bool logic = r.kind == ElementwiseOperation::integer_binary ? r.op >= OG_INT_AND : r.op == OG_INT_NOT;
      if (logic ? in[0].type != DataType::boolean : !is_int(in[0].type))
        type_error(r, in[0].name, in[0].type, logic ? "bool" : "int32 or int64");
      for (uint32_t k = 1; k < r.input_count; ++k) same_type(r, in[k], in[0]);
      same_type(r, out, in[0]);
      return;
    }
    case ElementwiseOperation::integer_compare:
      if (!is_int(in[0].type) && in[0].type != DataType::boolean) type_error(r, in[0].name, in[0].type, "int32, int64 or bool");
      same_type(r, in[1], in[0]);
      if (out.type != DataType::boolean) type_error(r, out.name, out.type, "bool");
      return;
    case ElementwiseOperation::fill:
      if (!is_shader_type(out.type)) type_error(r, out.name, out.type, "a Fill type (float32, float16, int32, uint32, int64, bool)");
      return;
    case ElementwiseOperation::range:
      if (!is_float_pair(out.type) && !is_int(out.type)) type_error(r, out.name, out.type, "a Range type (float32, float16, int32, int64)");
      return;
  }
}

bool dense(const Operand& o) { return TensorRef{nullptr, 0, o.shape, o.strides, o.type}.dense(); }

Group group_of(ElementwiseOperation kind) {
  switch (kind) {
    case ElementwiseOperation::binary: case ElementwiseOperation::unary: case ElementwiseOperation::compare:
      return Group::float_ops;
    case ElementwiseOperation::where: return Group::where;
    case ElementwiseOperation::cast: return Group::cast;
    case ElementwiseOperation::integer_binary: case ElementwiseOperation::integer_unary:
    case ElementwiseOperation::integer_compare:
      return Group::integer;
    case ElementwiseOperation::fill: case ElementwiseOperation::range: return Group::fill;
  }
  return Group::float_ops;
}

}  // namespace

uint32_t kind_code(ElementwiseOperation kind) {
  switch (kind) {
    case ElementwiseOperation::binary: return OG_ELT_BINARY;
    case ElementwiseOperation::unary: return OG_ELT_UNARY;
    case ElementwiseOperation::compare: return OG_ELT_COMPARE;
    case ElementwiseOperation::where: return OG_ELT_WHERE;
    case ElementwiseOperation::cast: return OG_ELT_CAST;
    case ElementwiseOperation::integer_binary: return OG_ELT_INT_BINARY;
    case ElementwiseOperation::integer_unary: return OG_ELT_INT_UNARY;
    case ElementwiseOperation::integer_compare: return OG_ELT_INT_COMPARE;
    case ElementwiseOperation::fill: return OG_ELT_FILL;
    case ElementwiseOperation::range: return OG_ELT_RANGE;
  }
  return OG_ELT_BINARY;
}

Plan plan(const Request& r, const GridLimits& limits) {
  Plan p;
  p.kind = kind_code(r.kind);
  p.group = group_of(r.kind);
  check_types(r);
  // The output: dense, with the result's shape.
  if (!dense(r.out))
    throw KernelShapeError(r.operation, "strides", std::string(r.out.name) + " is not dense row-major (outputs must be)");
  std::array<std::span<const int64_t>, 3> shapes, strides;
  for (uint32_t k = 0; k < r.input_count; ++k) {
    shapes[k] = r.inputs[k].shape;
    strides[k] = r.inputs[k].strides;
  }
  const uint32_t n = r.input_count == 0 ? 1 : r.input_count;
  if (r.input_count == 0) shapes[0] = r.out.shape;
  p.layout = broadcast(r.operation, std::span(shapes.data(), n), std::span(strides.data(), n));
  const Layout& l = p.layout;
  onegpu::element_count(r.out.shape, r.operation, r.out.name);
  if (r.out.shape.size() != l.out_rank ||
      !std::equal(r.out.shape.begin(), r.out.shape.end(), l.out_shape.begin()))
    throw KernelShapeError(r.operation, r.out.name, "its shape is not the result's shape (rank " +
                                                        std::to_string(l.out_rank) + ", " + std::to_string(l.count) +
                                                        " elements)");

  p.in_type = r.input_count == 0 ? r.out.type : r.inputs[0].type;
  const uint64_t per = elements_per_word(r.out.type);
  const uint64_t max_rows = uint64_t(limits.max_workgroup_count[1]) * limits.max_workgroup_count[2];
  p.walk = Walk(path(p.layout, per, r.out.offset, max_rows));
  p.fixed = Fixed(fixed_types(uint32_t(p.group), uint32_t(p.in_type), uint32_t(r.out.type)));
  p.words = OG_ELT_WORDS(uint32_t(p.group), uint32_t(p.walk), uint32_t(p.fixed));
  const uint64_t words_per_workgroup = 256 * p.words;
  if (p.walk == Walk::rows) {
    const uint64_t words_per_row = l.shape[1] / per, rows = l.shape[0];
    const uint64_t y = std::min<uint64_t>(rows, limits.max_workgroup_count[1]);
    p.groups = {uint32_t((words_per_row + words_per_workgroup - 1) / words_per_workgroup), uint32_t(y),
                uint32_t((rows + y - 1) / y)};
  } else if (l.count > 0) {
    const uint64_t words = (r.out.offset + l.count - 1) / per - r.out.offset / per + 1;
    p.linear_groups = (words + words_per_workgroup - 1) / words_per_workgroup;
  }
  return p;
}

EltPush push_constants(const Plan& p, const Request& r) {
  const Layout& l = p.layout;
  EltPush push{};
  const uint32_t act = r.kind == ElementwiseOperation::binary ? uint32_t(r.activation.op) : 0u;
  push.codes = OG_ELT_PACK(r.op, OG_ELT_OP_SHIFT) | OG_ELT_PACK(p.kind, OG_ELT_KIND_SHIFT) |
               OG_ELT_PACK(uint32_t(p.in_type), OG_ELT_IN_TYPE_SHIFT) |
               OG_ELT_PACK(uint32_t(r.out.type), OG_ELT_OUT_TYPE_SHIFT) | OG_ELT_PACK(act, OG_ELT_ACT_SHIFT) |
               OG_ELT_PACK(l.rank, OG_ELT_RANK_SHIFT);
  push.count = uint32_t(l.count);
  push.out_offset = uint32_t(r.out.offset);
  uint32_t* offsets[3] = {&push.offset_a, &push.offset_b, &push.offset_c};
  uint32_t* strides[3] = {push.stride_a, push.stride_b, push.stride_c};
  for (uint32_t k = 0; k < r.input_count; ++k) {
    *offsets[k] = uint32_t(r.inputs[k].offset);
    for (uint32_t d = 0; d < l.rank; ++d) strides[k][d] = uint32_t(l.stride[k][d]);
  }
  for (uint32_t d = 0; d < l.rank; ++d) push.shape[d] = uint32_t(l.shape[d]);
  const bool act_params = r.kind == ElementwiseOperation::binary;
  push.alpha = act_params ? r.activation.params.alpha : r.alpha;
  push.beta = act_params ? r.activation.params.beta : r.beta;
  if (r.kind == ElementwiseOperation::fill || r.kind == ElementwiseOperation::range)
    for (size_t i = 0; i < r.values.size(); ++i) push.stride_a[i] = r.values[i];
  return push;
}

}  // namespace onegpu::kernels::elementwise
