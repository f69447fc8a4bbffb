// The render-scene example's geometry and matrices (examples/render_scene/scene_math.h), on the host
// in float64 references: the projection's depth range and y flip, the camera, the meshes.
#include <gtest/gtest.h>

#include <cmath>

#include "scene_math.h"

namespace {

using scene::Mat4;
using scene::Vec3;

// m * (x, y, z, 1), divided by w.
Vec3 project(const Mat4& m, Vec3 p) {
  double v[4];
  for (int r = 0; r < 4; ++r) v[r] = m.at(r, 0) * p.x + m.at(r, 1) * p.y + m.at(r, 2) * p.z + m.at(r, 3);
  return {float(v[0] / v[3]), float(v[1] / v[3]), float(v[2] / v[3])};
}

TEST(SceneMath, PerspectiveMapsNearToZeroFarToOneAndUpToTheTopRow) {
  const Mat4 p = scene::perspective(0.8f, 16.0f / 9.0f, 0.1f, 60.0f);
  EXPECT_NEAR(project(p, {0, 0, -0.1f}).z, 0.0, 1e-6);
  EXPECT_NEAR(project(p, {0, 0, -60.0f}).z, 1.0, 1e-6);
  // Vulkan's clip y = -1 is the top row: a point above the axis lands at negative y.
  EXPECT_LT(project(p, {0, 1, -5}).y, 0.0f);
  EXPECT_GT(project(p, {1, 0, -5}).x, 0.0f);
  // The vertical field of view: tan(0.4) * distance reaches the top edge.
  EXPECT_NEAR(project(p, {0, float(std::tan(0.4) * 5.0), -5}).y, -1.0, 1e-5);
}

TEST(SceneMath, LookAtPutsTheEyeAtTheOriginLookingDownMinusZ) {
  const Vec3 eye{0.0f, 2.6f, 5.2f}, center{0.0f, 1.0f, 0.0f};
  const Mat4 v = scene::look_at(eye, center, {0, 1, 0});
  const Vec3 e = project(v, eye);
  EXPECT_NEAR(e.x, 0, 1e-5);
  EXPECT_NEAR(e.y, 0, 1e-5);
  EXPECT_NEAR(e.z, 0, 1e-5);
  const Vec3 c = project(v, center);
  const double distance = std::sqrt(2.6 * 2.6 + 5.2 * 5.2 - 2 * 2.6 * 1.0 + 1.0);
  EXPECT_NEAR(c.x, 0, 1e-5);
  EXPECT_NEAR(c.y, 0, 1e-5);
  EXPECT_NEAR(c.z, -distance, 1e-5);
}

TEST(SceneMath, ProductAndTransformsCompose) {
  const Mat4 t = scene::translation({1, 2, 3}) * scene::rotation_y(float(M_PI / 2));
  const Vec3 p = project(t, {1, 0, 0});  // x turns to -z, then moves
  EXPECT_NEAR(p.x, 1, 1e-6);
  EXPECT_NEAR(p.y, 2, 1e-6);
  EXPECT_NEAR(p.z, 2, 1e-6);
  const Vec3 q = project(scene::rotation_x(float(M_PI / 2)), {0, 1, 0});  // y turns to z
  EXPECT_NEAR(q.z, 1, 1e-6);
  EXPECT_NEAR(q.y, 0, 1e-6);
}

TEST(SceneMath, TorusHasUnitOutwardNormalsAndIndicesInRange) {
  const scene::Mesh m = scene::torus(1.0f, 0.4f, 12, 8);
  ASSERT_EQ(m.vertices.size(), 13u * 9u);
  ASSERT_EQ(m.indices.size(), 12u * 8u * 6u);
  for (uint32_t i : m.indices) ASSERT_LT(i, m.vertices.size());
  for (const scene::Vertex& v : m.vertices) {
    const double n = std::sqrt(v.normal[0] * v.normal[0] + v.normal[1] * v.normal[1] + v.normal[2] * v.normal[2]);
    EXPECT_NEAR(n, 1.0, 1e-6);
    // The normal points from the tube's centre line to the vertex: position - ring centre = 0.4 n.
    const double ring = std::sqrt(double(v.position[0]) * v.position[0] + double(v.position[2]) * v.position[2]);
    const double radial = ring - 1.0;  // distance from the centre line, in the ring's plane
    EXPECT_NEAR(radial * radial + double(v.position[1]) * v.position[1], 0.16, 1e-5);
  }
  // Seen from outside, triangles wind clockwise (their geometric normal points inwards for a
  // right-handed cross product): the pipeline's front face is cw.
  const scene::Vertex& a = m.vertices[m.indices[0]];
  const scene::Vertex& b = m.vertices[m.indices[1]];
  const scene::Vertex& c = m.vertices[m.indices[2]];
  const Vec3 e1{b.position[0] - a.position[0], b.position[1] - a.position[1], b.position[2] - a.position[2]};
  const Vec3 e2{c.position[0] - a.position[0], c.position[1] - a.position[1], c.position[2] - a.position[2]};
  const Vec3 n = scene::cross(e1, e2);
  EXPECT_LT(n.x * a.normal[0] + n.y * a.normal[1] + n.z * a.normal[2], 0.0f);
}

TEST(SceneMath, CheckerAlternatesCells) {
  const uint8_t a[4] = {1, 2, 3, 4}, b[4] = {9, 8, 7, 6};
  const std::vector<uint8_t> px = scene::checker_rgba8(16, 4, a, b);
  ASSERT_EQ(px.size(), 16u * 16u * 4u);
  EXPECT_EQ(px[0], 9);                  // cell (0, 0): b
  EXPECT_EQ(px[4 * 4], 1);              // cell (1, 0): a
  EXPECT_EQ(px[(4 * 16 + 4) * 4], 9);   // cell (1, 1): b
  EXPECT_EQ(px[(15 * 16 + 15) * 4 + 3], 6);
}

}  // namespace
