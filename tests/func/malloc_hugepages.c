/* oshrun's malloc on huge pages (SHMEM_MALLOC_HUGEPAGES): every PE finds
 * glibc.malloc.hugetlb in GLIBC_TUNABLES as the run asks ("on": 1, added by
 * the launcher; "append": added after the user's other tunables; "off":
 * absent; "user": the user's own value, untouched).
 * Whether glibc then marks a large block for huge pages is printed, not
 * checked: glibc 2.36 reads transparent_hugepage/enabled into a buffer that
 * it compares without terminating it, and so misses "madvise" whenever the
 * byte after what it read is not zero on its stack (the PE's libraries
 * decide). Under AddressSanitizer, whose malloc is not glibc's, that is not
 * looked at either. */
#include "check.h"

#include <stdint.h>
#include <string.h>

#if !defined(__SANITIZE_ADDRESS__)
static int thp_on_request(void) {
    char line[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f)
        return 0;
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    fclose(f);
    return strstr(line, "[madvise]") != NULL;
}

/* Whether the mapping that holds p is marked MADV_HUGEPAGE ("hg"). */
static int marked_huge(const void *p) {
    char line[512];
    int in = 0, hg = 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f, "cannot read /proc/self/smaps");
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && !strncmp(line, "VmFlags:", 8))
            hg = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return hg;
}
#endif

int main(int argc, char **argv) {
    shmem_init();
    const char *want = argc > 1 ? argv[1] : "on";
    const char *t = getenv("GLIBC_TUNABLES");
    int me = shmem_my_pe();
    if (!strcmp(want, "on")) {
        CHECK(t && strstr(t, "glibc.malloc.hugetlb=1"),
              "PE %d: GLIBC_TUNABLES is '%s', without glibc.malloc.hugetlb=1", me, t ? t : "");
#if !defined(__SANITIZE_ADDRESS__)
        if (thp_on_request()) {
            size_t n = (size_t)32 << 20;
            char *a = malloc(n);
            CHECK(a, "malloc of 32 MiB failed");
            memset(a, 1, n);
            if (me == 0)
                printf("malloc_hugepages: glibc %s a 32 MiB block for huge pages\n",
                       marked_huge(a + n / 2) ? "marked" : "did not mark");
            free(a);
        }
#endif
    } else if (!strcmp(want, "off")) {
        CHECK(!t || !strstr(t, "glibc.malloc.hugetlb"),
              "PE %d: GLIBC_TUNABLES is '%s' with SHMEM_MALLOC_HUGEPAGES=0", me, t);
    } else if (!strcmp(want, "append")) {
        CHECK(t && !strcmp(t, "glibc.malloc.tcache_count=7:glibc.malloc.hugetlb=1"),
              "PE %d: GLIBC_TUNABLES is '%s', not the user's tunables and the launcher's", me,
              t ? t : "");
    } else {
        CHECK(t && !strcmp(t, "glibc.malloc.tcache_count=7:glibc.malloc.hugetlb=0"),
              "PE %d: GLIBC_TUNABLES is '%s', not the user's own", me, t ? t : "");
    }
    shmem_barrier_all();
    func_pass("malloc_hugepages");
    shmem_finalize();
    return 0;
}
