/* Helpers shared by the bootstraps; not part of the bootstrap interface. */
#ifndef BOOT_INTERNAL_H
#define BOOT_INTERNAL_H

#include "bootstrap/boot.h"

#include <stddef.h>

/* Write a one-line reason into buf (may be NULL) and return status. */
int boot_fail(char *buf, size_t len, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parse a whole decimal int in [lo, hi]; 0 on success. */
int boot_parse_int(const char *s, int lo, int hi, int *out);

/* Flush stdio, wait up to grace_ms for the launcher to end this process,
 * then _exit(status). `fd` (may be -1) is watched for the launcher closing
 * it. */
void boot_exit_after_grace(int fd, int status, int grace_ms) __attribute__((noreturn));

#endif
