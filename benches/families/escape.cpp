// Escape, hand-written as a contest entrant would: BFS over cells, each move
// sliding cell by cell until a rock stops it or snow catches it; a move over
// the edge of the map (or onto a '~' of the map) escapes. Input as
// puzzles/escape.puz reads it.
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
        // Distances are handed out in increasing order: the first one given
        // to the shore is the answer.
        while (qh < qt && ans < 0) {
            int v = q[qh++], r = v / w, c = v % w;
            for (int d = 0; d < 4 && ans < 0; d++) {
                int nr = r, nc = c; bool moved = false, off = false;
                while (true) {
                    int tr = nr + dr[d], tc = nc + dc[d];
                    if (tr < 0 || tc < 0 || tr >= h || tc >= w) { off = true; break; }
                    if (g[tr][tc] == '#') break;
                    nr = tr; nc = tc; moved = true;
                    if (g[nr][nc] != '.') break;
                }
                int u = nr * w + nc;
                if (off || (moved && g[nr][nc] == '~')) ans = dist[v] + 1;
                else if (moved && dist[u] < 0) { dist[u] = dist[v] + 1; q[qt++] = u; }
            }
        }
        printf("%d\n", ans);
    }
}
