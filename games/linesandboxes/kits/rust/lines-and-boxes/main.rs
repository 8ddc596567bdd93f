//! A Lines and Boxes bot in Rust: it draws the line that closes the most
//! boxes, else a safe unit edge, else the line that hands the opponent the
//! fewest boxes. See README.md to build it.

mod arena;

use arena::Json;

/// A candidate move: dots (r0, c0) to (r1, c1) and what it does.
#[derive(Clone, Copy)]
struct Line {
    r0: i64,
    c0: i64,
    r1: i64,
    c1: i64,
    closed: i64, // boxes it closes
    handed: i64, // boxes it leaves with three sides
}

impl Line {
    /// Most boxes won now less boxes handed over, then the shorter line (it
    /// keeps the safe edges for later).
    fn better(&self, than: &Line) -> bool {
        let (a, b) = (self.closed - self.handed, than.closed - than.handed);
        if a != b {
            return a > b;
        }
        self.r1 - self.r0 + self.c1 - self.c0 < than.r1 - than.r0 + than.c1 - than.c0
    }
}

struct Board<'a> {
    rows: i64,
    cols: i64,
    h: &'a Json, // rows+1 rows of cols edges
    v: &'a Json, // rows rows of cols+1 edges
    sides: Vec<Vec<i64>>,
}

impl Board<'_> {
    /// Whether a unit edge is drawn; edges off the board count as drawn.
    fn drawn(lines: &Json, r: i64, c: i64) -> bool {
        if r < 0 || c < 0 {
            return true;
        }
        match lines.items().get(r as usize).and_then(|row| row.items().get(c as usize)) {
            Some(edge) => edge.bool(),
            None => true,
        }
    }

    /// Counts what one more side on box (r, c) does to line l.
    fn effect(&self, r: i64, c: i64, l: &mut Line) {
        if r < 0 || r >= self.rows || c < 0 || c >= self.cols {
            return;
        }
        match self.sides[r as usize][c as usize] {
            3 => l.closed += 1,
            2 => l.handed += 1,
            _ => {}
        }
    }
}

fn play(obs: &Json) -> String {
    let (rows, cols) = (obs.get("rows").int(), obs.get("cols").int());
    let (h, v) = (obs.get("h"), obs.get("v"));
    // A straight line gives every box along it exactly one more side, so a
    // line's effect is the sum of its unit edges' effects.
    let sides = (0..rows)
        .map(|r| {
            (0..cols)
                .map(|c| {
                    [Board::drawn(h, r, c), Board::drawn(h, r + 1, c), Board::drawn(v, r, c), Board::drawn(v, r, c + 1)]
                        .iter()
                        .filter(|&&d| d)
                        .count() as i64
                })
                .collect()
        })
        .collect();
    let b = Board { rows, cols, h, v, sides };
    let mut best: Option<Line> = None;
    let mut consider = |l: Line| {
        if best.map_or(true, |old| l.better(&old)) {
            best = Some(l);
        }
    };
    for r in 0..=rows {
        // horizontal lines on dot row r
        for c0 in 0..cols {
            let mut l = Line { r0: r, c0, r1: r, c1: c0, closed: 0, handed: 0 };
            let mut c = c0;
            while c < cols && !Board::drawn(b.h, r, c) {
                b.effect(r - 1, c, &mut l);
                b.effect(r, c, &mut l);
                l.c1 = c + 1;
                consider(l);
                c += 1;
            }
        }
    }
    for c in 0..=cols {
        // vertical lines on dot column c
        for r0 in 0..rows {
            let mut l = Line { r0, c0: c, r1: r0, c1: c, closed: 0, handed: 0 };
            let mut r = r0;
            while r < rows && !Board::drawn(b.v, r, c) {
                b.effect(r, c - 1, &mut l);
                b.effect(r, c, &mut l);
                l.r1 = r + 1;
                consider(l);
                r += 1;
            }
        }
    }
    match best {
        // A dot is its column letter and its row number: "A1" is the top left.
        Some(l) => format!("{{\"from\":\"{}\",\"to\":\"{}\"}}", dot(l.r0, l.c0), dot(l.r1, l.c1)),
        None => "{}".to_string(), // no line left: the game is over and will not ask
    }
}

fn dot(r: i64, c: i64) -> String {
    format!("{}{}", (b'A' + c as u8) as char, r + 1)
}

fn main() {
    arena::run(play);
}
