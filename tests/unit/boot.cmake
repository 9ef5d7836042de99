# Tests of bootstrap/: framing and local bootstrap in one process (Check),
# then whole jobs through oshrun (and mpirun when PMIx is built in).
if(NOT TARGET boot_obj OR NOT TARGET oshrun)
  return()
endif()

shmem_unit_test(test_boot_proto SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_boot_proto.c
                LIBS boot_obj)

# A PE program that uses only the bootstrap.
add_executable(test_boot_prog ${CMAKE_CURRENT_LIST_DIR}/test_boot_prog.c)
shmem_layer_includes(test_boot_prog tests/unit PRIVATE)
target_link_libraries(test_boot_prog PRIVATE boot_obj)

# oshrun end to end: exit statuses, messages, no surviving PEs.
shmem_unit_test(test_boot_launch SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_boot_launch.c)
target_compile_definitions(test_boot_launch PRIVATE
  OSHRUN_PATH="$<TARGET_FILE:oshrun>" PROG_PATH="$<TARGET_FILE:test_boot_prog>")
add_dependencies(test_boot_launch oshrun test_boot_prog)

foreach(np 1 2 4 8)
  add_test(NAME boot.oshrun.np${np}
           COMMAND oshrun -np ${np} --timeout 60 $<TARGET_FILE:test_boot_prog>)
  set_tests_properties(boot.oshrun.np${np} PROPERTIES TIMEOUT 90 LABELS boot
                       PASS_REGULAR_EXPRESSION "${np} PEs, bootstrap local: ok")
endforeach()

# The build-tree compiler wrappers.
add_test(NAME boot.oshcc.showme COMMAND ${CMAKE_BINARY_DIR}/bin/oshcc --showme -c x.c)
set_tests_properties(boot.oshcc.showme PROPERTIES LABELS boot
  PASS_REGULAR_EXPRESSION "^[^ ]+ -I${CMAKE_SOURCE_DIR}/include -I${CMAKE_BINARY_DIR}/include -c x.c\n$")
add_test(NAME boot.oshcc.showme_link COMMAND ${CMAKE_BINARY_DIR}/bin/oshcc --showme x.c -o x)
set_tests_properties(boot.oshcc.showme_link PROPERTIES LABELS boot
  PASS_REGULAR_EXPRESSION "x.c -o x -L${CMAKE_BINARY_DIR}/shmem -Wl,-rpath,${CMAKE_BINARY_DIR}/shmem -lshmem -lpthread\n$")

# The PMIx bootstrap under Open MPI's mpirun (directly and through oshrun), whenever the
# library has the PMIx bootstrap and mpirun is installed.
if(BOOT_HAVE_PMIX)
  find_program(BOOT_MPIRUN mpirun)
endif()
if(BOOT_HAVE_PMIX AND BOOT_MPIRUN)
  set(mpirun_flags --allow-run-as-root --oversubscribe)
  add_test(NAME boot.pmix.mpirun.np4
           COMMAND ${BOOT_MPIRUN} ${mpirun_flags} -np 4 $<TARGET_FILE:test_boot_prog>)
  set_tests_properties(boot.pmix.mpirun.np4 PROPERTIES TIMEOUT 60 LABELS "boot;pmix"
                       PASS_REGULAR_EXPRESSION "4 PEs, bootstrap pmix: ok")
  add_test(NAME boot.pmix.oshrun.np2 COMMAND oshrun -np 2 $<TARGET_FILE:test_boot_prog>)
  set_tests_properties(boot.pmix.oshrun.np2 PROPERTIES TIMEOUT 60 LABELS "boot;pmix"
                       ENVIRONMENT "SHMEM_LAUNCHER=mpirun;SHMEM_MPIRUN=${BOOT_MPIRUN}"
                       PASS_REGULAR_EXPRESSION "2 PEs, bootstrap pmix: ok")
  # oshrun hands the library's settings (SHMEM_*) and libfabric's (FI_*) on to mpirun's PEs.
  add_test(NAME boot.pmix.oshrun.env
           COMMAND oshrun -np 2 $<TARGET_FILE:test_boot_prog> env SHMEM_XYZ=1 FI_XYZ=2)
  set_tests_properties(boot.pmix.oshrun.env PROPERTIES TIMEOUT 60 LABELS "boot;pmix"
                       ENVIRONMENT "SHMEM_LAUNCHER=mpirun;SHMEM_MPIRUN=${BOOT_MPIRUN};SHMEM_XYZ=1;FI_XYZ=2")
  # An abort ends the mpirun job with the PE's status, ten times in a row, each well within
  # its limit: mpirun must never hang after its processes ended (it did in about a third of
  # the jobs whose aborting PE called PMIx_Abort while the others waited in a PMIx fence).
  add_test(NAME boot.pmix.abort
           COMMAND sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do timeout -s KILL 20 \"$0\" \"$@\"; rc=$?; [ $rc -eq 7 ] || { echo \"run $i: status $rc (137: hung)\"; exit 1; }; done"
                   ${BOOT_MPIRUN} ${mpirun_flags} -np 3 $<TARGET_FILE:test_boot_prog> abort 7 1)
  set_tests_properties(boot.pmix.abort PROPERTIES TIMEOUT 240 LABELS "boot;pmix")
endif()
