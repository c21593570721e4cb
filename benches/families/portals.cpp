// Portals, hand-written: BFS over (cell, key held); stepping onto a
// teleporter's end lands on its other end. Input as puzzles/portals.puz
// reads it.
#include <cstdio>
#include <vector>
#include <string>
using namespace std;
int main() {
    int h, w;
    char buf[1 << 16];
    while (scanf("%d %d", &h, &w) == 2 && (h || w)) {
        vector<string> g(h);
        for (int r = 0; r < h; r++) { scanf("%s", buf); g[r] = buf; }
        vector<int> other(h * w, -1), first(26, -1);
        int s = -1;
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) {
            char ch = g[r][c]; int v = r * w + c;
            if (ch == 'S') s = v;
            if (ch >= 'a' && ch <= 'e') {
                int l = ch - 'a';
                if (first[l] < 0) first[l] = v; else { other[v] = first[l]; other[first[l]] = v; }
            }
        }
        vector<int> dist(h * w * 2, -1), q(h * w * 2);
        int qh = 0, qt = 0, ans = -1;
        dist[s * 2] = 0; q[qt++] = s * 2;
        const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
        while (qh < qt) {
            int x = q[qh++], v = x / 2, key = x % 2, r = v / w, c = v % w;
            if (g[r][c] == 'E') { ans = dist[x]; break; }
            for (int d = 0; d < 4; d++) {
                int nr = r + dr[d], nc = c + dc[d];
                if (nr < 0 || nc < 0 || nr >= h || nc >= w) continue;
                char ch = g[nr][nc];
                if (ch == '#' || (ch == 'D' && !key)) continue;
                int nk = key || ch == 'k';
                int u = nr * w + nc;
                if (other[u] >= 0) u = other[u];
                int y = u * 2 + nk;
                if (dist[y] < 0) { dist[y] = dist[x] + 1; q[qt++] = y; }
            }
        }
        printf("%d\n", ans);
    }
}
