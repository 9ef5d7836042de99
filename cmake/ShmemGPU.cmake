# GPU builds: included by the top-level CMakeLists.txt when SHMEM_GPU is hip
# or cuda.
#
#   cuda: nvcc through CMake's CUDA language, architectures SHMEM_CUDA_ARCHS
#         (default 90, i.e. sm_90); the runtime is the shared libcudart.
#   hip:  hipcc called directly (hipcc -x hip -fPIC -c --offload-arch=<a>
#         for each of SHMEM_HIP_ARCHS, default gfx90a;gfx940), linked with
#         libamdhip64. CMake's HIP language is not used: it needs a ROCm
#         layout that distribution packages (Debian's hipcc 5.2) do not have.
#
# For other CMake files:
#   SHMEM_GPU_DEFINITION             SHMEM_GPU_CUDA or SHMEM_GPU_HIP
#   shmem_gpu_runtime                INTERFACE target: the runtime for C/C++
#                                    sources (headers, definition, library)
#   shmem_gpu_sources(<target> <files...>)
#                                    add GPU sources (.cu) to a target
#   shmem_gpu_executable(<target> SOURCES <files...> [LIBRARIES <libs...>])
#                                    a GPU program: .cu sources compiled for
#                                    the GPU (nvcc, or hipcc -x hip), other
#                                    sources by the host compilers, linked
#                                    with libshmem and the GPU runtime; sees
#                                    include/ and the top of the tree.

set(SHMEM_GPU_INCLUDES ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR}/include)

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
  set(CMAKE_CUDA_ARCHITECTURES ${SHMEM_CUDA_ARCHS})
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(SHMEM_GPU_DEFINITION SHMEM_GPU_CUDA)
  add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings;-Xcompiler=-Wall,-Wextra,-Werror>")
  add_library(shmem_gpu_runtime INTERFACE)
  target_compile_definitions(shmem_gpu_runtime INTERFACE SHMEM_GPU_CUDA)
  target_link_libraries(shmem_gpu_runtime INTERFACE CUDA::cudart)
  set(SHMEM_GPU_PC_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart")
  message(STATUS "GPU build: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${SHMEM_CUDA_ARCHS}")

elseif(SHMEM_GPU STREQUAL "hip")
  enable_language(CXX) # links GPU programs (the objects hipcc makes are C++)
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
  add_library(shmem_gpu_runtime INTERFACE)
  target_compile_definitions(shmem_gpu_runtime INTERFACE SHMEM_GPU_HIP __HIP_PLATFORM_AMD__)
  target_include_directories(shmem_gpu_runtime SYSTEM INTERFACE ${SHMEM_HIP_INCLUDE_DIR})
  target_link_libraries(shmem_gpu_runtime INTERFACE ${SHMEM_AMDHIP64})
  get_filename_component(_hip_libdir ${SHMEM_AMDHIP64} DIRECTORY)
  set(SHMEM_GPU_PC_LIBS "-L${_hip_libdir} -lamdhip64")
  # MI300 is gfx942 from ROCm 6 on: added to the default architectures when hipcc takes it
  # (Debian's hipcc 5.2 does not: "invalid target ID 'gfx942'").
  if(SHMEM_HIP_ARCHS STREQUAL "gfx90a;gfx940")
    file(WRITE ${CMAKE_BINARY_DIR}/CMakeFiles/hip_arch_probe.hip "__global__ void k() {}\n")
    execute_process(COMMAND ${SHMEM_HIPCC} -x hip --offload-arch=gfx942 -c
                            ${CMAKE_BINARY_DIR}/CMakeFiles/hip_arch_probe.hip
                            -o ${CMAKE_BINARY_DIR}/CMakeFiles/hip_arch_probe.o
                    RESULT_VARIABLE _gfx942 OUTPUT_QUIET ERROR_QUIET)
    if(_gfx942 EQUAL 0)
      set(SHMEM_HIP_ARCHS "gfx90a;gfx940;gfx942")
    endif()
  endif()
  set(SHMEM_HIP_FLAGS -x hip -fPIC -O2 -g -Wall -Wextra -Werror -D__HIP_PLATFORM_AMD__
                      -DSHMEM_GPU_HIP)
  foreach(arch ${SHMEM_HIP_ARCHS})
    list(APPEND SHMEM_HIP_FLAGS --offload-arch=${arch})
  endforeach()
  message(STATUS "GPU build: HIP (${SHMEM_HIPCC}), architectures ${SHMEM_HIP_ARCHS}")
endif()

# HIP: one object per source, made by hipcc in the calling directory's build
# tree. Sets <out> to the list of objects.
function(shmem_hip_objects out)
  set(objs)
  foreach(src ${ARGN})
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(name ${src} NAME)
    string(MD5 tag ${abs})
    string(SUBSTRING ${tag} 0 8 tag)
    set(obj ${CMAKE_CURRENT_BINARY_DIR}/hip/${name}.${tag}.o)
    set(incs)
    foreach(d ${SHMEM_GPU_INCLUDES})
      list(APPEND incs -I${d})
    endforeach()
    add_custom_command(OUTPUT ${obj}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/hip
      COMMAND ${SHMEM_HIPCC} ${SHMEM_HIP_FLAGS} ${incs} -MD -MF ${obj}.d -c ${abs} -o ${obj}
      DEPENDS ${abs}
      DEPFILE ${obj}.d
      COMMENT "Building HIP object ${name}"
      VERBATIM)
    list(APPEND objs ${obj})
  endforeach()
  set(${out} ${objs} PARENT_SCOPE)
endfunction()

# GPU sources (.cu) into an existing target.
function(shmem_gpu_sources target)
  if(SHMEM_GPU STREQUAL "cuda")
    target_sources(${target} PRIVATE ${ARGN})
  else()
    shmem_hip_objects(objs ${ARGN})
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
    # .hip sources are CUDA sources here; the shared runtime is the one
    # libshmem uses, so both see one current device.
    foreach(s ${gpu_srcs})
      set_source_files_properties(${s} PROPERTIES LANGUAGE CUDA)
    endforeach()
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  else()
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX)
  endif()
  target_include_directories(${target} PRIVATE ${SHMEM_GPU_INCLUDES})
  target_link_libraries(${target} PRIVATE shmem shmem_gpu_runtime ${G_LIBRARIES})
endfunction()
