// Robots, hand-written: BFS over the robots' cells (red first) packed in a
// 64-bit key, a hash set of seen states, each robot sliding until a wall,
// the edge or another robot. Input as puzzles/robots.puz reads it.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <string>
#include <unordered_map>
using namespace std;
int main() {
    int t;
    if (scanf("%d", &t) != 1) return 0;
    while (t--) {
        int h, w, k;
        scanf("%d %d %d", &h, &w, &k);
        vector<string> g(h);
        char buf[1 << 12];
        for (int r = 0; r < h; r++) { scanf("%s", buf); g[r] = buf; }
        int n = k + 1;
        vector<int> pos(n);
        for (int r = 0; r < h; r++) for (int c = 0; c < w; c++) {
            char ch = g[r][c];
            if (ch == 'R') pos[0] = r * w + c;
            else if (ch >= '1' && ch <= '9') pos[ch - '0'] = r * w + c;
        }
        auto pack = [&](const vector<int>& p) { uint64_t x = 0; for (int i = n - 1; i >= 0; i--) x = x * 1024 + p[i]; return x; };
        auto unpack = [&](uint64_t x, vector<int>& p) { for (int i = 0; i < n; i++) { p[i] = x % 1024; x /= 1024; } };
        unordered_map<uint64_t, int> dist;
        vector<uint64_t> q;
        uint64_t s0 = pack(pos);
        dist[s0] = 0; q.push_back(s0);
        const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
        int ans = -1;
        vector<int> p(n);
        for (size_t qh = 0; qh < q.size(); qh++) {
            uint64_t s = q[qh];
            int d0 = dist[s];
            unpack(s, p);
            if (g[p[0] / w][p[0] % w] == 'X') { ans = d0; break; }
            for (int i = 0; i < n; i++) for (int d = 0; d < 4; d++) {
                int r = p[i] / w, c = p[i] % w;
                while (true) {
                    int tr = r + dr[d], tc = c + dc[d];
                    if (tr < 0 || tc < 0 || tr >= h || tc >= w || g[tr][tc] == '#') break;
                    bool taken = false;
                    for (int j = 0; j < n; j++) if (p[j] == tr * w + tc) taken = true;
                    if (taken) break;
                    r = tr; c = tc;
                }
                if (r * w + c == p[i]) continue;
                int old = p[i]; p[i] = r * w + c;
                uint64_t u = pack(p);
                p[i] = old;
                if (!dist.count(u)) { dist[u] = d0 + 1; q.push_back(u); }
            }
        }
        printf("%d\n", ans);
    }
}
