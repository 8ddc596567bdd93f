//! A Snake bot in Rust: of the moves that do not run into a wall or a body,
//! it prefers one that keeps its head away from snakes as long as itself,
//! then one that leaves it room to move, then the one nearest to food. See
//! README.md to build it.
//!
//! The observation is Battlesnake's /move request body and the answer its
//! /move response, so the move logic of a Battlesnake bot fits in `play`.

mod arena;

use arena::Json;

/// The largest board this bot reads.
const MAX_SIDE: i64 = 64;

/// The moves in the order the bot tries them (ties go to the first).
const MOVES: [(&str, i64, i64); 4] = [("up", 0, 1), ("down", 0, -1), ("left", -1, 0), ("right", 1, 0)];

type Point = (i64, i64); // (x, y), y from 0 at the bottom

struct Snake {
    id: String,
    body: Vec<Point>, // head first
}

/// What the bot reads of an observation.
struct View {
    width: i64,
    height: i64,
    food: Vec<Point>,
    snakes: Vec<Snake>,
    /// A body part that is still there after the move, per cell.
    blocked: Vec<bool>,
}

fn point(p: &Json) -> Point {
    (p.get("x").int(), p.get("y").int())
}

fn distance(a: Point, b: Point) -> i64 {
    (a.0 - b.0).abs() + (a.1 - b.1).abs()
}

impl View {
    fn on_board(&self, (x, y): Point) -> bool {
        x >= 0 && x < self.width && y >= 0 && y < self.height
    }
    fn cell(&self, (x, y): Point) -> usize {
        (y * self.width + x) as usize
    }

    /// Whether another snake at least as long as snake `me` could move its
    /// head onto p this turn.
    fn head_risk(&self, me: usize, p: Point) -> bool {
        let len = self.snakes[me].body.len();
        self.snakes.iter().enumerate().any(|(i, s)| i != me && s.body.len() >= len && distance(s.body[0], p) == 1)
    }

    /// The free cells reachable from p, counted up to limit.
    fn room(&self, p: Point, limit: usize) -> usize {
        let mut seen = vec![false; self.blocked.len()];
        let mut queue = vec![p];
        seen[self.cell(p)] = true;
        let mut k = 0;
        while k < queue.len() && queue.len() < limit {
            let c = queue[k];
            k += 1;
            for &(_, dx, dy) in MOVES.iter() {
                let q = (c.0 + dx, c.1 + dy);
                if self.on_board(q) && !self.blocked[self.cell(q)] && !seen[self.cell(q)] {
                    seen[self.cell(q)] = true;
                    queue.push(q);
                }
            }
        }
        queue.len()
    }

    /// The number of moves from p to the nearest food, ignoring bodies, or
    /// 0 when there is none.
    fn food_distance(&self, p: Point) -> i64 {
        self.food.iter().map(|&f| distance(p, f)).min().unwrap_or(0)
    }
}

/// Answers one observation.
fn play(obs: &Json) -> String {
    format!("{{\"move\":\"{}\"}}", choose(obs))
}

fn choose(obs: &Json) -> &'static str {
    let board = obs.get("board");
    let you = obs.get("you").get("id").str();
    let mut v = View {
        width: board.get("width").int(),
        height: board.get("height").int(),
        food: board.get("food").items().iter().map(point).collect(),
        snakes: Vec::new(),
        blocked: Vec::new(),
    };
    for s in board.get("snakes").items() {
        let body: Vec<Point> = s.get("body").items().iter().map(point).collect();
        if !body.is_empty() {
            v.snakes.push(Snake { id: s.get("id").str().to_string(), body });
        }
    }
    let me = match v.snakes.iter().position(|s| s.id == you) {
        Some(me) => me,
        None => return "up", // not an observation this bot knows
    };
    if v.width < 1 || v.height < 1 || v.width > MAX_SIDE || v.height > MAX_SIDE {
        return "up";
    }
    // Every body part but a tail stays where it is this turn (a tail
    // doubled by a meal is listed twice, so its first copy blocks).
    v.blocked = vec![false; (v.width * v.height) as usize];
    for i in 0..v.snakes.len() {
        let body = &v.snakes[i].body;
        for k in 0..body.len() - 1 {
            if v.on_board(body[k]) {
                let c = v.cell(body[k]);
                v.blocked[c] = true;
            }
        }
    }
    let head = v.snakes[me].body[0];
    let len = v.snakes[me].body.len();
    let (mut best, mut best_score) = ("up", -1);
    for &(name, dx, dy) in MOVES.iter() {
        let p = (head.0 + dx, head.1 + dy);
        if !v.on_board(p) || v.blocked[v.cell(p)] {
            continue; // certain death
        }
        // Score, most important first: no head of a snake at least as long
        // can reach p; room for the whole body from p; near food.
        let mut score: i64 = 0;
        if !v.head_risk(me, p) {
            score += 1 << 20;
        }
        if v.room(p, len) >= len {
            score += 1 << 19;
        }
        score += (1 << 10) - v.food_distance(p).min((1 << 10) - 1);
        if score > best_score {
            best = name;
            best_score = score;
        }
    }
    best
}

fn main() {
    arena::run(play);
}
