//! fuelbot plays Dots and Boxes with the first undrawn edge and logs, on each
//! turn, the tank the observation announced and what arena::fuel_left reads
//! live, for examples' TestFuelLeft.

#[path = "../arena.rs"]
mod arena;

fn main() {
    arena::run(|obs| {
        eprintln!("left={} live={}", obs.get("fuel").get("left").int(), arena::fuel_left());
        for (orient, key) in [("H", "h"), ("V", "v")] {
            for (r, row) in obs.get(key).items().iter().enumerate() {
                for (c, drawn) in row.items().iter().enumerate() {
                    if !drawn.bool() {
                        return format!("{{\"orient\":\"{}\",\"r\":{},\"c\":{}}}", orient, r, c);
                    }
                }
            }
        }
        "{}".to_string()
    });
}
