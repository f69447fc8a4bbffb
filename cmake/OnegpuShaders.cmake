# Compiling GLSL shaders to SPIR-V at build time and embedding them as C++ sources, with their
# reflection. The stage comes from the source's extension, as glslang reads it: .comp (compute),
# .vert (vertex), .frag (fragment); the reflection records it (ShaderReflection::stage) with the
# vertex inputs and fragment outputs of graphics stages.
#
# onegpu_find_glslang()        picks the compiler: ONEGPU_GLSLANG (cache or environment), then
#                              ../shared/tools/glslang-16/glslangValidator beside the source tree
#                              (cooperative matrices and bfloat16), then ../shared/tools/glslang-15
#                              (cooperative matrices), then the system's glslangValidator.
# onegpu_probe_shader_features() compiles one tiny shader per optional extension and sets
#                              ONEGPU_SHADER_HAS_<NAME> (COOPMAT, COOPMAT2, INTEGER_DOT, BFLOAT16,
#                              and BFLOAT16_COOPMAT / BFLOAT16_COOPMAT2: bfloat16 operands of
#                              subgroup- / workgroup-scope cooperative matrices).
# onegpu_find_wgsl_translator() looks for node and naga (npm naga-wasm, which tools/setup-webgpu.sh
#                              unpacks into .deps/naga-wasm/<version>, or ONEGPU_NAGA_WASM_DIR),
#                              translates a probe kernel and sets ONEGPU_SHADER_HAS_WGSL.
# onegpu_add_shader(TARGET t NAME id SOURCE file [DEFINES ...] [REQUIRES ...] [WGSL] [WGSL_UNROLL])
#                              compiles `file` with the defines into a variant called `id`, embeds
#                              it into target `t` as onegpu::shaders::id::source() declared in the
#                              generated header "<id>.h". A variant whose REQUIRES the compiler
#                              lacks is skipped; code tests ONEGPU_SHADER_HAS_<NAME> to know.
#                              WGSL (when ONEGPU_SHADER_HAS_WGSL): the source is written in the
#                              WebGPU dialect of the shared headers (shaders/common/layout.h); it is
#                              compiled again with OG_WEBGPU for SPIR-V 1.3, translated to WGSL by
#                              naga, and the WGSL embedded beside the SPIR-V (ShaderSource::wgsl)
#                              once the two modules' reflections agree. WGSL_UNROLL (implies WGSL):
#                              where spirv-opt is installed, the loops marked [[unroll]] are
#                              unrolled before naga reads the module (for register-array kernels;
#                              not everywhere, since naga's translation of the unrolled SSA can
#                              hide a barrier's uniform control flow from WGSL's analysis).


function(onegpu_find_glslang)
  set(found "")
  if(ONEGPU_GLSLANG)
    set(found "${ONEGPU_GLSLANG}")
  elseif(DEFINED ENV{ONEGPU_GLSLANG})
    set(found "$ENV{ONEGPU_GLSLANG}")
  else()
    foreach(version 16 15)
      set(candidate "${PROJECT_SOURCE_DIR}/../shared/tools/glslang-${version}/glslangValidator")
      if(NOT found AND EXISTS "${candidate}")
        get_filename_component(found "${candidate}" ABSOLUTE)
      endif()
    endforeach()
    if(NOT found)
      find_program(ONEGPU_SYSTEM_GLSLANG glslangValidator REQUIRED)
      set(found "${ONEGPU_SYSTEM_GLSLANG}")
    endif()
  endif()
  execute_process(COMMAND "${found}" --version OUTPUT_VARIABLE ver RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "glslang at ${found} does not run")
  endif()
  string(REGEX MATCH "Glslang Version: [0-9:.]+" ver "${ver}")
  message(STATUS "onegpu: shader compiler ${found} (${ver})")
  set(ONEGPU_GLSLANG_EXECUTABLE "${found}" CACHE INTERNAL "")
endfunction()

function(onegpu_probe_shader_features)
  set(dir "${PROJECT_SOURCE_DIR}/cmake/probes")
  set(supported "")
  foreach(feature COOPMAT COOPMAT2 INTEGER_DOT BFLOAT16 BFLOAT16_COOPMAT BFLOAT16_COOPMAT2)
    string(TOLOWER "${feature}" file)
    execute_process(
      COMMAND "${ONEGPU_GLSLANG_EXECUTABLE}" -V --target-env vulkan1.3 "${dir}/${file}.comp"
              -o "${CMAKE_BINARY_DIR}/probe_${file}.spv"
      RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(ONEGPU_SHADER_HAS_${feature} ON CACHE INTERNAL "")
      list(APPEND supported "${file}")
    else()
      set(ONEGPU_SHADER_HAS_${feature} OFF CACHE INTERNAL "")
    endif()
  endforeach()
  if(NOT supported)
    set(supported "none")
  endif()
  list(JOIN supported ", " supported)
  message(STATUS "onegpu: shader compiler supports optional extensions: ${supported}")
endfunction()

function(onegpu_find_wgsl_translator)
  set(ONEGPU_SHADER_HAS_WGSL OFF CACHE INTERNAL "")
  if(NOT ONEGPU_WGSL)
    message(STATUS "onegpu: no WGSL kernels (ONEGPU_WGSL is OFF)")
    return()
  endif()
  set(naga "${ONEGPU_NAGA_WASM_DIR}")
  if(NOT naga)
    set(naga "${PROJECT_SOURCE_DIR}/.deps/naga-wasm/30.1.0")
  endif()
  find_program(ONEGPU_NODE node)
  if(NOT ONEGPU_NODE OR NOT EXISTS "${naga}/dist/node.js")
    message(STATUS "onegpu: no WGSL kernels (node: ${ONEGPU_NODE}; naga-wasm: ${naga}, run tools/setup-webgpu.sh)")
    return()
  endif()
  set(probe "${CMAKE_BINARY_DIR}/probe_wgsl")
  execute_process(
    COMMAND "${ONEGPU_GLSLANG_EXECUTABLE}" -V --target-env vulkan1.1 -DOG_WEBGPU -I${PROJECT_SOURCE_DIR}/shaders
            "${PROJECT_SOURCE_DIR}/cmake/probes/wgsl.comp" -o "${probe}.spv"
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    execute_process(
      COMMAND "${ONEGPU_NODE}" "${PROJECT_SOURCE_DIR}/tools/spirv_to_wgsl/spirv_to_wgsl.mjs" "${naga}" "${probe}.spv"
              "${probe}.wgsl"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  endif()
  if(NOT rc EQUAL 0)
    message(STATUS "onegpu: no WGSL kernels: naga at ${naga} failed on the probe kernel: ${out}")
    return()
  endif()
  # Optional: spirv-opt unrolls the loops GLSL marks [[unroll]] before naga translates them.
  find_program(ONEGPU_SPIRV_OPT spirv-opt)
  if(ONEGPU_SPIRV_OPT)
    set(ONEGPU_SPIRV_OPT_ARG "${ONEGPU_SPIRV_OPT}" CACHE INTERNAL "")
    set(unroll "loops unrolled by ${ONEGPU_SPIRV_OPT}")
  else()
    set(ONEGPU_SPIRV_OPT_ARG "" CACHE INTERNAL "")
    set(unroll "no spirv-opt: loops left rolled")
  endif()
  message(STATUS "onegpu: WGSL kernels from naga at ${naga} (node ${ONEGPU_NODE}; ${unroll})")
  set(ONEGPU_SHADER_HAS_WGSL ON CACHE INTERNAL "")
  set(ONEGPU_NAGA_WASM "${naga}" CACHE INTERNAL "")
endfunction()

function(onegpu_add_shader)
  cmake_parse_arguments(S "WGSL;WGSL_UNROLL" "TARGET;NAME;SOURCE;LABEL;TARGET_ENV" "DEFINES;REQUIRES;INCLUDES" ${ARGN})
  if(S_WGSL_UNROLL)
    set(S_WGSL ON)
  endif()
  if(NOT S_TARGET_ENV)
    set(S_TARGET_ENV vulkan1.3)  # vulkan1.1 gives SPIR-V 1.3, which Dawn's SPIR-V reader takes
  endif()
  if(NOT S_LABEL)
    set(S_LABEL "${S_NAME}")
  endif()
  # A custom command's outputs get a build rule only in targets of the directory that declares it:
  # a family's folder declaring variants of the library defers the call to the library's folder.
  get_target_property(target_dir ${S_TARGET} SOURCE_DIR)
  if(NOT target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    # A deferred call reads its arguments when it runs: pass today's values, bracket-quoted.
    set(args "")
    foreach(a IN LISTS ARGN)
      string(APPEND args " [==[${a}]==]")
    endforeach()
    cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [==[${target_dir}]==] CALL onegpu_add_shader ${args})")
    return()
  endif()
  foreach(req IN LISTS S_REQUIRES)
    if(NOT ONEGPU_SHADER_HAS_${req})
      return()
    endif()
  endforeach()
  set(gen "${CMAKE_BINARY_DIR}/generated/shaders")
  set(spv "${gen}/${S_NAME}.spv")
  get_filename_component(src "${S_SOURCE}" ABSOLUTE)
  set(defs "")
  foreach(d IN LISTS S_DEFINES)
    list(APPEND defs "-D${d}")
  endforeach()
  set(incs "-I${PROJECT_SOURCE_DIR}/shaders")
  foreach(i IN LISTS S_INCLUDES)
    list(APPEND incs "-I${i}")
  endforeach()
  add_custom_command(
    OUTPUT "${spv}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${gen}"
    COMMAND "${ONEGPU_GLSLANG_EXECUTABLE}" -V --target-env ${S_TARGET_ENV} --quiet ${defs} ${incs}
            --depfile "${spv}.d" -o "${spv}" "${src}"
    DEPENDS "${src}"
    DEPFILE "${spv}.d"
    COMMENT "glslang ${S_NAME}"
    VERBATIM)
  set(wgsl_args "")
  set(wgsl_deps "")
  if(S_WGSL AND ONEGPU_SHADER_HAS_WGSL)
    set(unroll "")
    if(S_WGSL_UNROLL)
      set(unroll ${ONEGPU_SPIRV_OPT_ARG})
    endif()
    set(web_spv "${gen}/${S_NAME}.webgpu.spv")
    set(wgsl "${gen}/${S_NAME}.wgsl")
    add_custom_command(
      OUTPUT "${web_spv}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${gen}"
      COMMAND "${ONEGPU_GLSLANG_EXECUTABLE}" -V --target-env vulkan1.1 --quiet -DOG_WEBGPU ${defs} ${incs}
              --depfile "${web_spv}.d" -o "${web_spv}" "${src}"
      DEPENDS "${src}"
      DEPFILE "${web_spv}.d"
      COMMENT "glslang ${S_NAME} (WebGPU dialect)"
      VERBATIM)
    add_custom_command(
      OUTPUT "${wgsl}"
      COMMAND "${ONEGPU_NODE}" "${PROJECT_SOURCE_DIR}/tools/spirv_to_wgsl/spirv_to_wgsl.mjs" "${ONEGPU_NAGA_WASM}"
              "${web_spv}" "${wgsl}" ${unroll}
      DEPENDS "${web_spv}" "${PROJECT_SOURCE_DIR}/tools/spirv_to_wgsl/spirv_to_wgsl.mjs"
      COMMENT "naga ${S_NAME} -> WGSL"
      VERBATIM)
    set(wgsl_args --wgsl "${wgsl}" "${web_spv}")
    set(wgsl_deps "${wgsl}" "${web_spv}")
  endif()
  add_custom_command(
    OUTPUT "${gen}/${S_NAME}.cpp" "${gen}/${S_NAME}.h"
    COMMAND onegpu-shader-embed "${spv}" "${S_NAME}" "${gen}/${S_NAME}.cpp" "${gen}/${S_NAME}.h" "${S_LABEL}" ${wgsl_args}
    DEPENDS "${spv}" ${wgsl_deps} onegpu-shader-embed
    COMMENT "embed ${S_NAME}"
    VERBATIM)
  target_sources(${S_TARGET} PRIVATE "${gen}/${S_NAME}.cpp" "${gen}/${S_NAME}.h")
  target_include_directories(${S_TARGET} PRIVATE "${gen}")
  # The embedded sources compile sixteen to a translation unit (the target builds in unity GROUP
  # mode): each is a table of words behind one small header, so a compiler run is mostly the
  # headers. Each table lives in its own namespace, so grouping changes nothing else.
  get_property(count GLOBAL PROPERTY ONEGPU_EMBEDDED_SHADERS)
  if(NOT count)
    set(count 0)
  endif()
  math(EXPR group "${count} / 16")
  math(EXPR count "${count} + 1")
  set_property(GLOBAL PROPERTY ONEGPU_EMBEDDED_SHADERS ${count})
  set_source_files_properties("${gen}/${S_NAME}.cpp" PROPERTIES UNITY_GROUP "embedded_shaders_${group}")
  set_target_properties(${S_TARGET} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
endfunction()
