// Laser turrets that turn, hand-written as a contest entrant would: BFS
// over (cell, minute % 4), the cells each turret's beam lights worked out
// for each of the four turns. A turret ('^', '>', 'v', '<': north, east,
// south, west at minute 0) turns a quarter clockwise every minute and
// lights the cells along its way up to a wall or a turret. The thief steps
// or waits, never ending a minute in a beam. Input as puzzles/lasers.puz
// reads it.
#include <cstdio>
#include <vector>
#include <string>
using namespace std;
int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    while (t--) {
        int h, w;
        scanf("%d %d", &h, &w);
        vector<string> g(h);
        vector<char> buf(w + 16);
        for (int r = 0; r < h; r++) { scanf("%s", buf.data()); g[r] = buf.data(); }
        int n = h * w, s = -1;
        auto face = [](char c) { return c == '^' ? 0 : c == '>' ? 1 : c == 'v' ? 2 : c == '<' ? 3 : -1; };
        auto blocks = [&](int r, int c) { return g[r][c] == '#' || face(g[r][c]) >= 0; };
        vector<char> lit(4 * n, 0);
        for (int r = 0; r < h; r++)
            for (int c = 0; c < w; c++) {
                if (g[r][c] == 'T') s = r * w + c;
                int f = face(g[r][c]);
                if (f < 0) continue;
                for (int k = 0; k < 4; k++) {
                    int d = (f + k) % 4, y = r + dr[d], x = c + dc[d];
                    while (y >= 0 && x >= 0 && y < h && x < w && !blocks(y, x)) {
                        lit[k * n + y * w + x] = 1;
                        y += dr[d]; x += dc[d];
                    }
                }
            }
        vector<int> dist(4 * n, -1), q(4 * n);
        int qh = 0, qt = 0, ans = -1;
        if (!lit[s]) { dist[s] = 0; q[qt++] = s; }
        while (qh < qt) {
            int v = q[qh++], cell = v % n, k = v / n, r = cell / w, c = cell % w;
            if (g[r][c] == 'D') { ans = dist[v]; break; }
            int nk = (k + 1) % 4;
            for (int d = 0; d < 5; d++) {
                int y = r + (d < 4 ? dr[d] : 0), x = c + (d < 4 ? dc[d] : 0);
                if (y < 0 || x < 0 || y >= h || x >= w || blocks(y, x)) continue;
                int u = nk * n + y * w + x;
                if (lit[u] || dist[u] >= 0) continue;
                dist[u] = dist[v] + 1; q[qt++] = u;
            }
        }
        printf("%d\n", ans);
    }
}
