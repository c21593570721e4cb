// Moving a log (Baekjoon 1938), hand-written as a contest entrant would:
// BFS over (middle cell, lying north-south). A shift needs the three cells
// it comes to on the map and not trees ('1'); a turn needs the 3 x 3
// square around the middle on the map and free of trees. The answer is the
// fewest moves to lie on the three 'E' cells, or 0. Input as
// puzzles/log.puz reads it: n, then n rows of n characters.
#include <cstdio>
#include <vector>
#include <string>
using namespace std;
int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<string> g(n);
    static char buf[1 << 16];
    for (int r = 0; r < n; r++) { scanf("%s", buf); g[r] = buf; }
    vector<int> br, bc, er, ec;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            if (g[r][c] == 'B') { br.push_back(r); bc.push_back(c); }
            if (g[r][c] == 'E') { er.push_back(r); ec.push_back(c); }
        }
    auto free = [&](int r, int c) { return r >= 0 && c >= 0 && r < n && c < n && g[r][c] != '1'; };
    // The cells of a log lying `tall` (north-south) or not around (r, c).
    auto fits = [&](int r, int c, int tall) {
        return tall ? free(r - 1, c) && free(r, c) && free(r + 1, c)
                    : free(r, c - 1) && free(r, c) && free(r, c + 1);
    };
    int tall0 = bc[0] == bc[1];
    int gtall = ec[0] == ec[1];
    int goal = -1;
    // The ends in a line: the middle one and its lie; else never.
    if (er.size() == 3 && (gtall ? er[0] + 1 == er[1] && er[1] + 1 == er[2] && ec[0] == ec[2]
                                 : ec[0] + 1 == ec[1] && ec[1] + 1 == ec[2] && er[0] == er[2]))
        goal = (er[1] * n + ec[1]) * 2 + gtall;
    vector<int> dist((size_t)n * n * 2, -1), q;
    int s0 = (br[1] * n + bc[1]) * 2 + tall0;
    dist[s0] = 0; q.push_back(s0);
    int ans = 0;
    const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, 1, -1};
    for (size_t qh = 0; qh < q.size(); qh++) {
        int s = q[qh], t = s & 1, a = s >> 1, r = a / n, c = a % n;
        if (s == goal) { ans = dist[s]; break; }
        for (int m = 0; m < 4; m++) {
            int nr = r + dr[m], nc = c + dc[m];
            if (!fits(nr, nc, t)) continue;
            int u = (nr * n + nc) * 2 + t;
            if (dist[u] < 0) { dist[u] = dist[s] + 1; q.push_back(u); }
        }
        bool square = true;
        for (int y = -1; y <= 1; y++)
            for (int x = -1; x <= 1; x++) square = square && free(r + y, c + x);
        int u = s ^ 1;
        if (square && dist[u] < 0) { dist[u] = dist[s] + 1; q.push_back(u); }
    }
    printf("%d\n", ans);
}
