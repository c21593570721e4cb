// Ice, hand-written as a contest entrant would: BFS over cells, each move
// sliding cell by cell until a rock or the edge stops it, or snow or the
// exit catches it. Input as puzzles/ice.puz reads it.
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
        char buf[1 << 16];
        for (int r = 0; r < h; r++) { scanf("%s", buf); g[r] = buf; }
        int s = -1;
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) if (g[r][c] == 'S') s = r * w + c;
        vector<int> dist(h * w, -1), q(h * w);
        int qh = 0, qt = 0, ans = -1;
        dist[s] = 0; q[qt++] = s;
        const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
        while (qh < qt) {
            int v = q[qh++], r = v / w, c = v % w;
            if (g[r][c] == 'E') { ans = dist[v]; break; }
            for (int d = 0; d < 4; d++) {
                int nr = r, nc = c; bool moved = false;
                while (true) {
                    int tr = nr + dr[d], tc = nc + dc[d];
                    if (tr < 0 || tc < 0 || tr >= h || tc >= w || g[tr][tc] == '#') break;
                    nr = tr; nc = tc; moved = true;
                    if (g[nr][nc] != '.') break;
                }
                int u = nr * w + nc;
                if (moved && dist[u] < 0) { dist[u] = dist[v] + 1; q[qt++] = u; }
            }
        }
        printf("%d\n", ans);
    }
}
