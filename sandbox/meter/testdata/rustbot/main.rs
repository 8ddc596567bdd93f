// rustbot is the Rust twin of testdata/gobot, built with rustc --target wasm32-wasi.
use std::io::{self, BufRead, Write};

#[link(wasm_import_module = "arena")]
extern "C" {
    fn fuel_left() -> i64;
}

fn main() {
    let mut line = String::new();
    io::stdin().lock().read_line(&mut line).unwrap();
    let n: usize = line.trim().parse().unwrap();
    let mut composite = vec![false; n];
    let (mut count, mut last) = (0, 0);
    for i in 2..n {
        if composite[i] {
            continue;
        }
        count += 1;
        last = i;
        let mut j = i * i;
        while j < n {
            composite[j] = true;
            j += i;
        }
    }
    let words: Vec<String> = (0..100).map(|i| format!("w{}", i)).collect();
    let joined = words.join(",");
    println!("{{\"count\":{},\"last\":{}}}", count, last);
    writeln!(io::stderr(), "fuel_left {} {}", unsafe { fuel_left() }, joined.len()).unwrap();
}
