#!/usr/bin/env python3
"""Plays an outside Dots and Boxes engine as an Arena `exec:` bot.

    arena match --game dots-and-boxes \
        --bot "exec:scripts/dnb-engine-adapter.py [--opening N] /path/to/engine [ARG...]" \
        --bot builtin:search

The engine is held out of the repository (docs/bots-strength.md, "Against a
public engine"): this script only speaks to it. It starts ENGINE once and,
each time Arena asks for the mover's answer, writes one line to the
engine's stdin: the drawn edges in the order they were drawn, as indexes
separated by spaces (an empty line for the empty board), and reads back
one line holding the index of the edge to draw. An edge's index is its
place in Arena's order: every H edge row by row (0 to 29), then every V
edge row by row (30 to 59), as docs/games/dots-and-boxes.md lists them.
The order matters to engines that replay a game move by move: Arena asks
both seats every turn, so the adapter sees each edge appear and keeps the
history; an edge it did not see appear (a match resumed from a replay) is
put in index order. When it is not the seat's turn, or the
engine's answer is not an undrawn edge, the first undrawn edge is played
(the game's default move); a bad answer is reported on stderr. An engine
that dies is started again once per question and given the whole history.

--opening N varies the games: the seat's first N moves are not asked of the
engine but drawn at random among the safe edges (those that give no box its
third side), from a generator seeded by the match's nonce. The board always
starts empty and both a node-limited engine and builtin:search are
deterministic, so without it every board of a tournament replays the same
two games. The same board seed gives the same nonce in both seatings.
"""
import json
import random
import subprocess
import sys

ROWS, COLS = 5, 5
NUM_H = (ROWS + 1) * COLS


def action(e):
    if e < NUM_H:
        return {"orient": "H", "r": e // COLS, "c": e % COLS}
    e -= NUM_H
    return {"orient": "V", "r": e // (COLS + 1), "c": e % (COLS + 1)}


def drawn_edges(obs):
    flat = [x for row in obs["h"] for x in row] + [x for row in obs["v"] for x in row]
    return "".join("1" if x else "0" for x in flat)


def safe_edges(drawn):
    """The undrawn edges that give no box its third side."""
    sides = [[0] * COLS for _ in range(ROWS)]
    boxes_of = []
    for e in range(NUM_H * 2):
        if e < NUM_H:
            r, c = e // COLS, e % COLS
            bs = [(r - 1, c), (r, c)]
        else:
            r, c = (e - NUM_H) // (COLS + 1), (e - NUM_H) % (COLS + 1)
            bs = [(r, c - 1), (r, c)]
        bs = [(br, bc) for br, bc in bs if 0 <= br < ROWS and 0 <= bc < COLS]
        boxes_of.append(bs)
        if drawn[e] == "1":
            for br, bc in bs:
                sides[br][bc] += 1
    return [e for e in range(NUM_H * 2) if drawn[e] == "0" and all(sides[br][bc] < 2 for br, bc in boxes_of[e])]


def main():
    args = sys.argv[1:]
    opening = 0
    if len(args) >= 2 and args[0] == "--opening":
        opening = int(args[1])
        args = args[2:]
    if not args:
        sys.exit("usage: dnb-engine-adapter.py [--opening N] ENGINE [ARG...]")
    engine = None
    history = []
    rng = None
    played = 0
    for line in sys.stdin:
        try:
            obs = json.loads(line)
            drawn = drawn_edges(obs)
        except (ValueError, KeyError, TypeError) as err:
            print(f"adapter: unreadable observation: {err}", file=sys.stderr)
            print("{}", flush=True)
            continue
        if obs.get("rows") != ROWS or obs.get("cols") != COLS or len(drawn) != NUM_H * 2 or "0" not in drawn:
            print("{}", flush=True)
            continue
        # Keep the history: drop what is no longer drawn (a new match on the
        # same process never happens, but be safe), append what is new.
        history = [x for x in history if drawn[x] == "1"]
        seen = set(history)
        history += [x for x, d in enumerate(drawn) if d == "1" and x not in seen]
        e = drawn.index("0")
        if rng is None:
            rng = random.Random(obs.get("nonce", 0))
        safe = safe_edges(drawn) if played < opening and obs.get("you") == obs.get("to_move") else []
        if safe:
            e = rng.choice(safe)
            played += 1
        elif obs.get("you") == obs.get("to_move"):
            played = opening
            reply = ""
            for attempt in range(2):
                if engine is None or engine.poll() is not None:
                    if engine is not None:
                        print(f"adapter: the engine ended ({engine.returncode}); starting it again", file=sys.stderr)
                    engine = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
                try:
                    engine.stdin.write(" ".join(map(str, history)) + "\n")
                    engine.stdin.flush()
                    reply = engine.stdout.readline().strip()
                except BrokenPipeError:
                    reply = ""
                if reply:
                    break
                engine.wait()
            try:
                got = int(reply)
            except ValueError:
                got = -1
            if 0 <= got < len(drawn) and drawn[got] == "0":
                e = got
            else:
                print(f"adapter: the engine answered {reply!r}, not an undrawn edge", file=sys.stderr)
        print(json.dumps(action(e), separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()
