/* The configuration table's parser, printer and "did you mean" check. */
#include "shmem/env.h"

#include <ctype.h>
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
    {"LAUNCHER", "string", "", "oshrun: `mpirun` hands the job to Open MPI's mpirun (PMIx bootstrap)"},
    {"MPIRUN", "string", "mpirun", "oshrun: the mpirun to exec when SHMEM_LAUNCHER=mpirun"},
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
    unsigned shift = 0;
    switch (tolower((unsigned char)*end)) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: break;
    }
    if (shift) {
        end++;
        if (tolower((unsigned char)*end) == 'b')
            end++;
    } else if (tolower((unsigned char)*end) == 'b') {
        end++;
    }
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

/* An enum value points into the doc string: copy it out up to '|' or ':'. */
static const char *enum_value(const char *p) {
    static char buf[8][32];
    static unsigned slot;
    char *b = buf[slot++ % 8];
    size_t i = 0;
    while (p[i] && p[i] != '|' && p[i] != ':' && i < sizeof(buf[0]) - 1) {
        b[i] = p[i];
        i++;
    }
    b[i] = '\0';
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
        return shmemi_parse_size(val, dst);
    if (!strcmp(r->type, "int"))
        return shmemi_parse_int(val, dst);
    if (!strcmp(r->type, "double"))
        return shmemi_parse_double(val, dst);
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
    if (!strcmp(r->type, "bool"))
        return "a boolean (1/0, y/n, yes/no, on/off, true/false)";
    if (!strcmp(r->type, "size"))
        return "a size in bytes with an optional k/m/g suffix (e.g. 512m)";
    if (!strcmp(r->type, "int"))
        return "an integer";
    if (!strcmp(r->type, "double"))
        return "a number";
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
            char hint[160];
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
            size_t sub = prev[j - 1] + (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));
            size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
            cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
        memcpy(prev, cur, (lb + 1) * sizeof(size_t));
    }
    return prev[lb];
}

void shmemi_env_unknown(char **envp, void (*report)(const char *, const char *, void *), void *arg) {
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
            char type[160];
            snprintf(type, sizeof(type), "%s", r->type);
            if (!strcmp(r->type, "enum")) {
                char vals[128];
                enum_values_text(doc, vals, sizeof(vals));
                for (char *c = vals; *c; c++)
                    if (*c == '|')
                        *c = '/';
                snprintf(type, sizeof(type), "%s", vals);
                doc = strchr(doc, ':') + 1;
            }
            doc = skip_space(doc);
            fprintf(f, "| `SHMEM_%s` | %s | %s%s%s | %s |\n", r->name, type, *r->def ? "`" : "",
                    *r->def ? r->def : "(unset)", *r->def ? "`" : "", doc);
        }
        return;
    }
    fprintf(f, "SDMA-SHMEM configuration (set with environment variables):\n");
    for (i = 0; i < NROWS; i++) {
        fprintf(f, "  SHMEM_%-20s = ", rows[i].name);
        print_value(f, &rows[i], fields[i]);
        fprintf(f, "  (%s, default %s)\n", rows[i].type, rows[i].def);
    }
}
