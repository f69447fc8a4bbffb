// Resize benchmark cases; bytes are what the kernel must read and write once.
#include "harness.h"
#include "onegpu/kernels/resize.h"

namespace onegpu::bench {

std::vector<Case> resize_cases(Device& device, const Options& options, std::vector<std::shared_ptr<void>>& keep) {
  using namespace kernels;
  auto resize = std::make_shared<Resize>(device);
  keep.push_back(resize);
  CaseBuilder builder(device, options, keep);
  // A 2x bilinear upsample (half_pixel, as F.interpolate with align_corners=False).
  for (DataType t : {DataType::float32, DataType::float16}) {
    ResizeProblem p;
    p.type = t;
    p.channels = options.quick ? 8 : 256;
    p.input = options.quick ? Extent2{16, 16} : Extent2{128, 128};
    p.scales = {2.f, 2.f};
    p.mode = ResizeMode::linear;
    const std::string dtype(data_type_name(t));
    const std::string shape = "1x" + std::to_string(p.channels) + "x" + std::to_string(p.input[0]) + "x" +
                              std::to_string(p.input[1]) + " x2";
    if (!builder.wants("resize_bilinear", dtype, shape)) continue;
    auto plan = builder.keep(std::make_shared<ResizePlan>(device, p));
    const uint64_t n = plan->input_elements(), m = plan->output_elements();
    auto x = builder.tensor(n, 1);  // float16 reads the float32 bits as halves: any values do
    auto y = builder.tensor(m, 2);
    builder.add({"resize_bilinear", dtype, shape, plan->describe(), 0, double(data_type_size(t)) * double(n + m),
                 [=](CommandEncoder& e) { resize->encode(e, *plan, *x, *y); }});
  }
  return builder.take();
}

const FamilyCases kRegistered("resize", &resize_cases);

}  // namespace onegpu::bench
