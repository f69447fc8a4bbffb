// Column-major 4x4 matrices, a procedural torus, a floor and a checker texture for the
// rendered scene (examples/render_scene). Right-handed world, y up; Vulkan clip space.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace scene {

struct Vec3 {
  float x = 0, y = 0, z = 0;
};
inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline Vec3 normalize(Vec3 a) {
  const float l = std::sqrt(dot(a, a));
  return {a.x / l, a.y / l, a.z / l};
}

// Column-major, as GLSL's mat4 reads it: m[column * 4 + row].
struct Mat4 {
  std::array<float, 16> m{};
  static Mat4 identity() {
    Mat4 r;
    r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1;
    return r;
  }
  float& at(int row, int col) { return m[col * 4 + row]; }
  float at(int row, int col) const { return m[col * 4 + row]; }
};

inline Mat4 operator*(const Mat4& a, const Mat4& b) {
  Mat4 r;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0;
      for (int k = 0; k < 4; ++k) s += a.at(i, k) * b.at(k, j);
      r.at(i, j) = s;
    }
  return r;
}

// Vulkan clip space: y down, depth 0..1.
inline Mat4 perspective(float fov_y, float aspect, float near, float far) {
  const float f = 1.0f / std::tan(fov_y / 2);
  Mat4 r;
  r.at(0, 0) = f / aspect;
  r.at(1, 1) = -f;
  r.at(2, 2) = far / (near - far);
  r.at(2, 3) = far * near / (near - far);
  r.at(3, 2) = -1;
  return r;
}

inline Mat4 look_at(Vec3 eye, Vec3 center, Vec3 up) {
  const Vec3 f = normalize(center - eye);
  const Vec3 s = normalize(cross(f, up));
  const Vec3 u = cross(s, f);
  Mat4 r = Mat4::identity();
  r.at(0, 0) = s.x; r.at(0, 1) = s.y; r.at(0, 2) = s.z; r.at(0, 3) = -dot(s, eye);
  r.at(1, 0) = u.x; r.at(1, 1) = u.y; r.at(1, 2) = u.z; r.at(1, 3) = -dot(u, eye);
  r.at(2, 0) = -f.x; r.at(2, 1) = -f.y; r.at(2, 2) = -f.z; r.at(2, 3) = dot(f, eye);
  return r;
}

inline Mat4 translation(Vec3 t) {
  Mat4 r = Mat4::identity();
  r.at(0, 3) = t.x; r.at(1, 3) = t.y; r.at(2, 3) = t.z;
  return r;
}

inline Mat4 rotation_y(float a) {
  Mat4 r = Mat4::identity();
  r.at(0, 0) = std::cos(a); r.at(0, 2) = std::sin(a);
  r.at(2, 0) = -std::sin(a); r.at(2, 2) = std::cos(a);
  return r;
}
inline Mat4 rotation_x(float a) {
  Mat4 r = Mat4::identity();
  r.at(1, 1) = std::cos(a); r.at(1, 2) = -std::sin(a);
  r.at(2, 1) = std::sin(a); r.at(2, 2) = std::cos(a);
  return r;
}

struct Vertex {
  float position[3];
  float normal[3];
  float uv[2];
};

struct Mesh {
  std::vector<Vertex> vertices;
  std::vector<uint32_t> indices;
};

// A torus around the y axis: `rings` segments around the axis, `sides` around the tube.
inline Mesh torus(float radius, float tube, uint32_t rings, uint32_t sides) {
  Mesh mesh;
  const float two_pi = 6.28318530718f;
  for (uint32_t i = 0; i <= rings; ++i) {
    const float u = float(i) / float(rings), a = u * two_pi;
    for (uint32_t j = 0; j <= sides; ++j) {
      const float v = float(j) / float(sides), b = v * two_pi;
      const float ca = std::cos(a), sa = std::sin(a), cb = std::cos(b), sb = std::sin(b);
      Vertex vx{};
      vx.position[0] = (radius + tube * cb) * ca;
      vx.position[1] = tube * sb;
      vx.position[2] = (radius + tube * cb) * sa;
      vx.normal[0] = cb * ca;
      vx.normal[1] = sb;
      vx.normal[2] = cb * sa;
      vx.uv[0] = u * 4;
      vx.uv[1] = v;
      mesh.vertices.push_back(vx);
    }
  }
  for (uint32_t i = 0; i < rings; ++i)
    for (uint32_t j = 0; j < sides; ++j) {
      const uint32_t a = i * (sides + 1) + j, b = a + sides + 1;
      mesh.indices.insert(mesh.indices.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  return mesh;
}

// A square on y = level, facing up, for the floor; its texture repeats every `repeat` units.
inline Mesh floor_quad(float half, float level, float repeat = 7.0f) {
  Mesh mesh;
  const float p[4][2] = {{-half, -half}, {half, -half}, {half, half}, {-half, half}};
  for (auto& c : p) mesh.vertices.push_back({{c[0], level, c[1]}, {0, 1, 0}, {c[0] / repeat, c[1] / repeat}});
  mesh.indices = {0, 1, 2, 0, 2, 3};  // clockwise on screen seen from above, as the torus from outside
  return mesh;
}

// An RGBA8 checkerboard with `cells` cells per side.
inline std::vector<uint8_t> checker_rgba8(uint32_t size, uint32_t cells, const uint8_t a[4], const uint8_t b[4]) {
  std::vector<uint8_t> px(size_t(size) * size * 4);
  for (uint32_t y = 0; y < size; ++y)
    for (uint32_t x = 0; x < size; ++x) {
      const bool odd = ((x * cells / size) + (y * cells / size)) % 2;
      for (int c = 0; c < 4; ++c) px[(size_t(y) * size + x) * 4 + c] = odd ? a[c] : b[c];
    }
  return px;
}

}  // namespace scene
