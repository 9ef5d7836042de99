# Unit tests of the copy-engine layer (sdma/), and its fuzz targets.
shmem_unit_test(test_sdma_packets SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_packets.c)
shmem_unit_test(test_sdma_ring SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_ring.c)
shmem_unit_test(test_sdma_soft SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_soft.c
                LIBS sdma_obj)
shmem_unit_test(test_sdma_engines SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sdma_engines.c
                LIBS sdma_obj)
if(SDMA_HAVE_HSAKMT)
  target_compile_definitions(test_sdma_engines PRIVATE SDMA_TEST_HAVE_HSAKMT=1)
endif()

option(SHMEM_FUZZ "Build the libFuzzer targets and their smoke tests (clang only)" OFF)
if(SHMEM_FUZZ)
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    add_subdirectory(${CMAKE_CURRENT_LIST_DIR}/../fuzz ${CMAKE_BINARY_DIR}/tests/fuzz)
  else()
    message(WARNING "SHMEM_FUZZ needs clang (libFuzzer); the fuzz targets are not built")
  endif()
endif()
