// Copied from the Arena repository's sdk/rust/arena.rs by `go generate ./internal/kits`: edit that file.
//! arena.rs: the Rust side of a bot for the Arena platform (docs/bots.md).
//!
//! One file, std only, so a bot builds with rustc alone (no cargo, no
//! crates): the line loop of the bot protocol, a small JSON reader, and the
//! fuel gauge of wasm bots. Put it next to a bot's main.rs (each starter
//! kit holds a copy) and use it with
//!
//!     mod arena;
//!
//! and build for the platform with `rustc --target wasm32-wasi -O main.rs`,
//! or natively with `rustc -O main.rs` for the CLI's exec: kind.
#![allow(dead_code)]

use std::io::{self, BufRead, Write};

/// A JSON value. Numbers are integers: every observation on the platform
/// holds only integers.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

impl Json {
    /// The field `key` of an object, or null.
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map_or(&NULL, |(_, v)| v),
            _ => &NULL,
        }
    }
    /// Element `i` of an array, or null.
    pub fn at(&self, i: usize) -> &Json {
        match self {
            Json::Arr(items) => items.get(i).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
    /// The elements of an array (none for anything else).
    pub fn items(&self) -> &[Json] {
        match self {
            Json::Arr(items) => items,
            _ => &[],
        }
    }
    /// The value as an integer: true is 1, anything not a number is 0.
    pub fn int(&self) -> i64 {
        match self {
            Json::Int(n) => *n,
            Json::Bool(b) => *b as i64,
            _ => 0,
        }
    }
    /// The numbers, booleans (true as 1) and nulls (0) of an array, nested
    /// arrays flattened in order, so that a board comes out row by row:
    /// ore[y][x] is at y*width+x. Strings are skipped; the values of objects
    /// inside the array count like any other.
    pub fn ints(&self) -> Vec<i64> {
        fn walk(v: &Json, out: &mut Vec<i64>) {
            match v {
                Json::Arr(items) => items.iter().for_each(|item| walk(item, out)),
                Json::Obj(fields) => fields.iter().for_each(|(_, item)| walk(item, out)),
                Json::Str(_) => {}
                scalar => out.push(scalar.int()),
            }
        }
        let mut out = Vec::new();
        if let Json::Arr(_) = self {
            walk(self, &mut out);
        }
        out
    }
    /// The value as a boolean: true, or a non-zero number.
    pub fn bool(&self) -> bool {
        self.int() != 0
    }
    /// The value as a string ("" for anything else).
    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }
}

/// Parses one JSON value; None when the text is not JSON this reader knows.
pub fn parse(text: &str) -> Option<Json> {
    let mut p = Parser { s: text.as_bytes(), i: 0, depth: 0 };
    let v = p.value()?;
    p.ws();
    if p.i == p.s.len() {
        Some(v)
    } else {
        None
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn word(&mut self, w: &str, v: Json) -> Option<Json> {
        if self.s[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Some(v)
        } else {
            None
        }
    }
    fn value(&mut self) -> Option<Json> {
        self.ws();
        self.depth += 1;
        if self.depth > 64 {
            return None; // deeper than any observation: refuse, do not overflow
        }
        let v = match *self.s.get(self.i)? {
            b'n' => self.word("null", Json::Null),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'"' => self.string().map(Json::Str),
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        items.push(self.value()?);
                        if self.eat(b']') {
                            break;
                        }
                        if !self.eat(b',') {
                            return None;
                        }
                    }
                }
                Some(Json::Arr(items))
            }
            b'{' => {
                self.i += 1;
                let mut fields = Vec::new();
                if !self.eat(b'}') {
                    loop {
                        self.ws();
                        let k = self.string()?;
                        if !self.eat(b':') {
                            return None;
                        }
                        fields.push((k, self.value()?));
                        if self.eat(b'}') {
                            break;
                        }
                        if !self.eat(b',') {
                            return None;
                        }
                    }
                }
                Some(Json::Obj(fields))
            }
            _ => self.int(),
        };
        self.depth -= 1;
        v
    }
    fn int(&mut self) -> Option<Json> {
        let start = self.i;
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).ok()?;
        text.parse().ok().map(Json::Int)
    }
    fn string(&mut self) -> Option<String> {
        if self.s.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let c = *self.s.get(self.i)?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).ok(),
                b'\\' => {
                    let e = *self.s.get(self.i)?;
                    self.i += 1;
                    out.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        b'u' => {
                            // Observations hold no \u escapes; keep them verbatim.
                            out.extend_from_slice(b"\\u");
                            continue;
                        }
                        other => other,
                    });
                }
                _ => out.push(c),
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "arena")]
extern "C" {
    #[link_name = "fuel_left"]
    fn arena_fuel_left() -> i64;
}

/// The fuel left in the tank right now, read live from the platform; -1 in a
/// native build, which is not metered.
pub fn fuel_left() -> i64 {
    #[cfg(target_arch = "wasm32")]
    {
        unsafe { arena_fuel_left() }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        -1
    }
}

/// Plays a whole match: for each observation line on stdin, calls play and
/// writes its answer as one line. Returns when stdin closes (the match is
/// over). A line that is not JSON is answered with "{}", so the bot loses
/// that turn but stays in step with the platform.
pub fn run(mut play: impl FnMut(&Json) -> String) {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) => {
                eprintln!("arena: reading an observation: {}", e);
                std::process::exit(1);
            }
        }
        let answer = match parse(line.trim_end()) {
            Some(obs) => play(&obs),
            None => {
                eprintln!("arena: an observation that is not JSON");
                "{}".to_string()
            }
        };
        // One write and a flush per answer: the platform reads the line as
        // soon as its newline arrives.
        let answer = answer + "\n";
        if out.write_all(answer.as_bytes()).and_then(|_| out.flush()).is_err() {
            std::process::exit(1);
        }
    }
}
