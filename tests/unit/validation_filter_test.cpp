// Which validation-layer messages the library drops: by message ID and the text that ties each to
// its cause, never a whole ID.
#include <gtest/gtest.h>

#include "vulkan/validation.h"

namespace onegpu::vulkan::validation {
namespace {

// Texts as the 1.4.309 layer writes them on a device with VK_KHR_shader_bfloat16 enabled.
constexpr const char* kUnknownExtension =
    "vkCreateDevice(): pCreateInfo->ppEnabledExtensionNames[2] VK_KHR_shader_bfloat16 is not a known extension "
    "string. Please make sure the spelling is correct.";
constexpr const char* kUnknownStructure =
    "vkCreateDevice(): pCreateInfo->pNext chain includes a structure with unknown VkStructureType (1000141000). "
    "This error is based on the Valid Usage documentation for version 309 of the Vulkan header.";
constexpr const char* kUnknownSpirvExtension =
    "vkCreateShaderModule(): SPIR-V Extension SPV_KHR_bfloat16 was declared, but that is not supported by Vulkan.";
constexpr const char* kUnknownCapability =
    "vkCreateShaderModule(): SPIR-V has Capability (Unhandled OpCapability) declared, but this is not supported by "
    "Vulkan.";
constexpr const char* kSpirvVal =
    "vkCreateShaderModule(): pCreateInfo->pCode (spirv-val produced an error):\nInvalid capability operand: 5116.\n";

TEST(ValidationFilter, LayersThatPredateBfloatSixteenAreQuietAboutIt) {
  EXPECT_TRUE(ignored_message("WARNING-CreateDevice-extension-not-found", kUnknownExtension, false));
  EXPECT_TRUE(ignored_message("VUID-VkDeviceCreateInfo-pNext-pNext", kUnknownStructure, false));
  EXPECT_TRUE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08741", kUnknownSpirvExtension, true));
  EXPECT_TRUE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08739", kUnknownCapability, true));
  EXPECT_TRUE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08737", kSpirvVal, true));
  EXPECT_TRUE(ignored_message("WARNING-vkGetDeviceProcAddr-device", "anything", false));
}

TEST(ValidationFilter, EveryOtherMessageReachesTheLog) {
  // The module messages only for a module that declares bfloat16.
  EXPECT_FALSE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08741", kUnknownSpirvExtension, false));
  EXPECT_FALSE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08739", kUnknownCapability, false));
  EXPECT_FALSE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08737", kSpirvVal, false));
  // Other extensions, structures, capabilities and spirv-val errors, also in a bfloat16 module.
  EXPECT_FALSE(ignored_message(
      "WARNING-CreateDevice-extension-not-found",
      "pCreateInfo->ppEnabledExtensionNames[1] VK_KHR_shader_bfloat16x is not a known extension", false));
  EXPECT_FALSE(ignored_message(
      "VUID-VkDeviceCreateInfo-pNext-pNext",
      "pCreateInfo->pNext chain includes a structure with unknown VkStructureType (1000506000).", false));
  EXPECT_FALSE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08741",
                               "SPIR-V Extension SPV_NV_cooperative_matrix2 was declared, but that is not supported",
                               true));
  EXPECT_FALSE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08739",
                               "SPIR-V has Capability (Int64) declared, but this is not supported by Vulkan.", true));
  EXPECT_FALSE(ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08737",
                               "(spirv-val produced an error):\nID '12[%x]' has not been defined\n", true));
  EXPECT_FALSE(
      ignored_message("VUID-VkShaderModuleCreateInfo-pCode-08740",
                      "SPIR-V Capability BFloat16TypeKHR was declared, but one of the following requirements is "
                      "required (VkPhysicalDeviceShaderBfloat16FeaturesKHR::shaderBFloat16Type)",
                      true));
  EXPECT_FALSE(ignored_message("", kUnknownStructure, true));
}


// As the 1.4.309 layer writes it for the second column of a mat2 input at locations 3 and 4.
constexpr const char* kUnconsumedColumn =
    "vkCreateGraphicsPipelines(): pCreateInfos[0].pVertexInputState Vertex attribute at location 4 not consumed by "
    "vertex shader.";

TEST(ValidationFilter, OnlyMatrixColumnsTheLayerMiscountsAreQuiet) {
  const uint32_t columns[] = {4, 9};
  EXPECT_TRUE(ignored_message("WARNING-Shader-OutputNotConsumed", kUnconsumedColumn, false, columns));
  // Without matrix columns, at another location, or another message under that ID: kept.
  EXPECT_FALSE(ignored_message("WARNING-Shader-OutputNotConsumed", kUnconsumedColumn, false));
  const uint32_t other[] = {3, 5, 44};
  EXPECT_FALSE(ignored_message("WARNING-Shader-OutputNotConsumed", kUnconsumedColumn, false, other));
  EXPECT_FALSE(ignored_message("WARNING-Shader-OutputNotConsumed",
                               "vkCreateGraphicsPipelines(): pCreateInfos[0] fragment shader input at location 4 is "
                               "not consumed",
                               false, columns));
  EXPECT_FALSE(ignored_message("WARNING-Shader-OutputNotConsumed",
                               "Vertex attribute at location 4x not consumed by vertex shader.", false, columns));
  EXPECT_FALSE(ignored_message("WARNING-Shader-InputNotProduced", kUnconsumedColumn, false, columns));
}

}  // namespace
}  // namespace onegpu::vulkan::validation
