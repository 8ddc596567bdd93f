//! probe prints what arena.rs reads out of each JSON line, in the format that
//! sdk's TestReadersAgree compares across Go, C and Rust.

#[path = "../arena.rs"]
mod arena;

use arena::Json;
use std::io::BufRead;

fn main() {
    for line in std::io::stdin().lock().lines() {
        let doc = arena::parse(&line.unwrap()).expect("the test sends valid JSON only");
        for key in ["a", "b", "ore", "units", "x"] {
            let found = matches!(&doc, Json::Obj(fields) if fields.iter().any(|(k, _)| k == key));
            let v = doc.get(key);
            let elems = match v {
                Json::Arr(items) => items.len() as i64,
                _ => -1,
            };
            let ints: Vec<String> = v.ints().iter().map(|n| n.to_string()).collect();
            let xs: Vec<String> = v.items().iter().map(|e| e.get("x").int().to_string()).collect();
            println!("{} found={} int={} elems={} ints={} x={}", key, found as i32, v.int(), elems, ints.join(","), xs.join(","));
        }
    }
}
