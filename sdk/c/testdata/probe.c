/* probe prints what arena.h reads out of each JSON line, in the format that
 * sdk's TestReadersAgree compares across Go, C and Rust. */
#include "../arena.h"

static const char *keys[] = {"a", "b", "ore", "units", "x"};

int main(void) {
    for (char *line; (line = arena_read_line()) != NULL;) {
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            const char *v = arena_get(line, keys[k]);
            long long ints[256];
            const char *elems[64];
            int n = arena_ints(v, ints, 256);
            int ne = arena_elems(v, elems, 64);
            printf("%s found=%d int=%lld elems=%d ints=", keys[k], v != NULL, arena_int(v), v ? ne : -1);
            for (int i = 0; i < n; i++)
                printf("%s%lld", i ? "," : "", ints[i]);
            printf(" x=");
            for (int i = 0; i < ne && i < 64; i++)
                printf("%s%lld", i ? "," : "", arena_int(arena_get(elems[i], "x")));
            printf("\n");
        }
        fflush(stdout);
    }
    return 0;
}
