// Theseus and the Minotaur, hand-written as a contest entrant would: BFS
// over (Theseus, Minotaur) cells. Theseus steps or waits; the Minotaur then
// takes two steps, each closing the column gap if it can, else the row gap,
// else staying; Theseus may not end where the Minotaur is, unless on the
// exit. Input as puzzles/minotaur.puz reads it.
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
        static char buf[1 << 16];
        for (int r = 0; r < h; r++) { scanf("%s", buf); g[r] = buf; }
        int n = h * w, th = -1, mi = -1;
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) {
            if (g[r][c] == 'T') th = r * w + c;
            if (g[r][c] == 'M') mi = r * w + c;
        }
        auto open = [&](int r, int c) { return r >= 0 && c >= 0 && r < h && c < w && g[r][c] != '#'; };
        vector<int> dist((size_t)n * n, -1);
        vector<int> q;
        q.reserve(n);
        int ans = -1;
        size_t s0 = (size_t)th * n + mi;
        if (th != mi) { dist[s0] = 0; q.push_back((int)s0); }
        const int dr[5] = {-1, 0, 1, 0, 0}, dc[5] = {0, 1, 0, -1, 0};
        for (size_t qh = 0; qh < q.size() && ans < 0; qh++) {
            int s = q[qh], a = s / n, m = s % n;
            int ar = a / w, ac = a % w;
            if (g[ar][ac] == 'E') { ans = dist[s]; break; }
            for (int d = 0; d < 5; d++) {
                int tr = ar + dr[d], tc = ac + dc[d];
                if (d < 4 && !open(tr, tc)) continue;
                int mr = m / w, mc = m % w;
                for (int k = 0; k < 2; k++) {
                    if (tc > mc && open(mr, mc + 1)) mc++;
                    else if (tc < mc && open(mr, mc - 1)) mc--;
                    else if (tr > mr && open(mr + 1, mc)) mr++;
                    else if (tr < mr && open(mr - 1, mc)) mr--;
                }
                if (tr == mr && tc == mc && g[tr][tc] != 'E') continue;
                size_t u = (size_t)(tr * w + tc) * n + (mr * w + mc);
                if (dist[u] < 0) { dist[u] = dist[s] + 1; q.push_back((int)u); }
            }
        }
        printf("%d\n", ans);
    }
}
