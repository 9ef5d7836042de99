# Unit tests of the device API's logic (include/shmem_device.h, device/*.h),
# compiled as plain C: host threads play the PEs.
shmem_unit_test(test_dev_api SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_dev_api.c LIBS sdma_obj)
