# Two hosts on this machine (network namespaces joined by a bridge), mpirun placing PEs on
# both: the standard programs, a PE killed on either host, PEs that leave
# (tests/multihost/run.sh). Needs root and `ip netns` (CI runs as root); skipped with a
# message elsewhere. Label multihost.
if(BOOT_HAVE_PMIX AND _func_mpirun AND SHMEM_FUNC_IN_ALL)
  add_test(NAME multihost.netns COMMAND sh ${CMAKE_SOURCE_DIR}/tests/multihost/run.sh
                                        ${CMAKE_BINARY_DIR})
  set_tests_properties(multihost.netns PROPERTIES LABELS multihost TIMEOUT 1200
                       SKIP_RETURN_CODE 77 RESOURCE_LOCK multihost)
endif()
