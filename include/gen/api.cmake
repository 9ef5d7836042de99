# The installed API headers, generated when the build is configured (and
# again, through CMAKE_CONFIGURE_DEPENDS, whenever the op table, the type
# lists or the templates change): a small C program, gen_api.c, compiled with
# the build's C compiler, expands the op table into
#   ${SHMEM_API_INCLUDE_DIR}/shmem.h    one prototype per routine, the C11
#                                       generics, the C++ overloads
#   ${SHMEM_API_INCLUDE_DIR}/pshmem.h   the profiling names
#   ${SHMEM_API_NAMES}                  every exported routine, for the tests
# Configure time, so every target of the tree (and any added later) sees the
# headers without a dependency of its own. Files are rewritten only when their
# content changes, so a reconfigure does not rebuild everything.
set(SHMEM_API_INCLUDE_DIR ${CMAKE_BINARY_DIR}/include)
set(SHMEM_API_NAMES ${CMAKE_BINARY_DIR}/shmem_api.txt)
set(_api_src ${CMAKE_SOURCE_DIR}/include)
set(_api_inputs ${_api_src}/gen/gen_api.c ${_api_src}/gen/shmem.h.in ${_api_src}/gen/pshmem.h.in
                ${_api_src}/shmem_ops.h ${_api_src}/shmem_typelists.h)
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_api_inputs})

set(_api_work ${CMAKE_BINARY_DIR}/gen_api)
file(MAKE_DIRECTORY ${_api_work} ${SHMEM_API_INCLUDE_DIR})
execute_process(
  COMMAND ${CMAKE_C_COMPILER} -std=c11 -Wall -Wextra -Werror -I${_api_src}
          ${_api_src}/gen/gen_api.c -o ${_api_work}/gen_api
  RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "compiling include/gen/gen_api.c failed:\n${_err}")
endif()
execute_process(
  COMMAND ${_api_work}/gen_api ${_api_src}/gen/shmem.h.in ${_api_src}/gen/pshmem.h.in ${_api_work}
  RESULT_VARIABLE _rc ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "include/gen/gen_api failed:\n${_err}")
endif()
configure_file(${_api_work}/shmem.h ${SHMEM_API_INCLUDE_DIR}/shmem.h COPYONLY)
configure_file(${_api_work}/pshmem.h ${SHMEM_API_INCLUDE_DIR}/pshmem.h COPYONLY)
configure_file(${_api_work}/shmem_api.txt ${SHMEM_API_NAMES} COPYONLY)
