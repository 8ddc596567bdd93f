/* fuelbot plays Dots and Boxes with the first undrawn edge and logs, on each
 * turn, the tank the observation announced and what arena_fuel_left reads
 * live, for examples' TestFuelLeft. */
#include "../arena.h"

/* first_undrawn writes the first undrawn edge of lines (the "h" or "v"
 * board) into answer and reports whether there was one. */
static int first_undrawn(const char *lines, char orient, char *answer, size_t size) {
    const char *rows[64];
    int nr = arena_elems(lines, rows, 64);
    for (int r = 0; r < nr && r < 64; r++) {
        long long drawn[64];
        int nc = arena_ints(rows[r], drawn, 64);
        for (int c = 0; c < nc; c++) {
            if (!drawn[c]) {
                snprintf(answer, size, "{\"orient\":\"%c\",\"r\":%d,\"c\":%d}", orient, r, c);
                return 1;
            }
        }
    }
    return 0;
}

int main(void) {
    for (char *obs; (obs = arena_read_line()) != NULL;) {
        fprintf(stderr, "left=%lld live=%lld\n", arena_int(arena_get(arena_get(obs, "fuel"), "left")),
                arena_fuel_left());
        char answer[64] = "{}";
        if (!first_undrawn(arena_get(obs, "h"), 'H', answer, sizeof answer))
            first_undrawn(arena_get(obs, "v"), 'V', answer, sizeof answer);
        arena_answer(answer);
    }
    return 0;
}
