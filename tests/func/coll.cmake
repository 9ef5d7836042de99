# Teams, collectives and locks.
shmem_func_test(team_split   SOURCE team_split.c   NP 1 2 4)
shmem_func_test(team_reverse SOURCE team_reverse.c NP 1 2 3 4)
shmem_func_test(coll_team    SOURCE coll_team.c    NP 1 2 4)
shmem_func_test(coll_active  SOURCE coll_active.c  NP 1 2 4
                COMPILE_OPTIONS -Wno-deprecated-declarations)
shmem_func_test(lock         SOURCE lock.c         NP 1 2 4 8)
