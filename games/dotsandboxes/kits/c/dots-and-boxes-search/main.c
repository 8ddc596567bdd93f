/* Dots and Boxes search kit in C: the engine of the Arena house's
 * builtin:search (games/dotsandboxes/board.go, coins.go and search.go in the
 * Arena repository), ported function for function, thinking until the fuel
 * of the turn is spent. See README.md. */
#include <limits.h>
#include <stdint.h>

#include "arena.h"

/* ---- The board (board.go) ---------------------------------------------- */

enum {
    ROWS = 5,
    COLS = 5,
    NUM_H = (ROWS + 1) * COLS, /* horizontal edges, 6 rows of 5 */
    NUM_V = ROWS * (COLS + 1), /* vertical edges, 5 rows of 6 */
    NUM_EDGES = NUM_H + NUM_V, /* 60 */
    NUM_BOXES = ROWS * COLS,   /* 25 */
};

/* An edge is its index in the observation's order: every H edge row by row,
 * then every V edge row by row. NO_EDGE where none applies. */
typedef int8_t Edge;
#define NO_EDGE ((Edge)-1)

#define BIT(e) (UINT64_C(1) << (e))
#define ALL_EDGES (BIT(NUM_EDGES) - 1)
#define BOX_MASK ((UINT32_C(1) << NUM_BOXES) - 1)
#define NO_BOX BIT(63) /* not an edge: never drawn */

static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int popcount32(uint32_t x) { return __builtin_popcount(x); }
/* ctz64 is 64 for 0, as wasm's i64.ctz (and Go's bits.TrailingZeros64). */
static inline int ctz64(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }
static inline int max_int(int a, int b) { return a > b ? a : b; }

static Edge edge_h(int r, int c) { return (Edge)(r * COLS + c); }
static Edge edge_v(int r, int c) { return (Edge)(NUM_H + r * (COLS + 1) + c); }
static int horizontal(Edge e) { return e < NUM_H; }

static void edge_rc(Edge e, int *r, int *c) {
    if (horizontal(e)) {
        *r = e / COLS;
        *c = e % COLS;
    } else {
        int i = e - NUM_H;
        *r = i / (COLS + 1);
        *c = i % (COLS + 1);
    }
}

/* box_edges[b] is the mask of box b's four sides; edge_boxes[e] the boxes on
 * either side of e, -1 off the board; closers[e] what play needs for edge e:
 * a missing box has the side mask NO_BOX, which is never complete. */
static uint64_t box_edges[NUM_BOXES];
static int8_t edge_boxes[NUM_EDGES][2];
typedef struct {
    uint64_t sides;
    uint32_t bit;
} Closer;
static Closer closers[NUM_EDGES][2];

static void link_box(Edge e, int b) {
    box_edges[b] |= BIT(e);
    if (edge_boxes[e][0] < 0)
        edge_boxes[e][0] = (int8_t)b;
    else
        edge_boxes[e][1] = (int8_t)b;
}

static void init_board(void) {
    for (int e = 0; e < NUM_EDGES; e++)
        edge_boxes[e][0] = edge_boxes[e][1] = -1;
    for (int r = 0; r < ROWS; r++) {
        for (int c = 0; c < COLS; c++) {
            int b = r * COLS + c;
            link_box(edge_h(r, c), b);
            link_box(edge_h(r + 1, c), b);
            link_box(edge_v(r, c), b);
            link_box(edge_v(r, c + 1), b);
        }
    }
    for (int e = 0; e < NUM_EDGES; e++) {
        for (int i = 0; i < 2; i++) {
            int box = edge_boxes[e][i];
            closers[e][i].sides = box >= 0 ? box_edges[box] : NO_BOX;
            closers[e][i].bit = box >= 0 ? UINT32_C(1) << box : 0;
        }
    }
}

/* Board is the whole state of a game, a plain value: copying it copies the
 * game. */
typedef struct {
    uint64_t drawn;    /* bit e set when edge e is drawn */
    uint32_t owned[2]; /* bit b set when that seat closed box b */
    int8_t to_move;
} Board;

static inline int over(const Board *b) { return b->drawn == ALL_EDGES; }
static inline uint64_t undrawn(const Board *b) { return ~b->drawn & ALL_EDGES; }
static inline int sides(const Board *b, int box) { return popcount64(b->drawn & box_edges[box]); }

/* play draws the undrawn edge e for the seat to move and returns how many
 * boxes it closed; closing none passes the move. */
static inline int play(Board *b, Edge e) {
    uint64_t d = b->drawn | BIT(e);
    const Closer *c = closers[e];
    uint32_t won = 0;
    b->drawn = d;
    if ((d & c[0].sides) == c[0].sides)
        won = c[0].bit;
    if ((d & c[1].sides) == c[1].sides)
        won |= c[1].bit;
    if (won == 0) {
        b->to_move ^= 1;
        return 0;
    }
    b->owned[b->to_move & 1] |= won;
    return popcount32(won);
}

/* closes counts the boxes drawing e would close. */
static int closes(const Board *b, Edge e) {
    int n = 0;
    for (int i = 0; i < 2; i++) {
        int box = edge_boxes[e][i];
        if (box >= 0 && sides(b, box) == 3)
            n++;
    }
    return n;
}

/* ---- Strings and coins (coins.go) -------------------------------------- */

/* nth_bit returns the index of the n-th set bit of mask (n from 0). */
static Edge nth_bit(uint64_t mask, int n) {
    for (; n > 0; n--)
        mask &= mask - 1;
    return (Edge)ctz64(mask);
}

/* The V edges come in rows of COLS+1, the boxes in rows of COLS: pack_rows
 * drops the last bit of each row of six, spread_rows puts a gap back,
 * written out for the board's five rows. */
static inline uint32_t pack_rows(uint64_t v) {
    return (uint32_t)((v & 0x1f) | (v >> 1 & 0x3e0) | (v >> 2 & 0x7c00) | (v >> 3 & 0xf8000) |
                      (v >> 4 & 0x1f00000));
}

static inline uint64_t spread_rows(uint32_t s) {
    uint64_t x = s;
    return (x & 0x1f) | (x & 0x3e0) << 1 | (x & 0x7c00) << 2 | (x & 0xf8000) << 3 |
           (x & 0x1f00000) << 4;
}

/* box_sides is the set of edges that are sides of the boxes in set. */
static inline uint64_t box_sides(uint32_t set) {
    uint64_t v = spread_rows(set);
    return (uint64_t)set | (uint64_t)set << COLS | (v | v << 1) << NUM_H;
}

/* side_counts counts the drawn sides of all boxes at once, a bit per box in
 * four masks, summed by bitwise adders. */
typedef struct {
    uint32_t ones, twos, fours; /* the bits of each box's count of drawn sides */
} SideCounts;

static inline SideCounts side_counts(const Board *b) {
    uint64_t drawn = b->drawn, v = drawn >> NUM_H;
    uint32_t top = (uint32_t)drawn & BOX_MASK, bottom = (uint32_t)(drawn >> COLS) & BOX_MASK;
    uint32_t left = pack_rows(v), right = pack_rows(v >> 1);
    uint32_t ones1 = top ^ bottom, twos1 = top & bottom;
    uint32_t ones2 = left ^ right, twos2 = left & right;
    uint32_t carry = ones1 & ones2;
    SideCounts n = {ones1 ^ ones2, twos1 ^ twos2 ^ carry, (twos1 & twos2) | (carry & (twos1 ^ twos2))};
    return n;
}

/* classify splits the undrawn edges into those that close a box now, those
 * that give no box its third side, and the rest. */
static inline void classify(const Board *b, uint64_t *closing, uint64_t *safe, uint64_t *unsafe) {
    SideCounts n = side_counts(b);
    uint64_t three = box_sides(n.ones & n.twos & ~n.fours);
    uint64_t two = box_sides(n.twos & ~n.ones & ~n.fours);
    uint64_t free = undrawn(b);
    *closing = free & three;
    *unsafe = free & two & ~three;
    *safe = free & ~(three | two);
}

/* other_box returns the box across edge e from box, or -1 for the border. */
static inline int other_box(Edge e, int box) {
    return edge_boxes[e][0] == box ? edge_boxes[e][1] : edge_boxes[e][0];
}

/* free_sides returns the undrawn sides of box, except the edge not. */
static inline uint64_t free_sides(const Board *b, int box, Edge not) {
    return undrawn(b) & box_edges[box] & ~BIT(not);
}

/* decline_move looks at a capture e that ends a chain or loop and returns
 * the move that declines its last boxes, setting *given to the boxes that
 * gives away: a chain's end gives 2, a loop's 4. NO_EDGE where e is no such
 * capture. */
static Edge decline_move(const Board *b, Edge e, int *given) {
    for (int i = 0; i < 2; i++) {
        int b1 = edge_boxes[e][i], b2 = edge_boxes[e][1 - i];
        if (b1 < 0 || b2 < 0 || sides(b, b1) != 3 || sides(b, b2) != 2)
            continue;
        Edge x = (Edge)ctz64(free_sides(b, b2, e));
        int b3 = other_box(x, b2);
        if (b3 < 0 || sides(b, b3) <= 1) {
            *given = 2;
            return x;
        }
        if (sides(b, b3) != 2)
            continue;
        Edge y = (Edge)ctz64(free_sides(b, b3, x));
        int b4 = other_box(y, b3);
        if (b4 >= 0 && sides(b, b4) == 3 && b4 != b1) {
            *given = 4;
            return x;
        }
    }
    *given = 0;
    return NO_EDGE;
}

/* capture_choice picks the capture to make now: a plain one if there is
 * one; when only the ends of one chain or loop are left, also the move that
 * declines its last boxes (*decline); with ends of several structures, the
 * one dearest to decline. */
static void capture_choice(const Board *b, uint64_t closing, Edge *take, Edge *decline) {
    int single = 1, given = 0;
    *take = *decline = NO_EDGE;
    for (uint64_t m = closing; m != 0; m &= m - 1) {
        Edge e = (Edge)ctz64(m);
        int g;
        Edge d = decline_move(b, e, &g);
        if (d == NO_EDGE || closes(b, e) == 2) {
            *take = e;
            *decline = NO_EDGE;
            return;
        }
        if (*take != NO_EDGE && d != *decline)
            single = 0;
        if (*take == NO_EDGE || g > given) {
            *take = e;
            *decline = d;
            given = g;
        }
    }
    if (!single)
        *decline = NO_EDGE;
}

/* ---- The search (search.go) -------------------------------------------- */

/* A level: nodes a move may cost, whether sacrifices are looked at while
 * safe edges remain, and the refinements of search.go's searchLevel (its
 * comments say what each does). */
typedef struct {
    int nodes, sacrifices, quiet, late_nodes, late_free, playouts, all_gifts;
    int exact_nodes, exact_free, near_nodes, near_free;
} Level;

enum { BOUND_EXACT, BOUND_LOWER, BOUND_UPPER };
enum { EXACT_DEPTH = 127 }; /* table entries no depth limit cut short */

typedef struct {
    uint64_t key;
    int8_t val, depth;
    uint8_t bound;
    Edge move;
} TTEntry;

/* TT_BITS sizes the transposition table, 2^TT_BITS entries of 16 bytes. The
 * bot's memory stays within 512 KiB, where a load or store costs no more
 * than any instruction (docs/fuel.md in the Arena repository). */
#ifndef TT_BITS
#define TT_BITS 13
#endif
#define TT_SIZE (1u << TT_BITS)

/* The loony memo is a cache of simple loony values keyed by a 64-bit
 * fingerprint of the shape, 2^LOONY_BITS entries, direct-mapped: a value
 * pushed out is computed again, and the same. */
#define LOONY_BITS 12
#define LOONY_SIZE (1u << LOONY_BITS)

/* The leaf cache: loony values by position (loony_value), 2^LEAF_BITS
 * entries, direct-mapped; 0, the empty board, is never a loony position. */
#define LEAF_BITS 12
#define LEAF_SIZE (1u << LEAF_BITS)

/* A shape is a multiset of chains and loops, sorted, largest first: a byte
 * per component, loops with the high bit, zeros after the last. */
typedef union {
    uint8_t c[32];
    uint64_t w[4];
} Shape;
enum { LOOP_BIT = 0x80 };

static struct {
    Level lv;
    TTEntry *tt, *near_tt;
    int nodes, budget, aborted, inexact, quiet, small_gifts;
    long long searched; /* nodes of this move, every attempt counted */
    unsigned ticks;     /* calls of stop_now */
    uint64_t loony_key[LOONY_SIZE];
    int8_t loony_val[LOONY_SIZE];
    uint64_t leaf_key[LEAF_SIZE];
    int8_t leaf_val[LEAF_SIZE];
    int loony_stopped;
    /* metered: a wasm build, whose stop is the fuel (stop_now). */
    int metered;
} s;

/* The fuel plan of a move (wasm builds): stop once the tank is down to
 * FUEL_RESERVE or the move has spent its share (move_spend), and play the
 * best move of the last finished depth. What follows costs far less than the
 * reserve (an answer's reading and writing about 65,000, 16 nodes some tens
 * of thousands), so the bot never runs dry, and fuel counts are the same on
 * every machine, so a replay reruns it move for move. */
#ifndef FUEL_RESERVE
#define FUEL_RESERVE 500000LL
#endif
/* The tank gains 5,000,000 at each observation, the opponent's turns too,
 * where this bot answers at once, and never holds more than 20,000,000: a
 * move that spends less than 10,000,000 leaves the tank full for the next.
 * The shares follow where the game is decided:
 *   - OPEN_SPEND while at least OPEN_FREE edges are free: in the opening any
 *     safe edge is as good as another, and a search of the whole board's
 *     playouts costs tens of thousands of fuel a node, so a few nodes;
 *   - MID_SPEND until DECIDE_FREE edges are free, a little less than two
 *     turns' fuel, so that the tank is still full when the fight for
 *     control begins;
 *   - MAX_SPEND from then on: the whole tank down to the reserve on the
 *     first decisive move, then what the turns bring in. */
#ifndef OPEN_FREE
#define OPEN_FREE 47
#endif
#ifndef OPEN_SPEND
#define OPEN_SPEND 1000000LL
#endif
#ifndef MID_SPEND
#define MID_SPEND 9500000LL
#endif
#ifndef DECIDE_FREE
#define DECIDE_FREE 38
#endif
#ifndef MAX_SPEND
#define MAX_SPEND 20000000LL
#endif

static long long move_spend(int free) {
    if (free >= OPEN_FREE)
        return OPEN_SPEND;
    return free > DECIDE_FREE ? MID_SPEND : MAX_SPEND;
}

#ifndef ATTEMPT_SHARE
#define ATTEMPT_SHARE 60 /* percent of the move's fuel an attempt may spend */
#endif
static long long move_start, spend_limit;

static int stop_now(void) {
    /* Asking the tank is a host call of 257 fuel, the price of a tenth of a
     * node: it is asked every 16th time. */
    if (!s.metered || (++s.ticks & 15) != 0)
        return 0;
    long long left = arena_fuel_left();
    return left < FUEL_RESERVE || move_start - left > spend_limit;
}

static inline uint64_t mix_key(uint64_t k) {
    k ^= k >> 31;
    k *= UINT64_C(0x7fb5d329728ea185);
    k ^= k >> 27;
    k *= UINT64_C(0x81dadef4bc2dd44d);
    return k ^ k >> 33;
}

/* sym_tab[t][i][byte] is the image under symmetry t of the edges in byte i
 * of a drawn mask; a mask's image is the OR of eight lookups. */
static uint64_t sym_tab[8][8][256];

static void dot_image(int t, int *r, int *c) {
    const int n = ROWS; /* the board is square */
    if (t & 4) {
        int x = *r;
        *r = *c;
        *c = x;
    }
    if (t & 2)
        *r = n - *r;
    if (t & 1)
        *c = n - *c;
}

static void init_symmetries(void) {
    for (int t = 0; t < 8; t++) {
        Edge img[NUM_EDGES];
        for (int e = 0; e < NUM_EDGES; e++) {
            int r, c;
            edge_rc((Edge)e, &r, &c);
            int r2 = r + 1, c2 = c; /* V: the dot below */
            if (horizontal((Edge)e)) {
                r2 = r;
                c2 = c + 1;
            }
            dot_image(t, &r, &c);
            dot_image(t, &r2, &c2);
            img[e] = r == r2 ? edge_h(r, c < c2 ? c : c2) : edge_v(r < r2 ? r : r2, c);
        }
        for (int i = 0; i < 8; i++) {
            for (int v = 0; v < 256; v++) {
                uint64_t m = 0;
                for (int j = 0; j < 8; j++) {
                    int e = i * 8 + j;
                    if ((v & (1 << j)) && e < NUM_EDGES)
                        m |= BIT(img[e]);
                }
                sym_tab[t][i][v] = m;
            }
        }
    }
}

/* canonical is the least image of a drawn mask under the board's eight
 * symmetries. */
static uint64_t canonical(uint64_t d) {
    uint64_t best = d;
    for (int t = 1; t < 8; t++) {
        uint64_t(*tab)[256] = sym_tab[t];
        uint64_t m = tab[0][d & 0xff] | tab[1][d >> 8 & 0xff] | tab[2][d >> 16 & 0xff] |
                     tab[3][d >> 24 & 0xff] | tab[4][d >> 32 & 0xff] | tab[5][d >> 40 & 0xff] |
                     tab[6][d >> 48 & 0xff] | tab[7][d >> 56 & 0xff];
        if (m < best)
            best = m;
    }
    return best;
}

/* The two border edges of each corner box join it to the ground alike. */
static const Edge corner_edges[4][2] = {
    {0, NUM_H},                                              /* H(0,0), V(0,0) */
    {COLS - 1, NUM_H + COLS},                                /* H(0,4), V(0,5) */
    {ROWS * COLS, NUM_H + (ROWS - 1) * (COLS + 1)},          /* H(5,0), V(4,0) */
    {ROWS * COLS + COLS - 1, NUM_H + ROWS * (COLS + 1) - 1}, /* H(5,4), V(4,5) */
};

/* distinct_safe drops the second border edge of a corner box whose first is
 * safe too: both make the same strings and coins. */
static uint64_t distinct_safe(uint64_t safe) {
    for (int i = 0; i < 4; i++) {
        if (safe & BIT(corner_edges[i][0]))
            safe &= ~BIT(corner_edges[i][1]);
    }
    return safe;
}

/* handed_by is the set of boxes that drawing e lets the opponent take, in a
 * position with no capture pending. */
static uint32_t handed_by(const Board *b, Edge e) {
    uint32_t claimed = b->owned[0] | b->owned[1], handed = 0;
    uint64_t drawn = b->drawn | BIT(e);
    for (int i = 0; i < 2; i++) {
        for (int box = edge_boxes[e][i]; box >= 0 && ((claimed | handed) & (UINT32_C(1) << box)) == 0;) {
            uint64_t free = box_edges[box] & ~drawn;
            if (free == 0) { /* the last side of a loop, drawn from its other end */
                handed |= UINT32_C(1) << box;
                break;
            }
            if (free & (free - 1))
                break; /* two sides or more still free: not capturable */
            handed |= UINT32_C(1) << box;
            drawn |= free;
            box = other_box((Edge)ctz64(free), box);
        }
    }
    return handed;
}

/* append_openings appends the unsafe edges to dst[n...], one per set of
 * boxes handed over (and whether a decline is possible), cheapest first,
 * and returns the new length. */
static int append_openings(Edge *dst, int n, const Board *b, uint64_t unsafe, int max_gift) {
    uint32_t keys[NUM_EDGES];
    int8_t gifts[NUM_EDGES];
    int first = n;
    for (uint64_t m = unsafe; m != 0; m &= m - 1) {
        Edge e = (Edge)ctz64(m);
        uint32_t handed = handed_by(b, e), key = handed;
        int gift = popcount32(handed);
        if (gift > max_gift)
            continue;
        int b0 = edge_boxes[e][0], b1 = edge_boxes[e][1];
        if (b0 >= 0 && b1 >= 0 && sides(b, b0) == 2 && sides(b, b1) == 2)
            key |= UINT32_C(1) << 31; /* hard-hearted: no decline possible */
        int k = n - first, dup = 0;
        for (int j = 0; j < k; j++) {
            if (keys[j] == key) {
                dup = 1;
                break;
            }
        }
        if (dup)
            continue;
        /* Insert in order of gift, after the equal ones. */
        int i = k;
        for (; i > 0 && gifts[i - 1] > gift; i--) {
            keys[i] = keys[i - 1];
            gifts[i] = gifts[i - 1];
            dst[first + i] = dst[first + i - 1];
        }
        keys[i] = key;
        gifts[i] = (int8_t)gift;
        dst[first + i] = e;
        n++;
    }
    return n;
}

/* append_choices appends the moves of a position with no capture pending:
 * the distinct safe edges, then the openings the level looks at. */
static int append_choices(Edge *dst, int n, const Board *b, uint64_t safe, uint64_t unsafe) {
    for (uint64_t m = distinct_safe(safe); m != 0; m &= m - 1)
        dst[n++] = (Edge)ctz64(m);
    if (safe != 0 && !s.lv.sacrifices)
        return n;
    int max_gift = NUM_BOXES;
    if (safe != 0 && (s.small_gifts || popcount64(safe) > s.lv.all_gifts))
        max_gift = 2;
    return append_openings(dst, n, b, unsafe, max_gift);
}

/* root_moves writes the real choices at the root and returns how many. */
static int root_moves(const Board *b, Edge *out) {
    uint64_t closing, safe, unsafe;
    classify(b, &closing, &safe, &unsafe);
    if (closing != 0) {
        Edge take, decline;
        capture_choice(b, closing, &take, &decline);
        out[0] = take;
        if (decline == NO_EDGE)
            return 1;
        out[1] = decline;
        return 2;
    }
    return append_choices(out, 0, b, safe, unsafe);
}

/* shape_of splits the open boxes of a position with no capture pending into
 * chains and loops: each box with three or four free sides joins its
 * longest arm, and an arm that leaves and comes back to the same such box
 * is a loop through it. */
static int shape_of(const Board *b, Shape *sh) {
    uint32_t claimed = b->owned[0] | b->owned[1];
    uint64_t free = undrawn(b);
    int8_t deg[NUM_BOXES], arm_of[NUM_BOXES], size[NUM_BOXES], ends[NUM_BOXES][2], stack[NUM_BOXES];
    uint8_t is_loop[NUM_BOXES];
    int arms = 0, n = 0;
    for (int box = 0; box < NUM_BOXES; box++) {
        deg[box] = (claimed & (UINT32_C(1) << box)) ? 0 : (int8_t)popcount64(free & box_edges[box]);
        arm_of[box] = -1;
        size[box] = 0;
        is_loop[box] = 0;
    }
    for (int start = 0; start < NUM_BOXES; start++) {
        if (deg[start] != 2 || arm_of[start] >= 0)
            continue;
        int a = arms++, nends = 0, inner = 0, sp = 0;
        ends[a][0] = ends[a][1] = -1;
        stack[sp++] = (int8_t)start;
        arm_of[start] = (int8_t)a;
        while (sp > 0) {
            int box = stack[--sp];
            size[a]++;
            for (uint64_t m = free & box_edges[box]; m != 0; m &= m - 1) {
                int nb = other_box((Edge)ctz64(m), box);
                if (nb < 0) {
                } else if (deg[nb] != 2) {
                    if (nends < 2)
                        ends[a][nends] = (int8_t)nb;
                    nends++;
                } else if (arm_of[nb] < 0) {
                    inner++;
                    arm_of[nb] = (int8_t)a;
                    stack[sp++] = (int8_t)nb;
                } else {
                    inner++;
                }
            }
        }
        /* Both boxes of an inner edge saw it: a ring of k boxes has k. */
        is_loop[a] = nends == 0 && inner / 2 == size[a] && size[a] >= 4;
    }
    int extra = 0;
    for (int box = 0; box < NUM_BOXES; box++) {
        if (deg[box] < 3)
            continue;
        int best = -1, twice = 0;
        for (int a = 0; a < arms; a++) {
            int k = (ends[a][0] == box) + (ends[a][1] == box);
            if (k > 0 && (best < 0 || size[a] > size[best])) {
                best = a;
                twice = k == 2;
            }
        }
        if (best < 0) {
            extra++;
            continue;
        }
        size[best]++;
        if (twice && size[best] >= 4)
            is_loop[best] = 1;
    }
    sh->w[0] = sh->w[1] = sh->w[2] = sh->w[3] = 0;
    for (int a = 0; a < arms; a++)
        sh->c[n++] = (uint8_t)(size[a] | (is_loop[a] ? LOOP_BIT : 0));
    for (int i = 0; i < extra; i++)
        sh->c[n++] = 1;
    /* Insertion sort, largest first, so the zeros stay at the end. */
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && sh->c[j] > sh->c[j - 1]; j--) {
            uint8_t x = sh->c[j];
            sh->c[j] = sh->c[j - 1];
            sh->c[j - 1] = x;
        }
    }
    return n;
}

static uint64_t shape_key(const Shape *sh) {
    uint64_t h = mix_key(sh->w[0]) ^ sh->w[1];
    h = mix_key(h) ^ sh->w[2];
    h = mix_key(h) ^ sh->w[3];
    h = mix_key(h);
    return h ? h : 1; /* 0 marks an empty slot */
}

/* loony_value_of is the value, for the player who must open one, of a set of
 * independent chains and loops, where a long chain's taker may decline its
 * last two boxes and a loop's its last four. Once the fuel says stop, every
 * value is 0 and nothing more is memoised. */
static int loony_value_of(const Shape *sh, int n) {
    if (n == 0)
        return 0;
    uint64_t key = shape_key(sh);
    unsigned slot = (unsigned)(key & (LOONY_SIZE - 1));
    if (s.loony_key[slot] == key)
        return s.loony_val[slot];
    if (s.loony_stopped || stop_now()) {
        s.loony_stopped = 1;
        return 0;
    }
    int best = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && sh->c[i] == sh->c[i - 1])
            continue;
        Shape rest;
        rest.w[0] = sh->w[0], rest.w[1] = sh->w[1], rest.w[2] = sh->w[2], rest.w[3] = sh->w[3];
        for (int j = i; j < n - 1; j++)
            rest.c[j] = sh->c[j + 1];
        rest.c[n - 1] = 0;
        int r = loony_value_of(&rest, n - 1);
        int k = sh->c[i] & ~LOOP_BIT;
        int take_all = k + r, keep = take_all;
        if (sh->c[i] & LOOP_BIT)
            keep = k - 8 - r;
        else if (k >= 3)
            keep = k - 4 - r;
        int v = -max_int(take_all, keep);
        if (i == 0 || v > best)
            best = v;
    }
    if (s.loony_stopped)
        return 0;
    s.loony_key[slot] = key;
    s.loony_val[slot] = (int8_t)best;
    return best;
}

/* loony_value is the simple loony value of a position with no safe edge; a
 * stop inside the memo's work aborts the search. */
static int loony_value(const Board *b) {
    /* The search meets the same leaves again and again: their values are
     * kept by position (the drawn edges, which decide the shape), so that
     * shape_of, the dearest part of a leaf, runs once for each. */
    unsigned slot = (unsigned)(mix_key(b->drawn) & (LEAF_SIZE - 1));
    if (s.leaf_key[slot] == b->drawn)
        return s.leaf_val[slot];
    Shape sh;
    int n = shape_of(b, &sh);
    int v = loony_value_of(&sh, n);
    if (s.loony_stopped) {
        s.aborted = 1;
        return v;
    }
    s.leaf_key[slot] = b->drawn;
    s.leaf_val[slot] = (int8_t)v;
    return v;
}

/* simple_loony reports whether every open box has at most two free sides:
 * a set of independent chains and loops. */
static int simple_loony(const Board *b) {
    /* An open box with three or four free sides has fewer than two drawn:
     * neither the twos nor the fours bit of its count. */
    SideCounts n = side_counts(b);
    uint32_t open = ~(b->owned[0] | b->owned[1]) & BOX_MASK;
    return (open & ~n.twos & ~n.fours) == 0;
}

/* playout plays the safe edges out in the pseudo-random order h seeds and
 * values the loony endgame that results for the player to move in b. */
static int playout(const Board *b, uint64_t safe, uint64_t h) {
    Board after = *b;
    int flips = 0;
    while (safe != 0) {
        h = h * UINT64_C(0x9e3779b97f4a7c15) + 1;
        Edge e = nth_bit(safe, (int)((h >> 32) % (uint64_t)popcount64(safe)));
        play(&after, e);
        flips ^= 1;
        safe &= ~BIT(e);
        /* A box that now has two sides makes its free sides unsafe. */
        for (int i = 0; i < 2; i++) {
            int box = edge_boxes[e][i];
            if (box >= 0 && popcount64(after.drawn & box_edges[box]) == 2)
                safe &= ~box_edges[box];
        }
    }
    int v = loony_value(&after);
    return flips ? -v : v;
}

/* estimate values a position where the search stops: its loony endgame
 * after playing the safe edges out, averaged over the level's playouts. */
static int estimate(const Board *b, uint64_t safe) {
    if (safe == 0)
        return loony_value(b);
    int n = s.lv.playouts > 1 ? s.lv.playouts : 1, sum = 0;
    uint64_t h = mix_key(b->drawn);
    for (int i = 0; i < n; i++)
        sum += playout(b, safe, h + (uint64_t)i * UINT64_C(0x632be59bd9b4e019));
    /* Rounded half away from zero, the same for both signs. */
    return sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
}

static int node(const Board *b, int depth, int alpha, int beta);

/* to_front moves e, if it is among the n moves, to the front, keeping the
 * order of the others. */
static void to_front(Edge *moves, int n, Edge e) {
    for (int i = 0; i < n; i++) {
        if (moves[i] == e) {
            for (int j = i; j > 0; j--)
                moves[j] = moves[j - 1];
            moves[0] = e;
            return;
        }
    }
}

/* child is the value, to the mover of b, of playing e. */
static int child(const Board *b, Edge e, int depth, int alpha, int beta) {
    Board after = *b;
    int n = play(&after, e);
    if (n > 0)
        return n + node(&after, depth, alpha - n, beta - n);
    return -node(&after, depth - 1, -beta, -alpha);
}

/* captures is node for a position with a capture pending: the captures that
 * are always right are made in a loop; the search branches only where a
 * chain or loop ends: take its last boxes, or decline them. */
static int captures(const Board *b, uint64_t closing, int depth, int alpha, int beta) {
    Board after = *b;
    int gained = 0;
    for (;;) {
        Edge take, decline;
        capture_choice(&after, closing, &take, &decline);
        if (decline != NO_EDGE) {
            Board taken = after;
            int n = gained + play(&taken, take);
            int v = n + node(&taken, depth, alpha - n, beta - n);
            if (v >= beta || s.aborted)
                return v;
            return max_int(v, gained + child(&after, decline, depth, max_int(alpha, v) - gained, beta - gained));
        }
        gained += play(&after, take);
        if (over(&after))
            return gained;
        uint64_t safe, unsafe;
        classify(&after, &closing, &safe, &unsafe);
        if (closing == 0)
            return gained + node(&after, depth, alpha - gained, beta - gained);
    }
}

/* node is the negamax value of b for its mover: net boxes from here on. */
static int node(const Board *b, int depth, int alpha, int beta) {
    if (over(b))
        return 0;
    s.searched++;
    if (++s.nodes > s.budget || stop_now()) {
        s.aborted = 1;
        return 0;
    }
    uint64_t closing, safe, unsafe;
    classify(b, &closing, &safe, &unsafe);
    if (closing != 0)
        return captures(b, closing, depth, alpha, beta);
    if (safe == 0 && simple_loony(b))
        return loony_value(b); /* exact here, whatever the depth */
    int quiet = depth <= 0;
    if (quiet) {
        s.inexact = 1;
        if (safe == 0 || popcount64(safe) > s.quiet)
            return estimate(b, safe);
    }
    uint64_t key = canonical(b->drawn);
    TTEntry *slot = &s.tt[mix_key(key) & (TT_SIZE - 1)];
    Edge tt_move = NO_EDGE;
    if (slot->key == key) {
        if (slot->depth >= depth) {
            int v = slot->val;
            if (slot->bound == BOUND_EXACT || (slot->bound == BOUND_LOWER && v >= beta) ||
                (slot->bound == BOUND_UPPER && v <= alpha)) {
                if (slot->depth != EXACT_DEPTH)
                    s.inexact = 1;
                return v;
            }
        }
        tt_move = slot->move;
    }
    Edge moves[NUM_EDGES];
    int n = 0;
    if (quiet) {
        for (uint64_t m = distinct_safe(safe); m != 0; m &= m - 1)
            moves[n++] = (Edge)ctz64(m);
    } else {
        n = append_choices(moves, 0, b, safe, unsafe);
    }
    if (tt_move != NO_EDGE)
        to_front(moves, n, tt_move);
    int was_inexact = s.inexact;
    s.inexact = 0;
    int alpha0 = alpha, best = -NUM_BOXES - 1;
    Edge best_move = NO_EDGE;
    for (int i = 0; i < n; i++) {
        Edge e = moves[i];
        int v;
        if (i > 0 && beta - alpha > 1) {
            /* A null window first: most moves only need to be shown no
             * better than the best so far. */
            v = child(b, e, depth, alpha, alpha + 1);
            if (v > alpha && v < beta && !s.aborted)
                v = child(b, e, depth, alpha, beta);
        } else {
            v = child(b, e, depth, alpha, beta);
        }
        if (s.aborted)
            return 0;
        if (v > best) {
            best = v;
            best_move = e;
        }
        if (v > alpha)
            alpha = v;
        if (alpha >= beta)
            break;
    }
    int d = s.inexact ? depth : EXACT_DEPTH;
    s.inexact = s.inexact || was_inexact;
    uint8_t bound = BOUND_EXACT;
    if (best <= alpha0)
        bound = BOUND_UPPER;
    else if (best >= beta)
        bound = BOUND_LOWER;
    if (slot->key != key || d >= slot->depth) {
        slot->key = key;
        slot->val = (int8_t)best;
        slot->depth = (int8_t)d;
        slot->bound = bound;
        slot->move = best_move;
    }
    return best;
}

/* root searches the moves to depth and returns the best (*value its value),
 * or NO_EDGE when the search was stopped. */
static Edge root(const Board *b, const Edge *moves, int n, int depth) {
    int alpha = -NUM_BOXES - 1, beta = NUM_BOXES + 1;
    Edge best = NO_EDGE;
    s.aborted = 0;
    for (int i = 0; i < n; i++) {
        Edge e = moves[i];
        int v;
        if (best != NO_EDGE) {
            v = child(b, e, depth, alpha, alpha + 1);
            if (v > alpha && !s.aborted)
                v = child(b, e, depth, alpha, beta);
        } else {
            v = child(b, e, depth, alpha, beta);
        }
        if (s.aborted)
            return NO_EDGE;
        if (best == NO_EDGE || v > alpha) {
            best = e;
            alpha = v;
        }
    }
    return best;
}

/* attempt runs one search with no depth limit on a budget of nodes and
 * returns its move if it finished; if not, NO_EDGE, and the move's budget
 * goes back to the iterative deepening that follows. */
static Edge attempt(const Board *b, const Edge *moves, int n, int nodes) {
    int budget = s.budget;
    long long limit = spend_limit;
    s.budget = nodes;
    /* A wasm build gives the attempt a share of the move's fuel instead. */
    spend_limit = limit * ATTEMPT_SHARE / 100;
    s.inexact = 0;
    Edge e = root(b, moves, n, NUM_EDGES);
    spend_limit = limit;
    if (e != NO_EDGE && !s.inexact)
        return e;
    s.nodes = 0;
    s.budget = budget;
    s.loony_stopped = 0;
    return NO_EDGE;
}

static TTEntry *new_table(void) {
    TTEntry *t = calloc(TT_SIZE, sizeof *t);
    if (t == NULL) {
        fputs("out of memory for the table\n", stderr);
        exit(1);
    }
    return t;
}

static void swap_tables(void) {
    TTEntry *t = s.tt;
    s.tt = s.near_tt;
    s.near_tt = t;
}

/* deepen runs iterative deepening until the search is exact or the budget
 * is spent, and returns the best move of the last finished depth. */
static Edge deepen(const Board *b, Edge *moves, int n) {
    Edge best = moves[0];
    for (int depth = 1; depth <= NUM_EDGES; depth++) {
        s.inexact = 0;
        /* The first iteration must always finish: its move is the
         * fallback. */
        s.quiet = depth == 1 ? 0 : s.lv.quiet;
        Edge e = root(b, moves, n, depth);
        if (e == NO_EDGE)
            break;
        best = e;
        /* Searching the previous best first makes the next iteration
         * cheaper. */
        to_front(moves, n, e);
        if (!s.inexact)
            break;
    }
    return best;
}

/* best_move picks the move: an attempt to the end where the level says, else
 * iterative deepening. */
static Edge best_move(const Board *b) {
    Edge moves[NUM_EDGES];
    int n = root_moves(b, moves);
    if (n == 1)
        return moves[0];
    s.nodes = 0;
    s.budget = s.lv.nodes;
    int free = popcount64(undrawn(b));
    if (free <= s.lv.late_free)
        s.budget = max_int(s.budget, s.lv.late_nodes);
    s.loony_stopped = 0;
    if (s.lv.exact_nodes > 0 && free <= s.lv.exact_free) {
        Edge e = attempt(b, moves, n, s.lv.exact_nodes);
        if (e != NO_EDGE)
            return e;
    } else if (s.lv.near_nodes > 0 && free <= s.lv.near_free) {
        /* Its values assume small gifts: it keeps them in a table of its
         * own, and the main table keeps what earlier moves stored. If it
         * does not finish, the deepening runs in the same model, from what
         * the attempt stored. */
        if (s.near_tt == NULL)
            s.near_tt = new_table();
        swap_tables();
        s.small_gifts = 1;
        Edge e = attempt(b, moves, n, s.lv.near_nodes);
        if (e == NO_EDGE)
            e = deepen(b, moves, n);
        swap_tables();
        s.small_gifts = 0;
        return e;
    }
    return deepen(b, moves, n);
}

/* ---- The bot ----------------------------------------------------------- */

/* KIT_NODES is the node budget of a native build, which is not metered (the
 * CLI's exec: kind); a wasm build stops on fuel alone. */
#ifndef KIT_NODES
#define KIT_NODES 2000
#endif

/* The level: builtin:search's (hard) level as far as the fuel goes:
 * sacrifices of any size at any time, quiet search up to 30 safe edges,
 * one playout an estimate. Its attempts to the end (exact_nodes,
 * near_nodes) are left off: in a move's fuel they do not finish early
 * enough in the game to pay for what they cost when they do not. */
#ifndef KIT_LEVEL
#define KIT_LEVEL {.nodes = KIT_NODES, .sacrifices = 1, .quiet = 30, .playouts = 1, .all_gifts = NUM_EDGES}
#endif
static const Level kit_level = KIT_LEVEL;

static void append_action(char *out, size_t size, Edge e) {
    if (e == NO_EDGE) {
        snprintf(out, size, "{}");
        return;
    }
    int r, c;
    edge_rc(e, &r, &c);
    snprintf(out, size, "{\"orient\":\"%c\",\"r\":%d,\"c\":%d}", horizontal(e) ? 'H' : 'V', r, c);
}

int main(void) {
    char answer[64];
    init_board();
    init_symmetries();
    s.lv = kit_level;
    s.tt = new_table();
    s.metered = arena_fuel_left() >= 0;
    if (s.metered) {
        /* Fuel is the budget: no node count stops a wasm build. */
        s.lv.nodes = s.lv.late_nodes = INT_MAX;
        if (s.lv.exact_nodes > 0)
            s.lv.exact_nodes = INT_MAX;
        if (s.lv.near_nodes > 0)
            s.lv.near_nodes = INT_MAX;
    }
    for (char *obs; (obs = arena_read_line()) != NULL;) {
        long long h[NUM_H], v[NUM_V];
        Board b = {0};
        Edge e = NO_EDGE;
        int ok = arena_int(arena_get(obs, "rows")) == ROWS && arena_int(arena_get(obs, "cols")) == COLS &&
                 arena_ints(arena_get(obs, "h"), h, NUM_H) == NUM_H &&
                 arena_ints(arena_get(obs, "v"), v, NUM_V) == NUM_V;
        if (ok) {
            for (int i = 0; i < NUM_H; i++)
                b.drawn |= h[i] ? BIT(i) : 0;
            for (int i = 0; i < NUM_V; i++)
                b.drawn |= v[i] ? BIT(NUM_H + i) : 0;
            e = b.drawn == ALL_EDGES ? NO_EDGE : (Edge)ctz64(undrawn(&b));
        }
        /* Both seats are asked every turn; only the mover thinks. */
        if (ok && e != NO_EDGE && arena_int(arena_get(obs, "you")) == arena_int(arena_get(obs, "to_move"))) {
            move_start = arena_fuel_left();
            s.searched = 0;
            spend_limit = move_spend(popcount64(undrawn(&b)));
            e = best_move(&b);
            /* The log: what the move searched, for the bot's owner. */
            fprintf(stderr, "nodes %lld\n", s.searched);
        }
        append_action(answer, sizeof answer, e);
        arena_answer(answer);
    }
    return 0;
}
