// Moving staircases, hand-written as a contest entrant would: BFS over
// (cell, minute % 2). Each minute the wizard waits, steps onto a corridor
// cell ('.', 'S', 'T'), or crosses the staircase next to him to the
// corridor cell beyond it when it runs his way: '|' north-south at even
// minutes, east-west at odd ones; '-' the other way round. Input as
// puzzles/stairs.puz reads it.
#include <cstdio>
#include <vector>
#include <string>
using namespace std;
int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    while (t--) {
        int h, w;
        scanf("%d %d", &h, &w);
        vector<string> g(h);
        vector<char> buf(w + 16);
        for (int r = 0; r < h; r++) { scanf("%s", buf.data()); g[r] = buf.data(); }
        int s = -1;
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) if (g[r][c] == 'S') s = r * w + c;
        auto open = [&](int r, int c) {
            return r >= 0 && c >= 0 && r < h && c < w && (g[r][c] == '.' || g[r][c] == 'S' || g[r][c] == 'T');
        };
        int n = h * w;
        vector<int> dist(2 * n, -1), q(2 * n);
        int qh = 0, qt = 0, ans = -1;
        dist[s] = 0; q[qt++] = s;
        const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
        while (qh < qt) {
            int v = q[qh++], cell = v % n, par = v / n, r = cell / w, c = cell % w;
            if (g[r][c] == 'T') { ans = dist[v]; break; }
            int np = par ^ 1;
            auto go = [&](int u) { int x = np * n + u; if (dist[x] < 0) { dist[x] = dist[v] + 1; q[qt++] = x; } };
            go(cell);
            for (int d = 0; d < 4; d++) {
                int nr = r + dr[d], nc = c + dc[d];
                if (open(nr, nc)) { go(nr * w + nc); continue; }
                if (nr < 0 || nc < 0 || nr >= h || nc >= w) continue;
                char st = g[nr][nc];
                if (st != '|' && st != '-') continue;
                bool vertical = (st == '|') == (par == 0);
                if (vertical != (d < 2)) continue;
                int fr = nr + dr[d], fc = nc + dc[d];
                if (open(fr, fc)) go(fr * w + fc);
            }
        }
        printf("%d\n", ans);
    }
}
