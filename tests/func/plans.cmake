# Triggered plans (shmemx_plan_*, see include/shmemx.h). Included by CMakeLists.txt.
set(_plan_np 2 4)
foreach(_t rounds marks two_plans)
  shmem_func_test(plan_${_t} SOURCE plan_${_t}.c NP ${_plan_np} LIBS Threads::Threads)
endforeach()
foreach(_t misuse prepare_ahead fence_timeout tiles host_put run realloc)
  shmem_func_test(plan_${_t} SOURCE plan_${_t}.c NP ${_plan_np})
endforeach()
# The same chains with the 13-dword 2D packets of pre-gfx12 parts (gfx90a).
shmem_func_test(plan_tiles_sw13 SOURCE plan_tiles.c NP ${_plan_np} ENV SHMEM_ENGINE_COPY_2D=sw13)
shmem_func_test(plan_rounds_sw13 SOURCE plan_rounds.c NP 2 LIBS Threads::Threads
                ENV SHMEM_ENGINE_COPY_2D=sw13)

# ---- the job must end the expected way -------------------------------------
shmem_func_test(plan_free_live     SOURCE plan_free_live.c NP 2 4 WILL_FAIL ARGS free
                PASS_REGEX "\\[PE [0-9]+\\].*plan" "shmem_free")
shmem_func_test(plan_finalize_live SOURCE plan_free_live.c NP 2 4 WILL_FAIL ARGS finalize
                PASS_REGEX "\\[PE [0-9]+\\].*plan" "shmem_finalize")
shmem_func_test(plan_realloc_move  SOURCE plan_realloc.c NP 2 4 WILL_FAIL ARGS move
                PASS_REGEX "\\[PE [0-9]+\\] shmem: shmem_realloc: .*triggered plan [0-9]+"
                           "would move it")
shmem_func_test(plan_realloc_shrink SOURCE plan_realloc.c NP 2 WILL_FAIL ARGS shrink
                PASS_REGEX "\\[PE [0-9]+\\] shmem: shmem_realloc: shrinking"
                           "triggered plan [0-9]+")
