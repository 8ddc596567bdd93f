// The driver of a held-out Dots and Boxes engine: Dabble's search as KSquares
// ports it (src/dbgame-nohash.cpp of github.com/ofenrohr/ksquares), linked
// from a checkout by build.sh, never copied into this repository. It speaks
// the protocol of scripts/dnb-engine-adapter.py on a 5x5 board:
//
//     driver LEAVES SEED
//
// Each line on stdin holds the drawn edges in the order they were drawn, as
// Arena's edge indexes (every H edge row by row, 0 to 29, then every V edge
// row by row, 30 to 59; an empty line for the empty board); the driver
// answers one line, the index of the edge the engine draws first from there.
// One engine plays the whole match (answer, below): it is given the
// opponent's edges and draws its own, a turn at a time, so an answer
// depends on the match's edges in their order, LEAVES and SEED only.
//
// LEAVES is the stop: the engine's iterative deepening ends once it has
// counted LEAVES leaves this move (its own count, of the positions where its
// search ends, every depth counted, the unfinished one too); as when its
// clock runs out, it abandons the unfinished depth and plays the best move of
// the last finished one. SEED goes to srand in place of the seed the engine
// takes from the clock (the time & 255); it orders the engine's list of
// edges, so it decides between moves of equal value.
//
// With DNB_ENGINE_LOG=FILE set, each move appends a line to FILE: the free
// edges, the leaves counted, the last finished depth, the edge answered.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "dbgame-nohash.h"

// build.sh compiles the engine and this file with leaves defined as a call
// of leaf_counter (below), the one place the search passes at every leaf;
// both must see the same class, so refuse to build without it.
#ifndef leaves
#error "build with -Dleaves='(*leaf_counter())', as build.sh does"
#endif

using dabble_nohash::Coords;
using dabble_nohash::DBGame;

namespace {

const int kRows = 5, kCols = 5;
const int kNumH = (kRows + 1) * kCols;           // 30
const int kNumEdges = kNumH + kRows * (kCols + 1); // 60

long long leaf_limit;     // LEAVES
unsigned seed;            // SEED
int depth_leaves;         // the engine's own count, reset at each depth
int last_seen;            // depth_leaves at the previous call
long long finished_leaves; // the leaves of the depths before this one

void reset_leaves() {
	depth_leaves = 0;
	last_seen = 0;
	finished_leaves = 0;
}

long long move_leaves() { return finished_leaves + depth_leaves; }

// play draws Arena's edge e in the engine: H(r, c) lies between the coins of
// boxes (r-1, c) and (r, c), the engine's horiz[c+1][r]; V(r, c) between
// boxes (r, c-1) and (r, c), its vert[c][r+1]. The coin of box (r, c) is
// square[c+1][r+1]; the squares on the border are the ground.
void play(DBGame *g, int e) {
	if (e < kNumH)
		g->AddLine(e % kCols + 1, e / kCols, dabble_nohash::dir_horizontal);
	else
		g->AddLine((e - kNumH) % (kCols + 1), (e - kNumH) / (kCols + 1) + 1, dabble_nohash::dir_vertical);
}

// edge_of is play's inverse on the coordinates of an edge's two coins, or -1.
int edge_of(Coords c) {
	int x1 = c.x1, y1 = c.y1, x2 = c.x2, y2 = c.y2;
	if (x1 == x2 && std::abs(y1 - y2) == 1) {
		int i = x1, j = y1 < y2 ? y1 : y2;
		if (i >= 1 && i <= kCols && j >= 0 && j <= kRows)
			return j * kCols + (i - 1);
	}
	if (y1 == y2 && std::abs(x1 - x2) == 1) {
		int i = x1 < x2 ? x1 : x2, j = y1;
		if (i >= 0 && i <= kCols && j >= 1 && j <= kRows)
			return kNumH + (j - 1) * (kCols + 1) + i;
	}
	return -1;
}

// The engine of the match and the edges it has drawn, in order: the
// opponent's, given it with PlayerMove, and its own, which its MyMove draws
// a whole turn at a time (the captures, then the move that passes the
// turn), as in Dabble's own program. Arena asks for one edge at a time, so
// the edges of a turn the engine has drawn and Arena not yet are answered
// from here without a search. Replaying the engine's own captures with
// PlayerMove instead is not what the engine is written for: its capture
// path for the other player's edges leaves a chain's end marked wrong, and
// the engine can then crash.
DBGame *game;
std::vector<int> known;

void restart() {
	delete game;
	game = new DBGame(kCols + 1, kRows + 1);
	known.clear();
}

// answer returns the engine's next edge after the edges drawn, in order.
int answer(const std::vector<int> &drawn, int *depth) {
	*depth = 0;
	if (!game)
		restart();
	size_t same = 0;
	while (same < drawn.size() && same < known.size() && drawn[same] == known[same])
		same++;
	if (same < drawn.size() && same < known.size())
		restart(); // not this match's history (a new match or a resumed one)
	else if (same == drawn.size() && same < known.size())
		return known[same]; // the turn the engine has drawn goes on
	for (size_t i = known.size(); i < drawn.size(); i++) {
		play(game, drawn[i]);
		known.push_back(drawn[i]);
	}
	game->stop = 0;
	reset_leaves();
	int before = game->numEdgesRemoved;
	game->MyMove();
	*depth = game->last_depth;
	int first = known.size();
	for (int k = before; k < game->numEdgesRemoved; k++) {
		int e = edge_of(game->rgEdgeRemoved[k]);
		if (e < 0) {
			std::fprintf(stderr, "driver: the engine drew an edge it cannot name; starting again\n");
			restart();
			return -1;
		}
		known.push_back(e);
	}
	return int(known.size()) > first ? known[first] : -1;
}

} // namespace

// leaf_counter stands for the engine's leaf count: the search reads and
// increments it through here, so the stop is set the moment the move's
// leaves reach the limit. A value lower than at the previous call means the
// engine started a new depth: the finished depth's leaves are kept.
int *DBGame::leaf_counter() {
	if (depth_leaves < last_seen)
		finished_leaves += last_seen;
	last_seen = depth_leaves;
	if (move_leaves() >= leaf_limit)
		stop = 1;
	return &depth_leaves;
}

// The engine seeds itself from the clock; build.sh links with --wrap=srand,
// so its call lands here.
extern "C" void __real_srand(unsigned);
extern "C" void __wrap_srand(unsigned) { __real_srand(seed); }

int main(int argc, char **argv) {
	char *end = nullptr;
	if (argc != 3 || (leaf_limit = strtoll(argv[1], &end, 10)) <= 0 || *end != '\0') {
		std::fprintf(stderr, "usage: driver LEAVES SEED (LEAVES > 0)\n");
		return 2;
	}
	unsigned long s = strtoul(argv[2], &end, 10);
	if (*end != '\0' || argv[2][0] == '\0' || argv[2][0] == '-') {
		std::fprintf(stderr, "driver: SEED must be a number, not %s\n", argv[2]);
		return 2;
	}
	seed = unsigned(s);

	// The engine prints its progress on stdout; answers go to the stdout we
	// were given, and the engine's prints nowhere.
	int out_fd = dup(1);
	int null_fd = open("/dev/null", O_WRONLY);
	if (out_fd < 0 || null_fd < 0 || dup2(null_fd, 1) < 0) {
		std::perror("driver: stdout");
		return 1;
	}
	FILE *out = fdopen(out_fd, "w");
	FILE *log = nullptr;
	if (const char *path = std::getenv("DNB_ENGINE_LOG"))
		log = std::fopen(path, "a");

	std::string line;
	while (std::getline(std::cin, line)) {
		reset_leaves();
		std::vector<int> drawn;
		std::vector<bool> is_drawn(kNumEdges, false);
		std::istringstream words(line);
		std::string word;
		bool ok = true;
		while (words >> word) {
			char *wend = nullptr;
			long e = std::strtol(word.c_str(), &wend, 10);
			if (*wend != '\0' || e < 0 || e >= kNumEdges || is_drawn[e]) {
				ok = false;
				break;
			}
			is_drawn[e] = true;
			drawn.push_back(int(e));
		}
		int first_free = -1;
		for (int e = 0; e < kNumEdges && first_free < 0; e++)
			if (!is_drawn[e])
				first_free = e;
		int e = -1, depth = 0;
		if (!ok)
			std::fprintf(stderr, "driver: unreadable request %.80s\n", line.c_str());
		else if (first_free >= 0)
			e = answer(drawn, &depth);
		if (ok && first_free >= 0 && (e < 0 || is_drawn[e])) {
			std::fprintf(stderr, "driver: the engine drew no free edge after %zu edges\n", drawn.size());
			e = -1;
		}
		if (e < 0)
			e = first_free;
		if (log) {
			std::fprintf(log, "free %d leaves %lld depth %d edge %d\n", kNumEdges - int(drawn.size()), move_leaves(), depth, e);
			std::fflush(log);
		}
		std::fprintf(out, "%d\n", e);
		std::fflush(out);
	}
	return 0;
}
