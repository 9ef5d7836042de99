# Core unit tests: the heap allocator and the configuration parser.
shmem_unit_test(test_core_alloc SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_core_alloc.c
                                        ${CMAKE_SOURCE_DIR}/shmem/alloc.c)
shmem_unit_test(test_core_env SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_core_env.c
                                      ${CMAKE_SOURCE_DIR}/shmem/env.c)
shmem_unit_test(test_core_plan_ledger SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_core_plan_ledger.c
                                              ${CMAKE_SOURCE_DIR}/shmem/plan_ledger.c)
