/* The configuration table's parser, printer and "did you mean" check. */
#include "shmem/env.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct env_row {
    const char *name; /* without the SHMEM_ prefix */
    const char *type;
    const char *def;
    const char *doc;
};

static const struct env_row rows[] = {
#define SHMEMI_ENV(NAME, TYPE, DEF, DOC) {#NAME, #TYPE, DEF, DOC},
#include "shmem/env.def"
#undef SHMEMI_ENV
};

/* Read by oshrun and the compiler wrappers, not by the library. */
static const struct env_row tool_rows[] = {
    {"LAUNCHER", "string", "",
     "oshrun: `mpirun` hands the job to Open MPI's mpirun (PMIx bootstrap)"},
    {"MPIRUN", "string", "mpirun", "oshrun: the mpirun to exec when SHMEM_LAUNCHER=mpirun"},
    {"MALLOC_HUGEPAGES", "bool", "1",
     "oshrun: large malloc'd blocks of the PEs on transparent huge pages where the kernel gives "
     "them on request (transparent_hugepage/enabled = madvise): sets glibc's tunable "
     "glibc.malloc.hugetlb=1 for the PEs unless GLIBC_TUNABLES names it"},
    {"CC", "string", "cc", "oshcc: the C compiler it wraps"},
    {"CXX", "string", "c++", "oshc++: the C++ compiler it wraps"},
};

#define NROWS (sizeof(rows) / sizeof(rows[0]))
#define NTOOLS (sizeof(tool_rows) / sizeof(tool_rows[0]))

static const char *skip_space(const char *s) {
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

static int only_space(const char *s) { return *skip_space(s) == '\0'; }

int shmemi_parse_bool(const char *s, int *out) {
    static const char *yes[] = {"1", "y", "yes", "on", "true"};
    static const char *no[] = {"0", "n", "no", "off", "false"};
    s = skip_space(s);
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strlen(yes[i]) == n && !strncasecmp(s, yes[i], n)) {
            *out = 1;
            return 0;
        }
        if (strlen(no[i]) == n && !strncasecmp(s, no[i], n)) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

int shmemi_parse_size(const char *s, size_t *out) {
    s = skip_space(s);
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    /* Binary multiples: k = 1024, m = 1024k, ... An optional "b" (or "ib")
     * follows: 512m, 512mb, 512MiB and 4096b all parse. */
    static const char suffixes[] = "kmgtp";
    const char *suf = *end ? strchr(suffixes, tolower((unsigned char)*end)) : NULL;
    unsigned shift = suf ? 10u * (unsigned)(suf - suffixes + 1) : 0;
    if (shift) {
        end++;
        if (tolower((unsigned char)end[0]) == 'i' && tolower((unsigned char)end[1]) == 'b')
            end++;
    }
    if (tolower((unsigned char)*end) == 'b')
        end++;
    if (!only_space(end))
        return -1;
    if (shift && v > (SIZE_MAX >> shift))
        return -1;
    if (v > SIZE_MAX)
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int shmemi_parse_int(const char *s, long *out) {
    s = skip_space(s);
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || end == s || !only_space(end))
        return -1;
    *out = v;
    return 0;
}

int shmemi_parse_double(const char *s, double *out) {
    s = skip_space(s);
    if (!*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || !only_space(end) || v != v)
        return -1;
    *out = v;
    return 0;
}

/* doc starts with "a|b|c:"; *out points into the static doc string, so the
 * result never dangles. */
int shmemi_parse_enum(const char *s, const char *doc, const char **out) {
    s = skip_space(s);
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    const char *p = doc;
    const char *stop = strchr(doc, ':');
    while (p && p < stop) {
        const char *bar = memchr(p, '|', (size_t)(stop - p));
        const char *e = bar ? bar : stop;
        if ((size_t)(e - p) == n && !strncasecmp(p, s, n)) {
            *out = p;
            return 0;
        }
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

/* ---- ranges ---------------------------------------------------------- */

/* A numeric row's DOC may start with its range, "[lo..hi] " or
 * "[lo..hi pow2] " (either end may be left out; both are inclusive and
 * written as the row's type parses them). */
struct env_range {
    char lo[24], hi[24]; /* "" when open */
    int pow2;
};

static int is_numeric(const struct env_row *r) {
    return !strcmp(r->type, "size") || !strcmp(r->type, "int") || !strcmp(r->type, "double");
}

/* 1 when the row has a range (filled in), 0 when not. */
static int row_range(const struct env_row *r, struct env_range *out) {
    memset(out, 0, sizeof(*out));
    if (!is_numeric(r) || r->doc[0] != '[')
        return 0;
    const char *dots = strstr(r->doc, ".."), *close = strchr(r->doc, ']');
    if (!dots || !close || dots > close)
        return 0;
    size_t nlo = (size_t)(dots - r->doc - 1);
    const char *hi = dots + 2, *hi_end = hi;
    while (hi_end < close && *hi_end != ' ')
        hi_end++;
    size_t nhi = (size_t)(hi_end - hi);
    if (nlo >= sizeof(out->lo) || nhi >= sizeof(out->hi))
        return 0;
    memcpy(out->lo, r->doc + 1, nlo);
    memcpy(out->hi, hi, nhi);
    out->pow2 = !strncmp(hi_end, " pow2]", 6);
    return 1;
}

/* The doc text after the range or the enum values. */
static const char *doc_text(const struct env_row *r) {
    const char *d = r->doc;
    struct env_range rg;
    if (row_range(r, &rg))
        d = strchr(d, ']') + 1;
    else if (!strcmp(r->type, "enum"))
        d = strchr(d, ':') + 1;
    return skip_space(d);
}

/* Compare a parsed value with a bound written in the row's type: <0, 0, >0;
 * 2 when the bound does not parse (a bug in env.def). */
static int cmp_bound(const struct env_row *r, const void *field, const char *bound) {
    if (!strcmp(r->type, "size")) {
        size_t b, v = *(const size_t *)field;
        if (shmemi_parse_size(bound, &b))
            return 2;
        return v < b ? -1 : v > b;
    }
    if (!strcmp(r->type, "int")) {
        long b, v = *(const long *)field;
        if (shmemi_parse_int(bound, &b))
            return 2;
        return v < b ? -1 : v > b;
    }
    double b, v = *(const double *)field;
    if (shmemi_parse_double(bound, &b))
        return 2;
    return v < b ? -1 : v > b;
}

/* 0 when the parsed value is in the row's range, -1 when not. */
static int check_range(const struct env_row *r, const void *field) {
    struct env_range rg;
    if (!row_range(r, &rg))
        return 0;
    if (rg.lo[0] && cmp_bound(r, field, rg.lo) < 0)
        return -1;
    if (rg.hi[0] && cmp_bound(r, field, rg.hi) > 0)
        return -1;
    if (rg.pow2) {
        size_t v = *(const size_t *)field;
        if (v & (v - 1))
            return -1;
    }
    return 0;
}

/* " from 4k to 1g, a power of two", or "" without a range. */
static const char *range_text(const struct env_row *r, char *buf, size_t len) {
    struct env_range rg;
    buf[0] = '\0';
    if (!row_range(r, &rg))
        return buf;
    if (rg.lo[0] && rg.hi[0])
        snprintf(buf, len, " from %s to %s", rg.lo, rg.hi);
    else if (rg.lo[0])
        snprintf(buf, len, " of at least %s", rg.lo);
    else if (rg.hi[0])
        snprintf(buf, len, " of at most %s", rg.hi);
    if (rg.pow2) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, ", a power of two");
    }
    return buf;
}

/* An enum value points into the doc string: copy it out up to '|' or ':',
 * once per distinct value. The settings keep the pointer for the whole run
 * (a ring of reused buffers handed the same storage to two settings once
 * there were more enum settings than buffers). Called while settings are
 * read (shmem_init, shmem_info), by one thread. */
static const char *enum_value(const char *p) {
    static char vals[64][32];
    static unsigned nvals;
    size_t n = strcspn(p, "|:");
    if (n >= sizeof(vals[0]))
        n = sizeof(vals[0]) - 1;
    for (unsigned i = 0; i < nvals; i++)
        if (!strncmp(vals[i], p, n) && vals[i][n] == '\0')
            return vals[i];
    char *b = nvals < 64 ? vals[nvals++] : NULL;
    if (!b && !(b = calloc(1, sizeof(vals[0]))))
        return "";
    memcpy(b, p, n);
    b[n] = '\0';
    return b;
}

static const char *enum_values_text(const char *doc, char *buf, size_t len) {
    const char *stop = strchr(doc, ':');
    size_t n = stop ? (size_t)(stop - doc) : strlen(doc);
    if (n >= len)
        n = len - 1;
    memcpy(buf, doc, n);
    buf[n] = '\0';
    return buf;
}

static int parse_row(const struct env_row *r, const char *val, void *dst) {
    if (!strcmp(r->type, "bool"))
        return shmemi_parse_bool(val, dst);
    if (!strcmp(r->type, "size"))
        return shmemi_parse_size(val, dst) || check_range(r, dst);
    if (!strcmp(r->type, "int"))
        return shmemi_parse_int(val, dst) || check_range(r, dst);
    if (!strcmp(r->type, "double"))
        return shmemi_parse_double(val, dst) || check_range(r, dst);
    if (!strcmp(r->type, "enum")) {
        const char *p;
        if (shmemi_parse_enum(val, r->doc, &p))
            return -1;
        *(const char **)dst = enum_value(p);
        return 0;
    }
    *(const char **)dst = val; /* string */
    return 0;
}

static const char *type_hint(const struct env_row *r, char *buf, size_t len) {
    char range[96];
    range_text(r, range, sizeof(range));
    if (!strcmp(r->type, "bool"))
        return "a boolean (1/0, y/n, yes/no, on/off, true/false)";
    if (!strcmp(r->type, "size")) {
        snprintf(buf, len, "a size in bytes with an optional k/m/g/t/p suffix (e.g. 512m)%s",
                 range);
        return buf;
    }
    if (!strcmp(r->type, "int") || !strcmp(r->type, "double")) {
        snprintf(buf, len, "%s%s", !strcmp(r->type, "int") ? "an integer" : "a number", range);
        return buf;
    }
    if (!strcmp(r->type, "enum")) {
        char vals[128];
        snprintf(buf, len, "one of %s", enum_values_text(r->doc, vals, sizeof(vals)));
        return buf;
    }
    return "a string";
}

int shmemi_env_load(struct shmemi_config *cfg, char *err, size_t errlen) {
    void *fields[NROWS];
    size_t i = 0;
#define SHMEMI_ENV(NAME, TYPE, DEF, DOC) fields[i++] = &cfg->NAME;
#include "shmem/env.def"
#undef SHMEMI_ENV
    for (i = 0; i < NROWS; i++) {
        const struct env_row *r = &rows[i];
        char name[64];
        snprintf(name, sizeof(name), "SHMEM_%s", r->name);
        const char *val = getenv(name);
        if (parse_row(r, r->def, fields[i]))
            abort(); /* a default that does not parse is a bug in env.def */
        if (val && parse_row(r, val, fields[i])) {
            char hint[256];
            snprintf(err, errlen, "%s=\"%s\" is not valid: expected %s", name, val,
                     type_hint(r, hint, sizeof(hint)));
            return -1;
        }
    }
    return 0;
}

static size_t edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t prev[64], cur[64];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = prev[j - 1] +
                         (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof(size_t));
    }
    return prev[lb];
}

void shmemi_env_unknown(char **envp, void (*report)(const char *, const char *, void *),
                        void *arg) {
    for (; envp && *envp; envp++) {
        const char *e = *envp;
        if (strncmp(e, "SHMEM_", 6))
            continue;
        const char *eq = strchr(e, '=');
        size_t n = eq ? (size_t)(eq - e) : strlen(e);
        char name[96];
        if (n >= sizeof(name))
            n = sizeof(name) - 1;
        memcpy(name, e, n);
        name[n] = '\0';
        const char *best = NULL;
        size_t best_d = SIZE_MAX;
        int known = 0;
        for (size_t i = 0; i < NROWS + NTOOLS && !known; i++) {
            const struct env_row *r = i < NROWS ? &rows[i] : &tool_rows[i - NROWS];
            if (!strcmp(name + 6, r->name)) {
                known = 1;
                break;
            }
            size_t d = edit_distance(name + 6, r->name);
            if (d < best_d) {
                best_d = d;
                best = r->name;
            }
        }
        if (!known)
            report(name, best, arg);
    }
}

static void print_value(FILE *f, const struct env_row *r, const void *field) {
    if (!strcmp(r->type, "bool"))
        fprintf(f, "%s", *(const int *)field ? "1" : "0");
    else if (!strcmp(r->type, "size"))
        fprintf(f, "%zu", *(const size_t *)field);
    else if (!strcmp(r->type, "int"))
        fprintf(f, "%ld", *(const long *)field);
    else if (!strcmp(r->type, "double"))
        fprintf(f, "%g", *(const double *)field);
    else
        fprintf(f, "%s", *(const char *const *)field);
}

void shmemi_env_print(FILE *f, const struct shmemi_config *cfg, int markdown) {
    const void *fields[NROWS];
    size_t i = 0;
#define SHMEMI_ENV(NAME, TYPE, DEF, DOC) fields[i++] = &cfg->NAME;
#include "shmem/env.def"
#undef SHMEMI_ENV
    if (markdown) {
        fprintf(f, "| variable | type | default | meaning |\n|---|---|---|---|\n");
        for (i = 0; i < NROWS + NTOOLS; i++) {
            const struct env_row *r = i < NROWS ? &rows[i] : &tool_rows[i - NROWS];
            const char *doc = r->doc;
            char type[160], range[96];
            snprintf(type, sizeof(type), "%s%s", r->type, range_text(r, range, sizeof(range)));
            if (!strcmp(r->type, "enum")) {
                char vals[128];
                enum_values_text(doc, vals, sizeof(vals));
                for (char *c = vals; *c; c++)
                    if (*c == '|')
                        *c = '/';
                snprintf(type, sizeof(type), "%s", vals);
            }
            doc = doc_text(r);
            fprintf(f, "| `SHMEM_%s` | %s | %s%s%s | %s |\n", r->name, type, *r->def ? "`" : "",
                    *r->def ? r->def : "(unset)", *r->def ? "`" : "", doc);
        }
        return;
    }
    fprintf(f, "SDMA-SHMEM configuration (set with environment variables):\n");
    for (i = 0; i < NROWS; i++) {
        char range[96];
        fprintf(f, "  SHMEM_%-20s = ", rows[i].name);
        print_value(f, &rows[i], fields[i]);
        fprintf(f, "  (%s%s, default %s)\n", rows[i].type,
                range_text(&rows[i], range, sizeof(range)), rows[i].def);
    }
}

/* ------------------------------------------------ a GPU's hardware queues */

int shmemi_gpu_connections(int per_gpu) {
    if (per_gpu <= 3)
        return 32;
    return per_gpu >= 96 ? 1 : 96 / per_gpu;
}

/* The leading positive number of s, or 0. */
static long leading(const char *s) {
    if (!s || !isdigit((unsigned char)*s))
        return 0;
    long v = strtol(s, NULL, 10);
    return v > 0 && v < INT_MAX ? v : 0;
}

static long visible_gpus(void) {
    const char *vis = getenv("CUDA_VISIBLE_DEVICES");
    if (vis && *vis) {
        long n = 1;
        for (const char *p = vis; *p; p++)
            n += *p == ',';
        return n;
    }
    long n = 0;
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (d) {
        for (struct dirent *e; (e = readdir(d));)
            n += e->d_name[0] != '.';
        closedir(d);
    }
    return n > 0 ? n : 1;
}

int shmemi_pes_per_gpu_from_env(void) {
    static const char *const sizes[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS",
                                        "SLURM_TASKS_PER_NODE"};
    long local = getenv("SHMEMI_BOOT_FD") ? leading(getenv("SHMEMI_BOOT_SIZE")) : 0;
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes && !local; i++)
        local = leading(getenv(sizes[i]));
    if (!local)
        local = 1;
    long gpus = visible_gpus();
    return (int)((local + gpus - 1) / gpus);
}
