//! A Grid Royale bot in Rust: each unit harvests the best ore near it and
//! carries it home when half full, never steps where another unit stands or
//! an enemy can step, and it spawns early only, since a unit spawned late does
//! not pay back its cost. See README.md to build it.

mod arena;

use arena::Json;

/// More units crowd each other out on a small map.
const MAX_OWN_UNITS: usize = 5;

type Cell = (i64, i64); // (x, y)

/// The safe zone, bounds inclusive.
#[derive(Clone, Copy)]
struct Zone {
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

impl Zone {
    fn contains(&self, (x, y): Cell) -> bool {
        x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1
    }
}

struct Unit {
    id: i64,
    owner: i64,
    at: Cell,
    cargo: i64,
}

/// One flag per cell of the grid.
struct Marks {
    width: i64,
    height: i64,
    set: Vec<bool>,
}

impl Marks {
    fn new(width: i64, height: i64) -> Marks {
        Marks { width, height, set: vec![false; (width * height).max(0) as usize] }
    }
    fn index(&self, (x, y): Cell) -> Option<usize> {
        if x >= 0 && x < self.width && y >= 0 && y < self.height {
            Some((y * self.width + x) as usize)
        } else {
            None
        }
    }
    fn mark(&mut self, c: Cell) {
        if let Some(i) = self.index(c) {
            self.set[i] = true;
        }
    }
    fn has(&self, c: Cell) -> bool {
        self.index(c).map_or(false, |i| self.set[i])
    }
}

struct Game {
    width: i64,
    height: i64,
    ore: Vec<i64>, // ore[y*width+x]
    base: Cell,
    cargo_cap: i64,
    move_div: i64,
    harvest_div: i64,
    turns_left: i64,
}

impl Game {
    /// The ore on a cell, 0 off the grid.
    fn ore(&self, (x, y): Cell) -> i64 {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return 0;
        }
        self.ore.get((y * self.width + x) as usize).copied().unwrap_or(0)
    }

    /// Where a unit heads: home when it carries enough (or time runs out),
    /// else the cell with the best harvest for the walk.
    fn goal(&self, u: &Unit, inner: Zone, targeted: &Marks) -> Cell {
        if u.cargo >= self.cargo_cap / 2 || (u.cargo > 0 && self.turns_left <= dist(u.at, self.base) + 2) {
            return self.base;
        }
        let (mut best, mut best_yield, mut best_dist) = (self.base, 0, 0);
        for y in inner.y0.max(0)..=inner.y1.min(self.height - 1) {
            for x in inner.x0.max(0)..=inner.x1.min(self.width - 1) {
                let c = (x, y);
                if c == self.base || (targeted.has(c) && c != u.at) {
                    continue;
                }
                let (yield_, d) = (self.ore(c) / self.harvest_div, dist(u.at, c));
                // Better yield per turn of walking: yield/(d+2) > best_yield/(best_dist+2).
                if yield_ * (best_dist + 2) > best_yield * (d + 2) {
                    best = c;
                    best_yield = yield_;
                    best_dist = d;
                }
            }
        }
        best
    }

    /// The cell a unit moves to on its way to target: its own cell when it is
    /// there, cannot afford to move, or every way forward is blocked.
    fn step(&self, u: &Unit, target: Cell, zone: Zone, blocked: &Marks) -> Cell {
        if u.cargo < self.ore(u.at) / self.move_div {
            return u.at; // a move it cannot afford would waste the turn: harvest instead
        }
        let (dx, dy) = ((target.0 - u.at.0).signum(), (target.1 - u.at.1).signum());
        let mut options = [(u.at.0 + dx, u.at.1), (u.at.0, u.at.1 + dy)];
        if (target.1 - u.at.1).abs() > (target.0 - u.at.0).abs() {
            options.swap(0, 1);
        }
        options
            .into_iter()
            .find(|&c| c != u.at && zone.contains(c) && (c == self.base || !blocked.has(c)))
            .unwrap_or(u.at)
    }
}

fn dist(a: Cell, b: Cell) -> i64 {
    (a.0 - b.0).abs() + (a.1 - b.1).abs()
}

fn direction(from: Cell, to: Cell) -> &'static str {
    if to.1 < from.1 {
        "MOVE_N"
    } else if to.1 > from.1 {
        "MOVE_S"
    } else if to.0 > from.0 {
        "MOVE_E"
    } else if to.0 < from.0 {
        "MOVE_W"
    } else {
        "STAY"
    }
}

fn zone_of(z: &Json) -> Zone {
    Zone { x0: z.get("x0").int(), y0: z.get("y0").int(), x1: z.get("x1").int(), y1: z.get("y1").int() }
}

fn play(obs: &Json) -> String {
    let params = obs.get("params");
    let you = obs.get("you").int();
    let base = obs.get("bases").items().iter().find(|b| b.get("owner").int() == you);
    let (move_div, harvest_div) = (params.get("move_cost_divisor").int(), params.get("harvest_divisor").int());
    let base = match base {
        Some(b) if move_div > 0 && harvest_div > 0 => (b.get("x").int(), b.get("y").int()),
        _ => return "{\"orders\":[]}".to_string(), // not an observation this bot knows
    };
    let (width, height) = (obs.get("width").int(), obs.get("height").int());
    let g = Game {
        width,
        height,
        ore: obs.get("ore").ints(),
        base,
        cargo_cap: params.get("cargo_cap").int(),
        move_div,
        harvest_div,
        turns_left: obs.get("max_turns").int() - obs.get("turn").int(),
    };
    let zone = zone_of(obs.get("safe_zone"));
    // Harvest only where the next shrink of the zone cannot reach.
    let mut inner = zone;
    if zone.x1 - zone.x0 + 1 > params.get("min_zone").int() {
        inner = Zone { x0: zone.x0 + 1, y0: zone.y0 + 1, x1: zone.x1 - 1, y1: zone.y1 - 1 };
    }
    let units: Vec<Unit> = obs
        .get("units")
        .items()
        .iter()
        .map(|u| Unit {
            id: u.get("id").int(),
            owner: u.get("owner").int(),
            at: (u.get("x").int(), u.get("y").int()),
            cargo: u.get("cargo").int(),
        })
        .collect();
    // blocked holds every cell a unit stands on now, one of ours moves to or
    // an enemy can move to: our units never collide with each other and only
    // meet an enemy that walks into them.
    let mut blocked = Marks::new(width, height);
    for u in &units {
        let reach: &[Cell] = if u.owner == you { &[(0, 0)] } else { &[(0, 0), (0, -1), (1, 0), (0, 1), (-1, 0)] };
        for d in reach {
            blocked.mark((u.at.0 + d.0, u.at.1 + d.1));
        }
    }
    let mut targeted = Marks::new(width, height);
    let mut orders = Vec::new();
    let mut on_base = false;
    for u in units.iter().filter(|u| u.owner == you) {
        let goal = g.goal(u, inner, &targeted);
        targeted.mark(goal);
        let next = g.step(u, goal, zone, &blocked);
        blocked.mark(next);
        on_base |= next == base;
        orders.push(format!("{{\"unit\":{},\"do\":\"{}\"}}", u.id, direction(u.at, next)));
    }
    let mine = orders.len();
    let spawn = !on_base
        && mine < MAX_OWN_UNITS
        && (mine as i64) < params.get("units_cap").int()
        && obs.get("banks").at(you as usize).int() >= params.get("spawn_cost").int()
        && obs.get("turn").int() < obs.get("max_turns").int() / 4;
    format!("{{\"orders\":[{}],\"spawn\":{}}}", orders.join(","), spawn)
}

fn main() {
    arena::run(play);
}
