# GPU builds and GPU programs. Included by the top-level CMakeLists.txt when SHMEM_GPU is
# hip or cuda, and installed: find_package(shmem) of a GPU build includes it too (after
# setting SHMEM_GPU, the architectures and SHMEM_GPU_INSTALLED), so a user's project builds
# kernels that use <shmem_device.h> with the same two functions as this tree.
#
#   cuda: nvcc through CMake's CUDA language, architectures SHMEM_CUDA_ARCHS
#         (default 90, i.e. sm_90; a project's own CMAKE_CUDA_ARCHITECTURES wins);
#         programs use the shared libcudart, the runtime libshmem uses.
#   hip:  hipcc called directly (hipcc -x hip -fPIC -c --offload-arch=<a>
#         for each of SHMEM_HIP_ARCHS, default gfx90a;gfx940), linked with
#         libamdhip64. CMake's HIP language is not used: it needs a ROCm
#         layout that distribution packages (Debian's hipcc 5.2) do not have.
#
# Defines:
#   SHMEM_GPU_DEFINITION             SHMEM_GPU_CUDA or SHMEM_GPU_HIP
#   SHMEM_GPU_RUNTIME                an INTERFACE target: the runtime for C/C++ sources
#                                    (headers, definition, library): shmem_gpu_runtime in
#                                    this tree, shmem::gpu_runtime when installed
#   shmem_gpu_sources(<target> <files...>)
#                                    add GPU sources (.cu, .hip) to a target, compiled with
#                                    the target's include directories and definitions
#   shmem_gpu_executable(<target> SOURCES <files...> [LIBRARIES <libs...>])
#                                    a GPU program: .cu/.hip sources compiled for the GPU
#                                    (nvcc, or hipcc -x hip), other sources by the host
#                                    compilers, linked with libshmem (shmem::shmem when
#                                    installed) and the GPU runtime

if(SHMEM_GPU_INSTALLED)
  set(SHMEM_GPU_LIBSHMEM shmem::shmem)
  set(SHMEM_GPU_RUNTIME shmem::gpu_runtime)
else()
  set(SHMEM_GPU_LIBSHMEM shmem)
  set(SHMEM_GPU_RUNTIME shmem_gpu_runtime)
endif()

# The runtime target, made once (find_package may run more than once in a project).
function(shmem_gpu_runtime_target)
  cmake_parse_arguments(R "" "" "DEFINITIONS;INCLUDES;LIBRARIES" ${ARGN})
  if(TARGET ${SHMEM_GPU_RUNTIME})
    return()
  endif()
  if(SHMEM_GPU_INSTALLED)
    add_library(${SHMEM_GPU_RUNTIME} INTERFACE IMPORTED)
  else()
    add_library(${SHMEM_GPU_RUNTIME} INTERFACE)
  endif()
  target_compile_definitions(${SHMEM_GPU_RUNTIME} INTERFACE ${R_DEFINITIONS})
  if(R_INCLUDES)
    target_include_directories(${SHMEM_GPU_RUNTIME} SYSTEM INTERFACE ${R_INCLUDES})
  endif()
  target_link_libraries(${SHMEM_GPU_RUNTIME} INTERFACE ${R_LIBRARIES})
endfunction()

get_property(_shmem_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
if(SHMEM_GPU STREQUAL "cuda")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(SHMEM_NVCC nvcc HINTS ENV CUDA_HOME ENV CUDA_PATH /usr/local/cuda
                 PATH_SUFFIXES bin)
    if(NOT SHMEM_NVCC)
      message(FATAL_ERROR "SHMEM_GPU=cuda: nvcc not found (put it in PATH, or set "
                          "CMAKE_CUDA_COMPILER or CUDACXX)")
    endif()
    set(CMAKE_CUDA_COMPILER ${SHMEM_NVCC})
  endif()
  if(NOT SHMEM_GPU_INSTALLED OR NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES ${SHMEM_CUDA_ARCHS})
  endif()
  if(NOT "CUDA" IN_LIST _shmem_langs)
    enable_language(CUDA)
  endif()
  find_package(CUDAToolkit REQUIRED)
  set(SHMEM_GPU_DEFINITION SHMEM_GPU_CUDA)
  shmem_gpu_runtime_target(DEFINITIONS SHMEM_GPU_CUDA LIBRARIES CUDA::cudart)
  if(NOT SHMEM_GPU_INSTALLED)
    add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings;-Xcompiler=-Wall,-Wextra,-Werror>")
    set(SHMEM_GPU_PC_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart")
    message(STATUS "GPU build: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${SHMEM_CUDA_ARCHS}")
  endif()

elseif(SHMEM_GPU STREQUAL "hip")
  if(NOT "CXX" IN_LIST _shmem_langs)
    enable_language(CXX) # links GPU programs (the objects hipcc makes are C++)
  endif()
  find_program(SHMEM_HIPCC hipcc HINTS ENV ROCM_PATH /opt/rocm PATH_SUFFIXES bin)
  find_path(SHMEM_HIP_INCLUDE_DIR hip/hip_runtime_api.h HINTS ENV ROCM_PATH /opt/rocm
            PATH_SUFFIXES include)
  find_library(SHMEM_AMDHIP64 amdhip64 HINTS ENV ROCM_PATH /opt/rocm PATH_SUFFIXES lib lib64)
  if(NOT SHMEM_HIPCC OR NOT SHMEM_HIP_INCLUDE_DIR OR NOT SHMEM_AMDHIP64)
    message(FATAL_ERROR "SHMEM_GPU=hip needs hipcc, the HIP headers and libamdhip64 "
                        "(Debian: apt-get install hipcc libamdhip64-dev; ROCm: set ROCM_PATH). "
                        "Found: hipcc=${SHMEM_HIPCC} headers=${SHMEM_HIP_INCLUDE_DIR} "
                        "library=${SHMEM_AMDHIP64}")
  endif()
  set(SHMEM_GPU_DEFINITION SHMEM_GPU_HIP)
  shmem_gpu_runtime_target(DEFINITIONS SHMEM_GPU_HIP __HIP_PLATFORM_AMD__
                           INCLUDES ${SHMEM_HIP_INCLUDE_DIR} LIBRARIES ${SHMEM_AMDHIP64})
  # MI300 is gfx942 from ROCm 6 on: added to the default architectures when hipcc takes it
  # (Debian's hipcc 5.2 does not: "invalid target ID 'gfx942'").
  if(SHMEM_HIP_ARCHS STREQUAL "gfx90a;gfx940")
    file(WRITE ${CMAKE_BINARY_DIR}/CMakeFiles/hip_arch_probe.hip "__global__ void k() {}\n")
    execute_process(COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${CMAKE_BINARY_DIR}/CMakeFiles
                            ${SHMEM_HIPCC} -x hip --offload-arch=gfx942 -c
                            ${CMAKE_BINARY_DIR}/CMakeFiles/hip_arch_probe.hip
                            -o ${CMAKE_BINARY_DIR}/CMakeFiles/hip_arch_probe.o
                    RESULT_VARIABLE _gfx942 OUTPUT_QUIET ERROR_QUIET)
    if(_gfx942 EQUAL 0)
      set(SHMEM_HIP_ARCHS "gfx90a;gfx940;gfx942")
    endif()
  endif()
  set(SHMEM_HIP_FLAGS -x hip -fPIC -O2 -g -D__HIP_PLATFORM_AMD__ -DSHMEM_GPU_HIP)
  if(NOT SHMEM_GPU_INSTALLED)
    list(APPEND SHMEM_HIP_FLAGS -Wall -Wextra -Werror)
    get_filename_component(_hip_libdir ${SHMEM_AMDHIP64} DIRECTORY)
    set(SHMEM_GPU_PC_LIBS "-L${_hip_libdir} -lamdhip64")
    message(STATUS "GPU build: HIP (${SHMEM_HIPCC}), architectures ${SHMEM_HIP_ARCHS}")
  endif()
  foreach(arch ${SHMEM_HIP_ARCHS})
    list(APPEND SHMEM_HIP_FLAGS --offload-arch=${arch})
  endforeach()
endif()

# HIP: one object per source, made by hipcc in the calling directory's build tree with the
# include directories and definitions of <target> (its own and those it links; /usr/include,
# where Debian puts the HIP headers, is hipcc's own and stays off: -I/usr/include would come
# before the compiler's wrapper headers).
function(shmem_hip_objects target out)
  set(objs)
  set(incs "$<FILTER:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,EXCLUDE,^/usr/include/?$>")
  set(defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  foreach(src ${ARGN})
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(name ${src} NAME)
    string(MD5 tag ${abs})
    string(SUBSTRING ${tag} 0 8 tag)
    set(obj ${CMAKE_CURRENT_BINARY_DIR}/hip/${target}/${name}.${tag}.o)
    # clang's HIP driver leaves an empty directory per compile in TMPDIR: in the build tree,
    # not /tmp (kept: two targets that share an object may compile it at once).
    add_custom_command(OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/hip/${target}/tmp
      COMMAND ${CMAKE_COMMAND} -E env TMPDIR=${CMAKE_CURRENT_BINARY_DIR}/hip/${target}/tmp
              ${SHMEM_HIPCC} ${SHMEM_HIP_FLAGS} "$<$<BOOL:${incs}>:-I$<JOIN:${incs},;-I>>"
              "$<$<BOOL:${defs}>:-D$<JOIN:${defs},;-D>>" -MD -MF ${obj}.d -c ${abs} -o ${obj}
      DEPENDS ${abs}
      DEPFILE ${obj}.d
      COMMENT "Building HIP object ${name}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND objs ${obj})
  endforeach()
  set(${out} ${objs} PARENT_SCOPE)
endfunction()

# GPU sources (.cu, .hip) into an existing target.
function(shmem_gpu_sources target)
  if(SHMEM_GPU STREQUAL "cuda")
    target_sources(${target} PRIVATE ${ARGN})
    # .hip sources are CUDA sources here.
    foreach(s ${ARGN})
      set_source_files_properties(${s} PROPERTIES LANGUAGE CUDA)
    endforeach()
  else()
    shmem_hip_objects(${target} objs ${ARGN})
    target_sources(${target} PRIVATE ${objs})
  endif()
endfunction()

# shmem_gpu_executable(<target> SOURCES <files...> [LIBRARIES <libs...>])
function(shmem_gpu_executable target)
  cmake_parse_arguments(G "" "" "SOURCES;LIBRARIES" ${ARGN})
  if(NOT G_SOURCES)
    message(FATAL_ERROR "shmem_gpu_executable(${target}): no SOURCES")
  endif()
  set(gpu_srcs)
  set(host_srcs)
  foreach(s ${G_SOURCES})
    if(s MATCHES "\\.(cu|hip)$")
      list(APPEND gpu_srcs ${s})
    else()
      list(APPEND host_srcs ${s})
    endif()
  endforeach()
  add_executable(${target} ${host_srcs})
  shmem_gpu_sources(${target} ${gpu_srcs})
  if(SHMEM_GPU STREQUAL "cuda")
    # The shared runtime is the one libshmem uses, so both see one current device.
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  else()
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  endif()
  target_link_libraries(${target} PRIVATE ${SHMEM_GPU_LIBSHMEM} ${SHMEM_GPU_RUNTIME} ${G_LIBRARIES})
endfunction()
