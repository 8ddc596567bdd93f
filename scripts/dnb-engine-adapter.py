#!/usr/bin/env python3
"""Plays an outside Dots and Boxes engine as an Arena `exec:` bot.

    arena match --game dots-and-boxes \
        --bot "exec:scripts/dnb-engine-adapter.py /path/to/engine [ARG...]" \
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
(the game's default move); a bad answer is reported on stderr.
"""
import json
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


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: dnb-engine-adapter.py ENGINE [ARG...]")
    engine = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    history = []
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
        if obs.get("you") == obs.get("to_move"):
            engine.stdin.write(" ".join(map(str, history)) + "\n")
            engine.stdin.flush()
            reply = engine.stdout.readline().strip()
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
