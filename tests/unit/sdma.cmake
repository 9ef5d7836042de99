# Unit tests of the copy-engine layer (sdma/), and its fuzz targets.
shmem_unit_test(test_sdma_packets SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_packets.c)
shmem_unit_test(test_sdma_ring SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_ring.c)
shmem_unit_test(test_sdma_soft SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_soft.c
                LIBS sdma_obj)
shmem_unit_test(test_sdma_copy SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_copy.c
                LIBS sdma_obj)
shmem_unit_test(test_sdma_idle SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_idle.c
                LIBS sdma_obj)
shmem_unit_test(test_sdma_engines SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_engines.c
                LIBS sdma_obj)
if(SDMA_HAVE_HSAKMT)
  target_compile_definitions(test_sdma_engines PRIVATE SDMA_TEST_HAVE_HSAKMT=1)
endif()
if(SHMEM_HSAKMT_MODEL)
  # Its cases are about a machine without the driver: the model says so.
  set_tests_properties(unit.test_sdma_engines PROPERTIES
                       ENVIRONMENT "CK_DEFAULT_TIMEOUT=60;KFD_MODEL_ABSENT=1")
endif()

option(SHMEM_FUZZ "Build the libFuzzer targets and their smoke tests (clang only)" OFF)
if(SHMEM_FUZZ)
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/../fuzz ${CMAKE_BINARY_DIR}/tests/fuzz)
  else()
    message(WARNING "SHMEM_FUZZ needs clang (libFuzzer); the fuzz targets are not built")
  endif()
endif()

# The KFD model (-DSHMEM_HSAKMT_MODEL=ON): the hsakmt engine on modelled GPUs, and the
# review findings each shown failing the old way and passing the new.
if(SHMEM_HSAKMT_MODEL)
  foreach(t test_kfd_model test_kfd_findings)
    shmem_unit_test(${t} SOURCES ${CMAKE_CURRENT_LIST_DIR}/${t}.c LIBS sdma_obj)
    target_include_directories(${t} PRIVATE ${SDMA_HSAKMT_INCLUDE_DIR})
    set_tests_properties(unit.${t} PROPERTIES LABELS "unit;kfd")
  endforeach()
endif()
