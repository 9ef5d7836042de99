/* Writes the installed API headers from the op table (shmem_ops.h) and the
 * type lists (shmem_typelists.h), when the build is configured:
 *
 *   gen_api <shmem.h.in> <pshmem.h.in> <outdir>
 *     <outdir>/shmem.h        the template with its @...@ lines replaced:
 *                             @API <sec>@  one prototype per routine of section sec
 *                             @GENERIC@    the C11 type-generic selections
 *                             @CXX@        the same names as C++ overloads
 *     <outdir>/pshmem.h       the profiling names (@PSHMEM@: one per routine)
 *     <outdir>/shmem_api.txt  every exported routine name and its version
 *                             (v15, dep, v16, rem, ext), for the export test
 *
 * It is compiled with the C compiler of the build, so the type classes it
 * finds with _Generic (int32_t is int, size_t is unsigned long, ...) are the
 * target's: a generic selection must not name one type twice. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_ops.h"

struct row {
    const char *sec, *file, *ver, *forms, *dev, *type, *tname, *ret, *name, *params, *args, *gen;
    int cls;      /* type class of T (0: void); rows of one class share a generic arm */
    char fam[96]; /* family: the name with the type name replaced by '@' */
};

static struct row rows[4096];
static int nrows;

/* One class per distinct C type a row can have (the fixed-width and size
 * types are one of these); complex types have no C++ overloads. */
#define CLASS(T)                                                                                   \
    _Generic((T *)0, char * : 1, signed char * : 2, unsigned char * : 3, short * : 4,              \
             unsigned short * : 5, int * : 6, unsigned int * : 7, long * : 8, unsigned long * : 9, \
             long long * : 10, unsigned long long * : 11, float * : 12, double * : 13,             \
             long double * : 14, float _Complex * : 15, double _Complex * : 16, default : 0)
#define CLASS_COMPLEX(c) ((c) == 15 || (c) == 16)

static void add(const char *sec, const char *file, const char *ver, const char *forms,
                const char *dev, const char *type, const char *tname, const char *ret,
                const char *name, const char *params, const char *args, const char *gen, int cls) {
    if (nrows == (int)(sizeof rows / sizeof rows[0])) {
        fprintf(stderr, "gen_api: more than %d rows\n", nrows);
        exit(1);
    }
    struct row *r = &rows[nrows++];
    *r = (struct row){sec, file, ver,    forms, dev, type, tname,
                      ret, name, params, args,  gen, cls,  ""};
    /* family key: the name with the first occurrence of the type name replaced */
    const char *at = *tname ? strstr(name, tname) : NULL;
    if (at)
        snprintf(r->fam, sizeof r->fam, "%s:%.*s@%s", sec, (int)(at - name), name,
                 at + strlen(tname));
    else
        snprintf(r->fam, sizeof r->fam, "%s:%s", sec, name);
}

#define SHMEMI_OP(SEC, FILE, VER, FORMS, DEV, T, N, RET, NAME, P, A, GEN, BODY)                    \
    add(#SEC, #FILE, #VER, #FORMS, #DEV, SHMEMI_STR(T), #N, SHMEMI_STR(RET), #NAME, SHMEMI_STR(P), \
        SHMEMI_STR(A), #GEN, CLASS(T));
#define SHMEMI_FN(SEC, FILE, VER, FORMS, DEV, RET, NAME, P)                                        \
    add(#SEC, #FILE, #VER, #FORMS, #DEV, "void", "", SHMEMI_STR(RET), #NAME, SHMEMI_STR(P), "",    \
        "none", 0);

static void load(void) { SHMEMI_OPS_ALL() }

/* ------------------------------------------------------------- prototypes */
static int is(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* "ret name": no space after a pointer's star. */
static void ret_name(FILE *f, const char *ret, const char *pre, const char *name) {
    size_t n = strlen(ret);
    fprintf(f, "%s%s%s%s", ret, n && ret[n - 1] == '*' ? "" : " ", pre, name);
}

/* The parameters with a context first: "(shmem_ctx_t ctx, ...)". */
static void ctx_params(FILE *f, const char *params) {
    if (is(params, "(void)"))
        fputs("(shmem_ctx_t ctx)", f);
    else
        fprintf(f, "(shmem_ctx_t ctx, %s", params + 1);
}

/* Name prefixes of a row's forms: {plain, ctx} for shmem.h or pshmem.h. */
static const char *prefix(const struct row *r, int ctx, int profiling) {
    if (is(r->forms, "bare"))
        return profiling ? "p" : "";
    if (ctx)
        return profiling ? "pshmem_ctx_" : "shmem_ctx_";
    return profiling ? "pshmem_" : "shmem_";
}

/* A deprecated C function that C++ keeps as one overload of a generic name
 * that is not deprecated (shmem_wait_until on long). */
static int cxx_overload_of_current(const struct row *r) {
    for (int i = 0; i < nrows; i++)
        if (rows[i].cls && is(rows[i].gen, r->name) && is(rows[i].params, r->params))
            return !is(rows[i].ver, "dep");
    return 0;
}

static int deprecated(const struct row *r) { return is(r->ver, "dep") || is(r->ver, "rem"); }

static void proto(FILE *f, const struct row *r, int ctx, int profiling) {
    if (!profiling && !is(r->dev, "host"))
        fputs("SHMEM_HD ", f);
    if (!profiling && deprecated(r))
        fputs(cxx_overload_of_current(r) ? "SHMEMI_DEPRECATED_C " : "SHMEMI_DEPRECATED ", f);
    ret_name(f, r->ret, prefix(r, ctx, profiling), r->name);
    if (ctx)
        ctx_params(f, r->params);
    else
        fputs(r->params, f);
    fputs(";\n", f);
}

/* Every routine of section sec (NULL: all), family by family in the order
 * of the op table, each family's types in the order of its list; the
 * context form follows the plain one. */
static void emit_protos(FILE *f, const char *sec, int profiling) {
    static char done[4096];
    memset(done, 0, sizeof done);
    for (int i = 0; i < nrows; i++) {
        if (done[i] || (sec && !is(rows[i].sec, sec)))
            continue;
        for (int j = i; j < nrows; j++) {
            if (done[j] || !is(rows[j].fam, rows[i].fam))
                continue;
            done[j] = 1;
            proto(f, &rows[j], 0, profiling);
            if (is(rows[j].forms, "ctx"))
                proto(f, &rows[j], 1, profiling);
        }
    }
}

/* ------------------------------------------------------------- generics */
/* Parameter k of a "(a, b, c)" list, copied into buf. */
static const char *param(const char *params, int k, char *buf, size_t len) {
    const char *p = params + 1;
    for (; k > 0 && p; k--) {
        p = strchr(p, ',');
        if (p)
            p += 2;
    }
    if (!p)
        return "";
    size_t n = strcspn(p, ",)");
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
    return buf;
}

/* The parameter a generic selects on: the first one that is not a team. */
static int sel_index(const struct row *r) {
    char b[128];
    return strncmp(param(r->params, 0, b, sizeof b), "shmem_team_t", 12) == 0;
}

/* A deprecated generic name and the one that replaced it (the op table's
 * SHMEMI_GENERIC_REPLACED list): the deprecated C11 name takes every type of
 * its replacement's table, the types without a deprecated typed routine
 * going to the replacement's (shmem_cswap on unsigned int selects
 * shmem_uint_atomic_compare_swap). */
static const char *replaced[][2] = {
#define SHMEMI_REPLACED(OLD, NEW) {#OLD, #NEW},
    SHMEMI_GENERIC_REPLACED(SHMEMI_REPLACED)
#undef SHMEMI_REPLACED
};

static const char *replacement(const char *g) {
    for (size_t k = 0; k < sizeof replaced / sizeof replaced[0]; k++)
        if (is(replaced[k][0], g))
            return replaced[k][1];
    return NULL;
}

/* The rows of generic g, one per type class, in list order; then, for a
 * replaced name, its replacement's rows of the classes still missing. */
static int gen_rows(const char *g, const struct row **out) {
    int n = 0, seen[32] = {0};
    const char *names[2] = {g, replacement(g)};
    for (int pass = 0; pass < 2 && names[pass]; pass++) {
        for (int i = 0; i < nrows; i++) {
            const struct row *r = &rows[i];
            if (!is(r->gen, names[pass]) || !r->cls || seen[r->cls])
                continue;
            seen[r->cls] = 1;
            out[n++] = r;
        }
    }
    return n;
}

static int first_with_gen(int i) {
    for (int j = 0; j < i; j++)
        if (is(rows[j].gen, rows[i].gen))
            return 0;
    return !is(rows[i].gen, "none");
}

/* The associations `T *: shmem_<ctx>NAME,` of one selection; ctx < 0: the
 * selection has no default and its last association ends the call (the
 * caller ends the line). A deprecated routine is named through its alias
 * (SHMEMI_NODEP: aliases). */
static void arms(FILE *f, const struct row **g, int n, int ctx, const char *indent) {
    char b[128], fn[160];
    const char *pre = ctx > 0 ? "shmem_ctx_" : "shmem_";
    for (int k = 0; k < n; k++) {
        const char *p = param(g[k]->params, sel_index(g[k]), b, sizeof b);
        snprintf(fn, sizeof fn, deprecated(g[k]) ? "SHMEMI_NODEP(%s%s)" : "%s%s", pre, g[k]->name);
        if (strncmp(p, "const ", 6) == 0)
            fprintf(f, "%sconst %s *: %s, \\\n", indent, g[k]->type, fn);
        if (k + 1 < n || ctx >= 0)
            fprintf(f, "%s%s *: %s, \\\n", indent, g[k]->type, fn);
        else
            fprintf(f, "%s%s *: %s)(__VA_ARGS__)", indent, g[k]->type, fn);
    }
}

/* Whether generic name gen is itself deprecated: a replaced name, or one
 * whose every routine is (shmem_wait). */
static int generic_deprecated(const char *gen) {
    if (replacement(gen))
        return 1;
    for (int i = 0; i < nrows; i++)
        if (is(rows[i].gen, gen) && !deprecated(&rows[i]))
            return 0;
    return 1;
}

/* Compilers warn about a deprecated function named in any association of a
 * _Generic, selected or not: a call of shmem_fetch would warn once for each
 * of its five deprecated types. So the selections name deprecated routines
 * through aliases without the attribute (the same symbols: a profiling tool
 * still sees the call as the routine's), and a deprecated generic name warns
 * once, where it is called, through a function of its own. */
static void aliases(FILE *f) {
    static char done[4096];
    const struct row *g[64];
    fputs("#if defined(__GNUC__)\n"
          "#define SHMEMI_NODEP(f) shmemi_nodep_##f\n"
          "#define SHMEMI_LABEL(s) SHMEMI_LABEL_I(__USER_LABEL_PREFIX__) #s\n"
          "#define SHMEMI_LABEL_I(p) SHMEMI_LABEL_S(p)\n"
          "#define SHMEMI_LABEL_S(p) #p\n",
          f);
    for (int i = 0; i < nrows; i++) {
        if (!first_with_gen(i))
            continue;
        int n = gen_rows(rows[i].gen, g);
        for (int k = 0; k < n; k++) {
            int j = (int)(g[k] - rows);
            if (!deprecated(g[k]) || done[j])
                continue;
            done[j] = 1;
            for (int ctx = 0; ctx <= is(g[k]->forms, "ctx"); ctx++) {
                char name[160];
                snprintf(name, sizeof name, "shmemi_nodep_%s", prefix(g[k], ctx, 0));
                ret_name(f, g[k]->ret, name, g[k]->name);
                if (ctx)
                    ctx_params(f, g[k]->params);
                else
                    fputs(g[k]->params, f);
                fprintf(f, " __asm__(SHMEMI_LABEL(%s%s));\n", prefix(g[k], ctx, 0), g[k]->name);
            }
        }
    }
    fputs("#else\n#define SHMEMI_NODEP(f) f\n#endif\n", f);
}

/* One C11 generic selection: shmem_GEN(...) over the rows g[0..n); a
 * deprecated name calls its warning first. */
static void generic(FILE *f, const struct row **g, int n) {
    const char *gen = g[0]->gen;
    const char *arg =
        sel_index(g[0]) ? "SHMEMI_ARG2(__VA_ARGS__, 0, 0)" : "SHMEMI_ARG1(__VA_ARGS__, 0)";
    int dep = generic_deprecated(gen);
    if (dep) {
        const char *to = replacement(gen);
        fprintf(f, "SHMEMI_DEPRECATED_AS(\"shmem_%s is deprecated%s%s\")\n", gen,
                to ? ": use shmem_" : "", to ? to : "");
        fprintf(f, "static inline void shmemi_deprecated_%s(void) {}\n", gen);
    }
    fprintf(f, "#define shmem_%s(...) \\\n", gen);
    if (dep)
        fprintf(f, "    (shmemi_deprecated_%s(), \\\n", gen);
    if (!is(g[0]->forms, "ctx")) {
        fprintf(f, "    _Generic(%s, \\\n", arg);
        arms(f, g, n, -1, "        ");
        fputs(dep ? ")\n" : "\n", f);
        return;
    }
    /* With a context first, the element pointer is the second argument. */
    fputs("    _Generic(SHMEMI_ARG1(__VA_ARGS__, 0), \\\n", f);
    fputs("        shmem_ctx_t: _Generic(SHMEMI_ARG2(__VA_ARGS__, 0, 0), \\\n", f);
    arms(f, g, n, 1, "            ");
    fputs("            default: shmemi_generic_no_such_type), \\\n", f);
    fputs("        default: _Generic(SHMEMI_ARG1(__VA_ARGS__, 0), \\\n", f);
    arms(f, g, n, 0, "            ");
    fprintf(f, "            default: shmemi_generic_no_such_type))(__VA_ARGS__)%s\n",
            dep ? ")" : "");
}

/* emit(f, rows, n) for each generic name, in the order of the op table. */
static void each_generic(FILE *f, void (*emit)(FILE *, const struct row **, int)) {
    const struct row *g[64];
    for (int i = 0; i < nrows; i++)
        if (first_with_gen(i))
            emit(f, g, gen_rows(rows[i].gen, g));
}

/* A C function of the same name and parameters (the deprecated long forms of
 * shmem_wait_until, shmem_wait and shmem_swap) is that type's overload. */
static int has_c_function(const char *gen, const struct row *r) {
    for (int i = 0; i < nrows; i++)
        if (!rows[i].cls && is(rows[i].name, gen) && is(rows[i].params, r->params))
            return 1;
    return 0;
}

/* The C++ overload of generic name gen (deprecated or not) on row r. */
static void overload(FILE *f, const char *gen, int dep, const struct row *r, int ctx) {
    fputs(dep ? "SHMEMI_DEPRECATED inline " : "inline ", f);
    ret_name(f, r->ret, "shmem_", gen);
    if (ctx)
        ctx_params(f, r->params);
    else
        fputs(r->params, f);
    fprintf(f, " {\n    return %s%s(%s%s;\n}\n", ctx ? "shmem_ctx_" : "shmem_", r->name,
            ctx ? "ctx, " : "", r->args + 1);
}

/* The overloads of one generic name (no complex types: they are C only);
 * g[0] is a row of the name itself, later rows may be its replacement's. */
static void overloads(FILE *f, const struct row **g, int n) {
    const char *gen = g[0]->gen;
    for (int k = 0; k < n; k++) {
        if (CLASS_COMPLEX(g[k]->cls) || has_c_function(gen, g[k]))
            continue;
        int dep = is(g[k]->ver, "dep") || !is(g[k]->gen, gen);
        overload(f, gen, dep, g[k], 0);
        if (is(g[0]->forms, "ctx"))
            overload(f, gen, dep, g[k], 1);
    }
}

/* ---------------------------------------------------------------- output */
static FILE *open_or_die(const char *dir, const char *name, const char *mode) {
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
    FILE *f = fopen(path, mode);
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

/* Copy the template, expanding its @...@ lines. */
static void fill(const char *tmpl, const char *dir, const char *out) {
    FILE *in = open_or_die(NULL, tmpl, "r"), *f = open_or_die(dir, out, "w");
    char line[1024], sec[64];
    while (fgets(line, sizeof line, in)) {
        if (sscanf(line, "@API %63[a-z0-9]@", sec) == 1)
            emit_protos(f, sec, 0);
        else if (strcmp(line, "@GENERIC@\n") == 0) {
            aliases(f);
            each_generic(f, generic);
        } else if (strcmp(line, "@CXX@\n") == 0)
            each_generic(f, overloads);
        else if (strcmp(line, "@PSHMEM@\n") == 0)
            emit_protos(f, NULL, 1);
        else
            fputs(line, f);
    }
    if (ferror(in) || fclose(f)) {
        fprintf(stderr, "gen_api: writing %s/%s failed\n", dir, out);
        exit(1);
    }
    fclose(in);
}

static void emit_names(const char *dir) {
    FILE *f = open_or_die(dir, "shmem_api.txt", "w");
    for (int i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        fprintf(f, "%s%s %s\n", prefix(r, 0, 0), r->name, r->ver);
        if (is(r->forms, "ctx"))
            fprintf(f, "%s%s %s\n", prefix(r, 1, 0), r->name, r->ver);
    }
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: gen_api <shmem.h.in> <pshmem.h.in> <outdir>\n");
        return 2;
    }
    load();
    fill(argv[1], argv[3], "shmem.h");
    fill(argv[2], argv[3], "pshmem.h");
    emit_names(argv[3]);
    return 0;
}
