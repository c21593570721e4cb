// The horse of Chinese chess, hand-written as a contest entrant would: BFS
// over points, the eight knight's leaps, each only when the point next to
// the horse in the leap's long direction holds no stone, never landing on
// a stone. Input as puzzles/horse.puz reads it.
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
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) if (g[r][c] == 'H') s = r * w + c;
        vector<int> dist(h * w, -1), q(h * w);
        int qh = 0, qt = 0, ans = -1;
        dist[s] = 0; q[qt++] = s;
        const int dr[8] = {-2, -2, 2, 2, -1, 1, -1, 1}, dc[8] = {-1, 1, -1, 1, -2, -2, 2, 2};
        const int lr[8] = {-1, -1, 1, 1, 0, 0, 0, 0}, lc[8] = {0, 0, 0, 0, -1, -1, 1, 1};
        while (qh < qt) {
            int v = q[qh++], r = v / w, c = v % w;
            if (g[r][c] == 'S') { ans = dist[v]; break; }
            for (int d = 0; d < 8; d++) {
                int nr = r + dr[d], nc = c + dc[d];
                if (nr < 0 || nc < 0 || nr >= h || nc >= w || g[nr][nc] == 'x') continue;
                if (g[r + lr[d]][c + lc[d]] == 'x') continue;
                int u = nr * w + nc;
                if (dist[u] < 0) { dist[u] = dist[v] + 1; q[qt++] = u; }
            }
        }
        printf("%d\n", ans);
    }
}
