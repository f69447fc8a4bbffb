// Attention decisions without a GPU: defaults and shape checks, buffer checks, the kernel choice,
// the key split (a function of the shape only), scratch length, the cut at the work budget and
// the push constants.
#include <gtest/gtest.h>

#include "kernels/attention/attention_plan.h"
#include "support/shape_error.h"
#include "onegpu/errors.h"

namespace onegpu::kernels::attention {
namespace {

using onegpu::testing::shape_error_message;

AttentionProblem problem(uint64_t b, uint64_t h, uint64_t q, uint64_t k, uint64_t d) {
  AttentionProblem p;
  p.batch = b, p.heads = h, p.query_length = q, p.key_length = k, p.head_dim = d;
  return p;
}

Buffers dense_buffers(const Shape& s, uint64_t esize) {
  Buffers b;
  b.q = {s.q.end * esize, 1};
  b.k = {s.k.end * esize, 2};
  b.v = {s.v.end * esize, 3};
  b.o = {s.o.end * esize, 4};
  return b;
}

TEST(AttentionResolve, DefaultsAreHeadFirstDense) {
  AttentionProblem p = problem(2, 4, 5, 7, 16);
  p.kv_heads = 2;
  const Shape s = resolve(p, DataType::float32, false);
  EXPECT_EQ(s.kv_heads, 2u);
  EXPECT_EQ(s.padded_dim, 32u);
  EXPECT_FLOAT_EQ(s.scale, 0.25f);
  EXPECT_EQ(s.q.row, 16u);
  EXPECT_EQ(s.q.head, 5u * 16);
  EXPECT_EQ(s.q.batch, 4u * 5 * 16);
  EXPECT_EQ(s.q.end, 2u * 4 * 5 * 16);
  EXPECT_EQ(s.k.batch, 2u * 7 * 16);
  EXPECT_EQ(s.k.end, 2u * 2 * 7 * 16);
}

TEST(AttentionResolve, PaddedHeadDims) {
  EXPECT_EQ(padded_head_dim(1), 32u);
  EXPECT_EQ(padded_head_dim(32), 32u);
  EXPECT_EQ(padded_head_dim(40), 64u);
  EXPECT_EQ(padded_head_dim(96), 128u);
  EXPECT_EQ(padded_head_dim(160), 256u);
  EXPECT_EQ(padded_head_dim(256), 256u);
}

TEST(AttentionResolve, CausalOffsetDefaultsAndClamps) {
  AttentionProblem p = problem(1, 1, 3, 10, 8);
  p.causal = true;
  EXPECT_EQ(resolve(p, DataType::float32, false).causal_offset, 7);
  p.causal_offset = -100;
  EXPECT_EQ(resolve(p, DataType::float32, false).causal_offset, -3);
  p.causal_offset = 1000;
  EXPECT_EQ(resolve(p, DataType::float32, false).causal_offset, 10);
}

TEST(AttentionResolve, RejectsBadShapes) {
  EXPECT_NE(shape_error_message([] { resolve(problem(1, 1, 1, 1, 0), DataType::float32, false); }).find("Attention: head_dim"),
            std::string::npos);
  EXPECT_NE(shape_error_message([] { resolve(problem(1, 1, 1, 1, 257), DataType::float32, false); }).find("head_dim"),
            std::string::npos);
  EXPECT_NE(shape_error_message([] { resolve(problem(1, 1, 1, 1, 3), DataType::float16, false); }).find("head_dim"),
            std::string::npos);
  EXPECT_EQ(shape_error_message([] { resolve(problem(1, 1, 1, 1, 3), DataType::float32, false); }), "no error");
  AttentionProblem p = problem(1, 6, 1, 1, 8);
  p.kv_heads = 4;
  EXPECT_NE(shape_error_message([&] { resolve(p, DataType::float32, false); }).find("kv_heads"), std::string::npos);
  EXPECT_NE(shape_error_message([] { resolve(problem(1, 0, 1, 1, 8), DataType::float32, false); }).find("heads"),
            std::string::npos);
  EXPECT_NE(shape_error_message([] { resolve(problem(1, 1, 1ull << 30, 1, 8), DataType::float32, false); })
                .find("query_length"),
            std::string::npos);
  // Odd offsets of 16-bit tensors.
  AttentionProblem odd = problem(1, 1, 2, 2, 8);
  odd.q = AttentionLayout{1, 16, 16, 8};
  EXPECT_NE(shape_error_message([&] { resolve(odd, DataType::float16, false); }).find("Attention: q"), std::string::npos);
  EXPECT_EQ(shape_error_message([&] { resolve(odd, DataType::float32, false); }), "no error");
  // Output rows that overlap.
  AttentionProblem overlap = problem(1, 2, 3, 3, 8);
  overlap.o = AttentionLayout{0, 0, 8, 4};
  EXPECT_NE(shape_error_message([&] { resolve(overlap, DataType::float32, false); }).find("Attention: o"), std::string::npos);
  // Extents past 64 bits.
  AttentionProblem huge = problem(3, 1, 1, 1, 8);
  huge.q = AttentionLayout{0, UINT64_MAX / 2, 0, 0};
  EXPECT_NE(shape_error_message([&] { resolve(huge, DataType::float32, false); }).find("Attention: q"), std::string::npos);
}

TEST(AttentionResolve, PositionFirstAndPackedLayouts) {
  const AttentionLayout pf = AttentionLayout::position_first(4, 10, 16);
  EXPECT_EQ(pf.row_stride, 64u);
  EXPECT_EQ(pf.head_stride, 16u);
  EXPECT_EQ(pf.batch_stride, 640u);
  const AttentionLayout pk = AttentionLayout::packed_qkv(AttentionLayout::Part::value, 4, 2, 10, 16);
  EXPECT_EQ(pk.offset, 6u * 16);
  EXPECT_EQ(pk.row_stride, 8u * 16);
  EXPECT_EQ(pk.batch_stride, 10u * 8 * 16);
  const AttentionMaskLayout m = AttentionMaskLayout::broadcast(3, 1, 1, 20);
  EXPECT_EQ(m.batch_stride, 20u);
  EXPECT_EQ(m.head_stride, 0u);
  EXPECT_EQ(m.row_stride, 0u);
}

TEST(AttentionChoice, KernelsAndRefusals) {
  Choice c;
  EXPECT_EQ(choose_kernel(c), Kernel::rows);
  c.preference = AttentionVariant::pairs;
  EXPECT_THROW(choose_kernel(c), UnsupportedError);  // no shuffles
  c.has_shuffle = true;
  EXPECT_EQ(choose_kernel(c), Kernel::pairs);
  c.allow_subgroups = false;
  EXPECT_THROW(choose_kernel(c), UnsupportedError);
  c = {};
  c.preference = AttentionVariant::cooperative;
  c.type = DataType::float16;
  EXPECT_THROW(choose_kernel(c), UnsupportedError);  // no matrix kernel
  c.cooperative_available = true;
  EXPECT_EQ(choose_kernel(c), Kernel::cooperative);
  c.type = DataType::float32;
  EXPECT_THROW(choose_kernel(c), UnsupportedError);
  // Automatic: the matrix kernel for 16-bit types where available, unless ruled out.
  c = {};
  c.type = DataType::bfloat16;
  c.cooperative_available = true;
  EXPECT_EQ(choose_kernel(c), Kernel::cooperative);
  c.allow_matrix_hardware = false;
  EXPECT_EQ(choose_kernel(c), Kernel::rows);
  c.allow_matrix_hardware = true;
  c.type = DataType::float32;
  EXPECT_EQ(choose_kernel(c), Kernel::rows);
}

TEST(AttentionPlan, VariantNames) {
  const Shape s = resolve(problem(8, 12, 512, 512, 64), DataType::float16, false);
  EXPECT_EQ(variant_name(plan(s, DataType::float16, Kernel::rows)), "attention.rows.f16.d64");
  EXPECT_EQ(variant_name(plan(s, DataType::float16, Kernel::pairs)), "attention.pairs.f16.d64");
  const Shape odd = resolve(problem(8, 12, 512, 512, 40), DataType::float32, false);
  EXPECT_EQ(variant_name(plan(odd, DataType::float32, Kernel::rows)), "attention.rows.f32.d64");
  const Shape wide = resolve(problem(8, 12, 512, 512, 160), DataType::bfloat16, false);
  // The matrix kernel stops at 128; rows takes the rest.
  EXPECT_EQ(variant_name(plan(wide, DataType::bfloat16, Kernel::cooperative)), "attention.rows.bf16.d256");
  // Every scalar name the plan gives is declared.
  for (const char* e : {"f32", "f16", "bf16"})
    for (int pd : {32, 64, 128, 256})
      for (const char* k : {"rows", "pairs"})
        EXPECT_TRUE(variants().has(std::string("attention.") + k + "." + e + ".d" + std::to_string(pd)));
}

TEST(AttentionPlan, BlockwiseForLongWalksOfNarrowHeads) {
  const Shape whisper = resolve(problem(1, 12, 1500, 1500, 64), DataType::float32, false);
  const Plan p = plan(whisper, DataType::float32, Kernel::rows);
  EXPECT_EQ(p.split.splits, 1u);
  EXPECT_TRUE(p.blockwise);
  EXPECT_EQ(variant_name(p), "attention.rows.f32.d64.blockwise");
  EXPECT_FALSE(plan(resolve(problem(1, 12, 1500, 639, 64), DataType::float32, false), DataType::float32, Kernel::rows)
                   .blockwise);
  EXPECT_FALSE(plan(resolve(problem(1, 12, 1500, 1500, 128), DataType::float32, false), DataType::float32,
                    Kernel::rows)
                   .blockwise);
  EXPECT_TRUE(variants().has(p.variant.name()));
}

TEST(AttentionSplit, DependsOnlyOnTheShape) {
  // Decoder step: 1 query, 4096 keys, 32 heads: 32 blocks, 8 ranges of 512.
  const Shape dec = resolve(problem(1, 32, 1, 4096, 128), DataType::float16, false);
  const Split sp = split_keys(dec);
  EXPECT_EQ(sp.splits, 8u);
  EXPECT_EQ(sp.chunk, 512u);
  // The same for every kernel, element type and layout.
  for (Kernel k : {Kernel::rows, Kernel::pairs}) {
    EXPECT_EQ(plan(dec, DataType::float16, k).split.splits, 8u);
    EXPECT_EQ(plan(dec, DataType::float32, k).split.chunk, 512u);
  }
  AttentionProblem pf = problem(1, 32, 1, 4096, 128);
  pf.q = AttentionLayout::position_first(32, 1, 128);
  EXPECT_EQ(split_keys(resolve(pf, DataType::float32, false)).splits, 8u);
  // Few blocks: at most 16 ranges, each a multiple of 32 keys and at least 128.
  const Split one = split_keys(resolve(problem(1, 1, 1, 100000, 64), DataType::float32, false));
  EXPECT_EQ(one.splits, 16u);
  EXPECT_EQ(one.chunk % 32, 0u);
  EXPECT_GE(one.chunk * one.splits, 100000u);
  EXPECT_LT(one.chunk * (one.splits - 1), 100000u);
  const Split short_keys = split_keys(resolve(problem(1, 1, 1, 300, 64), DataType::float32, false));
  EXPECT_EQ(short_keys.chunk, 128u);
  EXPECT_EQ(short_keys.splits, 3u);
  // Too few keys, or enough blocks: no split.
  EXPECT_EQ(split_keys(resolve(problem(1, 1, 1, 128, 64), DataType::float32, false)).splits, 1u);
  EXPECT_EQ(split_keys(resolve(problem(8, 12, 512, 512, 64), DataType::float32, false)).splits, 1u);
  EXPECT_EQ(split_keys(resolve(problem(1, 1, 1, 0, 64), DataType::float32, false)).splits, 1u);
}

TEST(AttentionSplit, ScratchLength) {
  const Shape dec = resolve(problem(2, 4, 3, 4096, 64), DataType::float32, false);
  const Split sp = split_keys(dec);
  ASSERT_GT(sp.splits, 1u);
  EXPECT_EQ(scratch_floats(dec), 2u * 4 * 3 * sp.splits * 66);
  EXPECT_EQ(scratch_floats(resolve(problem(8, 12, 512, 512, 64), DataType::float32, false)), 0u);
}

TEST(AttentionCut, PiecesOfWholeWorkgroups) {
  const Shape s = resolve(problem(2, 12, 1500, 1500, 64), DataType::float32, false);
  const Plan p = plan(s, DataType::float32, Kernel::rows);
  EXPECT_EQ(p.workgroups, 2u * 12 * 24);
  EXPECT_EQ(p.work, 16ull * 2 * 12 * 1500 * 1500 * 64);
  EXPECT_EQ(pieces(p, 0).size(), 1u);
  EXPECT_EQ(pieces(p, p.work).size(), 1u);
  const auto list = pieces(p, p.work / 10);
  EXPECT_GE(list.size(), 10u);
  uint64_t next = 0;
  for (const Piece& x : list) {
    EXPECT_EQ(x.first, next);
    EXPECT_GT(x.count, 0u);
    EXPECT_LE(x.work, p.work / 10);
    next += x.count;
  }
  EXPECT_EQ(next, p.workgroups);
  // A budget below one workgroup's work: one workgroup per piece.
  EXPECT_EQ(pieces(p, 1).size(), p.workgroups);
}

TEST(AttentionBuffers, Checks) {
  AttentionProblem p = problem(2, 2, 3, 5, 8);
  const Shape s = resolve(p, DataType::float32, true);
  const Plan pl = plan(s, DataType::float32, Kernel::rows);
  Buffers b = dense_buffers(s, 4);
  EXPECT_EQ(shape_error_message([&] { check_buffers(s, DataType::float32, pl, b); }), "no error");
  Buffers small = b;
  small.v.bytes -= 4;
  EXPECT_NE(shape_error_message([&] { check_buffers(s, DataType::float32, pl, small); }).find("Attention: v"),
            std::string::npos);
  Buffers mask = b;
  mask.mask = BufferInfo{(2 * 2 * 3 * 5 - 1) * 4, 5};
  EXPECT_NE(shape_error_message([&] { check_buffers(s, DataType::float32, pl, mask); }).find("Attention: mask"),
            std::string::npos);
  Buffers lengths = b;
  lengths.key_lengths = BufferInfo{4, 6};
  EXPECT_NE(shape_error_message([&] { check_buffers(s, DataType::float32, pl, lengths); }).find("key_lengths"),
            std::string::npos);
  Buffers alias = b;
  alias.o.id = alias.k.id;
  EXPECT_NE(shape_error_message([&] { check_buffers(s, DataType::float32, pl, alias); }).find("Attention: o"),
            std::string::npos);
  // Inputs may share a buffer (packed QKV).
  Buffers packed = b;
  packed.k.id = packed.q.id;
  packed.v.id = packed.q.id;
  packed.q.bytes = packed.k.bytes = packed.v.bytes = 1 << 20;
  EXPECT_EQ(shape_error_message([&] { check_buffers(s, DataType::float32, pl, packed); }), "no error");
  // Scratch too small, or shared with the output.
  const Shape dec = resolve(problem(1, 2, 1, 2048, 8), DataType::float32, false);
  const Plan dp = plan(dec, DataType::float32, Kernel::rows);
  ASSERT_GT(dp.split.splits, 1u);
  Buffers sb = dense_buffers(dec, 4);
  sb.scratch = BufferInfo{scratch_floats(dec) * 4 - 4, 9};
  EXPECT_NE(shape_error_message([&] { check_buffers(dec, DataType::float32, dp, sb); }).find("Attention: scratch"),
            std::string::npos);
  sb.scratch = BufferInfo{scratch_floats(dec) * 4, sb.o.id};
  EXPECT_NE(shape_error_message([&] { check_buffers(dec, DataType::float32, dp, sb); }).find("overlaps scratch"),
            std::string::npos);
}

TEST(AttentionPlan, KeysKernelForFewRows) {
  // A decoder step with grouped heads: 4 query heads per key/value head, one query row each.
  AttentionProblem dec = problem(1, 32, 1, 4096, 128);
  dec.kv_heads = 8;
  const Shape s = resolve(dec, DataType::float16, false);
  EXPECT_TRUE(few_rows(s));
  const Plan p = plan(s, DataType::float16, Kernel::cooperative);
  EXPECT_EQ(p.kernel, Kernel::keys);
  // Eight workgroups without a split: 16 ranges of 256 keys, 128 workgroups.
  EXPECT_EQ(variant_name(p), "attention.keys.f16.d128.split16");
  EXPECT_EQ(p.split.chunk, 256u);
  EXPECT_EQ(p.workgroups, 8u * 16);
  EXPECT_EQ(p.rows_per_workgroup, 4u);
  EXPECT_TRUE(variants().has(p.variant.name()));
  // A forced kernel stays (the matrix kernel and rows serve any number of rows).
  EXPECT_EQ(plan(s, DataType::float16, Kernel::rows, AttentionVariant::rows).kernel, Kernel::rows);
  EXPECT_EQ(plan(s, DataType::float16, Kernel::cooperative, AttentionVariant::cooperative).kernel,
            Kernel::cooperative);
  // 16 rows per key/value head still qualify, 17 do not; above head_dim 128, 8 do.
  EXPECT_TRUE(few_rows(resolve(problem(2, 4, 16, 100, 64), DataType::float32, false)));
  EXPECT_FALSE(few_rows(resolve(problem(2, 4, 17, 100, 64), DataType::float32, false)));
  EXPECT_TRUE(few_rows(resolve(problem(1, 1, 8, 100, 256), DataType::float32, false)));
  EXPECT_FALSE(few_rows(resolve(problem(1, 1, 9, 100, 256), DataType::float32, false)));
  // A forced keys kernel on a problem with more rows gives way to rows.
  const Shape big = resolve(problem(1, 2, 64, 64, 32), DataType::float32, false);
  EXPECT_EQ(plan(big, DataType::float32, Kernel::keys, AttentionVariant::keys).kernel, Kernel::rows);
  // Every keys name is declared.
  for (const char* e : {"f32", "f16", "bf16"})
    for (int pd : {32, 64, 128, 256})
      EXPECT_TRUE(variants().has(std::string("attention.keys.") + e + ".d" + std::to_string(pd)));
}

TEST(AttentionPlan, MatrixKernelFits) {
  const Shape bert = resolve(problem(8, 12, 512, 512, 64), DataType::float16, false);
  EXPECT_TRUE(cooperative_fits(bert));
  EXPECT_EQ(variant_name(plan(bert, DataType::float16, Kernel::cooperative)), "attention.cooperative.f16.d64");
  EXPECT_TRUE(variants().has("attention.cooperative.f16.d32"));
  EXPECT_TRUE(variants().has("attention.cooperative.f16.d128"));
  // Head dimensions: up to 128, multiples of 8 (padded to 32, 64 or 128).
  EXPECT_EQ(variant_name(plan(resolve(problem(1, 2, 100, 100, 40), DataType::float16, false), DataType::float16,
                              Kernel::cooperative)),
            "attention.cooperative.f16.d64");
  EXPECT_FALSE(cooperative_fits(resolve(problem(1, 2, 100, 100, 36), DataType::float16, false)));
  EXPECT_FALSE(cooperative_fits(resolve(problem(1, 2, 100, 100, 136), DataType::float16, false)));
  // Offsets and strides of Q, K and V in whole 16-byte words.
  AttentionProblem odd = problem(1, 2, 100, 100, 64);
  odd.k = AttentionLayout{4, 2 * 100 * 64, 100 * 64, 64};
  const Shape so = resolve(odd, DataType::float16, false);
  EXPECT_FALSE(cooperative_fits(so));
  EXPECT_EQ(plan(so, DataType::float16, Kernel::cooperative, AttentionVariant::cooperative).kernel, Kernel::rows);
  AttentionProblem packed = problem(1, 12, 100, 100, 64);
  packed.q = AttentionLayout::packed_qkv(AttentionLayout::Part::query, 12, 12, 100, 64);
  packed.k = AttentionLayout::packed_qkv(AttentionLayout::Part::key, 12, 12, 100, 64);
  packed.v = AttentionLayout::packed_qkv(AttentionLayout::Part::value, 12, 12, 100, 64);
  EXPECT_TRUE(cooperative_fits(resolve(packed, DataType::float16, false)));
}

TEST(AttentionChoice, WorkgroupMatrixKernel) {
  Choice c;
  c.type = DataType::float16;
  c.preference = AttentionVariant::cooperative2;
  EXPECT_THROW(choose_kernel(c), UnsupportedError);  // not on the device
  c.cooperative2_available = true;
  EXPECT_EQ(choose_kernel(c), Kernel::cooperative2);
  c.allow_matrix_hardware = false;
  EXPECT_THROW(choose_kernel(c), UnsupportedError);
  c.allow_matrix_hardware = true;
  c.type = DataType::bfloat16;
  EXPECT_THROW(choose_kernel(c), UnsupportedError);  // float16 only
  // Automatic: cooperative2 before cooperative, for float16 only.
  c = {};
  c.type = DataType::float16;
  c.cooperative_available = c.cooperative2_available = true;
  EXPECT_EQ(choose_kernel(c), Kernel::cooperative2);
  c.type = DataType::bfloat16;
  EXPECT_EQ(choose_kernel(c), Kernel::cooperative);
}

TEST(AttentionPlan, WorkgroupMatrixKernelPlans) {
  const Shape causal = resolve(problem(1, 32, 4096, 4096, 128), DataType::float16, false);
  const Plan p = plan(causal, DataType::float16, Kernel::cooperative2);
  EXPECT_EQ(p.kernel, Kernel::cooperative2);
  EXPECT_EQ(p.variant.name().rfind("attention.coopmat2.f16.d128.", 0), 0u);
  EXPECT_EQ(p.rows_per_workgroup, uint64_t(p.variant.param("BR")));
  EXPECT_EQ(p.workgroups, 32 * ((4096 + p.rows_per_workgroup - 1) / p.rows_per_workgroup));
  for (uint64_t pd : {32u, 64u, 128u}) EXPECT_EQ(cooperative2_variant(pd).param("PD"), int64_t(pd));
  // The problems the subgroup matrix kernel cannot take go to rows, and so do other types.
  AttentionProblem odd = problem(1, 2, 100, 100, 64);
  odd.k = AttentionLayout{4, 2 * 100 * 64, 100 * 64, 64};
  EXPECT_EQ(plan(resolve(odd, DataType::float16, false), DataType::float16, Kernel::cooperative2).kernel, Kernel::rows);
  EXPECT_EQ(plan(resolve(problem(1, 2, 100, 100, 136), DataType::float16, false), DataType::float16,
                 Kernel::cooperative2).kernel,
            Kernel::rows);
  // Decoder steps keep the keys kernel when chosen automatically.
  EXPECT_EQ(plan(resolve(problem(1, 32, 1, 4096, 128), DataType::float16, false), DataType::float16,
                 Kernel::cooperative2).kernel,
            Kernel::keys);
}

TEST(AttentionPush, Fields) {
  AttentionProblem p = problem(2, 8, 3, 40, 16);
  p.kv_heads = 2;
  p.causal = true;
  p.causal_offset = -2;
  const Shape s = resolve(p, DataType::float32, true);
  const Plan pl = plan(s, DataType::float32, Kernel::rows, AttentionVariant::rows);
  const AttentionPush q = push_constants(s, pl, true, MaskedRows::zero);
  EXPECT_EQ(q.group, 4u);
  EXPECT_EQ(int32_t(q.causal_offset), -2);
  EXPECT_EQ(q.flags, OG_ATTN_MASK | OG_ATTN_KEY_LENGTHS | OG_ATTN_CAUSAL | OG_ATTN_ZERO_ROWS);
  EXPECT_EQ(q.splits, 1u);
  EXPECT_EQ(q.key_chunk, 40u);
  EXPECT_EQ(q.workgroup_count, 16u);
  EXPECT_EQ(q.k_head, 40u * 16);
  EXPECT_EQ(q.mask_row, 40u);
}

}  // namespace
}  // namespace onegpu::kernels::attention
