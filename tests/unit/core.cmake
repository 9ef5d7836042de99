# Core unit tests: the heap allocator, the configuration parser, the plan ledger and the
# layout of a plan's words.
shmem_unit_test(test_core_alloc SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_core_alloc.c
                                        ${CMAKE_SOURCE_DIR}/shmem/alloc.c)
shmem_unit_test(test_core_env SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_core_env.c
                                      ${CMAKE_SOURCE_DIR}/shmem/env.c)
shmem_unit_test(test_core_plan_ledger SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_core_plan_ledger.c
                                              ${CMAKE_SOURCE_DIR}/shmem/plan/ledger.c)
shmem_unit_test(test_core_plan_words SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_core_plan_words.c
                                             ${CMAKE_SOURCE_DIR}/shmem/plan/words.c)
