// Fifteen: the fewest moves of each 4 x 4 sliding board to the solved one,
// by a plain IDA* with Manhattan distance (the blank's moves; a move
// straight back is not tried). Input: the number of boards, then sixteen
// numbers a board, 0 for the blank. Written independently of puzzle.
#include <cstdio>
#include <cstdlib>

static int board[16], blank;
static int next_bound;

static int manhattan() {
  int h = 0;
  for (int i = 0; i < 16; i++) {
    int v = board[i];
    if (v == 0) continue;
    int g = v - 1;
    h += abs(i / 4 - g / 4) + abs(i % 4 - g % 4);
  }
  return h;
}

static const int DR[4] = {-1, 0, 1, 0}, DC[4] = {0, 1, 0, -1};

// True when a goal is within `bound`; `h` is the distance of the board.
static bool dfs(int g, int h, int bound, int back) {
  int f = g + h;
  if (f > bound) {
    if (f < next_bound) next_bound = f;
    return false;
  }
  if (h == 0) return true;
  int r = blank / 4, c = blank % 4;
  for (int d = 0; d < 4; d++) {
    if (d == back) continue;
    int nr = r + DR[d], nc = c + DC[d];
    if (nr < 0 || nr > 3 || nc < 0 || nc > 3) continue;
    int to = nr * 4 + nc, v = board[to], goal = v - 1;
    // The piece moves from `to` to `blank`.
    int before = abs(to / 4 - goal / 4) + abs(to % 4 - goal % 4);
    int after = abs(blank / 4 - goal / 4) + abs(blank % 4 - goal % 4);
    board[blank] = v;
    board[to] = 0;
    int old = blank;
    blank = to;
    bool found = dfs(g + 1, h - before + after, bound, (d + 2) % 4);
    blank = old;
    board[to] = v;
    board[blank] = 0;
    if (found) return true;
  }
  return false;
}

int main() {
  int n;
  if (scanf("%d", &n) != 1) return 1;
  while (n--) {
    for (int i = 0; i < 16; i++) {
      if (scanf("%d", &board[i]) != 1) return 1;
      if (board[i] == 0) blank = i;
    }
    int h = manhattan(), bound = h;
    while (true) {
      next_bound = 1 << 30;
      if (dfs(0, h, bound, -1)) break;
      bound = next_bound;
    }
    printf("%d\n", bound);
  }
}
