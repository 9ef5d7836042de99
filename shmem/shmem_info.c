/* shmem_info: the library's configuration table, as the library parses it
 * from this environment (or as markdown, for the README). */
#include "shmem/env.h"

#include <shmem.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    int markdown = argc > 1 && !strcmp(argv[1], "--markdown");
    if (argc > 1 && !markdown) {
        fprintf(stderr, "usage: shmem_info [--markdown]\n");
        return 2;
    }
    struct shmemi_config cfg;
    char err[512];
    if (shmemi_env_load(&cfg, err, sizeof(err))) {
        fprintf(stderr, "shmem_info: %s\n", err);
        return 1;
    }
    if (!markdown)
        printf("%s (OpenSHMEM %d.%d)\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION,
               SHMEM_MINOR_VERSION);
    shmemi_env_print(stdout, &cfg, markdown);
    return 0;
}
