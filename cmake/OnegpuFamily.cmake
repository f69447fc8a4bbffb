# What a kernel family's own CMake file (src/kernels/<family>/CMakeLists.txt) calls. A family
# declares everything about itself there, and the root CMakeLists.txt adds its folder with one
# add_subdirectory():
# onegpu_variant(FAMILY f NAME readable.name SOURCE file [DEFINES ...] [REQUIRES ...] [WGSL]
#                [WGSL_UNROLL])
#                              compiles the variant (as onegpu_add_shader) under a C++ identifier
#                              made from the name, and records it for the family's table. WGSL:
#                              the variant can be expressed in WGSL (written in the WebGPU dialect,
#                              see onegpu_add_shader); a variant without it says in its row that it
#                              has no WGSL (VariantRow::wgsl false), so the WebGPU backend cannot
#                              run it. WGSL_UNROLL (implies WGSL): see onegpu_add_shader.
# onegpu_family_variants(FAMILY f TARGET t NAMESPACE ns)
#                              writes "<f>_variants.h": `ns::kVariants`, a constexpr table with
#                              one row per declared variant (name, defines, integer parameters
#                              read from the defines, required compiler features, and for the
#                              variants built: the source, workgroup size, workgroup memory, push
#                              constant size and shader features from the reflection). A variant
#                              whose REQUIRES the compiler lacks has a row with no source.
# onegpu_family_tests([UNIT files...] [KERNEL files...])
#                              adds test sources to the unit tests (no GPU) and the kernel tests.
# onegpu_family_bench(files...)  adds benchmark case files to onegpu-bench (each registers its
#                              cases, see bench/harness.h).

# The C++ identifier of a readable variant name: every character but letters and digits becomes _.
function(onegpu_variant_identifier name out)
  string(REGEX REPLACE "[^A-Za-z0-9]" "_" id "${name}")
  set(${out} "${id}" PARENT_SCOPE)
endfunction()

function(onegpu_variant)
  cmake_parse_arguments(V "WGSL;WGSL_UNROLL" "FAMILY;NAME;SOURCE" "DEFINES;REQUIRES" ${ARGN})
  onegpu_variant_identifier("${V_NAME}" id)
  get_property(known GLOBAL PROPERTY ONEGPU_VARIANTS_${V_FAMILY})
  if("${id}" IN_LIST known)
    message(FATAL_ERROR "onegpu_variant: ${V_NAME} is declared twice")
  endif()
  set(built ON)
  foreach(req IN LISTS V_REQUIRES)
    if(NOT ONEGPU_SHADER_HAS_${req})
      set(built OFF)
    endif()
  endforeach()
  set_property(GLOBAL APPEND PROPERTY ONEGPU_VARIANTS_${V_FAMILY} "${id}")
  set_property(GLOBAL PROPERTY ONEGPU_VARIANT_${id}_NAME "${V_NAME}")
  set_property(GLOBAL PROPERTY ONEGPU_VARIANT_${id}_DEFINES "${V_DEFINES}")
  set_property(GLOBAL PROPERTY ONEGPU_VARIANT_${id}_REQUIRES "${V_REQUIRES}")
  set_property(GLOBAL PROPERTY ONEGPU_VARIANT_${id}_BUILT ${built})
  if(built)
    set(wgsl "")
    if(V_WGSL_UNROLL)
      set(wgsl WGSL_UNROLL)
    elseif(V_WGSL)
      set(wgsl WGSL)
    endif()
    onegpu_add_shader(TARGET onegpu NAME ${id} LABEL "${V_NAME}" SOURCE "${V_SOURCE}" DEFINES ${V_DEFINES} ${wgsl})
    foreach(req IN LISTS V_REQUIRES)
      set_property(GLOBAL APPEND PROPERTY ONEGPU_BUILT_VARIANT_REQUIREMENTS ${req})
    endforeach()
  endif()
endfunction()

function(onegpu_family_variants)
  cmake_parse_arguments(F "" "FAMILY;TARGET;NAMESPACE" "" ${ARGN})
  get_property(ids GLOBAL PROPERTY ONEGPU_VARIANTS_${F_FAMILY})
  set(includes "")
  set(params "")
  set(rows "")
  set(param_index 0)
  foreach(id IN LISTS ids)
    get_property(name GLOBAL PROPERTY ONEGPU_VARIANT_${id}_NAME)
    get_property(defines GLOBAL PROPERTY ONEGPU_VARIANT_${id}_DEFINES)
    get_property(requires GLOBAL PROPERTY ONEGPU_VARIANT_${id}_REQUIRES)
    get_property(built GLOBAL PROPERTY ONEGPU_VARIANT_${id}_BUILT)
    # Integer parameters: KEY=123 or KEY=123u; a bare KEY counts as 1.
    set(first ${param_index})
    foreach(d IN LISTS defines)
      if(d MATCHES "^([A-Za-z_][A-Za-z0-9_]*)=([0-9]+)u?$")
        string(APPEND params "    {\"${CMAKE_MATCH_1}\", ${CMAKE_MATCH_2}},\n")
        math(EXPR param_index "${param_index} + 1")
      elseif(d MATCHES "^([A-Za-z_][A-Za-z0-9_]*)$")
        string(APPEND params "    {\"${CMAKE_MATCH_1}\", 1},\n")
        math(EXPR param_index "${param_index} + 1")
      endif()
    endforeach()
    math(EXPR count "${param_index} - ${first}")
    list(JOIN defines " " defines_text)
    list(JOIN requires " " requires_text)
    if(built)
      string(APPEND includes "#include \"${id}.h\"\n")
      set(s "shaders::${id}")
      string(APPEND rows "    {\"${name}\", true, &${s}::source, \"${defines_text}\", \"${requires_text}\", ${first}, ${count},\n"
                         "     ${s}::kFeatureBits, {${s}::kLocalSizeX, ${s}::kLocalSizeY, ${s}::kLocalSizeZ},\n"
                         "     ${s}::kWorkgroupMemoryBytes, ${s}::kPushConstantSize, ${s}::kHasWgsl},\n")
    else()
      string(APPEND rows "    {\"${name}\", false, nullptr, \"${defines_text}\", \"${requires_text}\", ${first}, ${count}, 0, {0, 0, 0}, 0, 0, false},\n")
    endif()
  endforeach()
  if(param_index EQUAL 0)
    string(APPEND params "    {\"\", 0},\n")
  endif()
  string(CONCAT text "// Generated by onegpu_family_variants() from the ${F_FAMILY} family's variant list. Do not edit.\n"
           "#pragma once\n#include \"kernels/common/variant.h\"\n${includes}\n"
           "namespace ${F_NAMESPACE} {\n\n"
           "inline constexpr VariantParam kVariantParams[] = {\n${params}};\n\n"
           "inline constexpr VariantRow kVariantRows[] = {\n${rows}};\n\n"
           "inline constexpr VariantTable kVariants{kVariantRows, kVariantParams};\n\n"
           "}  // namespace ${F_NAMESPACE}\n")
  set(gen "${CMAKE_BINARY_DIR}/generated/variants")
  file(CONFIGURE OUTPUT "${gen}/${F_FAMILY}_variants.h" CONTENT "${text}" @ONLY)
  target_include_directories(${F_TARGET} PRIVATE "${gen}")
endfunction()

function(onegpu_family_tests)
  cmake_parse_arguments(T "" "" "UNIT;KERNEL" ${ARGN})
  foreach(kind UNIT KERNEL)
    foreach(f IN LISTS T_${kind})
      get_filename_component(f "${f}" ABSOLUTE)
      set_property(GLOBAL APPEND PROPERTY ONEGPU_${kind}_TEST_SOURCES "${f}")
    endforeach()
  endforeach()
endfunction()

function(onegpu_family_bench)
  foreach(f IN LISTS ARGN)
    get_filename_component(f "${f}" ABSOLUTE)
    set_property(GLOBAL APPEND PROPERTY ONEGPU_BENCH_SOURCES "${f}")
  endforeach()
endfunction()
