# The profiling interface: a program that defines shmem_ routines and forwards
# them to the pshmem_ ones, linked with the shared library and, where the
# weak shmem_ names matter most, with the static one.
shmem_func_test(profiling    SOURCE profiling.c    NP 1 2)
add_executable(func_profiling_static profiling.c)
target_link_libraries(func_profiling_static PRIVATE shmem_static)
target_compile_definitions(func_profiling_static PRIVATE _GNU_SOURCE)
set_target_properties(func_profiling_static PROPERTIES OUTPUT_NAME profiling_static
                      RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/func)
add_dependencies(func_tests func_profiling_static)
foreach(np 1 2)
  add_test(NAME func.profiling_static.np${np}
           COMMAND ${SHMEM_FUNC_OSHRUN} --timeout ${SHMEM_FUNC_TIMEOUT} -np ${np}
                   $<TARGET_FILE:func_profiling_static>)
  set_tests_properties(func.profiling_static.np${np} PROPERTIES TIMEOUT 90 LABELS func)
endforeach()
