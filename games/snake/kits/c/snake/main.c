/* A Snake bot in C: of the moves that do not run into a wall or a body, it
 * prefers one that keeps its head away from snakes as long as itself, then
 * one that leaves it room to move, then the one nearest to food. See
 * README.md to build it.
 *
 * The observation is Battlesnake's /move request body and the answer its
 * /move response, so the move logic of a Battlesnake bot fits in play. */
#include "arena.h"

enum {
    MAX_SIDE = 64,    /* the largest board this bot reads */
    MAX_SNAKES = 16,  /* snakes it reads (the game has at most 8) */
    MAX_BODY = 4096,  /* body parts it reads of one snake */
    MAX_FOOD = 4096,  /* pieces of food it reads */
};

typedef struct { int x, y; } Point;
typedef struct {
    const char *id; /* the id's JSON string, quotes included */
    int len;
    Point body[MAX_BODY];
} Snake;

/* The moves in the order the bot tries them (ties go to the first). */
static const char *move_name[4] = {"up", "down", "left", "right"};
static const int move_dx[4] = {0, 0, -1, 1}, move_dy[4] = {1, -1, 0, 0};

static int width, height, nfood, nsnakes;
static Point food[MAX_FOOD];
static Snake snakes[MAX_SNAKES];
/* blocked: a body part that is still there after the move; seen: the
 * room count's marks. Both are stamped so they need no clearing. */
static long long blocked[MAX_SIDE * MAX_SIDE], seen[MAX_SIDE * MAX_SIDE], stamp, seen_stamp;
static int queue[MAX_SIDE * MAX_SIDE];

static int absi(int v) { return v < 0 ? -v : v; }
static int distance(Point a, Point b) { return absi(a.x - b.x) + absi(a.y - b.y); }
static int on_board(Point p) { return p.x >= 0 && p.x < width && p.y >= 0 && p.y < height; }
static int cell(Point p) { return p.y * width + p.x; }

static Point read_point(const char *p) {
    Point q = {(int)arena_int(arena_get(p, "x")), (int)arena_int(arena_get(p, "y"))};
    return q;
}

/* same_string reports whether two JSON strings (at their opening quotes)
 * are the same text. */
static int same_string(const char *a, const char *b) {
    if (a == NULL || b == NULL || *a != '"' || *b != '"')
        return 0;
    const char *ea = arena_skip(a), *eb = arena_skip(b);
    return ea && eb && ea - a == eb - b && memcmp(a, b, (size_t)(ea - a)) == 0;
}

/* read picks the fields the bot needs out of the observation; it returns
 * the index of the bot's own snake, or -1. */
static int read_view(const char *obs) {
    static const char *elems[MAX_BODY];
    const char *board = arena_get(obs, "board");
    const char *you = arena_get(arena_get(obs, "you"), "id");
    width = (int)arena_int(arena_get(board, "width"));
    height = (int)arena_int(arena_get(board, "height"));
    nfood = arena_elems(arena_get(board, "food"), elems, MAX_FOOD);
    nfood = nfood < 0 ? 0 : nfood > MAX_FOOD ? MAX_FOOD : nfood;
    for (int i = 0; i < nfood; i++)
        food[i] = read_point(elems[i]);
    const char *list[MAX_SNAKES];
    int n = arena_elems(arena_get(board, "snakes"), list, MAX_SNAKES);
    n = n < 0 ? 0 : n > MAX_SNAKES ? MAX_SNAKES : n;
    int me = -1;
    nsnakes = 0;
    for (int i = 0; i < n; i++) {
        Snake *s = &snakes[nsnakes];
        int len = arena_elems(arena_get(list[i], "body"), elems, MAX_BODY);
        if (len <= 0)
            continue;
        s->len = len > MAX_BODY ? MAX_BODY : len;
        for (int k = 0; k < s->len; k++)
            s->body[k] = read_point(elems[k]);
        s->id = arena_ws(arena_get(list[i], "id"));
        if (same_string(s->id, arena_ws(you)))
            me = nsnakes;
        nsnakes++;
    }
    return me;
}

/* head_risk reports whether another snake at least as long as snake me
 * could move its head onto p this turn. */
static int head_risk(int me, Point p) {
    for (int i = 0; i < nsnakes; i++)
        if (i != me && snakes[i].len >= snakes[me].len && distance(snakes[i].body[0], p) == 1)
            return 1;
    return 0;
}

/* room counts the free cells reachable from p, stopping at limit. */
static int room(Point p, int limit) {
    int n = 0;
    seen_stamp++;
    queue[n++] = cell(p);
    seen[cell(p)] = seen_stamp;
    for (int k = 0; k < n && n < limit; k++) {
        Point c = {queue[k] % width, queue[k] / width};
        for (int m = 0; m < 4; m++) {
            Point q = {c.x + move_dx[m], c.y + move_dy[m]};
            if (on_board(q) && blocked[cell(q)] != stamp && seen[cell(q)] != seen_stamp) {
                seen[cell(q)] = seen_stamp;
                queue[n++] = cell(q);
            }
        }
    }
    return n;
}

/* food_distance is the number of moves from p to the nearest food,
 * ignoring bodies, or 0 when there is none. */
static int food_distance(Point p) {
    int d = -1;
    for (int i = 0; i < nfood; i++) {
        int e = distance(p, food[i]);
        if (d < 0 || e < d)
            d = e;
    }
    return d < 0 ? 0 : d;
}

/* choose returns the name of the move to make. */
static const char *choose(const char *obs) {
    int me = read_view(obs);
    if (me < 0 || width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE)
        return "up"; /* not an observation this bot knows */
    /* Every body part but a tail stays where it is this turn (a tail
     * doubled by a meal is listed twice, so its first copy blocks). */
    stamp++;
    for (int i = 0; i < nsnakes; i++)
        for (int k = 0; k < snakes[i].len - 1; k++)
            if (on_board(snakes[i].body[k]))
                blocked[cell(snakes[i].body[k])] = stamp;
    Point head = snakes[me].body[0];
    const char *best = "up";
    int best_score = -1;
    for (int m = 0; m < 4; m++) {
        Point p = {head.x + move_dx[m], head.y + move_dy[m]};
        if (!on_board(p) || blocked[cell(p)] == stamp)
            continue; /* certain death */
        /* Score, most important first: no head of a snake at least as
         * long can reach p; room for the whole body from p; near food. */
        int score = 0;
        if (!head_risk(me, p))
            score += 1 << 20;
        if (room(p, snakes[me].len) >= snakes[me].len)
            score += 1 << 19;
        int d = food_distance(p);
        score += (1 << 10) - (d < (1 << 10) - 1 ? d : (1 << 10) - 1);
        if (score > best_score) {
            best = move_name[m];
            best_score = score;
        }
    }
    return best;
}

int main(void) {
    static char answer[64];
    for (char *obs; (obs = arena_read_line()) != NULL;) {
        snprintf(answer, sizeof answer, "{\"move\":\"%s\"}", choose(obs));
        arena_answer(answer);
    }
    return 0;
}
