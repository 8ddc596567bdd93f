/* Copied from the Arena repository's sdk/c/arena.h by `go generate ./internal/kits`: edit that file. */
/* arena.h: the C side of a bot for the Arena platform (docs/bots.md).
 *
 * One header, no library, C99: the line loop of the bot protocol, a small
 * JSON reader that finds the fields a bot needs without building a tree, and
 * the fuel gauge of wasm bots. Include it in exactly one .c file.
 *
 *   for (char *line; (line = arena_read_line()) != NULL;) {
 *       long long you = arena_int(arena_get(line, "you"));
 *       arena_answer("{\"orient\":\"H\",\"r\":0,\"c\":0}");
 *   }
 *
 * The same source builds for the platform
 *   clang --target=wasm32-wasi --sysroot=/usr -O2 -o bot.wasm bot.c
 * and natively (cc -O2 -o bot bot.c) for the CLI's exec: kind.
 *
 * The reader trusts its input to be the platform's JSON: on anything else it
 * returns NULL or 0 rather than reading out of bounds.
 */
#ifndef ARENA_H
#define ARENA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __wasm__
/* The platform's import arena.fuel_left: fuel left in the tank right now. */
__attribute__((import_module("arena"), import_name("fuel_left")))
long long arena_fuel_left_import(void);
static inline long long arena_fuel_left(void) { return arena_fuel_left_import(); }
#else
/* A native build is not metered. */
static inline long long arena_fuel_left(void) { return -1; }
#endif

/* arena_read_line returns the next observation line without its newline, or
 * NULL when stdin is closed (the match is over). The buffer is reused by the
 * next call. Lines of any length are read. */
static inline char *arena_read_line(void) {
    static char *buf;
    static size_t cap;
    size_t n = 0;
    for (;;) {
        if (cap - n < 2) {
            size_t ncap = cap ? 2 * cap : 1 << 16;
            char *nbuf = realloc(buf, ncap);
            if (nbuf == NULL) {
                fputs("arena: out of memory reading a line\n", stderr);
                exit(1);
            }
            buf = nbuf;
            cap = ncap;
        }
        if (fgets(buf + n, (int)(cap - n), stdin) == NULL)
            break;
        n += strlen(buf + n);
        if (n > 0 && buf[n - 1] == '\n')
            break;
    }
    if (n == 0)
        return NULL; /* end of input (an empty line still has its newline) */
    if (buf[n - 1] == '\n')
        n--;
    if (n > 0 && buf[n - 1] == '\r')
        n--;
    buf[n] = '\0';
    return buf;
}

/* arena_answer writes one answer line and flushes it, so the platform sees it
 * at once. */
static inline void arena_answer(const char *json) {
    fputs(json, stdout);
    putchar('\n');
    fflush(stdout);
}

static inline const char *arena_ws(const char *p) {
    while (p && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* arena_delim reports whether c ends a number, true, false or null. */
static inline int arena_delim(char c) {
    return c == ',' || c == ']' || c == '}' || c == ':' || c == ' ' || c == '\t' || c == '\n' ||
           c == '\r' || c == '\0';
}

/* arena_skip returns the first character after the JSON value at p, or NULL
 * when p is not at a value. It counts brackets rather than checking the
 * grammar (the platform's JSON is well-formed), which keeps it fast: a bot
 * skips the whole ore map of Grid Royale to reach the fields after it. */
static inline const char *arena_skip(const char *p) {
    int depth = 0;
    p = arena_ws(p);
    if (p == NULL)
        return NULL;
    do {
        switch (*p) {
        case '\0':
            return NULL;
        case '"':
            for (p++; *p != '"'; p++) {
                if (*p == '\0' || (*p == '\\' && *++p == '\0'))
                    return NULL;
            }
            p++;
            break;
        case '{':
        case '[':
            depth++;
            p++;
            break;
        case '}':
        case ']':
            if (--depth < 0)
                return NULL;
            p++;
            break;
        case ',':
        case ':':
        case ' ':
        case '\t':
        case '\n':
        case '\r':
            if (depth == 0)
                return NULL;
            p++;
            break;
        default: {
            const char *start = p;
            while (!arena_delim(*p))
                p++;
            if (p == start)
                return NULL;
        }
        }
    } while (depth > 0);
    return p;
}

/* arena_get returns the value of field key in the object at obj (its own
 * fields only, not those of nested objects), or NULL. */
static inline const char *arena_get(const char *obj, const char *key) {
    const char *p = arena_ws(obj);
    size_t klen = strlen(key);
    if (p == NULL || *p != '{')
        return NULL;
    p = arena_ws(p + 1);
    while (p && *p == '"') {
        const char *name = p + 1;
        const char *after = arena_skip(p);
        if (after == NULL)
            return NULL;
        int match = (size_t)(after - 1 - name) == klen && memcmp(name, key, klen) == 0;
        p = arena_ws(after);
        if (*p != ':')
            return NULL;
        const char *value = arena_ws(p + 1);
        p = arena_ws(arena_skip(value));
        if (p == NULL)
            return NULL;
        if (match)
            return value;
        if (*p != ',')
            return NULL;
        p = arena_ws(p + 1);
    }
    return NULL;
}

/* arena_int reads the number at p; true reads as 1; anything else as 0. */
static inline long long arena_int(const char *p) {
    p = arena_ws(p);
    if (p == NULL)
        return 0;
    if (strncmp(p, "true", 4) == 0)
        return 1;
    return strtoll(p, NULL, 10);
}

/* arena_elems stores pointers to the elements of the array at p in out (at
 * most max) and returns how many the array has, or -1 when p is no array. */
static inline int arena_elems(const char *p, const char **out, int max) {
    p = arena_ws(p);
    if (p == NULL || *p != '[')
        return -1;
    p = arena_ws(p + 1);
    if (*p == ']')
        return 0;
    int n = 0;
    for (;;) {
        if (n < max)
            out[n] = p;
        n++;
        p = arena_ws(arena_skip(p));
        if (p == NULL)
            return -1;
        if (*p == ']')
            return n;
        if (*p != ',')
            return -1;
        p = arena_ws(p + 1);
    }
}

/* arena_ints reads the numbers, booleans (true as 1) and nulls (0) of the
 * array at p, nested arrays flattened in order (a board row by row), into out
 * (at most max). It returns how many it read. Strings are skipped; the values
 * of objects inside the array count like any other. */
static inline int arena_ints(const char *p, long long *out, int max) {
    int n = 0;
    p = arena_ws(p);
    if (p == NULL || *p != '[')
        return 0;
    const char *end = arena_skip(p);
    if (end == NULL)
        return 0;
    for (; p < end && n < max; p++) {
        if (*p == '-' || (*p >= '0' && *p <= '9')) {
            char *next;
            out[n++] = strtoll(p, &next, 10);
            if (next > p) /* else a lone '-': step over it */
                p = next - 1;
        } else if (*p == '"') { /* a string is no number: skip it whole */
            p = arena_skip(p) - 1;
        } else if (*p == 't' || *p == 'f' || *p == 'n') { /* true, false, null */
            out[n++] = *p == 't';
            while (p + 1 < end && !arena_delim(p[1]))
                p++;
        }
    }
    return n;
}

#endif
