// Fire! (UVa 11624), hand-written as a contest entrant would: a BFS of the
// fire's minute on every cell, then a BFS of Joe's, who enters a cell only
// before the fire does; stepping off the maze escapes. Input as
// puzzles/fire.puz reads it.
#include <cstdio>
#include <vector>
#include <string>
using namespace std;
int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    static char buf[1 << 16];
    while (t--) {
        int h, w;
        scanf("%d %d", &h, &w);
        vector<string> g(h);
        for (int r = 0; r < h; r++) { scanf("%s", buf); g[r] = buf; }
        const int n = h * w, dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
        vector<int> fire(n, -1), joe(n, -1), q(n);
        int qh = 0, qt = 0, s = -1;
        for (int v = 0; v < n; v++) {
            char ch = g[v / w][v % w];
            if (ch == 'F') { fire[v] = 0; q[qt++] = v; }
            if (ch == 'J') s = v;
        }
        while (qh < qt) {
            int v = q[qh++], r = v / w, c = v % w;
            for (int d = 0; d < 4; d++) {
                int y = r + dr[d], x = c + dc[d];
                if (y < 0 || x < 0 || y >= h || x >= w) continue;
                int u = y * w + x;
                char ch = g[y][x];
                if (fire[u] < 0 && (ch == '.' || ch == 'J')) { fire[u] = fire[v] + 1; q[qt++] = u; }
            }
        }
        qh = qt = 0;
        joe[s] = 0; q[qt++] = s;
        int ans = -1;
        while (qh < qt && ans < 0) {
            int v = q[qh++], r = v / w, c = v % w;
            for (int d = 0; d < 4; d++) {
                int y = r + dr[d], x = c + dc[d];
                if (y < 0 || x < 0 || y >= h || x >= w) { ans = joe[v] + 1; break; }
                int u = y * w + x, m = joe[v] + 1;
                if (joe[u] < 0 && g[y][x] == '.' && (fire[u] < 0 || m < fire[u])) { joe[u] = m; q[qt++] = u; }
            }
        }
        if (ans < 0) printf("IMPOSSIBLE\n"); else printf("%d\n", ans);
    }
}
