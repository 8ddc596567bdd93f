//! A Dots and Boxes bot in Rust: take a box if it can, else draw an edge that
//! gives no box away, else any edge. See README.md to build it.

mod arena;

use arena::Json;

struct Board {
    rows: usize,
    cols: usize,
    h: Vec<Vec<bool>>, // rows+1 rows of cols edges
    v: Vec<Vec<bool>>, // rows rows of cols+1 edges
}

impl Board {
    fn read(obs: &Json) -> Board {
        let grid = |key: &str| -> Vec<Vec<bool>> {
            obs.get(key).items().iter().map(|row| row.items().iter().map(Json::bool).collect()).collect()
        };
        Board { rows: obs.get("rows").int() as usize, cols: obs.get("cols").int() as usize, h: grid("h"), v: grid("v") }
    }

    fn drawn(&self, orient: char, r: usize, c: usize) -> bool {
        let lines = if orient == 'H' { &self.h } else { &self.v };
        lines.get(r).and_then(|row| row.get(c)).copied().unwrap_or(true)
    }

    /// The number of drawn sides of box (r, c).
    fn sides(&self, r: usize, c: usize) -> usize {
        [self.drawn('H', r, c), self.drawn('H', r + 1, c), self.drawn('V', r, c), self.drawn('V', r, c + 1)]
            .iter()
            .filter(|&&d| d)
            .count()
    }

    /// The most sides any box beside the edge already has: 3 means drawing it
    /// closes a box, 2 means it hands the opponent one.
    fn worst(&self, orient: char, r: usize, c: usize) -> usize {
        let mut boxes = Vec::with_capacity(2);
        if orient == 'H' {
            if r > 0 {
                boxes.push((r - 1, c));
            }
            if r < self.rows {
                boxes.push((r, c));
            }
        } else {
            if c > 0 {
                boxes.push((r, c - 1));
            }
            if c < self.cols {
                boxes.push((r, c));
            }
        }
        boxes.iter().map(|&(r, c)| self.sides(r, c)).max().unwrap_or(0)
    }

    /// Scores every undrawn edge, take > safe > any, and returns the best.
    fn choose(&self) -> Option<(char, usize, usize)> {
        let mut best: Option<(u8, (char, usize, usize))> = None;
        for (orient, nr, nc) in [('H', self.rows + 1, self.cols), ('V', self.rows, self.cols + 1)] {
            for r in 0..nr {
                for c in 0..nc {
                    if self.drawn(orient, r, c) {
                        continue;
                    }
                    let score = match self.worst(orient, r, c) {
                        3 => 3,
                        2 => 1,
                        _ => 2,
                    };
                    if best.map_or(true, |(s, _)| score > s) {
                        best = Some((score, (orient, r, c)));
                    }
                }
            }
        }
        best.map(|(_, edge)| edge)
    }
}

fn main() {
    // Both seats are asked every turn; only the mover's answer counts, but
    // answering the same way either way costs little.
    arena::run(|obs| match Board::read(obs).choose() {
        Some((orient, r, c)) => format!("{{\"orient\":\"{}\",\"r\":{},\"c\":{}}}", orient, r, c),
        None => "{}".to_string(),
    });
}
