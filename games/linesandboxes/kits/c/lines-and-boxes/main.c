/* A Lines and Boxes bot in C: it draws the line that closes the most boxes,
 * else a safe unit edge, else the line that hands the opponent the fewest
 * boxes. See README.md to build it. */
#include "arena.h"

enum { MAX = 16 }; /* the largest board side this bot reads (the game allows 8) */

static int rows, cols;
static long long h[(MAX + 1) * MAX], v[MAX * (MAX + 1)];
static int sides[MAX][MAX];

/* A candidate move: dots (r0, c0) to (r1, c1) and what it does. */
typedef struct {
    int r0, c0, r1, c1;
    int closed, handed; /* boxes it closes, boxes it leaves with three sides */
} Line;

static int hdrawn(int r, int c) { return r < 0 || r > rows || c < 0 || c >= cols || h[r * cols + c]; }
static int vdrawn(int r, int c) { return r < 0 || r >= rows || c < 0 || c > cols || v[r * (cols + 1) + c]; }

/* effect counts what one more side on box (r, c) does. */
static void effect(int r, int c, Line *l) {
    if (r < 0 || r >= rows || c < 0 || c >= cols)
        return;
    if (sides[r][c] == 3)
        l->closed++;
    else if (sides[r][c] == 2)
        l->handed++;
}

/* better orders lines: most boxes won now less boxes handed over, then the
 * shorter line (it keeps the safe edges for later). */
static int better(const Line *a, const Line *b) {
    int ga = a->closed - a->handed, gb = b->closed - b->handed;
    if (ga != gb)
        return ga > gb;
    return a->r1 - a->r0 + a->c1 - a->c0 < b->r1 - b->r0 + b->c1 - b->c0;
}

static void consider(const Line *l, Line *best, int *found) {
    if (!*found || better(l, best)) {
        *best = *l;
        *found = 1;
    }
}

/* play answers one observation into out. A straight line gives every box
 * along it exactly one more side, so a line's effect is the sum of its unit
 * edges' effects. */
static void play(const char *obs, char *out, size_t size) {
    rows = (int)arena_int(arena_get(obs, "rows"));
    cols = (int)arena_int(arena_get(obs, "cols"));
    if (rows < 1 || rows > MAX || cols < 1 || cols > MAX) {
        snprintf(out, size, "{}"); /* a board beyond this bot: the default move */
        return;
    }
    arena_ints(arena_get(obs, "h"), h, (rows + 1) * cols);
    arena_ints(arena_get(obs, "v"), v, rows * (cols + 1));
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            sides[r][c] = hdrawn(r, c) + hdrawn(r + 1, c) + vdrawn(r, c) + vdrawn(r, c + 1);
    Line best = {0};
    int found = 0;
    for (int r = 0; r <= rows; r++) { /* horizontal lines on dot row r */
        for (int c0 = 0; c0 < cols; c0++) {
            Line l = {r, c0, r, c0, 0, 0};
            for (int c = c0; c < cols && !hdrawn(r, c); c++) {
                effect(r - 1, c, &l);
                effect(r, c, &l);
                l.c1 = c + 1;
                consider(&l, &best, &found);
            }
        }
    }
    for (int c = 0; c <= cols; c++) { /* vertical lines on dot column c */
        for (int r0 = 0; r0 < rows; r0++) {
            Line l = {r0, c, r0, c, 0, 0};
            for (int r = r0; r < rows && !vdrawn(r, c); r++) {
                effect(r, c - 1, &l);
                effect(r, c, &l);
                l.r1 = r + 1;
                consider(&l, &best, &found);
            }
        }
    }
    if (!found) {
        snprintf(out, size, "{}"); /* no line left: the game is over and will not ask */
        return;
    }
    /* A dot is its column letter and its row number: "A1" is the top left. */
    snprintf(out, size, "{\"from\":\"%c%d\",\"to\":\"%c%d\"}", 'A' + best.c0, best.r0 + 1, 'A' + best.c1,
             best.r1 + 1);
}

int main(void) {
    char answer[64];
    for (char *obs; (obs = arena_read_line()) != NULL;) {
        play(obs, answer, sizeof answer);
        arena_answer(answer);
    }
    return 0;
}
