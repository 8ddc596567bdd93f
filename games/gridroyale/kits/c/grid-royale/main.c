/* A Grid Royale bot in C: each unit harvests the best ore near it and carries
 * it home when half full, never steps where another unit stands or an enemy
 * can step, and it spawns early only, since a unit spawned late does not pay
 * back its cost. See README.md to build it. */
#include "arena.h"

enum {
    MAX_SIDE = 64,      /* the largest grid this bot reads */
    MAX_UNITS = 512,    /* units of all players it reads */
    MAX_OWN_UNITS = 5,  /* more units crowd each other out on a small map */
};

typedef struct { int x, y; } Cell;
typedef struct { int x0, y0, x1, y1; } Zone;
typedef struct { long long id, owner, x, y, cargo; } Unit;

static long long ore[MAX_SIDE * MAX_SIDE];
static int width, height;
static Unit units[MAX_UNITS];
/* blocked: a unit stands there now, one of ours moves there or an enemy can
 * move there, so our units never collide with each other and only meet an
 * enemy that walks into them; targeted: one of ours heads there. Both are
 * stamped with the turn so they need no clearing. */
static long long blocked[MAX_SIDE * MAX_SIDE], targeted[MAX_SIDE * MAX_SIDE];
static long long stamp;

static int absi(int v) { return v < 0 ? -v : v; }
static int sign(int v) { return (v > 0) - (v < 0); }
static int dist(Cell a, Cell b) { return absi(a.x - b.x) + absi(a.y - b.y); }
static int same(Cell a, Cell b) { return a.x == b.x && a.y == b.y; }
static int inside(Zone z, Cell c) { return c.x >= z.x0 && c.x <= z.x1 && c.y >= z.y0 && c.y <= z.y1; }
static long long ore_at(Cell c) { return ore[c.y * width + c.x]; }

static Zone read_zone(const char *p) {
    Zone z = {(int)arena_int(arena_get(p, "x0")), (int)arena_int(arena_get(p, "y0")),
              (int)arena_int(arena_get(p, "x1")), (int)arena_int(arena_get(p, "y1"))};
    return z;
}

/* goal picks where a unit heads: home when it carries enough (or time runs
 * out), else the cell with the best harvest for the walk. */
static Cell goal(Unit u, Cell base, Zone inner, long long cargo_cap, long long harvest_div, int turns_left) {
    Cell at = {(int)u.x, (int)u.y};
    if (u.cargo >= cargo_cap / 2 || (u.cargo > 0 && turns_left <= dist(at, base) + 2))
        return base;
    Cell best = base;
    long long best_yield = 0;
    int best_dist = 0;
    for (int y = inner.y0; y <= inner.y1; y++) {
        for (int x = inner.x0; x <= inner.x1; x++) {
            Cell c = {x, y};
            if (same(c, base) || (targeted[y * width + x] == stamp && !same(c, at)))
                continue;
            long long yield = ore_at(c) / harvest_div;
            int d = dist(at, c);
            /* Better yield per turn of walking: yield/(d+2) > best_yield/(best_dist+2). */
            if (yield * (best_dist + 2) > best_yield * (d + 2)) {
                best = c;
                best_yield = yield;
                best_dist = d;
            }
        }
    }
    return best;
}

/* step returns the cell a unit moves to on its way to target: its own cell
 * when it is there, cannot afford to move, or every way forward is blocked. */
static Cell step(Unit u, Cell target, Cell base, Zone zone, long long move_div) {
    Cell at = {(int)u.x, (int)u.y};
    if (u.cargo < ore_at(at) / move_div)
        return at; /* a move it cannot afford would waste the turn: harvest instead */
    int dx = sign(target.x - at.x), dy = sign(target.y - at.y);
    Cell options[2] = {{at.x + dx, at.y}, {at.x, at.y + dy}};
    if (absi(target.y - at.y) > absi(target.x - at.x)) {
        Cell t = options[0];
        options[0] = options[1];
        options[1] = t;
    }
    for (int i = 0; i < 2; i++) {
        Cell c = options[i];
        if (!same(c, at) && inside(zone, c) && (same(c, base) || blocked[c.y * width + c.x] != stamp))
            return c;
    }
    return at;
}

static const char *direction(Cell from, Cell to) {
    if (to.y < from.y) return "MOVE_N";
    if (to.y > from.y) return "MOVE_S";
    if (to.x > from.x) return "MOVE_E";
    if (to.x < from.x) return "MOVE_W";
    return "STAY";
}

/* play answers one observation into out. */
static void play(const char *obs, char *out, size_t size) {
    const char *params = arena_get(obs, "params");
    long long you = arena_int(arena_get(obs, "you"));
    long long cargo_cap = arena_int(arena_get(params, "cargo_cap"));
    long long spawn_cost = arena_int(arena_get(params, "spawn_cost"));
    long long move_div = arena_int(arena_get(params, "move_cost_divisor"));
    long long harvest_div = arena_int(arena_get(params, "harvest_divisor"));
    long long units_cap = arena_int(arena_get(params, "units_cap"));
    long long min_zone = arena_int(arena_get(params, "min_zone"));
    int turn = (int)arena_int(arena_get(obs, "turn"));
    int max_turns = (int)arena_int(arena_get(obs, "max_turns"));
    width = (int)arena_int(arena_get(obs, "width"));
    height = (int)arena_int(arena_get(obs, "height"));
    Zone zone = read_zone(arena_get(obs, "safe_zone"));
    long long banks[16] = {0};
    int players = arena_ints(arena_get(obs, "banks"), banks, 16);
    if (width < 1 || width > MAX_SIDE || height < 1 || height > MAX_SIDE || move_div <= 0 ||
        harvest_div <= 0 || you < 0 || you >= players) {
        snprintf(out, size, "{\"orders\":[]}"); /* not an observation this bot knows */
        return;
    }
    arena_ints(arena_get(obs, "ore"), ore, width * height);

    const char *elems[MAX_UNITS];
    Cell base = {-1, -1};
    int n = arena_elems(arena_get(obs, "bases"), elems, MAX_UNITS);
    for (int i = 0; i < n && i < MAX_UNITS; i++) {
        if (arena_int(arena_get(elems[i], "owner")) == you) {
            base.x = (int)arena_int(arena_get(elems[i], "x"));
            base.y = (int)arena_int(arena_get(elems[i], "y"));
        }
    }
    if (base.x < 0 || base.x >= width || base.y < 0 || base.y >= height) {
        snprintf(out, size, "{\"orders\":[]}");
        return;
    }
    /* Clamp the zone to the grid, so that no index can leave it. */
    zone.x0 = zone.x0 < 0 ? 0 : zone.x0;
    zone.y0 = zone.y0 < 0 ? 0 : zone.y0;
    zone.x1 = zone.x1 >= width ? width - 1 : zone.x1;
    zone.y1 = zone.y1 >= height ? height - 1 : zone.y1;
    n = arena_elems(arena_get(obs, "units"), elems, MAX_UNITS);
    if (n > MAX_UNITS)
        n = MAX_UNITS;
    stamp++;
    for (int i = 0; i < n; i++) {
        const char *e = elems[i];
        Unit u = {arena_int(arena_get(e, "id")), arena_int(arena_get(e, "owner")),
                  arena_int(arena_get(e, "x")), arena_int(arena_get(e, "y")),
                  arena_int(arena_get(e, "cargo"))};
        units[i] = u;
        static const int dx[5] = {0, 0, 1, 0, -1}, dy[5] = {0, -1, 0, 1, 0};
        for (int d = 0; d < (u.owner == you ? 1 : 5); d++) {
            Cell c = {(int)u.x + dx[d], (int)u.y + dy[d]};
            if (c.x >= 0 && c.x < width && c.y >= 0 && c.y < height)
                blocked[c.y * width + c.x] = stamp;
        }
    }

    /* Harvest only where the next shrink of the zone cannot reach. */
    Zone inner = zone;
    if (inner.x1 - inner.x0 + 1 > min_zone) {
        inner.x0++, inner.y0++, inner.x1--, inner.y1--;
    }
    int used = snprintf(out, size, "{\"orders\":[");
    int mine = 0, on_base = 0;
    for (int i = 0; i < n; i++) {
        Unit u = units[i];
        if (u.owner != you || u.x < 0 || u.x >= width || u.y < 0 || u.y >= height)
            continue;
        Cell at = {(int)u.x, (int)u.y};
        Cell g = goal(u, base, inner, cargo_cap, harvest_div, max_turns - turn);
        targeted[g.y * width + g.x] = stamp;
        Cell next = step(u, g, base, zone, move_div);
        blocked[next.y * width + next.x] = stamp;
        on_base |= same(next, base);
        used += snprintf(out + used, size - (size_t)used, "%s{\"unit\":%lld,\"do\":\"%s\"}",
                         mine ? "," : "", u.id, direction(at, next));
        mine++;
    }
    int spawn = !on_base && mine < MAX_OWN_UNITS && mine < units_cap && banks[you] >= spawn_cost &&
                turn < max_turns / 4;
    snprintf(out + used, size - (size_t)used, "],\"spawn\":%s}", spawn ? "true" : "false");
}

int main(void) {
    static char answer[MAX_UNITS * 48 + 64];
    for (char *obs; (obs = arena_read_line()) != NULL;) {
        play(obs, answer, sizeof answer);
        arena_answer(answer);
    }
    return 0;
}
