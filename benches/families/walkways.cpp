// Moving walkways, hand-written as a contest entrant would: BFS over
// (cell, boarding pass), each step followed by the walkways carrying the
// traveller on until nothing carries it further (a loop: no step). Input
// as puzzles/walkways.puz reads it.
#include <cstdio>
#include <vector>
#include <string>
using namespace std;
int main() {
    int h, w;
    while (scanf("%d %d", &h, &w) == 2 && (h || w)) {
        vector<string> g(h);
        vector<char> buf(w + 16);
        for (int r = 0; r < h; r++) { scanf("%s", buf.data()); g[r] = buf.data(); }
        int n = h * w, s = -1;
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++)
            if (g[r][c] == 'T') s = r * w + c;
        // The carry of step `stamp` has been at (cell, pass) when seen[] is it.
        vector<int> seen(2 * n, -1);
        int stamp = 0;
        auto open = [&](int r, int c, int pass) {
            if (r < 0 || c < 0 || r >= h || c >= w) return false;
            char x = g[r][c];
            return x != '#' && (x != 'D' || pass);
        };
        vector<int> dist(2 * n, -1), q(2 * n);
        int qh = 0, qt = 0, ans = -1;
        dist[s] = 0; q[qt++] = s;
        const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
        while (qh < qt) {
            int v = q[qh++], pass = v / n, r = v % n / w, c = v % n % w;
            if (g[r][c] == 'G') { ans = dist[v]; break; }
            for (int d = 0; d < 4; d++) {
                int nr = r + dr[d], nc = c + dc[d], np = pass;
                if (!open(nr, nc, np)) continue;
                if (g[nr][nc] == 'P') np = 1;
                bool loop = false;
                stamp++;
                while (true) {
                    char x = g[nr][nc];
                    int e = x == '^' ? 0 : x == '>' ? 1 : x == 'v' ? 2 : x == '<' ? 3 : -1;
                    if (e < 0 || !open(nr + dr[e], nc + dc[e], np)) break;
                    int here = np * n + nr * w + nc;
                    if (seen[here] == stamp) { loop = true; break; }
                    seen[here] = stamp;
                    nr += dr[e]; nc += dc[e];
                    if (g[nr][nc] == 'P') np = 1;
                }
                if (loop) continue;
                int u = np * n + nr * w + nc;
                if (dist[u] < 0) { dist[u] = dist[v] + 1; q[qt++] = u; }
            }
        }
        printf("%d\n", ans);
    }
}
