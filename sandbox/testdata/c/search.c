/* The CPU-heavy benchmark bot in C: the same negamax as ../search/main.go. */
#include <stdio.h>

static signed char board[9];
static const int lines[8][3] = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
                                {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}};
static long nodes;

static int won(signed char p) {
    for (int i = 0; i < 8; i++)
        if (board[lines[i][0]] == p && board[lines[i][1]] == p && board[lines[i][2]] == p)
            return 1;
    return 0;
}

static int negamax(signed char p, int depth) {
    nodes++;
    if (won(-p)) return -1;
    if (depth == 9) return 0;
    int best = -2;
    for (int i = 0; i < 9; i++) {
        if (board[i] == 0) {
            board[i] = p;
            int v = -negamax(-p, depth + 1);
            if (v > best) best = v;
            board[i] = 0;
        }
    }
    return best;
}

int main(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        nodes = 0;
        int v = negamax(1, 0);
        printf("{\"value\":%d,\"nodes\":%ld}\n", v, nodes);
        fflush(stdout);
    }
    return 0;
}
